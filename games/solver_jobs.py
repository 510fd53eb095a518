"""Complete, hint and the solver's process pool: where the solver meets the service.

The solver is CPU-bound, so it runs in a small process pool: a request that waits for
it holds no database transaction and blocks neither the event loop nor the thread that
all ``database_sync_to_async`` calls of a process share. At most ``SOLVER_QUEUE`` jobs
are queued or running per process; a request beyond that gets ``503 solver_busy`` at
once, and no request waits longer than its budget plus ``QUEUE_WAIT_SECONDS``. Complete
then applies the winning line move by move through ``services.submit_move``: every
move is scored, counted and streamed like the player's own."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection

from engine import DealCode, Game as EngineGame, Scoring, from_bytes, to_bytes
from games.errors import ServiceError
from games.models import Game

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


def complete_status(game: Game, engine: EngineGame) -> tuple[bool, str]:
    """Whether Complete is offered, and why not when it is not."""
    if not game.is_live:
        return False, "the game is over"
    if game.kind == Game.Kind.CASUAL:
        return True, ""
    if engine.stock or engine.waste or any(engine.down):
        return False, ("in a ranked game Complete is offered once every card is face up "
                       "and the stock and the waste are empty")
    return True, ""


def _snapshot_for_solving(game_id: Any, actor: Any, purpose: str) -> tuple[bytes, str, int]:
    try:
        game = Game.objects.select_related("race", "daily").get(pk=game_id)
    except (Game.DoesNotExist, ValueError):
        raise ServiceError("not_found", "there is no such game", 404) from None
    if not actor.owns(game):
        raise ServiceError("not_your_game", "only the game's player can ask for this", 403)
    engine = game.engine()
    if purpose == "hint":
        if not game.is_live:
            raise ServiceError("game_over", f"this game is over ({game.status})", 409)
        if game.kind != Game.Kind.CASUAL:
            raise ServiceError("hint_not_offered", "hints are for casual games only", 409)
    else:
        offered, reason = complete_status(game, engine)
        if not offered:
            raise ServiceError("complete_not_offered", reason, 409)
    return to_bytes(engine), game.code, game.seq


async def _solve(state: bytes, code: str, budget: float, deadline: float) -> dict[str, Any]:
    """The solver's answer for a position; ``solver_busy`` if no worker took the job
    before ``deadline`` (``time.monotonic()``) or the pool broke."""
    job = asyncio.wrap_future(submit(solve_state, state, code, budget))
    try:
        result = await asyncio.wait_for(job, timeout=max(0.0, deadline - time.monotonic()))
    except (asyncio.TimeoutError, BrokenProcessPool):
        raise solver_busy() from None
    if result["result"] == "lose":
        raise ServiceError("not_winnable", "there is no way to win from here: undo or start a new game", 409)
    if result["result"] != "win":
        raise ServiceError("solver_timeout", "no winning line was found in time: try again after a move", 409)
    return result


def returning_connection(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` run from these async views by ``sync_to_async``, the request's
    database connection given back to the pool as it returns: the view then waits
    seconds for a solver worker, and holds no connection while it does."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:  # a test's transaction: leave it be
                connection.close()

    return call


async def hint(game_id: Any, actor: Any) -> dict[str, Any]:
    deadline = time.monotonic() + HINT_BUDGET_SECONDS + QUEUE_WAIT_SECONDS
    state, code, seq = await sync_to_async(returning_connection(_snapshot_for_solving))(game_id, actor, "hint")
    result = await _solve(state, code, HINT_BUDGET_SECONDS, deadline)
    return {"seq": seq, "move": result["moves"][0] if result["moves"] else None,
            "remaining": len(result["moves"])}


async def complete(game_id: Any, actor: Any, seq: Any) -> dict[str, Any]:
    """Play the game to a win from here, each move as its own event, within
    ``COMPLETE_SECONDS`` in all."""
    from games.services import submit_move

    started = time.monotonic()
    state, code, current = await sync_to_async(returning_connection(_snapshot_for_solving))(game_id, actor,
                                                                                          "complete")
    if seq is not None and seq != current + 1:
        raise ServiceError("seq_conflict", f"the game is at event {current}: send seq {current + 1}", 409, seq=current)
    result = await _solve(state, code, COMPLETE_BUDGET_SECONDS,
                          started + COMPLETE_BUDGET_SECONDS + QUEUE_WAIT_SECONDS)
    moves, last, played = result["moves"], None, 0
    for move in moves:
        if time.monotonic() - started > COMPLETE_SECONDS:
            break
        played += 1
        last = await sync_to_async(returning_connection(submit_move))(game_id, actor, move, current + played)
    return {"moves_played": played, "remaining": len(moves) - played, "result": last}
