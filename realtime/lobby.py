"""The lobby: what a visitor can join or watch right now, and the top live games.

Only games being played are listed: a live game without a move for
``LOBBY_IDLE_SECONDS`` leaves the list, and one left for ``GAME_ABANDON_HOURS`` is
marked abandoned (a sweep at most once a minute per process). Every line carries its
spectator count. The snapshot is computed at most once a second per process, however
many lobby sockets hear of a change."""

from __future__ import annotations

import math
import threading
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from games import services as games
from games import viewer_policy
from games.models import Game
from leaderboards.models import Rating
from races.models import Race
from races.services import phase
from realtime.presence import presence
from realtime.publishing import race_group

LOBBY_SIZE = 50
TOP_SIZE = 5
CACHE_SECONDS = 1.0
SWEEP_SECONDS = 60.0
DEFAULT_RATING = 1500.0

_cache: dict[str, Any] = {"at": 0.0, "value": None, "swept": 0.0}
_lock = threading.Lock()


def game_summary(game: Game, watchers: int, rating: float | None) -> dict[str, Any]:
    """A lobby line: the game as anyone may see it (the lobby lists no race or daily
    game, but the viewer policy decides, as on every channel)."""
    shown = viewer_policy.seen_by(game, viewer_policy.ANONYMOUS)
    return {
        "id": str(game.id),
        "owner": game.owner.username if game.owner_id else None,
        "draw": game.draw,
        "scoring": game.scoring,
        "kind": game.kind,
        "moves": shown.moves,
        "foundation_count": shown.foundation_count,
        "started_at": shown.started_at,
        "watchers": watchers,
        "rating": round(rating) if rating is not None else None,
    }


def race_summary(race: Race, watchers: int) -> dict[str, Any]:
    return {
        "id": str(race.id),
        "host": race.host.username,
        "draw": race.draw,
        "scoring": race.scoring,
        "phase": phase(race),
        "players": race.players,
        "max_players": race.max_players,
        "full": race.players >= race.max_players,
        "time_limit": race.time_limit,
        "rated": race.rated,
        "open_boards": race.open_boards,
        "starts_at": race.starts_at,
        "watchers": watchers,
    }


def racers_now(race: Race) -> list[dict[str, Any]]:
    """Each racer's name, rating and cards home as a spectator sees them now (the
    race's spectator delay holds here too)."""
    racers = viewer_policy.racer_games(race)
    games = Game.objects.filter(race=race).select_related("owner", "race")
    ratings = dict(Rating.objects.filter(user__in=[g.owner_id for g in games]).values_list("user_id", "rating"))
    return [{"player": g.owner.username, "rating": ratings.get(g.owner_id, DEFAULT_RATING),
             "foundation_count": viewer_policy.seen_by(g, viewer_policy.ANONYMOUS, racers=racers).foundation_count}
            for g in games]


def featured(games: list[dict[str, Any]], running: list[tuple[Race, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The top live games: higher ratings, more spectators and, for a race, a closer
    race (cards home within a few of each other) come first."""
    picks = []
    for race, line in running:
        racers = racers_now(race)
        if not racers:
            continue
        homes = [r["foundation_count"] for r in racers]
        rating = sum(r["rating"] for r in racers) / len(racers)
        closeness = 1.0 - (max(homes) - min(homes)) / 52
        score = (rating - DEFAULT_RATING) / 400 + math.log1p(line["watchers"]) + 1.5 * closeness + max(homes) / 104
        picks.append({"kind": "race", "id": line["id"], "watch": f"/races/{line['id']}/", "score": score,
                      "title": " vs ".join(r["player"] for r in racers), "players": racers,
                      "draw": race.draw, "scoring": race.scoring, "watchers": line["watchers"],
                      "rating": round(rating), "closeness": round(closeness, 2), "rated": race.rated})
    for line in games:
        rating = line["rating"] if line["rating"] is not None else DEFAULT_RATING - 100
        score = (rating - DEFAULT_RATING) / 400 + math.log1p(line["watchers"]) + line["foundation_count"] / 52
        picks.append({"kind": "game", "id": line["id"], "watch": f"/watch/{line['id']}/", "score": score,
                      "title": line["owner"] or "A guest", "players": [], "draw": line["draw"],
                      "scoring": line["scoring"], "watchers": line["watchers"], "rating": round(rating),
                      "foundation_count": line["foundation_count"]})
    picks.sort(key=lambda p: (-p["score"], p["id"]))
    for pick in picks:
        pick["score"] = round(pick["score"], 3)
    return picks[:TOP_SIZE]


def sweep_abandoned() -> None:
    """Mark long-idle games abandoned, at most once a minute per process."""
    now = time.monotonic()
    if now - _cache["swept"] < SWEEP_SECONDS:
        return
    _cache["swept"] = now
    games.abandon_idle()


def compute() -> dict[str, Any]:
    sweep_abandoned()
    idle_since = timezone.now() - timedelta(seconds=settings.LOBBY_IDLE_SECONDS)
    playing = list(Game.objects.filter(status=Game.Status.LIVE, public=True, race=None, daily=None,
                                       last_move_at__gte=idle_since)
                   .select_related("owner").order_by("-last_move_at")[:LOBBY_SIZE])
    open_races = list(Race.objects.filter(public=True, status__in=[Race.Status.OPEN, Race.Status.STARTED])
                      .select_related("host").annotate(players=Count("entries")).order_by("-created_at")[:LOBBY_SIZE])
    watchers = presence().counts_now([str(g.id) for g in playing] + [race_group(r.id) for r in open_races])
    ratings = dict(Rating.objects.filter(user__in=[g.owner_id for g in playing if g.owner_id])
                   .values_list("user_id", "rating"))
    game_lines = [game_summary(g, watchers.get(str(g.id), 0), ratings.get(g.owner_id)) for g in playing]
    race_lines = [race_summary(r, watchers.get(race_group(r.id), 0)) for r in open_races]
    running = [(r, line) for r, line in zip(open_races, race_lines) if line["phase"] == "running"]
    return {"games": game_lines, "races": race_lines, "top": featured(game_lines, running)}


def lobby(*, fresh: bool = True) -> dict[str, Any]:
    """The lobby snapshot. ``fresh=False`` (the sockets' refresh after a change, itself
    a second later) may take one computed in the last second by this process: news
    of a change reaches every lobby socket at once, and one query serves them all."""
    with _lock:
        if fresh or _cache["value"] is None or time.monotonic() - _cache["at"] >= CACHE_SECONDS:
            _cache["value"], _cache["at"] = compute(), time.monotonic()
        return _cache["value"]


def forget() -> None:
    """Drop the cached snapshot (tests; a process's state between them)."""
    _cache.update(at=0.0, value=None, swept=0.0)
