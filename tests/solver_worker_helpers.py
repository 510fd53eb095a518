"""A Celery solver worker process of a test's own (as `make stack` starts them), on a
broker the test names."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.realtime_helpers import ROOT


class SolverWorker:
    def __init__(self, db_url: str, broker_url: str, *, name: str = "solver1", concurrency: int = 1,
                 slow_seconds: float | None = None, **settings: str) -> None:
        self.name = name
        self.log = tempfile.NamedTemporaryFile(prefix=f"worker-{name}-", suffix=".log", delete=False)
        self.pids = Path(tempfile.mkdtemp(prefix="solver-pids-"))
        env = {**os.environ, "DATABASE_URL": db_url, "SOLVER_BROKER_URL": broker_url,
               "DJANGO_SETTINGS_MODULE": "config.settings",
               "SECRET_KEY": os.environ.get("SECRET_KEY") or "insecure-test-only-key", "DEBUG": "false",
               "PYTHONUNBUFFERED": "1", "SLOW_SOLVER_PIDS": str(self.pids), **settings}
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "solver", "-n", f"{name}@%h",
                   "--concurrency", str(concurrency), "--prefetch-multiplier", "1", "--without-gossip",
                   "--without-mingle", "--loglevel", "INFO"]
        if slow_seconds is not None:
            env["SLOW_SOLVER_SECONDS"] = str(slow_seconds)
            command += ["--include", "tests.slow_solver_jobs"]
        self.env = env
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited:\n{self.output()}")
            if "ready." in self.output():
                return
            time.sleep(0.1)
        raise RuntimeError(f"worker {self.name} not ready in {timeout}s:\n{self.output()}")

    def output(self) -> str:
        with contextlib.suppress(OSError):
            return Path(self.log.name).read_text(errors="replace")
        return ""

    def running_jobs(self) -> list[int]:
        """The pool processes that started a (slowed) solve, oldest first."""
        entries = sorted(self.pids.iterdir(), key=lambda p: int(p.name.split("-")[1]))
        return [int(p.name.split("-")[0]) for p in entries]

    def wait_for_jobs(self, count: int, timeout: float = 20.0) -> list[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(jobs := self.running_jobs()) >= count:
                return jobs
            time.sleep(0.02)
        raise AssertionError(f"{count} solves did not start in {timeout}s:\n{self.output()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL to the worker and its pool: a machine gone."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)
