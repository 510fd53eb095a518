"""What may be shown: the public view of a live game, and the full deal once a game
is over (RULES.md "What a player or spectator may see").

The public view is the only thing the service sends about a live game, to its player,
an opponent or a spectator alike: face-up tableau cards, face-down counts, the stock's
count, the waste's count and visible fan, and each foundation's top card.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .cards import CARD_NAMES, RANK, SUIT, SUITS, Card, card_name, make_card
from .game import Game

#: A face-up card the viewer may not know (races: not yet seen in the viewer's own
#: game): no name, suit, rank or colour.
UNSEEN: Final = "??"
ALL_CARDS: Final = (1 << 52) - 1
_CARD_OF_NAME: Final[dict[str, Card]] = {name: card for card, name in enumerate(CARD_NAMES)}


def format_score(score: int, vegas: bool) -> str:
    """Scores as the app shows them: ``625``; Vegas ``+$208``, ``$0``, ``-$52``."""
    if not vegas:
        return str(score)
    if score > 0:
        return f"+${score}"
    if score < 0:
        return f"-${-score}"
    return "$0"


def _names(cards: list[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def hidden_cards(game: Game) -> set[Card]:
    """The cards nobody may see while the game is live: face down or in the stock."""
    hidden = set(game.stock)
    for col, down in zip(game.columns, game.down):
        hidden.update(col[:down])
    return hidden


def visible_cards(game: Game) -> set[Card]:
    """The cards the public view names."""
    shown = set(game.visible_waste())
    for col, down in zip(game.columns, game.down):
        shown.update(col[down:])
    shown.update(make_card(rank, suit) for suit, rank in enumerate(game.foundations) if rank)
    return shown


def card_mask(cards: Iterable[Card]) -> int:
    """A set of cards as 52 bits (bit ``c`` for card ``c``)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def face_up_mask(game: Game) -> int:
    """The cards the public view names now: what a player has seen, once added up
    over every position of their game."""
    return card_mask(visible_cards(game))


def _known_name(name: str | None, known: int) -> str | None:
    if name is None:
        return None
    return name if known >> _CARD_OF_NAME[name] & 1 else UNSEEN


def _known_run(top: str | None, known: int) -> str | None:
    """A foundation shows by suit only the unbroken run from its Ace the viewer has
    seen: the run's top, or nothing."""
    if top is None:
        return None
    card = _CARD_OF_NAME[top]
    shown = None
    for rank in range(1, RANK[card] + 1):
        candidate = make_card(rank, SUIT[card])
        if not known >> candidate & 1:
            break
        shown = candidate
    return card_name(shown) if shown is not None else None


def redact_view(view: dict[str, Any], known: int) -> dict[str, Any]:
    """A public view with every card outside ``known`` as :data:`UNSEEN`; foundations
    by the run the viewer has seen (``foundation_count`` stays the true total)."""
    if known == ALL_CARDS:
        return view
    redacted = dict(view)
    redacted["tableau"] = [{**column, "up": [_known_name(n, known) for n in column["up"]]}
                           for column in view["tableau"]]
    redacted["waste"] = {**view["waste"], "visible": [_known_name(n, known) for n in view["waste"]["visible"]]}
    redacted["foundations"] = {suit: _known_run(top, known) for suit, top in view["foundations"].items()}
    return redacted


def redact_action(action: dict[str, Any], known: int) -> dict[str, Any]:
    """A move's card as :data:`UNSEEN` when the viewer may not know it."""
    card = action.get("card")
    if card is None or card == UNSEEN or known == ALL_CARDS:
        return action
    return {**action, "card": _known_name(card, known)}


def _foundation_tops(game: Game) -> dict[str, str | None]:
    return {
        SUITS[suit]: card_name(make_card(rank, suit)) if rank else None
        for suit, rank in enumerate(game.foundations)
    }


def _header(game: Game) -> dict[str, Any]:
    return {
        "draw": game.draw,
        "scoring": game.scoring.value,
        "ranked": game.ranked,
        "score": game.score,
        "score_text": format_score(game.score, game.vegas),
        "moves": game.moves,
        "passes": game.passes,
        "won": game.won,
        "foundations": _foundation_tops(game),
        "foundation_count": game.foundation_count,
    }


def public_view(game: Game) -> dict[str, Any]:
    """The view of a live game: nothing face down, no stock order."""
    view = _header(game)
    view["tableau"] = [
        {"down": down, "up": _names(col[down:])} for col, down in zip(game.columns, game.down)
    ]
    view["stock"] = {"count": len(game.stock)}
    view["waste"] = {"count": len(game.waste), "visible": _names(game.visible_waste())}
    view["can_undo"] = game.can_undo()
    view["can_recycle"] = game.can_recycle()
    return view


def full_view(game: Game) -> dict[str, Any]:
    """Every card, for a finished game only (the service must not call it earlier):
    columns bottom → top with their face-down count, the stock next drawn first, the
    waste bottom → top."""
    view = _header(game)
    view["tableau"] = [
        {"down": down, "cards": _names(col)} for col, down in zip(game.columns, game.down)
    ]
    view["stock"] = _names(game.stock[::-1])
    view["waste"] = _names(game.waste)
    return view


def deal_json(game: Game) -> dict[str, Any]:
    """The opening layout in the operators' CLI shape (``klondike deal --json``)."""
    return {
        "code": str(game.code) if game.code else None,
        "draw": game.draw,
        "scoring": game.scoring.value,
        "tableau": [_names(col) for col in game.columns],
        "stock": _names(game.stock[::-1]),
    }


def board_text(game: Game) -> str:
    """The board as text for a terminal: face-down cards as ``##``."""
    lines = []
    if game.code:
        lines.append(f"{game.code}  draw {game.draw}, {game.scoring.value} scoring")
    tops = " ".join(name or "--" for name in _foundation_tops(game).values())
    waste = " ".join(_names(game.visible_waste())) or "--"
    lines.append(f"stock {len(game.stock):2d}   waste {waste:<9}   foundations {tops}")
    lines.append("   ".join(f"t{i + 1}" for i in range(7)))
    height = max(len(col) for col in game.columns) if any(game.columns) else 0
    for row in range(height):
        cells = []
        for col, down in zip(game.columns, game.down):
            if row >= len(col):
                cells.append("  ")
            else:
                cells.append("##" if row < down else card_name(col[row]))
        lines.append("   ".join(cells).rstrip())
    lines.append(f"score {format_score(game.score, game.vegas)}   moves {game.moves}")
    return "\n".join(lines)
