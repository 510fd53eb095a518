"""The stock of proven-winnable deals that ``"winnable": true`` games are dealt from.

A request takes a deal from its mode's stock in one short query and never waits for the
solver. When a mode's stock falls below ``WINNABLE_POOL_LOW``, fresh random deals are
solved until ``WINNABLE_POOL_HIGH``: by a job on the solver's workers when there is a
broker (games/tasks.py), else by a background thread of this process on its solver
pool; one top-up per mode at a time across all processes (a lock in the Django cache)."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import deque
from typing import Any, Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import solver_jobs
from engine import DealCode, Scoring
from api.errors import ServiceError
from games.models import DailyDeal, SolvedDeal

logger = logging.getLogger(__name__)

MODES = ((1, "normal"), (3, "normal"), (1, "vegas"), (3, "vegas"))
# Normal-scoring wins a winnable game never takes: the daily deals come from the same
# wins (two a day), and this keeps a week of them even if the top-ups stall.
DAILY_RESERVE = 7
EMPTY_RETRY_AFTER_SECONDS = 5
# Per deal: most deals are decided in milliseconds (docs/performance.md); the rest
# are stored as unknown and skipped.
TOP_UP_BUDGET_SECONDS = 2.0
# A live top-up renews its lock after every deal; a killed one's lapses after this.
TOP_UP_LOCK_SECONDS = 60
# One run's longest; the next request that finds the stock low starts another.
TOP_UP_RUN_SECONDS = 300


def reserve(scoring: str) -> int:
    return DAILY_RESERVE if scoring == "normal" else 0


def unhanded(draw: int, scoring: str) -> Any:
    """The wins of a mode no game or daily deal has been given (the stock and the reserve)."""
    return SolvedDeal.objects.filter(draw=draw, scoring=scoring, result=SolvedDeal.Result.WIN, handed_out_at=None)


def stock_size(draw: int, scoring: str, cap: int) -> int:
    """How many deals a winnable game may take, counted up to ``cap`` (a bounded cost)."""
    kept = reserve(scoring)
    return max(0, unhanded(draw, scoring).order_by()[:cap + kept].count() - kept)


def take_many(draw: int, scoring: str, count: int) -> list[DealCode]:
    """Up to ``count`` stock deals at once (a matchmaking wave), as ``take``: in the
    caller's transaction, rows others hold skipped; ``503 no_winnable_deal`` when the
    stock is empty."""
    _check_all_modes_once()
    kept = reserve(scoring)
    stock = unhanded(draw, scoring).select_for_update(skip_locked=True).order_by("id").only("id", "deal_number")
    chosen = list(stock[kept:kept + count])
    if not chosen:
        request_top_up(draw, scoring)
        raise ServiceError("no_winnable_deal", _("no proven-winnable deal is ready for this mode right now: "
                                                 "try again in a few seconds, or start a random deal"), 503,
                           retry_after=EMPTY_RETRY_AFTER_SECONDS)
    SolvedDeal.objects.filter(pk__in=[row.pk for row in chosen]).update(handed_out_at=timezone.now())
    transaction.on_commit(lambda: request_top_up(draw, scoring))
    return [DealCode(row.deal_number, draw, Scoring(scoring)) for row in chosen]


def take(draw: int, scoring: str) -> DealCode:
    """Hand out the mode's oldest stock deal, in the caller's transaction (the game that
    gets it commits with the mark, or neither does). Rows another transaction holds
    (a concurrent request, a daily deal being chosen) are skipped, not waited for.
    ``503 no_winnable_deal`` when the stock is empty: a top-up is on its way."""
    _check_all_modes_once()
    kept = reserve(scoring)
    stock = unhanded(draw, scoring).select_for_update(skip_locked=True).order_by("id").only("id", "deal_number")
    chosen = next(iter(stock[kept:kept + 1]), None)
    if chosen is None:
        request_top_up(draw, scoring)
        raise ServiceError("no_winnable_deal", _("no proven-winnable deal is ready for this mode right now: "
                                                 "try again in a few seconds, or start a random deal"), 503,
                           retry_after=EMPTY_RETRY_AFTER_SECONDS)
    SolvedDeal.objects.filter(pk=chosen.pk).update(handed_out_at=timezone.now())
    transaction.on_commit(lambda: request_top_up(draw, scoring))
    return DealCode(chosen.deal_number, draw, Scoring(scoring))


# -- the lock: one top-up per mode across processes ----------------------------------

class TopUpLock:
    """``cache.add`` takes it only if nobody holds it; it lapses after
    ``TOP_UP_LOCK_SECONDS`` unless renewed, so a killed holder frees it."""

    def __init__(self, draw: int, scoring: str) -> None:
        self.key = f"winnable-top-up:D{draw}{scoring}"
        self.token = secrets.token_hex(8)

    def acquire(self) -> bool:
        return cache.add(self.key, self.token, timeout=TOP_UP_LOCK_SECONDS)

    def renew(self) -> bool:
        if cache.get(self.key) != self.token:
            return False  # it lapsed; another process may be topping up now
        return cache.touch(self.key, timeout=TOP_UP_LOCK_SECONDS)

    def release(self) -> None:
        if cache.get(self.key) == self.token:
            cache.delete(self.key)


# -- the top-up ----------------------------------------------------------------------

def is_low(draw: int, scoring: str) -> bool:
    low = settings.WINNABLE_POOL_LOW
    return low > 0 and stock_size(draw, scoring, low) < low


def top_up_if_low(draw: int, scoring: str, *, solve: Callable[[int, int, str], dict[str, Any]] | None = None,
                  run_seconds: float = TOP_UP_RUN_SECONDS) -> int | None:
    """Solve fresh deals until the stock is full again (or ``run_seconds`` have passed),
    if it is below the low-water mark. ``solve(number, draw, scoring)`` answers for one
    deal (default: on this process's solver pool). The number of wins added; ``None``
    when another top-up holds the mode's lock."""
    if _stop.is_set() or not is_low(draw, scoring):
        return 0
    lock = TopUpLock(draw, scoring)
    if not lock.acquire():
        return None
    try:
        return _fill(draw, scoring, settings.WINNABLE_POOL_HIGH, lock, solve or _solve_in_pool, run_seconds)
    finally:
        lock.release()


def _solve_in_pool(number: int, draw: int, scoring: str) -> dict[str, Any]:
    job = solver_jobs.submit(solver_jobs.solve_deal, number, draw, scoring, TOP_UP_BUDGET_SECONDS, stop=_stop)
    return job.result(timeout=TOP_UP_BUDGET_SECONDS + TOP_UP_LOCK_SECONDS)


def _fill(draw: int, scoring: str, high: int, lock: TopUpLock, solve: Callable[[int, int, str], dict[str, Any]],
          run_seconds: float) -> int:
    added, started = 0, time.monotonic()
    while (stock_size(draw, scoring, high) < high and not _stop.is_set()
           and time.monotonic() - started < run_seconds):
        number = DealCode.random(draw).number
        # Never a deal already examined, nor a daily deal (a day without a stock
        # gets a deal the solver has not seen).
        if (SolvedDeal.objects.filter(draw=draw, scoring=scoring, deal_number=number).exists()
                or DailyDeal.objects.filter(deal_number=number).exists()):
            continue
        try:
            result = solve(number, draw, scoring)
        except ServiceError:  # stopped while waiting for a solver slot
            break
        _row, created = SolvedDeal.objects.get_or_create(draw=draw, scoring=scoring, deal_number=number, defaults={
            "result": result["result"], "nodes": result["nodes"], "seconds": result["seconds"]})
        if created and result["result"] == SolvedDeal.Result.WIN:
            added += 1
        if not lock.renew():
            break
    return added


# -- the background thread -------------------------------------------------------------

_state = threading.Condition()
_queue: deque[tuple[int, str]] = deque()
_runner: threading.Thread | None = None
_stop = threading.Event()
_checked = False


def request_top_up(draw: int, scoring: str) -> None:
    """Have the mode's stock checked: by a job on the solver's workers when there is a
    broker, else by this process's top-up thread (at most once queued per mode)."""
    global _runner
    if settings.SOLVER_BROKER_URL:
        send_top_up(draw, scoring)
        return
    with _state:
        if (draw, scoring) in _queue:
            return
        _queue.append((draw, scoring))
        if _runner is None or not _runner.is_alive():
            # A daemon thread: a process that exits does not wait for a top-up.
            _runner = threading.Thread(target=_run, name="winnable-top-up", daemon=True)
            _runner.start()
        _state.notify_all()


def send_top_up(draw: int, scoring: str, *, again: bool = False) -> None:
    """Queue a top-up job for the mode, unless one was queued in the last
    ``TOP_UP_LOCK_SECONDS`` (``again``: a top-up job continuing itself). A broker that
    cannot be reached costs the request nothing: the next one asks again."""
    from celery import current_app

    queued = f"winnable-top-up-queued:D{draw}{scoring}"
    if again:
        cache.delete(queued)
    if not cache.add(queued, 1, timeout=TOP_UP_LOCK_SECONDS):
        return
    try:
        current_app.send_task("solver.top_up_winnable", args=[draw, scoring], queue=settings.SOLVER_JOB_QUEUE)
    except Exception:  # noqa: BLE001 - logged; a top-up never fails a request
        cache.delete(queued)
        logger.warning("could not queue the winnable top-up of D%s %s", draw, scoring, exc_info=True)


def _check_all_modes_once() -> None:
    """The first winnable request a process serves checks every mode's stock."""
    global _checked
    if not _checked:
        _checked = True
        for draw, scoring in MODES:
            request_top_up(draw, scoring)


def _run() -> None:
    while True:
        with _state:
            _state.wait_for(lambda: bool(_queue))
            draw, scoring = _queue[0]
        try:
            if not _stop.is_set():
                top_up_if_low(draw, scoring)
        except Exception:  # noqa: BLE001 - logged; a top-up never fails a request
            logger.exception("the winnable top-up of D%s %s failed", draw, scoring)
        finally:
            connection.close()
            with _state:
                _queue.popleft()
                _state.notify_all()


def wait_until_idle(timeout: float) -> bool:
    """Wait until no top-up is queued or running in this process (tests, shutdown)."""
    with _state:
        return _state.wait_for(lambda: not _queue, timeout=timeout)


def stop_top_ups(timeout: float = 60.0) -> bool:
    """Stop this process's top-ups after the deal each is solving; drop queued ones."""
    global _checked
    _stop.set()
    try:
        return wait_until_idle(timeout)
    finally:
        _stop.clear()
        _checked = False
