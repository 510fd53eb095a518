"""Races: the service functions. Lock order is always race row, then game rows.

A race is open while players join; when every player (at least two) is ready the
server deals one deal to everyone and starts all games at ``starts_at``, after a
countdown. It ends when every racer has won or resigned, or when its clock runs out.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import domain_events, viewer_policy
from engine import DealCode, Scoring, to_bytes
from engine import Game as EngineGame
from engine.views import face_up_mask
from games.models import Game, Move
from races.domain_events import RaceChanged, RaceFinished
from races.models import Race, RaceEntry
from api.errors import ServiceError
from games.viewer_policy import ANONYMOUS, Actor

COUNTDOWN_SECONDS = 5
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_SPECTATOR_DELAY = 50


def phase(race: Race, now: Any = None) -> str:
    """open, countdown, running, finished or cancelled."""
    if race.status != Race.Status.STARTED:
        return race.status
    now = now or timezone.now()
    return "countdown" if now < race.starts_at else "running"


def race_payload(race: Race, actor: Actor = ANONYMOUS) -> dict[str, Any]:
    """The race as ``actor`` may see it: each racer's progress through the viewer
    policy (a spectator of a running race with a delay sees it that many events ago)."""
    now = timezone.now()
    entries = list(race.entries.select_related("user", "game", "game__race", "game__owner"))
    racers = viewer_policy.racer_games(race) if race.status == Race.Status.STARTED else []
    return {
        "id": str(race.id),
        "host": race.host.username,
        "draw": race.draw,
        "scoring": race.scoring,
        "max_players": race.max_players,
        "public": race.public,
        "time_limit": race.time_limit,
        "spectator_delay": race.spectator_delay,
        "phase": phase(race, now),
        "code": race.code if race.status == Race.Status.FINISHED else None,
        "created_at": race.created_at,
        "starts_at": race.starts_at,
        "ends_at": race.ends_at,
        "finished_at": race.finished_at,
        "server_time": now,
        "rated": race.rated,
        "open_boards": race.open_boards,
        "rematch": str(race.rematch_id) if race.rematch_id else None,
        "entries": [entry_payload(e, actor, racers) for e in entries],
    }


def entry_payload(entry: RaceEntry, actor: Actor = ANONYMOUS,
                  racers: list[viewer_policy.RacerGame] | None = None) -> dict[str, Any]:
    game = entry.game
    shown = viewer_policy.seen_by(game, actor, racers=racers) if game else None
    return {
        "player": entry.user.username,
        "ready": entry.ready,
        "game": str(game.id) if game else None,
        "status": shown.status if shown else None,
        "seq": shown.seq if shown else 0,
        "foundation_count": shown.foundation_count if shown else 0,
        "score": shown.score if shown else 0,
        "moves": shown.moves if shown else 0,
        "rank": entry.rank,
        "won": entry.won,
        "seconds": entry.seconds,
        "rematch": entry.rematch,
    }


def _locked_race(race_id: Any) -> Race:
    try:
        return Race.objects.select_for_update().select_related("host").get(pk=race_id)
    except (Race.DoesNotExist, ValueError):
        raise ServiceError("not_found", _("there is no such race"), 404) from None


def _announce(race: Race) -> None:
    domain_events.emit(RaceChanged(race.id, finished=race.status == Race.Status.FINISHED))


def create_race(user: Any, *, draw: int = 1, scoring: str = "normal", max_players: int = MAX_PLAYERS,
                public: bool = True, time_limit: int = 600, spectator_delay: int = 0, rated: bool = True,
                open_boards: bool = False) -> Race:
    if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
        raise ServiceError("invalid", _("a race has %(min)s to %(max)s players")
                           % {"min": MIN_PLAYERS, "max": MAX_PLAYERS})
    if open_boards and rated:
        raise ServiceError("invalid", _("open boards show every card to everyone: only an unrated race may have them"))
    with transaction.atomic():
        race = Race.objects.create(host=user, draw=draw, scoring=scoring, max_players=max_players,
                                   public=public, time_limit=time_limit, spectator_delay=spectator_delay,
                                   rated=rated, open_boards=open_boards)
        RaceEntry.objects.create(race=race, user=user)
        _announce(race)
    return race


def join_race(race_id: Any, user: Any) -> Race:
    with transaction.atomic():
        race = _locked_race(race_id)
        if race.status != Race.Status.OPEN:
            raise ServiceError("race_started", _("this race has already started"), 409)
        if race.entries.filter(user=user).exists():
            raise ServiceError("already_joined", _("you are already in this race"), 409)
        if race.entries.count() >= race.max_players:
            full = ngettext("this race is full (%(count)s player)", "this race is full (%(count)s players)",
                            race.max_players) % {"count": race.max_players}
            raise ServiceError("race_full", full, 409)
        RaceEntry.objects.create(race=race, user=user)
        race.entries.update(ready=False)  # a new opponent: everyone confirms again
        _announce(race)
    return race


def leave_race(race_id: Any, user: Any) -> Race:
    with transaction.atomic():
        race = _locked_race(race_id)
        if race.status != Race.Status.OPEN:
            raise ServiceError("race_started", _("a started race cannot be left: resign instead"), 409)
        deleted, _by_model = race.entries.filter(user=user).delete()
        if not deleted:
            raise ServiceError("not_in_race", _("you are not in this race"), 409)
        remaining = list(race.entries.select_related("user"))
        if not remaining:
            race.status = Race.Status.CANCELLED
        elif race.host_id == user.pk:
            race.host = remaining[0].user
        race.save(update_fields=["status", "host"])
        _announce(race)
    return race


def set_ready(race_id: Any, user: Any, ready: bool = True) -> Race:
    with transaction.atomic():
        race = _locked_race(race_id)
        if race.status != Race.Status.OPEN:
            raise ServiceError("race_started", _("this race has already started"), 409)
        if not race.entries.filter(user=user).update(ready=ready):
            raise ServiceError("not_in_race", _("you are not in this race"), 409)
        entries = list(race.entries.all())
        if len(entries) >= MIN_PLAYERS and all(e.ready for e in entries):
            _start(race, entries)
        _announce(race)
    return race


def _start(race: Race, entries: list[RaceEntry], deal: DealCode | None = None) -> None:
    """Deal the same deal to every racer; the games open at ``starts_at``."""
    _set_started(race, deal or DealCode.random(race.draw, Scoring(race.scoring)), timezone.now())
    race.save(update_fields=["status", "code", "starts_at", "ends_at"])
    _deal_games([(race, entries)])


def _set_started(race: Race, deal: DealCode, now: Any) -> None:
    race.status = Race.Status.STARTED
    race.code = str(deal)
    race.starts_at = now + timedelta(seconds=COUNTDOWN_SECONDS)
    race.ends_at = race.starts_at + timedelta(seconds=race.time_limit)


def _deal_games(started: list[tuple[Race, list[RaceEntry]]]) -> None:
    """Every racer's game of these started races, in one statement for the games and
    one for the entries (a quick-match wave starts many races at once)."""
    now = timezone.now()
    games: list[Game] = []
    for race, entries in started:
        deal = DealCode.parse(race.code)
        engine = EngineGame.new(deal, ranked=True)
        state, seen = to_bytes(engine, history=True), face_up_mask(engine)
        for entry in entries:
            game = Game(owner_id=entry.user_id, race=race, code=race.code, deal_number=deal.number, draw=deal.draw,
                        scoring=deal.scoring.value, kind=Game.Kind.RANKED, ranked_undo=True, public=race.public,
                        score=engine.score, state=state, cards_seen=seen, last_move_at=now)
            game.update_standing()
            entry.game = game
            games.append(game)
    Game.objects.bulk_create(games)
    all_entries = [entry for _, entries in started for entry in entries]
    for entry in all_entries:
        domain_events.emit(domain_events.GameStarted(entry.game))
    RaceEntry.objects.bulk_update(all_entries, ["game"])


def start_races_now(groups: list[list[Any]], *, draw: int, scoring: str, rated: bool = True, time_limit: int = 600,
                    public: bool = True) -> list[Race]:
    """Races of these groups of players that start at once (quick matches, an
    accepted challenge, a rematch), each on a fresh proven-winnable deal, in a few
    statements whatever their number (in the caller's transaction, if any). As many
    races as there were deals ready, in the order of ``groups``; ``503
    no_winnable_deal`` when there was none."""
    from games import winnable_pool

    with transaction.atomic():
        deals = winnable_pool.take_many(draw, scoring, len(groups))
        now = timezone.now()
        races = []
        for users, deal in zip(groups, deals):
            race = Race(host=users[0], draw=draw, scoring=scoring, public=public, rated=rated,
                        max_players=max(MIN_PLAYERS, len(users)), time_limit=time_limit)
            _set_started(race, deal, now)
            races.append(race)
        Race.objects.bulk_create(races)
        started = [(race, [RaceEntry(race=race, user=user, ready=True) for user in users])
                   for race, users in zip(races, groups)]
        RaceEntry.objects.bulk_create([entry for _, entries in started for entry in entries])
        _deal_games(started)
        for race in races:
            _announce(race)
    return races


def start_race_now(users: list[Any], **options: Any) -> Race:
    """One race of these players that starts at once (``start_races_now``)."""
    return start_races_now([users], **options)[0]


def racing_now(user: Any) -> Race | None:
    """The race this player is in and not done with: open, or started with their game
    still live. A player is in one such race at a time (quick match, challenges)."""
    entry = (RaceEntry.objects.filter(user=user)
             .filter(models.Q(race__status=Race.Status.OPEN)
                     | models.Q(race__status=Race.Status.STARTED, game__status=Game.Status.LIVE))
             .select_related("race").order_by("-joined_at").first())
    return entry.race if entry else None


def racing_among(user_ids: list[Any]) -> set[Any]:
    """Which of these players are in a race they are not done with (``racing_now``),
    in one query."""
    return set(RaceEntry.objects.filter(user_id__in=user_ids)
               .filter(models.Q(race__status=Race.Status.OPEN)
                       | models.Q(race__status=Race.Status.STARTED, game__status=Game.Status.LIVE))
               .values_list("user_id", flat=True))


def ensure_free(user: Any) -> None:
    if (race := racing_now(user)) is not None:
        raise ServiceError("already_racing", _("you are already in a race: finish or leave it first"), 409,
                           race=str(race.id))


def confirm_rematch(race_id: Any, user: Any) -> Race:
    """One click of a racer after a finished race: when every racer has confirmed,
    the same players race again on a new deal (``race.rematch``)."""
    with transaction.atomic():
        race = _locked_race(race_id)
        if race.status != Race.Status.FINISHED:
            raise ServiceError("race_not_finished", _("a rematch is offered once the race is finished"), 409)
        if race.rematch_id is not None:
            return race
        entry = race.entries.filter(user=user).first()
        if entry is None:
            raise ServiceError("not_in_race", _("only the racers of this race can ask for a rematch"), 409)
        entry.rematch = True
        entry.save(update_fields=["rematch"])
        entries = list(race.entries.select_related("user"))
        if all(e.rematch for e in entries):
            for other in entries:
                ensure_free(other.user)
            users = [e.user for e in entries]
            race.rematch = start_race_now(users, draw=race.draw, scoring=race.scoring, rated=race.rated,
                                          time_limit=race.time_limit, public=race.public)
            race.save(update_fields=["rematch"])
        _announce(race)
    return race


def check_clock(game: Game) -> None:
    """Refuse moves in a race game outside the race's running time."""
    race = game.race
    if race is None:
        return
    now = timezone.now()
    if now < race.starts_at:
        raise ServiceError("race_not_started", _("the race has not started yet"), 409,
                           starts_at=race.starts_at.isoformat())
    if now >= race.ends_at or race.status == Race.Status.FINISHED:
        # The race finishes after the rollback (races/listeners.py).
        raise ServiceError("race_over", _("the race is over"), 409)


def _racer_game_id(race_id: Any, user: Any) -> Any:
    entry = RaceEntry.objects.filter(race_id=race_id, user=user).first()
    if entry is None or entry.game_id is None:
        raise ServiceError("not_in_race", _("you are not racing in this race"), 409)
    return entry.game_id


def resign_race(race_id: Any, user: Any, seq: Any = None) -> dict[str, Any]:
    from games.services import resign

    return resign(_racer_game_id(race_id, user), Actor(user_id=user.pk), seq)


def ranking_key(entry: RaceEntry) -> tuple:
    """Winners by time, then the rest by cards on foundations, score, fewer moves."""
    if entry.won:
        return (0, entry.seconds or 0.0, 0, 0, 0)
    return (1, 0.0, -entry.foundation_count, -entry.score, entry.moves)


def finish_race(race_id: Any, *, force: bool = False) -> bool:
    """End the race if everyone is done or the clock has run out; store the results.
    Safe to call from anywhere, any number of times."""
    with transaction.atomic():
        race = Race.objects.select_for_update().filter(pk=race_id).first()
        if race is None or race.status != Race.Status.STARTED:
            return False
        now = timezone.now()
        entries = list(race.entries.select_related("game"))
        games = {g.id: g for g in Game.objects.select_for_update().filter(race=race)}
        time_up = now >= race.ends_at
        if not (force or time_up or all(games[e.game_id].status != Game.Status.LIVE for e in entries)):
            return False
        for game in games.values():
            if game.status == Game.Status.LIVE:
                _time_out(game, min(now, race.ends_at))
        for entry in entries:
            game = games[entry.game_id]
            entry.won = game.status == Game.Status.WON
            entry.seconds = (game.finished_at - race.starts_at).total_seconds() if entry.won else None
            entry.foundation_count, entry.score, entry.moves = game.foundation_count, game.score, game.moves
        ordered = sorted(entries, key=ranking_key)
        for position, entry in enumerate(ordered):
            # Equal results share a rank (1, 2, 2, 4): they count as draws for ratings.
            same = position and ranking_key(entry) == ranking_key(ordered[position - 1])
            entry.rank = ordered[position - 1].rank if same else position + 1
            entry.save(update_fields=["rank", "won", "seconds", "foundation_count", "score", "moves"])
        race.status, race.finished_at = Race.Status.FINISHED, now
        race.save(update_fields=["status", "finished_at"])
        Game.objects.filter(race=race).update(visible_from=now)  # the results join their deal's board
        # The boards settle the Vegas winnings and rate the racers in this transaction.
        domain_events.emit(RaceFinished(race, list(games.values())))
        _announce(race)
    return True


def _time_out(game: Game, at: Any) -> None:
    from games.services import save_progress

    game.seq += 1
    row = Move(game=game, seq=game.seq, submitted={"type": "timeout"}, action={"type": "timeout"},
               score=game.score, moves=game.moves, created_at=timezone.now())
    game.status = Game.Status.TIMED_OUT
    save_progress(game, row, game.engine(), game.score, at)


def play_in_race(race_id: Any, user: Any, move: Any, seq: Any) -> dict[str, Any]:
    from games.services import submit_move

    return submit_move(_racer_game_id(race_id, user), Actor(user_id=user.pk), move, seq)
