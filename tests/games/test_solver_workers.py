"""Solver jobs on Celery workers (SOLVER_BROKER_URL set): real Daphne, real worker
processes, a Redis of the test's own as the broker. Hint and Complete are answered by
a worker while the web process only waits on Redis; the worker enforces each job's
time limit; a job whose worker process dies is given to another once, and a second
death is a clear ``solver_failed``; with no worker the request gets ``solver_busy``
at its deadline and the queue depth shows the waiting job."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import signal
import time
from typing import Any, Iterator

import pytest
import requests

from tests.private_redis import PrivateRedis, private_redis  # noqa: F401 (fixture)
from tests.realtime_helpers import DEAL, Daphne
from tests.solver_worker_helpers import SolverWorker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def web(daphne_env: tuple[str, str], private_redis: PrivateRedis) -> Iterator[Daphne]:
    server = Daphne(*daphne_env, SOLVER_BROKER_URL=private_redis.url)
    server.wait_ready()
    yield server
    server.stop()


def start_worker(daphne_env: tuple[str, str], private_redis: PrivateRedis, **kwargs: Any) -> SolverWorker:
    worker = SolverWorker(daphne_env[0], private_redis.url, **kwargs)
    worker.wait_ready()
    return worker


def player(web: Daphne) -> tuple[requests.Session, str]:
    from accounts.tokens import issue
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(f"solver-{time.monotonic_ns()}")
    http = requests.Session()
    http.headers["Authorization"] = f"Token {issue(user, name='t', scope='play', expires_in_days=1)[1]}"
    game = http.post(f"{web.http}/api/games/", json={"code": DEAL}, timeout=10)
    assert game.status_code == 201, game.text
    return http, game.json()["id"]


def metric(web: Daphne, name: str, labels: str = "") -> float:
    text = requests.get(f"{web.http}/metrics", timeout=10).text
    pattern = rf"^{re.escape(name)}{re.escape(labels)} ([0-9.e+-]+)$"
    found = re.search(pattern, text, re.M)
    return float(found.group(1)) if found else 0.0


def test_hint_and_complete_are_answered_by_a_worker(daphne_env, private_redis, web) -> None:
    worker = start_worker(daphne_env, private_redis)
    try:
        http, game_id = player(web)
        hint = http.get(f"{web.http}/api/games/{game_id}/hint", timeout=30)
        assert hint.status_code == 200, (hint.text, web.output()[-2000:], worker.output()[-3000:])
        assert hint.json()["seq"] == 0 and hint.json()["move"]["type"]
        complete = http.post(f"{web.http}/api/games/{game_id}/complete", json={"seq": 1}, timeout=60)
        assert complete.status_code == 200, complete.text
        assert complete.json()["remaining"] == 0 and complete.json()["result"]["status"] == "won"
        assert "solver.solve" in worker.output() and "succeeded" in worker.output()
        labels = '{kind="hint",outcome="ok"}'
        assert metric(web, "klondike_solver_job_seconds_count", labels) == 1
        assert metric(web, "klondike_solver_queue_depth") == 0
    finally:
        worker.stop()


def test_with_no_worker_the_request_is_refused_at_its_deadline_and_the_queue_shows_it(daphne_env, private_redis,
                                                                                        web) -> None:
    http, game_id = player(web)

    async def body() -> None:
        asked = asyncio.ensure_future(asyncio.to_thread(http.get, f"{web.http}/api/games/{game_id}/hint",
                                                        timeout=30))
        deadline = time.monotonic() + 5
        while await asyncio.to_thread(metric, web, "klondike_solver_queue_depth") < 1:
            assert time.monotonic() < deadline, "the job never showed in the queue"
            await asyncio.sleep(0.1)
        answer = await asked
        assert answer.status_code == 503 and answer.json()["error"] == "solver_busy"
        assert int(answer.headers["Retry-After"]) >= 1

    asyncio.run(body())
    # A worker that starts later drops the job that nobody waits for any more.
    worker = start_worker(daphne_env, private_redis)
    try:
        deadline = time.monotonic() + 10
        while metric(web, "klondike_solver_queue_depth") != 0:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert "Discarding revoked task: solver.solve" in worker.output()  # expired: nobody waits
    finally:
        worker.stop()


def send_direct(private_redis: PrivateRedis, job_id: str, budget: float, state: bytes, code: str) -> None:
    """A job as a web process sends it (games.solver_jobs.send_job), from this test."""
    from celery import Celery

    app = Celery(broker=private_redis.url)
    app.send_task("solver.solve", args=[job_id, "solve_state", [base64.b64encode(state).decode(), code, budget]],
                  task_id=job_id, queue="solver", time_limit=budget + 5, soft_time_limit=budget + 1)


def reply(private_redis: PrivateRedis, job_id: str, timeout: float) -> dict[str, Any] | None:
    import redis

    answer = redis.Redis.from_url(private_redis.url).blpop([f"solver-reply:{job_id}"], timeout=timeout)
    return json.loads(answer[1]) if answer else None


def opening_state() -> tuple[bytes, str]:
    from engine import DealCode, Game as EngineGame, to_bytes

    code = DealCode.parse(DEAL)
    return to_bytes(EngineGame.new(code)), DEAL


def test_the_worker_enforces_the_job_time_limit(daphne_env, private_redis) -> None:
    worker = start_worker(daphne_env, private_redis, slow_seconds=30)  # each solve would take 30 s
    try:
        state, code = opening_state()
        started = time.monotonic()
        send_direct(private_redis, "limited", 0.5, state, code)  # soft limit 1.5 s
        answer = reply(private_redis, "limited", 20)
        assert answer is not None and answer["error"] == "solver_timeout", answer
        assert time.monotonic() - started < 10
    finally:
        worker.stop()


def test_a_job_whose_worker_process_dies_is_retried_once_then_fails_clearly(daphne_env, private_redis, web) -> None:
    # Three pool processes: each try finds a live one while the killed ones are replaced
    # (a new pool process starting Django under load can take longer than the hint waits).
    worker = start_worker(daphne_env, private_redis, slow_seconds=1.5, concurrency=3)
    try:
        http, game_id = player(web)

        async def hint_with_kills(kills: int) -> requests.Response:
            asked = asyncio.ensure_future(asyncio.to_thread(http.get, f"{web.http}/api/games/{game_id}/hint",
                                                            timeout=30))
            seen = len(worker.running_jobs())
            for number in range(kills):
                pid = (await asyncio.to_thread(worker.wait_for_jobs, seen + number + 1))[-1]
                os.kill(pid, signal.SIGKILL)  # the pool process running the job: out of memory, say
            return await asked

        # One death: the job runs again in another pool process and the player gets the hint.
        retried = asyncio.run(hint_with_kills(1))
        assert retried.status_code == 200, retried.text
        assert retried.json()["move"]["type"]
        # Two deaths: a clear error, no third try.
        failed = asyncio.run(hint_with_kills(2))
        assert failed.status_code == 503 and failed.json()["error"] == "solver_failed", failed.text
        assert int(failed.headers["Retry-After"]) >= 1
    finally:
        worker.stop()


def test_the_winnable_stock_is_topped_up_by_a_job_on_the_workers(daphne_env, private_redis) -> None:
    """An empty stock: the web process answers 503 at once and queues a top-up job; a
    worker solves fresh deals and stores the wins; winnable games are dealt from them."""
    from games.models import SolvedDeal

    stock = {"WINNABLE_POOL_LOW": "2", "WINNABLE_POOL_HIGH": "3"}
    web = Daphne(*daphne_env, SOLVER_BROKER_URL=private_redis.url, **stock)
    web.wait_ready()
    worker = start_worker(daphne_env, private_redis, REDIS_CACHE_URL=daphne_env[1], **stock)
    try:
        http, _ = player(web)
        first = http.post(f"{web.http}/api/games/", json={"winnable": True, "draw": 1, "scoring": "vegas"},
                          timeout=10)
        assert first.status_code == 503 and first.json()["error"] == "no_winnable_deal", first.text
        deadline = time.monotonic() + 60
        while SolvedDeal.objects.filter(draw=1, scoring="vegas", result="win").count() < 3:
            assert time.monotonic() < deadline, worker.output()[-3000:]
            time.sleep(0.2)
        assert "solver.top_up_winnable" in worker.output()
        dealt = http.post(f"{web.http}/api/games/", json={"winnable": True, "draw": 1, "scoring": "vegas"},
                          timeout=10)
        assert dealt.status_code == 201, dealt.text
        assert SolvedDeal.objects.filter(draw=1, scoring="vegas").exclude(handed_out_at=None).count() == 1
    finally:
        worker.stop()
        web.stop()
