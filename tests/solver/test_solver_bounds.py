"""Hints and Complete have a bounded cost per client: rates per player and per client
address (counted in Redis, shared by every process), and at most SOLVER_QUEUE solver
jobs per process, beyond which the answer is an immediate 503, never a wait."""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from rest_framework.test import APIClient

from config.settings import env_rate
from games import solver_jobs
from games.models import Game
from tests.solver_pool_helpers import exit_worker, saturated_solvers

pytestmark = pytest.mark.django_db(transaction=True)

WINNABLE = "KL1-D1N-AAAAAAG"  # the solver wins it in well under a second
# Day windows: a test never straddles a window's end (the counters are fixed windows).
PLAYER_RATE = override_settings(THROTTLE_SOLVER="2/day", THROTTLE_SOLVER_ADDRESS="100/day")
ADDRESS_RATE = override_settings(THROTTLE_SOLVER="100/day", THROTTLE_SOLVER_ADDRESS="3/day")


@pytest.fixture(autouse=True)
def clean_throttles():
    cache.clear()
    yield
    cache.clear()


def player_with_a_game() -> tuple[APIClient, str]:
    client = APIClient()
    client.post("/api/accounts/csrf")
    response = client.post("/api/games/", {"code": WINNABLE}, format="json")
    assert response.status_code == 201, response.content
    return client, response.json()["id"]


def hint(client: APIClient, game: str, address: str = "127.0.0.1"):
    return client.get(f"/api/games/{game}/hint", REMOTE_ADDR=address)


def assert_refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response.json()["error"] == code and response.json()["detail"]
    assert int(response["Retry-After"]) >= 1


@PLAYER_RATE
def test_hints_and_completes_beyond_the_players_rate_get_429():
    client, game = player_with_a_game()
    assert hint(client, game).status_code == 200
    assert hint(client, game, "10.0.0.9").status_code == 200
    # The third request of the player, from any address: hint or Complete alike.
    assert_refused(hint(client, game), 429, "throttled")
    assert_refused(client.post(f"/api/games/{game}/complete", {}, format="json", REMOTE_ADDR="10.0.0.10"),
                   429, "throttled")
    assert Game.objects.get(pk=game).seq == 0
    # Another player from the same address is within both rates.
    other, other_game = player_with_a_game()
    assert hint(other, other_game).status_code == 200


@ADDRESS_RATE
def test_a_second_player_from_the_same_address_is_held_by_the_address_rate():
    first, first_game = player_with_a_game()
    for _ in range(3):
        assert hint(first, first_game, "10.1.1.1").status_code == 200
    second, second_game = player_with_a_game()
    assert_refused(hint(second, second_game, "10.1.1.1"), 429, "throttled")
    assert hint(second, second_game, "10.1.1.2").status_code == 200


def test_a_full_solver_queue_answers_503_at_once(tmp_path):
    client, game = player_with_a_game()
    with saturated_solvers(tmp_path) as jobs:
        assert_refused(hint(client, game), 503, "solver_busy")
        assert_refused(client.post(f"/api/games/{game}/complete", {}, format="json"), 503, "solver_busy")
        assert not any(job.done() for job in jobs), "a refused request waited for the solvers"
    assert Game.objects.get(pk=game).seq == 0
    # Freed slots take requests again, Complete plays the whole line.
    assert hint(client, game).status_code == 200
    completed = client.post(f"/api/games/{game}/complete", {}, format="json")
    assert completed.status_code == 200, completed.content
    assert completed.json()["remaining"] == 0 and completed.json()["result"]["status"] == "won"


def test_a_dead_solver_worker_is_replaced_for_the_next_request():
    client, game = player_with_a_game()
    assert hint(client, game).status_code == 200
    dying = solver_jobs.submit(exit_worker)
    with pytest.raises(BrokenProcessPool):
        dying.result(timeout=60)
    # Not a broken pool answering 500 to every request from now on: a fresh one.
    assert hint(client, game).status_code == 200


def test_solver_rates_are_checked_at_start_up():
    assert env_rate("THROTTLE_SOLVER", "20/min", environ={}) == "20/min"
    assert env_rate("THROTTLE_SOLVER", "20/min", environ={"THROTTLE_SOLVER": "5/hour"}) == "5/hour"
    for bad in ("20", "0/min", "x/min", "20/fortnight"):
        with pytest.raises(ImproperlyConfigured, match="THROTTLE_SOLVER"):
            env_rate("THROTTLE_SOLVER", "20/min", environ={"THROTTLE_SOLVER": bad})
