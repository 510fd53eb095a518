"""Helpers for the real-time tests (tests/test_realtime_*.py).

Async test bodies run with :func:`run` (``asyncio.run`` inside a sync test: no
pytest-asyncio).  Everything that touches the database from an async body goes
through ``database_sync_to_async`` (``adb``); sockets are real consumers behind
``config.asgi.application`` (:class:`WS`) or real Daphne processes (:class:`Daphne`,
:class:`Client`), with the configured channel layer (Redis) and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Awaitable, Callable

from channels.db import database_sync_to_async

ROOT = Path(__file__).resolve().parent.parent
DEAL = "KL1-D1N-AAAAAAG"  # a fixed draw-1 normal deal: reproducible boards

adb = database_sync_to_async


# --- users, games, moves (sync: call them directly, or through adb) -----------


def make_user(username: str) -> tuple[Any, str]:
    """A user and their API token key."""
    from django.contrib.auth import get_user_model
    from accounts.tokens import issue

    user = get_user_model().objects.create(username=username)
    return user, issue(user, name="test", scope="play", expires_in_days=1)[1]


def new_game(user: Any, code: str | None = DEAL, **options: Any) -> str:
    from games import services

    return str(services.create_game(services.Actor(user_id=user.pk), code=code, **options).id)


def submit(game_id: str, user: Any, move: dict[str, Any], seq: int) -> dict[str, Any]:
    from games import services

    return services.submit_move(game_id, services.Actor(user_id=user.pk), move, seq)


def game_row(game_id: str) -> Any:
    from games.models import Game

    return Game.objects.select_related("race").get(pk=game_id)


def game_seq(game_id: str) -> int:
    return game_row(game_id).seq


def legal_moves(game_id: str) -> list[dict[str, Any]]:
    """The legal moves of the game's current server-side position, in wire format."""
    return [move.to_json() for move in game_row(game_id).engine().legal_moves()]


def move_rows(game_id: str) -> list[Any]:
    from games.models import Move

    return list(Move.objects.filter(game_id=game_id).order_by("seq"))


def rest_get(game_id: str) -> dict[str, Any]:
    """GET /api/games/<id>/ through Django's test client (in this process)."""
    from django.test import Client

    response = Client().get(f"/api/games/{game_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def rest_move(game_id: str, token: str, move: dict[str, Any], seq: int) -> dict[str, Any]:
    from django.test import Client

    response = Client().post(f"/api/games/{game_id}/moves", {"move": move, "seq": seq},
                             content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200, response.content
    return response.json()


def view_after(code: str, actions: list[dict[str, Any]], ranked: bool) -> dict[str, Any]:
    """The public view of deal ``code`` after the engine actions ``actions``."""
    from engine import public_view, replay

    return public_view(replay(code, [a for a in actions if a["type"] in {"draw", "recycle", "undo", "move"}],
                              ranked=ranked))


def pick(rng: random.Random, moves: list[dict[str, Any]], *, undo: bool = False) -> dict[str, Any]:
    """A random legal move, card moves preferred (so games make progress)."""
    cards = [m for m in moves if m["type"] == "move"]
    if undo and rng.random() < 0.1:
        return {"type": "undo"}
    if cards and rng.random() < 0.7:
        return rng.choice(cards)
    return rng.choice(moves)


def state_of(game: dict[str, Any]) -> dict[str, Any]:
    """The comparable part of a game: a REST payload or a snapshot's ``game``."""
    return {key: game[key] for key in ("seq", "score", "moves", "status", "view")}


def apply_event(state: dict[str, Any], event: dict[str, Any]) -> None:
    """Zulip-style: apply one event to a client's copy of the game."""
    assert event["seq"] == state["seq"] + 1, (state["seq"], event)
    state["seq"], state["score"], state["moves"] = event["seq"], event["score"], event["moves"]
    if "status" in event:
        state["status"] = event["status"]
    if "view" in event:
        state["view"] = event["view"]


def assert_ranks(entries: list[dict[str, Any]]) -> None:
    """Race results: winners by time, then cards on foundations, score, fewer moves;
    each racer's rank is one more than the number of racers strictly ahead (equal
    results share a rank)."""

    def key(entry: dict[str, Any]) -> tuple:
        if entry["won"]:
            return (0, entry["seconds"] or 0.0, 0, 0, 0)
        return (1, 0.0, -entry["foundation_count"], -entry["score"], entry["moves"])

    for entry in entries:
        assert entry["rank"] == 1 + sum(key(other) < key(entry) for other in entries), entries


# --- channels test sockets ------------------------------------------------------


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"socket closed with code {code}")
        self.code = code


def origin() -> bytes:
    """``http://testserver`` (pytest-django adds it to ALLOWED_HOSTS), unless the
    application was built before that: then the first configured host."""
    from config.asgi import application

    router = application.app.app  # inside ClientAddressMiddleware and RequestTelemetry
    allowed = getattr(router.application_mapping["websocket"], "allowed_origins", ["testserver"])
    host = "testserver" if "testserver" in allowed or "*" in allowed else allowed[0]
    return f"http://{host}".encode()


def ws_headers(token: str | None = None, origin_header: bytes | None = None) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", origin_header if origin_header is not None else origin()), (b"host", b"testserver")]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    return headers


class WS:
    """A ``WebsocketCommunicator`` on ``config.asgi.application`` with a JSON reader
    that never cancels the consumer on a timeout (the communicator's own does)."""

    opened: list["WS"] = []

    def __init__(self, path: str, token: str | None = None, *, headers: list[tuple[bytes, bytes]] | None = None):
        from channels.testing import WebsocketCommunicator
        from config.asgi import application

        self.path = path
        self.comm = WebsocketCommunicator(application, path, headers=headers or ws_headers(token))
        self.log: list[dict[str, Any]] = []
        WS.opened.append(self)

    @classmethod
    async def open(cls, path: str, token: str | None = None, **kwargs: Any) -> "WS":
        ws = cls(path, token, **kwargs)
        connected, code = await ws.comm.connect(timeout=5)
        assert connected, f"{path} refused ({code})"
        return ws

    async def send(self, data: Any) -> None:
        await self.comm.send_json_to(data)

    async def send_text(self, text: str) -> None:
        await self.comm.send_input({"type": "websocket.receive", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        await self.comm.send_input({"type": "websocket.receive", "bytes": data})

    async def recv(self, timeout: float = 8.0) -> dict[str, Any]:
        if self.comm.future.done():
            self.comm.future.result()  # the consumer crashed: raise its exception
        try:
            output = await asyncio.wait_for(self.comm.output_queue.get(), timeout)
        except asyncio.TimeoutError:
            brief = [(m["type"], m.get("seq"), str(m.get("game", ""))[:4]) for m in self.log]
            raise AssertionError(f"{self.path}: nothing received in {timeout}s; got {brief}; last {self.log[-1:]}") from None
        if output["type"] == "websocket.close":
            raise Closed(output.get("code"))
        assert output["type"] == "websocket.send", output
        assert "text" in output, output
        message = json.loads(output["text"])
        self.log.append(message)
        return message

    async def recv_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 8.0,
                         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The first message matching ``predicate`` and those skipped before it."""
        deadline = time.monotonic() + timeout
        skipped = []
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message, skipped
            skipped.append(message)

    async def recv_type(self, kind: str, timeout: float = 8.0, *, ignore: tuple[str, ...] = ("watchers",)
                        ) -> dict[str, Any]:
        """The next message, skipping ``ignore`` types; it must be of type ``kind``."""
        while True:
            message = await self.recv(timeout)
            if message["type"] not in ignore:
                assert message["type"] == kind, message
                return message

    async def quiet(self, timeout: float = 0.3, *, ignore: tuple[str, ...] = ("watchers",)) -> list[dict[str, Any]]:
        """Messages other than ``ignore`` arriving within ``timeout`` (should be none)."""
        got = []
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                output = await asyncio.wait_for(self.comm.output_queue.get(), left)
            except asyncio.TimeoutError:
                break
            if output["type"] == "websocket.send":
                message = json.loads(output["text"])
                self.log.append(message)
                if message["type"] not in ignore:
                    got.append(message)
            else:
                got.append(output)
        return got

    async def close(self) -> None:
        if not self.comm.future.done():
            with contextlib.suppress(Exception):
                await self.comm.disconnect(timeout=3)

    @classmethod
    async def close_all(cls) -> None:
        opened, cls.opened = cls.opened, []
        for ws in opened:
            await ws.close()


async def play_ws(ws: WS, move: dict[str, Any], seq: int, **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A move on a player's game socket: its ack and its event."""
    frame = {"type": "undo", "seq": seq} if move["type"] == "undo" else {"type": "move", "move": move, "seq": seq}
    await ws.send({**frame, **extra})
    ack = await ws.recv_type("ack")
    assert ack["seq"] == seq, ack
    event = await ws.recv_type("event")
    assert event["seq"] == seq, event
    return ack, event


def reset_process_state() -> None:
    """Each test body runs on a fresh event loop. Objects bound to a loop must not
    outlive it: the presence client (cached per loop id, and ids get reused) and the
    channel layer (its receive and cleanup locks belong to the loop that used them
    last). Both are rebuilt on first use; the application gets the new ones from
    ``get_channel_layer()`` like any process would."""
    import realtime.presence
    from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

    realtime.presence._presence = None
    channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body on a fresh event loop; close every socket it opened."""

    async def wrapper() -> Any:
        try:
            return await body()
        finally:
            await WS.close_all()

    reset_process_state()
    try:
        return asyncio.run(wrapper())
    finally:
        reset_process_state()


# --- Daphne subprocesses and websockets clients ------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict[str, Any]) -> str:
    from urllib.parse import quote

    user = quote(settings_dict.get("USER") or "")
    password = quote(settings_dict.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{quote(settings_dict['NAME'])}"


class Daphne:
    """One Daphne process serving config.asgi:application on a free port."""

    def __init__(self, db_url: str, redis_url: str, **settings: str) -> None:
        """``settings``: environment variables for this server (e.g. TRUSTED_PROXIES)."""
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix=f"daphne-{self.port}-", suffix=".log", delete=False)
        env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url,
               "SECRET_KEY": os.environ.get("SECRET_KEY") or "insecure-test-only-key",
               "ALLOWED_HOSTS": "127.0.0.1,localhost", "DEBUG": "false",
               "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1", **settings}
        daphne = ROOT / ".venv" / "bin" / "daphne"
        launcher = [str(daphne)] if daphne.exists() else [sys.executable, "-m", "daphne"]
        # As deployed: the app's access log (ACCESS_LOG) instead of Daphne's, which
        # would log the query string and the proxy's address.
        command = [*launcher, "-b", "127.0.0.1", "-p", str(self.port), "--access-log", os.devnull,
                   "config.asgi:application"]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne on {self.port} exited ({self.process.returncode}):\n{self.output()}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{self.http}/healthz", timeout=1) as response:
                    if response.status == 200 and json.load(response) == {"status": "ok"}:
                        return
            time.sleep(0.1)
        raise RuntimeError(f"daphne on {self.port} did not answer /healthz in {timeout}s:\n{self.output()}")

    def output(self) -> str:
        with contextlib.suppress(OSError):
            return Path(self.log.name).read_text(errors="replace")[-4000:]
        return ""

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no close frames."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)

    def get_json(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.http}{path}", timeout=5) as response:
            return json.load(response)


def start_daphnes(count: int, db_url: str, redis_url: str) -> list[Daphne]:
    servers = [Daphne(db_url, redis_url) for _ in range(count)]
    try:
        for server in servers:
            server.wait_ready()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


class Client:
    """A ``websockets`` client on a Daphne process, with a reader task that keeps
    every message (and the close code) for the test to inspect."""

    def __init__(self, server: Daphne, path: str, token: str | None = None, name: str = "",
                 cookie: str | None = None) -> None:
        self.server, self.path, self.token, self.name = server, path, token, name or path
        self.cookie = cookie  # e.g. "sessionid=…": a signed-in browser's socket
        self.messages: list[dict[str, Any]] = []
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.close_code: int | None = None
        self.conn: Any = None
        self.reader: asyncio.Task | None = None

    async def connect(self) -> "Client":
        from websockets.asyncio.client import connect

        headers = {"Origin": f"http://127.0.0.1:{self.server.port}"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if self.cookie:
            headers["Cookie"] = self.cookie
        self.conn = await connect(f"{self.server.ws}{self.path}", additional_headers=headers, open_timeout=10)
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for text in self.conn:
                message = json.loads(text)
                self.messages.append(message)
                self.queue.put_nowait(message)
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.conn.close_code or 1006
            self.queue.put_nowait(None)

    @property
    def closed(self) -> bool:
        return self.reader is not None and self.reader.done()

    async def send(self, data: dict[str, Any]) -> None:
        """Send a frame; a connection that is gone raises :class:`Closed`."""
        await self.send_text(json.dumps(data))

    async def send_text(self, text: str) -> None:
        """Send a text frame as it is (not necessarily JSON)."""
        from websockets.exceptions import ConnectionClosed

        try:
            await self.conn.send(text)
        except ConnectionClosed:
            raise Closed(self.conn.close_code or 1006) from None

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        try:
            message = await asyncio.wait_for(self.queue.get(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"{self.name}: nothing received in {timeout}s; last {self.messages[-3:]}") from None
        if message is None:
            self.queue.put_nowait(None)
            raise Closed(self.close_code)
        return message

    async def recv_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message

    async def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.close(), 3)
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 3)


async def http_get(server: Daphne, path: str) -> Any:
    return await asyncio.to_thread(server.get_json, path)
