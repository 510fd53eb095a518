"""Build engine positions from readable text, for the rule tests."""

from __future__ import annotations

from engine import Game, Scoring, parse_card
from engine.cards import SUITS


def cards(text: str) -> list[int]:
    return [parse_card(name) for name in text.split()]


def position(
    columns: list[str],
    *,
    stock: str = "",
    waste: str = "",
    foundations: dict[str, int] | None = None,
    draw: int = 1,
    scoring: str = "normal",
    ranked: bool = False,
    score: int | None = None,
) -> Game:
    """A mid-game position. Columns are written bottom → top with face-down cards
    marked by ``#`` (``"#2C #3D 9S 8H"``); the stock is written next-drawn first, the
    waste bottom → top; ``foundations`` maps a suit letter to its card count."""
    parsed, down = [], []
    for text in columns + [""] * (7 - len(columns)):
        names = text.split()
        parsed.append([parse_card(name.lstrip("#")) for name in names])
        down.append(sum(name.startswith("#") for name in names))
    game = Game(parsed, down, cards(stock)[::-1], draw=draw, scoring=Scoring(scoring), ranked=ranked)
    game.waste = cards(waste)
    game.fan = min(len(game.waste), draw)
    for suit, count in (foundations or {}).items():
        game.foundations[SUITS.index(suit)] = count
    if score is not None:
        game.score = score
    return game


#: A deal that wins without thinking: the stock holds A…6 of each suit in foundation
#: order, and each column holds one suit's high cards, lowest on top.
EASY_COLUMNS = ["7H", "8D 7D", "9C 8C 7C", "KC QC JC TC", "KD QD JD TD 9D",
                "KH QH JH TH 9H 8H", "KS QS JS TS 9S 8S 7S"]
EASY_STOCK = " ".join(f"{rank}{suit}" for rank in "A23456" for suit in "SHDC")


def easy_game(scoring: str = "normal") -> Game:
    return Game.from_layout([cards(c) for c in EASY_COLUMNS], cards(EASY_STOCK), scoring=scoring)
