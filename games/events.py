"""Game events: built inside the move transaction, published after it commits.

Every event of a game carries the game's sequence number. Redis (the channel layer)
only carries news: a consumer that sees a gap fetches the missing events from
Postgres, and a reconnecting client sends the last number it saw.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.engine import Game as EngineGame
from games.engine import full_view, public_view
from games.models import Game, Move

LOBBY_GROUP = "lobby"


def game_group(game_id: Any) -> str:
    return f"game.{game_id}"


def view_of(game: Game, engine: EngineGame) -> dict[str, Any]:
    """Every card once nothing is secret any more; the public view before that."""
    return full_view(engine) if game.reveals_everything else public_view(engine)


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


def publish_after_commit(game: Game, row: Move, engine: EngineGame) -> None:
    """Queue the event for the game's channel group once the transaction commits."""
    event = event_of(game, row, view_of(game, engine))
    ended = not game.is_live
    transaction.on_commit(lambda: send_group(game_group(game.id), {"type": "game.event", "event": event}))
    if ended or row.seq == 1:
        transaction.on_commit(notify_lobby)
    if game.race_id is not None:
        from games.races import finish_race, race_group

        race_id = game.race_id
        transaction.on_commit(lambda: send_group(race_group(race_id), {"type": "racer.event", "event": event}))
        if ended:
            transaction.on_commit(lambda: finish_race(race_id))


def notify_lobby() -> None:
    send_group(LOBBY_GROUP, {"type": "lobby.changed"})


def send_group(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)
