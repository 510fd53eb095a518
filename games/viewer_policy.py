"""What a viewer may see of a game at this moment: decided here, once, and applied by
every channel (the REST game, race, replay and lobby answers, the game, race and lobby
sockets, the boards). The rule book's "What a player or spectator may see" says what;
``sight`` decides who is who, ``seen`` gives the game as that viewer may see it.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import Game as EngineGame
from engine import full_view, public_view
from engine.views import ALL_CARDS, face_up_mask, redact_action, redact_view
from api.errors import ServiceError
from games.models import Game, Move

if TYPE_CHECKING:  # a game may be in a race (races.models): read through game.race, never imported
    from races.models import Race

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
    known: int | None = None  # a fair race: the only cards that may be named (52 bits)

    def shown(self, seq: int) -> int:
        """The last event this viewer may see of a game at event ``seq``."""
        return max(0, seq - self.delay)

    def view(self, engine: EngineGame) -> dict[str, Any]:
        if self.reveal:
            return full_view(engine)
        view = public_view(engine)
        return view if self.known is None else redact_view(view, self.known)

    def action(self, action: dict[str, Any]) -> dict[str, Any]:
        return action if self.known is None else redact_action(action, self.known)


@dataclass(frozen=True)
class RacerGame:
    """One racer's game, as far as the policy needs it."""

    game_id: str
    owner_id: int
    seq: int
    live: bool
    cards_seen: int


def racer_games(race: Race) -> list[RacerGame]:
    rows = Game.objects.filter(race=race).values_list("id", "owner_id", "seq", "status", "cards_seen")
    return [RacerGame(str(pk), owner, seq, status == Game.Status.LIVE, seen) for pk, owner, seq, status, seen in rows]


def opening_cards(race: Race) -> int:
    """The cards face up when the race's deal is dealt: every racer has seen them."""
    return face_up_mask(EngineGame.new(race.code, ranked=True))


def known_cards(own: tuple[int, bool] | None, racers_then: list[tuple[int, bool]]) -> int:
    """The rule (RULES.md, "one deal, many players"), from ``(cards_seen, live)``
    pairs: a racer still playing (``own``) may be told the cards they have seen; anyone
    else the cards every racer still playing had seen at the moment shown."""
    if own is not None and own[1]:
        return own[0]
    known = ALL_CARDS
    for seen, live in racers_then:
        if live:
            known &= seen
    return known


def common_knowledge(race: Race, racers: list[RacerGame], delay: int = 0) -> int:
    """The cards every racer still playing has seen: what a spectator may be told.
    With a delay, each racer as of ``delay`` events ago (a game shown before its
    last event was still being played)."""
    then: list[tuple[int, bool]] = []
    earlier: dict[str, int] = {}
    for racer in racers:
        shown = max(0, racer.seq - delay)
        if shown == racer.seq:
            then.append((racer.cards_seen, racer.live))
        else:
            earlier[racer.game_id] = shown
    if earlier:
        wanted = Q()
        for game_id, seq in earlier.items():
            wanted |= Q(game_id=game_id, seq=seq)
        masks = {str(g): m for g, m in Move.objects.filter(wanted).values_list("game_id", "cards_seen")}
        opening = opening_cards(race) if 0 in earlier.values() else 0
        # A game shown before its last event was still being played then.
        then.extend((masks.get(game_id, opening), True) for game_id in earlier)
    return known_cards(None, then)


def sight(game: Game, actor: Actor, *, racers: list[RacerGame] | None = None) -> Sight:
    """The viewer's sight of ``game``; refused (``daily_hidden``) when it may not be
    seen at all. ``racers``: the race's games, when the caller has them.

    In a running race (RULES.md, "one deal, many players") a racer still playing sees
    the others live, naming only the cards they have seen in their own game; anyone
    else (a racer who has finished too) sees each board ``spectator_delay`` events
    late, naming the cards every racer still playing had seen then. Open boards
    (unrated races only) name every card."""
    reveal = game.reveals_everything
    if actor.owns(game):
        return Sight(PLAYER, 0, reveal)
    if game.daily_secret:
        raise ServiceError("daily_hidden", _("another player's daily attempt can be seen once the day is over"), 403)
    race = game.race if game.race_id is not None else None
    if race is None or race.status != race.Status.STARTED:
        return Sight(SPECTATOR, 0, reveal)
    racers = racers if racers is not None else racer_games(race)
    own = next((r for r in racers if r.owner_id == actor.user_id), None) if actor.user_id is not None else None
    if own is not None and own.live:
        return Sight(RACER, 0, False, None if race.open_boards else known_cards((own.cards_seen, True), []))
    delay = race.spectator_delay
    return Sight(SPECTATOR, delay, False, None if race.open_boards else common_knowledge(race, racers, delay))


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


# --- sockets: the same rule, kept up to date from the racers' events ---------------------


class RaceKnowledge:
    """What the racers of a running race have seen, as one socket follows it: each
    game's ``cards_seen`` and status from its events as they arrive (no query per
    event), the last ``delay`` of them kept so that a spectator is told the names as
    they could be shown that many events ago. :meth:`known` applies the rule of
    :func:`known_cards`, as :func:`sight` does for a request."""

    def __init__(self, *, own_game: str | None, delay: int, opening: int,
                 games: dict[str, list[tuple[int, int, bool]]]) -> None:
        self.own_game, self.delay, self.opening = own_game, delay, opening
        # Per game: (seq, cards_seen, live) of its latest events, oldest first.
        self.history = {game: deque(events, maxlen=delay + 1) for game, events in games.items()}
        # known() until the next update: a socket asks several times per event.
        self._known: int | None = None

    def update(self, game_id: str, seq: int, seen: int, live: bool) -> None:
        history = self.history.get(game_id)
        if history is not None and (not history or seq > history[-1][0]):
            history.append((seq, seen, live))
            self._known = None

    def _now(self, game_id: str) -> tuple[int, bool]:
        history = self.history[game_id]
        return (history[-1][1], history[-1][2]) if history else (self.opening, True)

    def _then(self, game_id: str) -> tuple[int, bool]:
        history = self.history[game_id]
        if not history or not self.delay:
            return self._now(game_id)
        wanted = history[-1][0] - self.delay
        for seq, seen, _unused in reversed(history):
            if seq <= wanted:
                return seen, True  # shown before its last event: still being played then
        return self.opening, True  # nothing kept that old: the deal's own (fewest) cards

    def known(self) -> int:
        if self._known is None:
            own = self._now(self.own_game) if self.own_game in self.history else None
            if own is not None and own[1]:
                self._known = own[0]
            else:
                self._known = known_cards(None, [self._then(game) for game in self.history])
        return self._known


def race_knowledge(race: Race, actor: Actor) -> RaceKnowledge | None:
    """A socket's starting knowledge of ``race`` (None: every name may be shown)."""
    if race.status != race.Status.STARTED or race.open_boards:
        return None
    racers = racer_games(race)
    own = next((r.game_id for r in racers if r.owner_id == actor.user_id), None) if actor.user_id else None
    delay = race.spectator_delay
    games: dict[str, list[tuple[int, int, bool]]] = {r.game_id: [] for r in racers}
    if delay:
        recent = Q()
        for racer in racers:
            recent |= Q(game_id=racer.game_id, seq__gt=racer.seq - delay - 1, seq__lt=racer.seq)
        for game_id, seq, seen in Move.objects.filter(recent).order_by("seq").values_list("game_id", "seq", "cards_seen"):
            games[str(game_id)].append((seq, seen, True))
    for racer in racers:
        games[racer.game_id].append((racer.seq, racer.cards_seen, racer.live))
    return RaceKnowledge(own_game=own, delay=delay, opening=opening_cards(race), games=games)


def render(message: dict[str, Any], known: int | None) -> dict[str, Any]:
    """A stream's message as its viewer may receive it: internal fields (``_seen``,
    ``_live``) dropped; with ``known``, every card outside it as ``UNSEEN``."""
    out = {key: value for key, value in message.items() if not key.startswith("_")}
    if known is None:
        return out
    if isinstance(out.get("action"), dict):
        out["action"] = redact_action(out["action"], known)
    if _is_public(out.get("view")):
        out["view"] = redact_view(out["view"], known)
    game = out.get("game")
    if isinstance(game, dict) and _is_public(game.get("view")):
        out["game"] = {**game, "view": redact_view(game["view"], known)}
    return out


def _is_public(view: Any) -> bool:
    return isinstance(view, dict) and "waste" in view and isinstance(view["waste"], dict)
