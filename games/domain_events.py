"""What happened to a game, told to the rooms above it without calling them.

The move service (games.services) and the race service emit events; the leaderboards,
the races and the socket tier subscribe in their ``AppConfig.ready``. So the arrows of
the code point one way (docs/architecture.md): games knows nothing of races or boards.

A subscriber says when it runs:

- ``IN_TRANSACTION``: now, inside the emitter's transaction, so its writes commit or
  roll back with the move (a Vegas balance moves with its game's score). It may refuse
  the action by raising a ``ServiceError`` (a race's clock refuses a late move).
- ``PUBLISH``: once the transaction has committed, before the ``AFTER_COMMIT``
  subscribers: news for the socket tier (realtime.listeners), so that a move's event
  goes out before whatever its commit sets off (the race it ended finishing).
- ``AFTER_COMMIT``: once the transaction has committed (finishing a race when its
  last game ends); never if it rolls back.

Outside a transaction the after-commit subscribers run at once (Django's on_commit).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from games.models import Game, Move

IN_TRANSACTION = "in_transaction"
PUBLISH = "publish"
AFTER_COMMIT = "after_commit"
PHASES = (IN_TRANSACTION, PUBLISH, AFTER_COMMIT)

Handler = Callable[[Any], None]
_subscribers: dict[tuple[type, str], list[Handler]] = defaultdict(list)


def subscribe(event_type: type, handler: Handler, *, when: str) -> None:
    if when not in PHASES:
        raise ValueError(f"when must be one of {PHASES}, not {when!r}")
    if handler not in _subscribers[event_type, when]:
        _subscribers[event_type, when].append(handler)


def unsubscribe(event_type: type, handler: Handler, *, when: str) -> None:
    if handler in _subscribers[event_type, when]:
        _subscribers[event_type, when].remove(handler)


def emit(event: Any) -> None:
    """Run the event's in-transaction subscribers and queue its publish and
    after-commit ones, each phase in the order they subscribed. Inside a transaction
    the queueing comes first, so that this event's news goes out before that of the
    events its in-transaction subscribers emit (a move's before the change of the
    boards it moves); a rollback drops them all."""
    if not transaction.get_connection().in_atomic_block:
        _run_in_transaction(event)
        _queue_after_commit(event)
        return
    _queue_after_commit(event)
    _run_in_transaction(event)


def _run_in_transaction(event: Any) -> None:
    for handler in _subscribers[type(event), IN_TRANSACTION]:
        handler(event)


def _queue_after_commit(event: Any) -> None:
    for phase in (PUBLISH, AFTER_COMMIT):
        for handler in _subscribers[type(event), phase]:
            # News that fails to go out is logged by Django and the commit still
            # answers as a success: viewers catch up from the database.
            transaction.on_commit(lambda handler=handler: handler(event), robust=phase == PUBLISH)


# -- the games' events --------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted:
    """A game was dealt (a race's games too, when the race starts)."""

    game: Game


@dataclass(frozen=True)
class MoveChecked:
    """A move (or resignation) is about to be applied to a live game: a subscriber may
    refuse it with a ``ServiceError``."""

    game: Game


@dataclass(frozen=True)
class MoveApplied:
    """An event was appended to a game: a move, an undo, a resignation, a timeout.
    ``score_change`` is the score's change by this event; ``wire`` the event as its
    game's sockets receive it."""

    game: Game
    move: Move
    score_change: int
    wire: dict[str, Any]

    @property
    def ended_the_game(self) -> bool:
        return not self.game.is_live


@dataclass(frozen=True)
class MoveRefused:
    """A move was refused and its transaction rolled back (emitted after it); ``code``
    is the refusal's error code."""

    game_id: Any
    code: str


@dataclass(frozen=True)
class GamesClaimed:
    """A guest's games now belong to the account that signed up or logged in."""

    user_id: int
    games: list[Game]
