"""A copy of everything the service holds about an account, as one JSON download:
profile, sessions, tokens (never their secrets or digests), Vegas and rating history,
races, and every game with its moves.

Streamed: the answer is written page by page as it is read, each page in its own short
query on a pooled connection that goes back to the pool before the page is sent, so a
long download holds no database connection while the client reads it. The viewer
policy's secrets stay kept: a game's moves only once it and its competition are over
(before, they name cards that may be face down for the player or still in play for
other racers), and a ranked deal's code only then.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections, connection
from django.utils import timezone

from accounts import sessions, tokens, two_factor
from games.models import Game, Move
from leaderboards.models import BalanceChange, Rating, RatingChange, VegasBalance
from races.models import RaceEntry

FORMAT = "klondike-account-export/1"
GAMES_PER_PAGE = 50
GAME_FIELDS = ("id", "code", "draw", "scoring", "kind", "public", "status", "score", "moves", "foundation_count",
               "seq", "created_at", "started_at", "finished_at", "seconds", "practice", "race_id", "daily_id")
MOVE_FIELDS = ("seq", "action", "flipped", "score", "moves", "created_at")


def encode(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def released(read: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``read`` in a worker thread and give its connection back to the pool after."""

    def call(*args: Any) -> Any:
        try:
            return read(*args)
        finally:
            connection.close()
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False)


def account_part(user_id: int, current_key: str | None) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(pk=user_id)
    balance = VegasBalance.objects.filter(user=user).first()
    rating = Rating.objects.filter(user=user).first()
    return {
        "format": FORMAT,
        "exported_at": timezone.now(),
        "profile": {"username": user.username, "email": user.email, "email_verified": user.email_verified,
                    "date_joined": user.date_joined, "last_login": user.last_login,
                    "two_factor": two_factor.enabled(user)},
        "sessions": sessions.listed(user, current_key),
        "tokens": [{"id": t.token_key, "name": t.name, "scope": t.scope, "legacy": t.legacy, "created": t.created,
                    "expires_at": t.expiry, "last_used_at": t.last_used_at} for t in tokens.owned(user)],
        "vegas": {"balance": balance.balance if balance else None, "games": balance.games if balance else 0,
                  "history": list(BalanceChange.objects.filter(user=user).order_by("id")
                                  .values("game_id", "reason", "balance", "at"))},
        "rating": {"rating": rating.rating if rating else None, "deviation": rating.rd if rating else None,
                   "history": list(RatingChange.objects.filter(user=user).order_by("id")
                                   .values("race_id", "rank", "rating_before", "rating", "rd", "at"))},
        "races": list(RaceEntry.objects.filter(user=user).order_by("race__created_at")
                      .values("race_id", "race__status", "race__draw", "race__scoring", "race__created_at",
                              "game_id", "rank", "won", "seconds", "score")),
    }


def games_page(user_id: int, after: Any) -> list[dict[str, Any]]:
    """The next page of the account's games (by id), each with its moves. What the
    viewer policy keeps from the player is kept here too: a ranked deal's code until it
    is over, and the moves until the game and its competition (a race, a day) are."""
    games = Game.objects.filter(owner_id=user_id).select_related("race", "daily").order_by("id")
    if after is not None:
        games = games.filter(id__gt=after)
    page = list(games[:GAMES_PER_PAGE])
    shown = [game.id for game in page if game.reveals_everything]
    moves: dict[Any, list[dict[str, Any]]] = {game_id: [] for game_id in shown}
    for row in Move.objects.filter(game_id__in=shown).order_by("game_id", "seq").values("game_id", *MOVE_FIELDS):
        moves[row.pop("game_id")].append(row)
    rows = []
    for game in page:
        row = {field: getattr(game, field) for field in GAME_FIELDS}
        row["code"] = game.code if game.code_visible else None
        row["moves_list"] = moves.get(game.id)  # None: withheld until the game and its competition are over
        rows.append(row)
    return rows


async def stream(user_id: int, current_key: str | None) -> AsyncIterator[str]:
    head = await released(account_part)(user_id, current_key)
    yield encode(head)[:-1] + ', "games": ['
    after, first = None, True
    while True:
        page = await released(games_page)(user_id, after)
        for game in page:
            yield ("" if first else ",") + encode(game)
            first = False
        if len(page) < GAMES_PER_PAGE:
            break
        after = page[-1]["id"]
    yield "]}"
