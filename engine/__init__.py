"""The Klondike engine: a pure-Python package (it imports nothing from Django).

Rules, deal codes, scoring, undo and views live here once; the REST API, the
WebSocket layer, the solver and the tests all call it::

    >>> from engine import Game, Move
    >>> game = Game.new("KL1-D1N-AAAAAAG")
    >>> outcome = game.apply(Move.from_json({"type": "draw"}))
    >>> outcome.moves
    1
"""

from .cards import Card, card_name, parse_card
from .deal import MAX_DEAL_NUMBER, DealCode, DealCodeError, Scoring, layout, shuffled_deck
from .game import UNDO_LIMIT, Game, Outcome, replay
from .moves import FOUNDATION, TABLEAU, Move, MoveError
from .serial import from_bytes, to_bytes
from .views import board_text, deal_json, format_score, full_view, public_view

__all__ = [
    "Card", "card_name", "parse_card",
    "MAX_DEAL_NUMBER", "DealCode", "DealCodeError", "Scoring", "layout", "shuffled_deck",
    "Game", "Outcome", "replay", "UNDO_LIMIT",
    "Move", "MoveError", "FOUNDATION", "TABLEAU",
    "from_bytes", "to_bytes",
    "board_text", "deal_json", "format_score", "full_view", "public_view",
]
