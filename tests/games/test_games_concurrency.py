"""Moves racing each other on real PostgreSQL, two database connections at once.

Each thread has its own Django test client and therefore its own database connection
(Django's connections are per thread); the game row lock (SELECT … FOR UPDATE) in
games.services is what must serialize them. ``transaction=True``: the writes really
commit, so each connection sees the other's."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client
from accounts.tokens import issue

from games import services
from engine import replay
from games.models import Game, Move

pytestmark = pytest.mark.django_db(transaction=True)

DEAL = "KL1-D1N-AAAAAAJ"  # opening: AC→foundation, 6S→t3 and 7C→t7 are legal, and a draw
TIMEOUT = 20


@pytest.fixture
def player() -> dict[str, Any]:
    user = get_user_model().objects.create_user("racer")
    token = issue(user, name="test", scope="play", expires_in_days=1)[1]
    return {"user": user, "auth": f"Token {token}"}


def api(auth: str) -> Client:
    return Client(HTTP_AUTHORIZATION=auth)


def new_game(auth: str) -> str:
    response = api(auth).post("/api/games/", {"code": DEAL}, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def submit(client: Client, game_id: str, move: dict[str, Any], seq: int):
    return client.post(f"/api/games/{game_id}/moves", json.dumps({"move": move, "seq": seq}),
                       content_type="application/json")


def run_threads(*targets: Callable[[], Any]) -> list[Any]:
    """Run each target in its own thread; return their results (or raise the first
    exception). Every thread closes its database connection when it ends."""
    results: list[Any] = [None] * len(targets)
    errors: list[BaseException] = []

    def runner(index: int, target: Callable[[], Any]) -> None:
        try:
            results[index] = target()
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i, t), daemon=True) for i, t in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "a request never finished (deadlock?)"
    if errors:
        raise errors[0]
    return results


def assert_log_is_gapless(game_id: str) -> list[Move]:
    rows = list(Move.objects.filter(game_id=game_id).order_by("seq"))
    game = Game.objects.get(pk=game_id)
    assert [row.seq for row in rows] == list(range(1, game.seq + 1))
    # The stored position is what the log replays to: no write was lost or doubled.
    replayed = replay(game.code, [row.action for row in rows])
    assert game.engine().snapshot() == replayed.snapshot()
    assert game.moves == replayed.moves
    return rows


def test_different_moves_with_the_same_seq_one_wins_one_conflicts(player):
    game_id = new_game(player["auth"])
    clients = [api(player["auth"]), api(player["auth"])]
    assert submit(clients[0], game_id, {"type": "draw"}, 1).status_code == 200
    winners = {0: 0, 1: 0}
    rounds = 20
    for round_number in range(rounds):
        seq = round_number + 2
        engine = Game.objects.get(pk=game_id).engine()
        # Two different moves, both legal now: whichever comes first is accepted.
        stock_move = {"type": "draw"} if engine.stock else {"type": "recycle"}
        if engine.can_undo():
            other = {"type": "undo"}
        else:
            other = next(m.to_json() for m in engine.legal_moves() if m.kind == "move")
        moves = [stock_move, other]
        barrier = threading.Barrier(2)

        def contender(index: int) -> Callable[[], Any]:
            def go():
                barrier.wait(TIMEOUT)
                response = submit(clients[index], game_id, moves[index], seq)
                return response.status_code, response.json()
            return go

        results = run_threads(contender(0), contender(1))
        statuses = sorted(status for status, _ in results)
        assert statuses == [200, 409], results
        for index, (status, body) in enumerate(results):
            if status == 200:
                winners[index] += 1
                assert body["seq"] == seq and body["move"] == moves[index]
            else:
                assert body["error"] == "seq_conflict" and body["seq"] == seq, body
                assert isinstance(body["detail"], str)
        rows = assert_log_is_gapless(game_id)
        assert len(rows) == seq
        winner = next(i for i, (status, _) in enumerate(results) if status == 200)
        assert rows[-1].action == moves[winner]
    assert Move.objects.filter(game_id=game_id).count() == rounds + 1


def test_the_same_move_retried_concurrently_is_applied_once(player):
    game_id = new_game(player["auth"])
    clients = [api(player["auth"]), api(player["auth"])]
    for seq, move in enumerate([{"type": "move", "card": "AC", "to": "foundation"}, {"type": "draw"},
                                {"type": "move", "card": "6S", "to": "t3"}, {"type": "draw"}], start=1):
        barrier = threading.Barrier(2)

        def twin(index: int) -> Callable[[], Any]:
            def go():
                barrier.wait(TIMEOUT)
                response = submit(clients[index], game_id, move, seq)
                return response.status_code, response.json()
            return go

        (status_a, body_a), (status_b, body_b) = run_threads(twin(0), twin(1))
        assert status_a == status_b == 200, (body_a, body_b)
        assert body_a == body_b
        assert body_a["seq"] == seq
        assert Move.objects.filter(game_id=game_id, seq=seq).count() == 1
    assert_log_is_gapless(game_id)
    assert Game.objects.get(pk=game_id).seq == 4


def _lock_waiters() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_the_row_lock_is_what_serializes(player):
    game_id = new_game(player["auth"])
    actor = services.Actor(user_id=player["user"].pk)
    locked, release = threading.Event(), threading.Event()
    timeline: list[str] = []

    def holder():
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game_id)
            locked.set()
            assert release.wait(TIMEOUT)
            # While still holding the lock, play a move through the service.
            result = services.submit_move(game_id, actor, {"type": "draw"}, 1)
            timeline.append("holder commits")
        return result

    def challenger():
        assert locked.wait(TIMEOUT)
        started = time.monotonic()
        response = submit(api(player["auth"]), game_id, {"type": "move", "card": "AC", "to": "foundation"}, 1)
        timeline.append("challenger answered")
        return response.status_code, response.json(), time.monotonic() - started

    results: list[Any] = [None, None]

    def run():
        results[:] = run_threads(holder, challenger)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    assert locked.wait(TIMEOUT)
    # The challenger's request is blocked on the row lock inside PostgreSQL.
    deadline = time.monotonic() + TIMEOUT
    while _lock_waiters() == 0:
        assert time.monotonic() < deadline, "the second request never waited for the lock"
        time.sleep(0.02)
    hold = 0.3
    time.sleep(hold)
    assert timeline == [] and _lock_waiters() >= 1
    assert Game.objects.get(pk=game_id).seq == 0
    release.set()
    runner.join(TIMEOUT)
    assert not runner.is_alive()

    held_result, (status, body, waited) = results
    assert timeline == ["holder commits", "challenger answered"]
    assert held_result["seq"] == 1 and held_result["move"] == {"type": "draw"}
    # The challenger read the game only after the holder's move committed: its seq is stale.
    assert status == 409, body
    assert body["error"] == "seq_conflict" and body["seq"] == 1
    assert waited >= hold
    rows = assert_log_is_gapless(game_id)
    assert [row.action for row in rows] == [{"type": "draw"}]
