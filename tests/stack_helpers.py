"""The stack as deployed (deploy/stack.py: nginx with TLS in front of web processes
and Celery solver workers) on free ports, on a PostgreSQL and a Redis of the test's own
so that a test may kill and restart any part of it; and clients that reach it only
through the proxy, as users do."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import ssl
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import requests

from deploy.stack import Stack, StackConfig
from tests.private_postgres import MAKE_PLAYERS, PrivatePostgres, manage
from tests.private_redis import PrivateRedis
from tests.realtime_helpers import Client, free_port



class FrontDoor:
    """A whole stack: its own Postgres and Redis, N web processes, workers, nginx."""

    def __init__(self, web: int = 3, workers: int = 1, socket_idle_seconds: int = 75, slow_solver_seconds: float = 0,
                 **settings: str) -> None:
        self.postgres = PrivatePostgres(max_connections=100)
        self.redis = PrivateRedis()
        self.dir = Path(tempfile.mkdtemp(prefix="klondike-stack-"))
        self.made = 0
        self.config = StackConfig(
            run_dir=self.dir, port=free_port(), web_ports=[free_port() for _ in range(web)], workers=workers,
            socket_idle_seconds=socket_idle_seconds,
            database_url=self.postgres.url, redis_url=self.redis.url,
            cache_url=self.redis.url.replace("/0", "/1"), broker_url=self.redis.url.replace("/0", "/2"),
            extra_env={"DB_POOL_MAX_SIZE": "8", "DRAIN_SECONDS": "10", **settings})
        self.solver_pids = self.dir / "solver-pids"
        if slow_solver_seconds:  # tests/slow_solver_jobs.py: each solve waits first
            self.solver_pids.mkdir()
            self.config.worker_args = ["--include", "tests.slow_solver_jobs"]
            self.config.extra_env.update(SLOW_SOLVER_SECONDS=str(slow_solver_seconds),
                                         SLOW_SOLVER_PIDS=str(self.solver_pids))
        self.stack = Stack(self.config)

    def start(self) -> None:
        self.postgres.start()
        self.redis.start()
        self.stack.up()
        if self.config.workers:
            self.stack.wait_workers_ready()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.down()
        self.redis.destroy()
        self.postgres.destroy()
        if not os.environ.get("KEEP_STACK"):  # to read its logs after a failure
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- what users reach ----------------------------------------------------------

    @property
    def http(self) -> str:
        return f"https://localhost:{self.config.port}"

    @property
    def ws(self) -> str:
        return f"wss://localhost:{self.config.port}"

    @property
    def cert(self) -> str:
        return str(self.dir / "tls" / "cert.pem")

    def session(self, token: str | None = None) -> requests.Session:
        session = requests.Session()
        session.verify = self.cert  # the stack's own certificate, checked
        session.trust_env = False  # else REQUESTS_CA_BUNDLE wins over verify (requests #3829)
        if token:
            session.headers["Authorization"] = f"Token {token}"
        return session

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.cert)

    def players(self, count: int) -> list[str]:
        """Tokens (scope play) of ``count`` new players."""
        return [token for _, token in self.named_players(count)]

    def named_players(self, count: int) -> list[tuple[str, str]]:
        """(username, token) of ``count`` new players."""
        prefix = f"p{self.made}x"
        self.made += 1
        output = manage(self.stack.env(), "shell", "--no-imports", "-c",
                        MAKE_PLAYERS.format(count=count, prefix=prefix))
        tokens = json.loads(output.strip().splitlines()[-1])
        return [(f"{prefix}{index}", token) for index, token in enumerate(tokens)]

    def stored_moves(self, game_id: str) -> list[int]:
        return self.postgres.stored_moves(game_id)

    def log(self, name: str) -> list[dict[str, Any]]:
        """A process's JSON log lines (web1, worker1, nginx-access...)."""
        lines = []
        for line in (self.dir / "logs" / f"{name}.log").read_text(errors="replace").splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    lines.append(json.loads(line))
        return lines


class DoorClient(Client):
    """realtime_helpers' client, through the proxy: TLS with the stack's certificate,
    reconnectable, and it answers False or None where that one raises ``Closed``."""

    def __init__(self, door: FrontDoor, path: str, token: str | None = None, name: str = "") -> None:
        super().__init__(door, path, token, name)  # type: ignore[arg-type]
        self.door = door

    async def connect(self, query: str = "") -> "DoorClient":
        from websockets.asyncio.client import connect

        headers = {"Origin": self.door.http}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        self.queue = asyncio.Queue()
        self.close_code = None
        self.conn = await connect(f"{self.door.ws}{self.path}{query}", additional_headers=headers,
                                  ssl=self.door.ssl_context(), open_timeout=10)
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def send(self, data: dict[str, Any]) -> bool:
        """False if the connection is gone."""
        from websockets.exceptions import ConnectionClosed

        try:
            await self.conn.send(json.dumps(data))
            return True
        except ConnectionClosed:
            # Let the reader see the end too, so that ``closed`` says so from now on.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.reader), 5)
            return False

    async def recv_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0
                         ) -> dict[str, Any] | None:
        """The first message matching ``predicate``; None if the connection closed first."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: nothing matching in {timeout}s; last {self.messages[-3:]}")
            try:
                message = await asyncio.wait_for(self.queue.get(), left)
            except asyncio.TimeoutError:
                continue
            if message is None:
                self.queue.put_nowait(None)
                return None
            if predicate(message):
                return message



def front_door_fixture(**kwargs: Any) -> Iterator[FrontDoor]:
    door = FrontDoor(**kwargs)
    try:
        door.start()
        yield door
    finally:
        door.stop()

