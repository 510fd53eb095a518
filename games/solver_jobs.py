"""The solver's process pool: where the solver meets the service (hint and Complete
use it from games.hint_complete, the winnable pool from games.winnable_pool).

The solver is CPU-bound, so it runs in a small process pool: a request that waits for
it holds no database transaction and blocks neither the event loop nor the thread that
all ``database_sync_to_async`` calls of a process share. At most ``SOLVER_QUEUE`` jobs
are queued or running per process; a request beyond that gets ``503 solver_busy`` at
once, and no request waits longer than its budget plus ``QUEUE_WAIT_SECONDS``."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from django.conf import settings

from engine import DealCode, Game as EngineGame, Scoring, from_bytes
from api.errors import ServiceError

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
    return ServiceError("solver_busy", "the solvers are busy right now: try again in a few seconds", 503,
                        retry_after=BUSY_RETRY_AFTER_SECONDS)


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
