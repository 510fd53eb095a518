"""Loaded into a test's solver worker (``celery worker --include tests.slow_solver_jobs``):
each solve of a position first notes its process id in SLOW_SOLVER_PIDS and waits
SLOW_SOLVER_SECONDS, so that a test can kill the worker while a job runs."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from games import tasks

_real_solve_state = tasks.FUNCTIONS["solve_state"]


def _slow_solve_state(*args: Any) -> Any:
    folder = Path(os.environ["SLOW_SOLVER_PIDS"])
    (folder / f"{os.getpid()}-{time.monotonic_ns()}").touch()
    time.sleep(float(os.environ["SLOW_SOLVER_SECONDS"]))
    return _real_solve_state(*args)


tasks.FUNCTIONS["solve_state"] = _slow_solve_state
