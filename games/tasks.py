"""The solver's jobs on Celery workers (``celery -A config worker -Q solver``), when
SOLVER_BROKER_URL is set (games.solver_jobs sends them).

A job's answer goes back on the Redis list ``solver-reply:<job id>`` that the web
process waits on, so no result backend is needed and the wait costs it no thread.
Time limits are the worker's: the soft one stops the search with an answer
(``solver_timeout``), the hard one kills the worker process. A job whose worker dies
is given to another once (acks late, rejected on worker loss); a second death answers
``solver_failed``. A top-up of the winnable pool solves deals for a bounded time and
queues its own continuation, so it never holds a worker from players for long."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init
from django.conf import settings
from django.db import close_old_connections
from django.utils.translation import gettext_noop

from games import solver_jobs, winnable_pool

logger = logging.getLogger(__name__)

MAX_TRIES = 2  # the first try and one retry after its worker died
# One top-up job's longest run; it queues the next while the stock is still low.
TOP_UP_JOB_SECONDS = 20.0


@worker_process_init.connect
def _start_worker_process(**_: Any) -> None:
    solver_jobs.start_worker(settings.SOLVER_TABLE_CACHE_MB)


def _redis() -> Any:
    return solver_jobs._sync_broker_client()


def _reply(job_id: str, answer: dict[str, Any]) -> None:
    key = solver_jobs.reply_key(job_id)
    with _redis().pipeline() as pipe:
        pipe.rpush(key, json.dumps(answer))
        pipe.expire(key, solver_jobs.REPLY_KEEP_SECONDS)
        pipe.execute()


def _solve_state(state: str, code: str, budget: float) -> dict[str, Any]:
    return solver_jobs.solve_state(base64.b64decode(state), code, budget)


FUNCTIONS = {"solve_state": _solve_state, "solve_deal": solver_jobs.solve_deal}


@shared_task(name="solver.solve")
def solve(job_id: str, function: str, args: list[Any]) -> None:
    tries_key = f"{solver_jobs.reply_key(job_id)}:tries"
    tries = _redis().incr(tries_key)
    _redis().expire(tries_key, solver_jobs.REPLY_KEEP_SECONDS)
    if tries > MAX_TRIES:
        logger.warning("solver job %s: its workers died %d times; given up", job_id, tries - 1)
        # In English: the web process translates it for its reader (games.solver_jobs).
        return _reply(job_id, {"error": "solver_failed",
                               "detail": gettext_noop("the solver stopped before it answered: try again")})
    try:
        result = FUNCTIONS[function](*args)
    except SoftTimeLimitExceeded:
        return _reply(job_id, {"error": "solver_timeout",
                               "detail": gettext_noop("no winning line was found in time: try again after a move")})
    _reply(job_id, {"result": result})


@shared_task(name="solver.top_up_winnable", acks_late=False, time_limit=TOP_UP_JOB_SECONDS + 30)
def top_up_winnable(draw: int, scoring: str) -> None:
    try:
        added = winnable_pool.top_up_if_low(draw, scoring, solve=_solve_deal_here, run_seconds=TOP_UP_JOB_SECONDS)
        if added is not None and winnable_pool.is_low(draw, scoring):
            winnable_pool.send_top_up(draw, scoring, again=True)
    finally:
        close_old_connections()


def _solve_deal_here(number: int, draw: int, scoring: str) -> dict[str, Any]:
    return solver_jobs.solve_deal(number, draw, scoring, winnable_pool.TOP_UP_BUDGET_SECONDS)
