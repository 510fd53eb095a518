"""What a viewer may see of a game at this moment: decided here, once, and applied by
every channel (the REST game, race, replay and lobby answers, the game, race and lobby
sockets, the boards). The rule book's "What a player or spectator may see" says what;
``sight`` decides who is who, ``seen`` gives the game as that viewer may see it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine import full_view, public_view
from games.errors import ServiceError
from games.models import Game, Race, RaceEntry

PLAYER = "player"        # the game's own player
RACER = "racer"          # another racer of the game's race, while it runs
SPECTATOR = "spectator"  # anyone else: signed in or not, a racer's second account too


@dataclass(frozen=True)
class Actor:
    """Who is asking: an account, or a guest identified by their session's key."""

    user_id: int | None = None
    guest_key: str = ""

    def owns(self, game: Game) -> bool:
        if self.user_id is not None:
            return game.owner_id == self.user_id
        return bool(self.guest_key) and game.owner_id is None and game.guest_key == self.guest_key


ANONYMOUS = Actor()


@dataclass(frozen=True)
class Sight:
    """How one viewer sees one game now."""

    role: str
    delay: int = 0         # events held back: a race's spectator delay while it runs
    reveal: bool = False   # every card: the game and its competition are over

    def shown(self, seq: int) -> int:
        """The last event this viewer may see of a game at event ``seq``."""
        return max(0, seq - self.delay)

    def view(self, engine: EngineGame) -> dict[str, Any]:
        return full_view(engine) if self.reveal else public_view(engine)


def racers(race: Race) -> frozenset[int]:
    return frozenset(RaceEntry.objects.filter(race=race).values_list("user_id", flat=True))


def sight(game: Game, actor: Actor, *, race_players: frozenset[int] | None = None) -> Sight:
    """The viewer's sight of ``game``; refused (``daily_hidden``) when it may not be
    seen at all. ``race_players``: the race's user ids, when the caller has them."""
    reveal = game.reveals_everything
    if actor.owns(game):
        return Sight(PLAYER, 0, reveal)
    if game.daily_secret:
        raise ServiceError("daily_hidden", "another player's daily attempt can be seen once the day is over", 403)
    race = game.race if game.race_id is not None else None
    if race is None or race.status != Race.Status.STARTED:
        return Sight(SPECTATOR, 0, reveal)
    players = race_players if race_players is not None else racers(race)
    if actor.user_id is not None and actor.user_id in players:
        return Sight(RACER, 0, False)
    return Sight(SPECTATOR, race.spectator_delay, False)


@dataclass
class SeenGame:
    """A game's progress as one viewer may see it: now, or ``delay`` events ago."""

    game: Game
    sight: Sight
    seq: int
    score: int
    moves: int
    foundation_count: int
    status: str
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    _engine: EngineGame | None = None

    @property
    def engine(self) -> EngineGame:
        if self._engine is None:
            self._engine = self.game.engine()
        return self._engine

    @property
    def view(self) -> dict[str, Any]:
        return self.sight.view(self.engine)

    @property
    def seconds(self) -> float | None:
        """The clock: first action to the end, or to now."""
        if self.started_at is None:
            return None
        end = self.finished_at or timezone.now()
        return (end - self.started_at).total_seconds()

    @property
    def delayed_by(self) -> int:
        return self.game.seq - self.seq


def seen(game: Game, sight: Sight, engine: EngineGame | None = None) -> SeenGame:
    """``game`` as the viewer with ``sight`` may see it. ``engine``: the game's current
    engine when the caller has it (ignored for a delayed view)."""
    shown = sight.shown(game.seq)
    if shown == game.seq:
        return SeenGame(game, sight, game.seq, game.score, game.moves, game.foundation_count, game.status,
                        game.started_at, game.finished_at, engine)
    # Held back: the board, counters and status as they were after event ``shown``.
    # A game only ends with its last event, so an earlier one is live.
    then = game.engine_after(shown)
    return SeenGame(game, sight, shown, then.score, then.moves, then.foundation_count, Game.Status.LIVE,
                    game.started_at if shown else None, None, then)


def seen_by(game: Game, actor: Actor, engine: EngineGame | None = None, **kwargs: Any) -> SeenGame:
    return seen(game, sight(game, actor, **kwargs), engine)
