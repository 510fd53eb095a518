"""A game's events and boards in the form clients receive them: the REST answer to a
move, the socket's event, a catch-up's events. Built once inside the move's
transaction (games.services) and carried by ``MoveApplied.wire`` to the rooms that
send it (realtime)."""

from __future__ import annotations

from typing import Any

from engine import Game as EngineGame
from games import viewer_policy
from games.models import Game, Move


def view_of(game: Game, engine: EngineGame) -> dict[str, Any]:
    """The board every viewer may see (games.viewer_policy): every card once nothing is
    secret any more, the public view before that. Sockets render it further per viewer."""
    return viewer_policy.Sight(viewer_policy.SPECTATOR, reveal=game.reveals_everything).view(engine)


def event_of(game: Game, row: Move, view: dict[str, Any] | None) -> dict[str, Any]:
    """The wire form of one event. ``view`` is the board after it (omitted for the
    earlier events of a catch-up, whose boards are not needed)."""
    event = {
        "type": "event",
        "game": str(game.id),
        "seq": row.seq,
        "action": row.action,
        "score": row.score,
        "moves": row.moves,
        "at": row.created_at.isoformat(),
    }
    if view is not None:
        event["view"] = view
        event["status"] = game.status
    return event
