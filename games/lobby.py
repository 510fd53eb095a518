"""The lobby: what a visitor can join or watch right now."""

from __future__ import annotations

from typing import Any

from games.models import Game

LOBBY_SIZE = 50


def game_summary(game: Game) -> dict[str, Any]:
    return {
        "id": str(game.id),
        "owner": game.owner.username if game.owner_id else None,
        "draw": game.draw,
        "scoring": game.scoring,
        "kind": game.kind,
        "moves": game.moves,
        "foundation_count": game.foundation_count,
        "started_at": game.started_at,
    }


def lobby() -> dict[str, Any]:
    games = (Game.objects.filter(status=Game.Status.LIVE, public=True)
             .select_related("owner").order_by("-created_at")[:LOBBY_SIZE])
    return {"games": [game_summary(g) for g in games], "races": []}
