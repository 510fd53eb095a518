"""Winnable deals come from a stock of proven wins, never from a search in the request;
a background top-up refills a mode's stock, one per mode across processes; the daily
deals keep their own reserve. Real PostgreSQL, Redis (the lock) and solver pool."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from games import winnable_pool
from engine import DealCode, Game as EngineGame
from games.models import Game, SolvedDeal
from solver import solve
from games import daily_deals
from tests.solver_pool_helpers import saturated_solvers

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 180  # a bound on waiting for a top-up, not a time anything must take
# Top-ups in these tests fill a mode to three deals once it has fewer than two.
SMALL_POOL = override_settings(WINNABLE_POOL_LOW=2, WINNABLE_POOL_HIGH=3)


@pytest.fixture(autouse=True)
def quiet_top_ups():
    """No top-up, lock or throttle counter outlives its test."""
    cache.clear()
    yield
    assert winnable_pool.stop_top_ups(), "a top-up did not stop"
    cache.clear()


def player() -> APIClient:
    client = APIClient()
    client.post("/api/accounts/csrf")
    return client


def stock(draw: int, scoring: str, numbers: list[int]) -> list[SolvedDeal]:
    return SolvedDeal.objects.bulk_create(
        [SolvedDeal(draw=draw, scoring=scoring, deal_number=n, result="win") for n in numbers])


def wait_for(condition, what: str) -> None:
    end = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < end, f"still waiting for {what}"
        time.sleep(0.05)


def test_a_winnable_game_is_dealt_from_the_stock_while_every_solver_is_busy(tmp_path):
    reserve = winnable_pool.DAILY_RESERVE
    rows = stock(1, "normal", list(range(1000, 1000 + reserve + 2)))
    examined = SolvedDeal.objects.count()
    client = player()
    with saturated_solvers(tmp_path) as jobs:
        first = client.post("/api/games/", {"winnable": True, "draw": 1}, format="json")
        second = client.post("/api/games/", {"winnable": True, "draw": 1}, format="json")
        assert not any(job.done() for job in jobs), "the requests waited for the solvers"
    assert first.status_code == 201 and second.status_code == 201, (first.content, second.content)
    dealt = [Game.objects.get(pk=r.json()["id"]).deal_number for r in (first, second)]
    # The oldest deals after the daily reserve, each handed out once; nothing solved.
    assert dealt == [rows[reserve].deal_number, rows[reserve + 1].deal_number]
    assert set(SolvedDeal.objects.exclude(handed_out_at=None).values_list("deal_number", flat=True)) == set(dealt)
    assert SolvedDeal.objects.count() == examined
    assert first.json()["code"] == str(DealCode(dealt[0], 1))


@SMALL_POOL
def test_an_empty_stock_answers_503_at_once_and_a_top_up_fills_it(tmp_path):
    client = player()
    with saturated_solvers(tmp_path) as jobs:
        response = client.post("/api/games/", {"winnable": True, "draw": 1, "scoring": "vegas"}, format="json")
        assert not any(job.done() for job in jobs), "the request waited for the solvers"
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["error"] == "no_winnable_deal" and "try again" in body["detail"]
    assert int(response["Retry-After"]) > 0
    assert not Game.objects.exists()

    # The refusal started a top-up: wins appear, each one the solver really wins.
    wait_for(lambda: winnable_pool.stock_size(1, "vegas", 3) >= 3, "the D1V stock to fill")
    wins = SolvedDeal.objects.filter(draw=1, scoring="vegas", result="win")
    assert wins.count() >= 3 and all(win.nodes > 0 for win in wins)
    assert solve(EngineGame.new(DealCode(wins[0].deal_number, 1, "vegas")), budget_seconds=10).result == "win"

    again = client.post("/api/games/", {"winnable": True, "draw": 1, "scoring": "vegas"}, format="json")
    assert again.status_code == 201, again.content
    assert wins.filter(deal_number=Game.objects.get(pk=again.json()["id"]).deal_number).exists()


@SMALL_POOL
def test_the_lock_keeps_a_second_concurrent_top_up_from_starting(tmp_path):
    lock_key = winnable_pool.TopUpLock(1, "vegas").key
    with saturated_solvers(tmp_path) as jobs:
        winnable_pool.request_top_up(1, "vegas")
        # The background top-up takes the mode's lock, then waits for a solver slot.
        wait_for(lambda: cache.get(lock_key) is not None, "the top-up to take its lock")
        # A second trigger (another process's, say) starts nothing while it runs.
        assert winnable_pool.top_up_if_low(1, "vegas") is None
        assert not any(job.done() for job in jobs)
        assert not SolvedDeal.objects.exists()
    assert winnable_pool.wait_until_idle(WAIT_SECONDS)
    assert winnable_pool.stock_size(1, "vegas", 3) >= 3
    assert cache.get(lock_key) is None, "a finished top-up releases its lock"


@SMALL_POOL
def test_a_dead_top_ups_lock_lapses_and_the_next_trigger_tops_up():
    dead = winnable_pool.TopUpLock(1, "vegas")
    assert dead.acquire()
    winnable_pool.request_top_up(1, "vegas")
    assert winnable_pool.wait_until_idle(WAIT_SECONDS)
    assert not SolvedDeal.objects.exists(), "a top-up ran while another held the lock"

    cache.set(dead.key, dead.token, timeout=1)  # as if its holder was killed a minute ago
    wait_for(lambda: cache.get(dead.key) is None, "the lock to lapse")
    winnable_pool.request_top_up(1, "vegas")
    assert winnable_pool.wait_until_idle(WAIT_SECONDS)
    assert winnable_pool.stock_size(1, "vegas", 3) >= 3


def test_winnable_games_leave_the_daily_deals_their_reserve():
    reserve = winnable_pool.DAILY_RESERVE
    stock(1, "normal", list(range(5000, 5000 + reserve + 1)))
    client = player()
    taken = client.post("/api/games/", {"winnable": True, "draw": 1}, format="json")
    assert taken.status_code == 201, taken.content
    refused = client.post("/api/games/", {"winnable": True, "draw": 1}, format="json")
    assert refused.status_code == 503 and refused.json()["error"] == "no_winnable_deal"
    assert winnable_pool.unhanded(1, "normal").count() == reserve

    # The day's deal comes from the reserve, never a deal a game was given, and is
    # handed out with it: no winnable game gets it afterwards either.
    given = Game.objects.get(pk=taken.json()["id"]).deal_number
    daily = daily_deals.daily_deal(daily_deals.today(), 1)
    assert daily.deal_number != given
    row = SolvedDeal.objects.get(draw=1, scoring="normal", deal_number=daily.deal_number)
    assert row.handed_out_at is not None
    assert winnable_pool.unhanded(1, "normal").count() == reserve - 1
    # Asked again, the day keeps its deal and hands out nothing more.
    assert daily_deals.daily_deal(daily_deals.today(), 1).deal_number == daily.deal_number
    assert winnable_pool.unhanded(1, "normal").count() == reserve - 1
