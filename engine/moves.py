"""Moves: the wire format of the whole service, as small value types.

JSON forms (``Move.from_json`` / ``Move.to_json``)::

    {"type": "draw"}    {"type": "recycle"}    {"type": "undo"}
    {"type": "move", "card": "9S", "to": "t4"}   # to: t1…t7, foundation, tableau

``"foundation"`` sends the card to its suit's foundation (a tap); ``"tableau"`` lets
the engine choose a column (a double tap, RULES.md "Smart destinations"). Applied
moves are reported in canonical form, with a concrete destination.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .cards import Card, any_case, card_name, parse_card, spaced
from .text import Text, gettext_noop

DRAW: Final = "draw"
RECYCLE: Final = "recycle"
UNDO: Final = "undo"
MOVE: Final = "move"

#: Destinations: ``0..6`` are the columns t1…t7.
FOUNDATION: Final = 7
TABLEAU: Final = 8

_TARGET_NAMES: Final = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "foundation", "tableau")
_TARGETS: Final = {name: index for index, name in enumerate(_TARGET_NAMES)}
_SIMPLE_KINDS: Final = (DRAW, RECYCLE, UNDO)
#: What a move's ``to`` takes (``"t4"``, ``" Foundation"``); pinned by tests/config/test_api_contract.py.
DESTINATION_PATTERN: Final = spaced("(?:" + "|".join(
    [any_case("t") + "[1-7]", *(any_case(name) for name in _TARGET_NAMES[FOUNDATION:])]) + ")")


class MoveError(Exception):
    """A move that is malformed or refused. ``code`` is stable and machine-readable;
    ``detail`` is a sentence for the player (a :class:`~engine.text.Text`, which the
    edges render in the player's language). A refused move changes nothing."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail

    def to_json(self) -> dict[str, str]:
        return {"error": self.code, "detail": self.detail}


class Move(NamedTuple):
    """One action. ``card`` and ``to`` are used by ``kind == "move"`` only."""

    kind: str
    card: Card = -1
    to: int = -1

    @classmethod
    def draw(cls) -> "Move":
        return DRAW_MOVE

    @classmethod
    def to_column(cls, card: Card, column: int) -> "Move":
        return cls(MOVE, card, column)

    @classmethod
    def from_json(cls, data: Any) -> "Move":
        """Parse the wire format; raises :class:`MoveError` (``bad_move``)."""
        if not isinstance(data, dict):
            raise MoveError("bad_move", Text(gettext_noop('a move is a JSON object such as {"type": "draw"}')))
        kind = data.get("type")
        if kind in _SIMPLE_KINDS:
            if len(data) != 1:
                # Translators: %(kind)s is the move type as sent (draw, recycle or undo); "type" is a JSON key.
                raise MoveError("bad_move", Text(gettext_noop('a %(kind)s takes no other fields than "type"'), kind=kind))
            return _SIMPLE_MOVES[kind]
        if kind != MOVE:
            # Translators: "draw", "recycle", "undo" and "move" are values of the protocol: keep them as they are.
            raise MoveError("bad_move", Text(gettext_noop('the move type must be "draw", "recycle", "undo" or "move"')))
        if set(data) != {"type", "card", "to"}:
            # Translators: "type", "card" and "to" are JSON keys: keep them as they are.
            raise MoveError("bad_move", Text(gettext_noop('a move needs exactly "type", "card" and "to"')))
        try:
            card = parse_card(data["card"])
        except ValueError:
            raise MoveError("bad_card", Text(gettext_noop("%(card)s is not a card: write it like 9S, TH or AC"),
                                             card=repr(data["card"]))) from None
        to = data["to"]
        target = _TARGETS.get(to.strip().lower()) if isinstance(to, str) and to.isascii() else None
        if target is None:
            # Translators: t1…t7, foundation and tableau are values of the protocol: keep them as they are.
            raise MoveError("bad_destination", Text(gettext_noop("%(to)s is not a destination: use t1…t7, foundation or tableau"),
                                                    to=repr(to)))
        return cls(MOVE, card, target)

    def to_json(self) -> dict[str, str]:
        if self.kind != MOVE:
            return {"type": self.kind}
        return {"type": MOVE, "card": card_name(self.card), "to": _TARGET_NAMES[self.to]}

    def __str__(self) -> str:
        if self.kind != MOVE:
            return self.kind
        return f"{card_name(self.card)}→{_TARGET_NAMES[self.to]}"


DRAW_MOVE: Final = Move(DRAW)
RECYCLE_MOVE: Final = Move(RECYCLE)
UNDO_MOVE: Final = Move(UNDO)
_SIMPLE_MOVES: Final = {DRAW: DRAW_MOVE, RECYCLE: RECYCLE_MOVE, UNDO: UNDO_MOVE}


def target_name(target: int) -> str:
    return _TARGET_NAMES[target]
