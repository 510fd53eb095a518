"""Where the solver meets the service: hint and Complete (games.hint_complete) and
the winnable pool (games.winnable_pool) hand their positions to the solver here.

The solver is CPU-bound, so it never runs on a web process's event loop or request
threads. Two places run it:

- **Celery workers** (``SOLVER_BROKER_URL`` set: the stack, compose, production): a
  job is a message on the ``solver`` queue of the Redis we already run; the web
  process waits for its answer on a Redis list of the job's own (``BLPOP`` from the
  event loop, no thread held) and the worker enforces the job's time limit
  (games/tasks.py). Solver capacity grows by starting workers, on any machine.
- **a process pool inside each web process** (no broker: ``make run``, most tests).

Either way at most ``SOLVER_QUEUE`` jobs are queued or running per web process; a
request beyond that gets ``503 solver_busy`` at once, and no request waits longer
than its budget plus ``QUEUE_WAIT_SECONDS``."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
import uuid
import weakref
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from django.conf import settings
from django.utils.translation import gettext as _

from engine import DealCode, Game as EngineGame, Scoring, from_bytes
from api.errors import ServiceError
from telemetry import metrics

SOLVER_WORKERS = 2
HINT_BUDGET_SECONDS = 3.0
COMPLETE_BUDGET_SECONDS = 8.0
# How long a request may wait for a worker beyond its own budget before 503 solver_busy.
QUEUE_WAIT_SECONDS = 5.0
# A whole Complete: the wait, the search and playing the line (what is left unplayed
# when it runs out is reported as ``remaining``).
COMPLETE_SECONDS = 20.0
BUSY_RETRY_AFTER_SECONDS = 5

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def solver_pool() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=SOLVER_WORKERS, initializer=start_worker,
                                        initargs=(settings.SOLVER_TABLE_CACHE_MB,))
        return _pool


def _discard_broken(pool: ProcessPoolExecutor) -> None:
    """A worker died (killed, out of memory): the next job gets a fresh pool."""
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


class SolverSlots:
    """This process's admission bound: at most ``settings.SOLVER_QUEUE`` solver jobs
    queued or running. A slot is freed when its job ends in the worker, not when the
    request that asked for it gives up, so the count is what the pool really holds."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.busy = 0

    def try_acquire(self) -> bool:
        with self._changed:
            if self.busy >= settings.SOLVER_QUEUE:
                return False
            self.busy += 1
            return True

    def acquire_when_free(self, stop: threading.Event) -> bool:
        """For background work: wait for a slot (False if ``stop`` is set first)."""
        with self._changed:
            while self.busy >= settings.SOLVER_QUEUE:
                if stop.is_set():
                    return False
                self._changed.wait(0.2)
            self.busy += 1
            return True

    def release(self, _future: Future | None = None) -> None:
        with self._changed:
            self.busy -= 1
            self._changed.notify_all()


slots = SolverSlots()


def solver_busy() -> ServiceError:
    return ServiceError("solver_busy", _("the solvers are busy right now: try again in a few seconds"), 503,
                        retry_after=BUSY_RETRY_AFTER_SECONDS)


def solver_failed() -> ServiceError:
    return ServiceError("solver_failed", _("the solver stopped before it answered: try again"), 503,
                        retry_after=BUSY_RETRY_AFTER_SECONDS)


# -- one job, wherever it runs ---------------------------------------------------------

async def solve_position(kind: str, state: bytes, code: str, budget: float, deadline: float) -> dict[str, Any]:
    """The solver's answer for a stored position (``kind``: hint or complete, for the
    metrics): ``solver_busy`` when no worker answers before ``deadline``
    (``time.monotonic()``), ``solver_failed`` when the job's workers died."""
    started, outcome = time.monotonic(), "ok"
    try:
        if settings.SOLVER_BROKER_URL:
            return await _on_workers("solve_state", [base64.b64encode(state).decode(), code, budget], budget, deadline)
        return await _in_pool(solve_state, (state, code, budget), deadline)
    except ServiceError as exc:
        outcome = exc.code
        raise
    finally:
        metrics.SOLVER_JOB_SECONDS.labels(kind, outcome).observe(time.monotonic() - started)


async def _in_pool(function: Callable[..., Any], args: tuple, deadline: float) -> dict[str, Any]:
    job = asyncio.wrap_future(submit(function, *args))
    try:
        return await asyncio.wait_for(job, timeout=max(0.0, deadline - time.monotonic()))
    except (asyncio.TimeoutError, BrokenProcessPool):
        raise solver_busy() from None


# Once a job is given to a worker, its hard limit: its budget and this much more. A
# job not started by its deadline is dropped by the worker that takes it (expires).
HARD_LIMIT_GRACE_SECONDS = 5.0
REPLY_KEEP_SECONDS = 120


def reply_key(job_id: str) -> str:
    return f"solver-reply:{job_id}"


async def _on_workers(function: str, args: list[Any], budget: float, deadline: float) -> dict[str, Any]:
    if not slots.try_acquire():
        raise solver_busy()
    try:
        job_id = uuid.uuid4().hex
        wait = max(0.1, deadline - time.monotonic())
        try:
            # Publishing is a short blocking call of kombu's: on a thread, never the loop.
            await asyncio.to_thread(send_job, job_id, function, args, budget, wait)
            reply = await reply_client().blpop([reply_key(job_id)], timeout=wait)
        except Exception:  # noqa: BLE001 - the broker is down or slow: the request is refused, not failed
            raise solver_busy() from None
        if reply is None:
            raise solver_busy()
        answer = json.loads(reply[1])
        if "error" in answer:
            # The worker writes its sentence in English (games/tasks.py marks it): translated here.
            raise ServiceError(answer["error"], _(answer["detail"]), 503, retry_after=BUSY_RETRY_AFTER_SECONDS)
        return answer["result"]
    finally:
        slots.release()


def send_job(job_id: str, function: str, args: list[Any], budget: float, wait: float) -> None:
    from celery import current_app

    current_app.send_task("solver.solve", args=[job_id, function, args], task_id=job_id,
                          queue=settings.SOLVER_JOB_QUEUE, expires=wait,
                          time_limit=budget + HARD_LIMIT_GRACE_SECONDS, soft_time_limit=budget + 1.0)


_reply_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def reply_client() -> Any:
    """This event loop's asyncio Redis client on the broker (a client is bound to its loop)."""
    import redis.asyncio

    loop = asyncio.get_running_loop()
    client = _reply_clients.get(loop)
    if client is None:
        client = _reply_clients[loop] = redis.asyncio.Redis.from_url(settings.SOLVER_BROKER_URL,
                                                                     socket_connect_timeout=2)
    return client


def queue_depth() -> int:
    """Solver jobs waiting for a worker (the broker's queue), or this process's jobs in
    its pool without a broker; -1 when the broker cannot be asked."""
    if not settings.SOLVER_BROKER_URL:
        return slots.busy
    try:
        return int(_sync_broker_client().llen(settings.SOLVER_JOB_QUEUE))
    except Exception:  # noqa: BLE001 - a metric must not fail the scrape
        return -1


_sync_clients: dict[str, Any] = {}


def _sync_broker_client() -> Any:
    import redis

    url = settings.SOLVER_BROKER_URL
    if url not in _sync_clients:
        _sync_clients[url] = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    return _sync_clients[url]


def submit(function: Callable[..., Any], *args: Any, stop: threading.Event | None = None) -> Future:
    """Run ``function`` in the solver pool within the admission bound. Requests (no
    ``stop``) get ``solver_busy`` at once when it is full; background work waits for a
    slot until ``stop`` is set (then ``solver_busy`` too)."""
    admitted = slots.acquire_when_free(stop) if stop is not None else slots.try_acquire()
    if not admitted:
        raise solver_busy()
    for _attempt in range(2):  # a pool found broken is replaced once
        pool = solver_pool()
        try:
            future = pool.submit(function, *args)
        except (BrokenProcessPool, RuntimeError):  # RuntimeError: a pool shut down as broken
            _discard_broken(pool)
            continue
        future.add_done_callback(slots.release)
        future.add_done_callback(lambda done: _discard_if_broken(pool, done))
        return future
    slots.release()
    raise solver_busy()


def _discard_if_broken(pool: ProcessPoolExecutor, future: Future) -> None:
    if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
        _discard_broken(pool)


def start_worker(table_cache_mb: int) -> None:
    """Run in each worker process as it starts: bound the table memory it keeps."""
    from solver import search

    search.keep_table_memory(table_cache_mb << 20)


def worker_table_memory() -> tuple[int, int]:
    """Run in a worker process: its bound on kept table memory and what it keeps, in bytes."""
    from solver import search

    return search.table_memory()


def solve_state(state: bytes, code: str, budget_seconds: float) -> dict[str, Any]:
    """Run in a worker process: solve a stored position."""
    from solver import solve

    return solve(from_bytes(state, code=DealCode.parse(code)), budget_seconds=budget_seconds).to_json()


def solve_deal(number: int, draw: int, scoring: str, budget_seconds: float) -> dict[str, Any]:
    """Run in a worker process: solve a deal from its opening position."""
    from solver import solve

    return solve(EngineGame.new(DealCode(number, draw, Scoring(scoring))), budget_seconds=budget_seconds).to_json()
