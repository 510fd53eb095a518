"""The lobby: what a visitor can join or watch right now."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from games import viewer_policy
from games.models import Game
from races.models import Race
from races.services import phase

LOBBY_SIZE = 50


def game_summary(game: Game) -> dict[str, Any]:
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
    }


def race_summary(race: Race) -> dict[str, Any]:
    return {
        "id": str(race.id),
        "host": race.host.username,
        "draw": race.draw,
        "scoring": race.scoring,
        "phase": phase(race),
        "players": race.players,
        "max_players": race.max_players,
        "time_limit": race.time_limit,
        "rated": race.rated,
        "open_boards": race.open_boards,
        "starts_at": race.starts_at,
    }


def lobby() -> dict[str, Any]:
    games = (Game.objects.filter(status=Game.Status.LIVE, public=True, race=None, daily=None)
             .select_related("owner").order_by("-created_at")[:LOBBY_SIZE])
    open_races = (Race.objects.filter(public=True, status__in=[Race.Status.OPEN, Race.Status.STARTED])
                  .select_related("host").annotate(players=Count("entries")).order_by("-created_at")[:LOBBY_SIZE])
    return {"games": [game_summary(g) for g in games], "races": [race_summary(r) for r in open_races]}
