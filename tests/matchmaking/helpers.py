"""Shared set-up of the matchmaking tests: players with ratings and tokens, a stock of
proven-winnable deals for matches to be dealt from, REST clients."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from games.models import SolvedDeal
from leaderboards.models import Rating
from tests.realtime_helpers import make_user


def stock_deals(count: int = 30, draw: int = 1, scoring: str = "normal", first: int = 9000) -> list[int]:
    """Winnable-pool rows for matches to take (the pool keeps a reserve of Normal ones)."""
    numbers = list(range(first, first + count))
    SolvedDeal.objects.bulk_create(
        [SolvedDeal(draw=draw, scoring=scoring, deal_number=n, result="win") for n in numbers])
    return numbers


def player(name: str, rating: float | None = None) -> tuple[Any, str]:
    user, token = make_user(name)
    if rating is not None:
        Rating.objects.create(user=user, rating=rating, rd=80.0, races=20)
    return user, token


def client_for(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client
