"""Saturating this process's solver pool with real jobs that hold their worker until
released: a request that answers while they still run did not wait for a solver."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

HOLD_LIMIT_SECONDS = 120.0


def hold(flag: str, limit: float) -> str:
    """Run in a solver worker: keep it busy until the file ``flag`` exists."""
    end = time.monotonic() + limit
    while not os.path.exists(flag):
        if time.monotonic() > end:
            return "gave up"
        time.sleep(0.01)
    return "released"


def exit_worker() -> None:
    """Run in a solver worker: die as a killed worker would."""
    os._exit(1)


@contextmanager
def saturated_solvers(directory: Path) -> Iterator[list[Future]]:
    """Fill every admission slot (``SOLVER_QUEUE``) with holding jobs; release them on exit."""
    from django.conf import settings

    from games import solver_jobs

    flag = directory / "release-solvers"
    jobs = [solver_jobs.submit(hold, str(flag), HOLD_LIMIT_SECONDS) for _ in range(settings.SOLVER_QUEUE)]
    try:
        yield jobs
    finally:
        flag.touch()
        results = [job.result(timeout=HOLD_LIMIT_SECONDS + 10) for job in jobs]
        assert results == ["released"] * len(jobs), results
