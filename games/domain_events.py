"""What happened to a game, told to the rooms above it without calling them.

The move service (games.services) and the race service emit events; the leaderboards,
the races and the socket tier subscribe in their ``AppConfig.ready``. So the arrows of
the code point one way (docs/architecture.md): games knows nothing of races or boards.

A subscriber says when it runs:

- ``IN_TRANSACTION``: now, inside the emitter's transaction, so its writes commit or
  roll back with the move (a Vegas balance moves with its game's score). It may refuse
  the action by raising a ``ServiceError`` (a race's clock refuses a late move).
- ``AFTER_COMMIT``: once the transaction has committed (news for sockets, finishing a
  race when its last game ends); never if it rolls back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from games.models import Game, Move

IN_TRANSACTION = "in_transaction"
AFTER_COMMIT = "after_commit"

Handler = Callable[[Any], None]
_subscribers: dict[tuple[type, str], list[Handler]] = defaultdict(list)


def subscribe(event_type: type, handler: Handler, *, when: str) -> None:
    if when not in (IN_TRANSACTION, AFTER_COMMIT):
        raise ValueError(f"when must be {IN_TRANSACTION!r} or {AFTER_COMMIT!r}, not {when!r}")
    if handler not in _subscribers[event_type, when]:
        _subscribers[event_type, when].append(handler)


def emit(event: Any) -> None:
    """Run the event's in-transaction subscribers now, in the order they subscribed,
    and queue the after-commit ones."""
    for handler in _subscribers[type(event), IN_TRANSACTION]:
        handler(event)
    for handler in _subscribers[type(event), AFTER_COMMIT]:
        transaction.on_commit(lambda handler=handler: handler(event))


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
