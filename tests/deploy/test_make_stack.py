"""`make stack` (python -m deploy.stack up): the whole topology by one command, on one
port, stopped cleanly by a second command (`make stack-stop`) or by Ctrl-C, leaving no
process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import requests

from tests.realtime_helpers import ROOT, free_port

DATABASE = "klondike_stack_test"


@pytest.fixture
def stack_env(tmp_path: Path, django_db_setup: object) -> Iterator[dict[str, str]]:
    import psycopg

    admin = "postgres://postgres@127.0.0.1:5432/postgres"
    env = {**os.environ, "STACK_PORT": str(free_port()), "STACK_RUN_DIR": str(tmp_path / "stack"),
           "STACK_WEB_PORTS": ",".join(str(free_port()) for _ in range(3)), "STACK_WORKERS": "1",
           "STACK_DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DATABASE}",
           "STACK_REDIS_DBS": "13,14,15"}
    yield env
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


def start(env: dict[str, str]) -> tuple[subprocess.Popen, list[int]]:
    process = subprocess.Popen([sys.executable, "-m", "deploy.stack", "up"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if "stack: Klondike on" in line:
            break
        assert process.poll() is None, "".join(lines)
    else:
        raise AssertionError("".join(lines))
    run_dir = Path(env["STACK_RUN_DIR"])
    pids = json.loads((run_dir / "pids.json").read_text())
    answer = requests.get(f"https://localhost:{env['STACK_PORT']}/readyz", verify=str(run_dir / "tls" / "cert.pem"),
                          timeout=10)
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    return process, [*pids["web"], *pids["worker"], *pids["nginx"]]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def stopped_cleanly(process: subprocess.Popen, pids: list[int]) -> str:
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "stack: stopped" in output
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if alive(pid)]
    return output


def test_one_command_starts_it_and_a_second_stops_it(stack_env: dict[str, str]) -> None:
    process, pids = start(stack_env)
    assert len(pids) == 5  # three web processes, a worker, nginx
    down = subprocess.run([sys.executable, "-m", "deploy.stack", "down"], cwd=ROOT, env=stack_env,
                          capture_output=True, text=True, timeout=30)
    assert down.returncode == 0, down.stderr
    stopped_cleanly(process, pids)
    # Ctrl-C stops it as cleanly.
    process, pids = start(stack_env)
    process.send_signal(signal.SIGINT)
    stopped_cleanly(process, pids)
