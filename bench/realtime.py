#!/usr/bin/env python
"""Real-time benchmark: live games watched by spectators over WebSockets.

    .venv/bin/python bench/realtime.py [--games 200] [--spectators 5] [--rate 1.0]
        [--seconds 30] [--processes 2] [--proxy] [--json]

A benchmark, not a test: it prints figures and always exits 0 unless it could not
run. What it does, in one run:

1. Set-up: drops and creates the database ``klondike_bench``, migrates it, flushes
   Redis db 1, and creates one user with a token and one draw-one Normal game per
   ``--games`` (through the service's ``create_game``, in a ``manage.py shell``).
2. The floor: ``--processes`` Daphne processes serving ``bench/bare_broadcast.py``,
   a bare Channels + Redis group broadcast (no database, no engine, no auth), loaded
   with exactly the same clients, frames and pacing as the service.
3. The service: ``--processes`` Daphne processes serving ``config.asgi`` with the
   bench database and Redis db 1. For each game its player connects to
   ``/ws/games/<id>/`` (``Authorization: Token``, ``Origin``) and ``--spectators``
   spectators connect, spread over the processes round-robin (the player on process
   ``i % P``, spectator ``j`` on ``(i + 1 + j) % P``). Each player sends ``--rate``
   moves a second (draw until the stock is empty, then recycle: always legal in
   draw-one Normal scoring), each with ``seq`` = last seq + 1 and a client
   timestamp, and only once the previous move was acknowledged.
4. Measures, over the ``--seconds`` window plus a ``--grace`` period: moves/s
   acknowledged; the latency from the player's send to each spectator's receipt of
   the event with that game and seq (``time.perf_counter`` in one client process:
   a game's player and spectators always run in the same client process); events
   lost (an acknowledged seq a spectator had not received by the end of the grace
   period; of those, how many never came even ``--drain`` seconds later), duplicated,
   out of order, and filled in from Postgres (catch-up events carry no board); error frames; and the CPU used
   by the clients, each Daphne (also idle, just before the window), PostgreSQL (every
   postgres process on the machine: other users' too) and Redis during the window.
5. Clean-up: stops the Daphne processes, drops the database, flushes Redis db 1.

``--proxy``: both phases run behind the front door as deployed (deploy/stack.py):
nginx from ``deploy/nginx/klondike.conf.template`` (TLS with the stack's self-signed
certificate, one port, least connections, the same ``/ws/`` location) in front of the
``--processes`` web processes, and every client connects to that one port
(``wss://localhost:<port>``, ``Origin: https://localhost:<port>``, the certificate
checked). The service's processes are ``config.serve`` (Daphne with a drain) with the
stack's environment (``HTTPS``, ``TRUSTED_PROXIES``, JSON logs), no Celery worker, the
bench database and Redis db 1; the floor's are Daphne serving ``bench/bare_broadcast.py``
behind a second nginx rendered from the same template, so the floor pays the proxy and
TLS too. nginx's CPU (master and workers) is reported beside Daphne's.

Clients run in ``--client-procs`` worker processes (default 1), each with its own
asyncio loop; the client CPU figure says whether they kept up. Daphne logs go to
``--log-dir`` (default a new directory under /tmp). With ``--py-spy PATH`` every
Daphne is sampled by py-spy during the window (collapsed stacks in the log
directory; ``--py-spy-gil`` for CPU only). Two runs cannot overlap (a lock file):
they would share the database and Redis db 1.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import fcntl
import json
import math
import multiprocessing
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BIN = Path(sys.executable).parent  # the virtualenv's bin/
DB_NAME = "klondike_bench"
PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"
DATABASE_URL = f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{DB_NAME}"
REDIS_URL = "redis://127.0.0.1:6379/1"
LOCK_FILE = Path(tempfile.gettempdir()) / "klondike-bench-realtime.lock"  # one run at a time: they share the DB

CONNECT_ATTEMPTS = 5       # a refused or timed-out handshake is retried (counted)
OPEN_TIMEOUT = 30.0        # seconds for one handshake
READY_TIMEOUT = 600.0      # seconds for all clients to connect
SETTLE_SECONDS = 5.0       # quiet time between the last connect and the first move
IDLE_SAMPLE_SECONDS = 4.0  # the end of it, to measure what idle connections cost
ACK_TIMEOUT = 5.0          # a move unacknowledged this long is given up
HEALTH_TIMEOUT = 60.0

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")

SETUP_CODE = r"""
import json, os
from django.contrib.auth.hashers import make_password
from django.db import transaction
from accounts.models import User
from accounts.tokens import issue
from games.services import Actor, create_game

n = int(os.environ["BENCH_GAMES"])
with transaction.atomic():
    users = User.objects.bulk_create(
        [User(username=f"bench{i:05d}", password=make_password(None)) for i in range(n)])
    tokens = [issue(u, name="bench", scope="play", expires_in_days=1)[1] for u in users]
    games = [create_game(Actor(user_id=u.pk), draw=1, scoring="normal", public=True) for u in users]
print("BENCH_FIXTURES " + json.dumps([{"game": str(g.id), "token": t} for g, t in zip(games, tokens)]))
"""


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Set-up and clean-up
# ---------------------------------------------------------------------------


def base_env() -> dict[str, str]:
    """The environment for subprocesses: loopback only, no proxies."""
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def service_env(pool_max_size: int | None) -> dict[str, str]:
    env = base_env()
    env.update(DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL, SECRET_KEY="bench", DEBUG="false",
               ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SETTINGS_MODULE="config.settings")
    if pool_max_size is not None:
        env["DB_POOL_MAX_SIZE"] = str(pool_max_size)
    else:
        env.pop("DB_POOL_MAX_SIZE", None)
    return env


def bare_env() -> dict[str, str]:
    env = base_env()
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["REDIS_URL"] = REDIS_URL
    return env


def pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname="postgres", autocommit=True,
                         connect_timeout=10) as conn:
        conn.execute(sql)


def flush_redis() -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=10)
    try:
        client.flushdb()
    finally:
        client.close()


def create_database() -> None:
    pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    pg_admin(f"CREATE DATABASE {DB_NAME}")


def drop_database() -> None:
    pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def migrate(env: dict[str, str], log_dir: Path) -> None:
    with open(log_dir / "migrate.log", "wb") as out:
        subprocess.run([str(BIN / "python"), "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                       stdout=out, stderr=subprocess.STDOUT, check=True, timeout=600)


def create_fixtures(env: dict[str, str], games: int) -> list[dict[str, str]]:
    """One user, token and draw-one Normal game per game, through the service."""
    result = subprocess.run([str(BIN / "python"), "manage.py", "shell", "-c", SETUP_CODE], cwd=ROOT,
                            env={**env, "BENCH_GAMES": str(games)}, capture_output=True, text=True,
                            check=True, timeout=600)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH_FIXTURES "):
            return json.loads(line[len("BENCH_FIXTURES "):])
    raise RuntimeError(f"fixture script printed no fixtures:\n{result.stdout}\n{result.stderr}")


# ---------------------------------------------------------------------------
# Daphne processes
# ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """``count`` Daphne processes serving ``app`` from ``cwd`` on free loopback ports."""

    def __init__(self, name: str, app: str, cwd: Path, env: dict[str, str], count: int, log_dir: Path) -> None:
        self.name, self.app, self.cwd, self.env, self.count, self.log_dir = name, app, cwd, env, count, log_dir
        self.procs: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self.logs: list[Any] = []

    def start(self) -> None:
        for i in range(self.count):
            port = free_port()
            out = open(self.log_dir / f"{self.name}-daphne-{i}.log", "wb")
            proc = subprocess.Popen([str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), self.app],
                                    cwd=self.cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT)
            self.procs.append(proc)
            self.ports.append(port)
            self.logs.append(out)
        deadline = time.monotonic() + HEALTH_TIMEOUT
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for proc, port in zip(self.procs, self.ports):
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{self.name} Daphne on port {port} exited with {proc.returncode}; "
                                       f"see {self.log_dir}")
                try:
                    with opener.open(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} Daphne on port {port} not healthy after {HEALTH_TIMEOUT:g}s")
                time.sleep(0.2)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for out in self.logs:
            out.close()
        self.procs, self.logs = [], []

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def proxy_pids(self) -> list[int]:
        return []


class ProxiedServers:
    """``--proxy``: deploy/stack.py's front door (nginx with TLS, least connections, the
    repository's template) in front of ``count`` web processes on free ports; no Celery
    worker. ``bare``: the web processes are Daphne serving bare_broadcast (no database, no
    migration), ready on /healthz; otherwise config.serve serving config.asgi with the
    stack's environment on the bench database and Redis db 1."""

    def __init__(self, name: str, env: dict[str, str], count: int, log_dir: Path, *, bare: bool,
                 extra_env: dict[str, str]) -> None:
        sys.path.insert(0, str(ROOT))
        from deploy.stack import Stack, StackConfig, http_ok, wait_until

        config = StackConfig(run_dir=log_dir / f"{name}-stack", port=free_port(),
                             web_ports=[free_port() for _ in range(count)], workers=0,
                             database_url=DATABASE_URL, redis_url=REDIS_URL, cache_url=REDIS_URL,
                             broker_url=REDIS_URL, extra_env=extra_env)

        class BareStack(Stack):
            def migrate(self) -> None:
                pass

            def start_web(self, index: int) -> None:
                out = open(self.logs / f"web{index + 1}.log", "ab")
                self.webs[index] = subprocess.Popen(
                    [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(self.config.web_ports[index]),
                     "bare_broadcast:application"], cwd=BENCH, env=env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True)

            def wait_web_ready(self, index: int, timeout: float = HEALTH_TIMEOUT) -> None:
                url = f"http://127.0.0.1:{self.config.web_ports[index]}/healthz"
                wait_until(lambda: http_ok(url), timeout, f"bare web{index + 1}", self.webs[index], self.logs)

            def wait_proxy_ready(self, timeout: float = 30.0) -> None:
                wait_until(lambda: http_ok(f"{self.config.origin}/healthz"), timeout, "nginx", self.nginx,
                           self.logs)

        self.stack = (BareStack if bare else Stack)(config)
        self.port = config.port
        self.origin = config.origin
        self.cert = str(config.run_dir / "tls" / "cert.pem")

    def start(self) -> None:
        try:
            self.stack.up()
        except BaseException:
            self.stack.down()
            raise

    def stop(self) -> None:
        self.stack.down()

    def pids(self) -> list[int]:
        return [p.pid for p in self.stack.webs.values()]

    def proxy_pids(self) -> list[int]:
        """nginx's master and its worker processes."""
        if self.stack.nginx is None:
            return []
        master = self.stack.nginx.pid
        return [master, *(pid for pid, ppid in processes_named({"nginx"}) if ppid == master)]


# ---------------------------------------------------------------------------
# CPU accounting (from /proc)
# ---------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int, children: bool = False) -> float:
    """CPU seconds (user + system) of a process, plus its reaped children's."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def processes_named(names: set[str]) -> list[tuple[int, int]]:
    """(pid, ppid) of processes whose command name is in ``names``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        if comm in names:
            found.append((int(entry), int(text.rsplit(")", 1)[1].split()[1])))
    return found


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class CpuSample:
    """CPU seconds per component at one instant. PostgreSQL: every postgres process,
    plus the postmaster's reaped children (short-lived backends)."""

    def __init__(self, daphne_pids: list[int], proxy_pids: list[int] | None = None) -> None:
        self.wall = time.monotonic()
        self.daphne = [proc_cpu(pid) for pid in daphne_pids]
        self.proxy = None if proxy_pids is None else {pid: proc_cpu(pid) for pid in proxy_pids}
        postgres = processes_named({"postgres"})
        pg_pids = {pid for pid, _ in postgres}
        self.postgres = {pid: proc_cpu(pid, children=ppid not in pg_pids) for pid, ppid in postgres}
        self.redis = sum(proc_cpu(pid) for pid, _ in processes_named({"redis-server"}))
        self.machine = machine_cpu()

    @staticmethod
    def usage(a: "CpuSample", b: "CpuSample") -> dict[str, Any]:
        wall = b.wall - a.wall
        pct = lambda seconds: round(100.0 * seconds / wall, 1)  # noqa: E731 (% of one core)
        pg = sum(cpu - a.postgres.get(pid, 0.0) for pid, cpu in b.postgres.items())
        busy = (b.machine[0] - a.machine[0]) / max(1, b.machine[1] - a.machine[1])
        with open("/proc/loadavg") as f:
            load = float(f.read().split()[0])
        proxy = {}
        if a.proxy is not None and b.proxy is not None:
            seconds = sum(cpu - a.proxy.get(pid, 0.0) for pid, cpu in b.proxy.items())
            proxy = {"proxy_cpu_seconds": round(seconds, 2), "proxy_pct_core": pct(seconds)}
        return {
            **proxy,
            "cpu_seconds": {"daphne": round(sum(b.daphne) - sum(a.daphne), 2), "postgres": round(max(0.0, pg), 2),
                            "redis": round(b.redis - a.redis, 2)},
            "loadavg_1m": load,
            "daphne_pct_core": [pct(y - x) for x, y in zip(a.daphne, b.daphne)],
            "postgres_pct_core": pct(max(0.0, pg)),
            "redis_pct_core": pct(b.redis - a.redis),
            "machine_busy_pct": round(100.0 * busy, 1),
        }


# ---------------------------------------------------------------------------
# Clients (run in worker processes)
# ---------------------------------------------------------------------------


def sample_view() -> dict[str, Any]:
    """A real public board, to give the floor's frames the size of the service's."""
    sys.path.insert(0, str(ROOT))
    from engine import DealCode, Game, Scoring, public_view

    return public_view(Game.new(DealCode.random(1, Scoring.NORMAL)))


class PlayerState:
    def __init__(self, index: int, game: str, url: str, origin: str, token: str) -> None:
        self.index, self.game, self.url, self.origin, self.token = index, game, url, origin, token
        self.ws: Any = None
        self.seq = 0               # last event number the player knows of
        self.stock = 24
        self.waste = 0
        self.pending: int | None = None
        self.pending_at = 0.0
        self.sent: dict[int, float] = {}   # seq -> perf_counter at send
        self.resent: set[int] = set()      # seqs sent again after an ack timeout
        self.acked: set[int] = set()
        self.spectators: list[SpectatorState] = []


class SpectatorState:
    def __init__(self, player: PlayerState, url: str, origin: str) -> None:
        self.player, self.url, self.origin = player, url, origin
        self.ws: Any = None
        self.received: dict[int, int] = {}
        self.max_seq = -1
        self.base_seq: int | None = None   # seq of the connect snapshot


class Worker:
    def __init__(self, spec: dict[str, Any], conn: Any) -> None:
        self.spec, self.conn = spec, conn
        self.mode = spec["mode"]
        self.players: list[PlayerState] = []
        self.spectators: list[SpectatorState] = []
        self.latencies: list[float] = []
        self.ack_latencies: list[float] = []
        self.counts: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.connect_failures: collections.Counter[str] = collections.Counter()
        self.closing = False
        self.measuring = False
        self.grace_end = math.inf
        self.readers: list[asyncio.Task] = []
        self.view = spec.get("view")
        self.ssl: Any = None
        if spec.get("cafile"):
            import ssl

            self.ssl = ssl.create_default_context(cafile=spec["cafile"])

    # -- connecting ---------------------------------------------------------

    async def open(self, url: str, origin: str, token: str | None, sem: asyncio.Semaphore) -> Any:
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Token {token}"} if token else None
        tls = {"ssl": self.ssl} if self.ssl is not None else {}  # --proxy: wss, the stack's certificate
        for attempt in range(CONNECT_ATTEMPTS):
            async with sem:
                try:
                    return await connect(url, origin=origin, additional_headers=headers, compression=None,
                                         proxy=None, open_timeout=OPEN_TIMEOUT, ping_interval=None,
                                         close_timeout=5, max_queue=None, **tls)
                except Exception as exc:  # noqa: BLE001 (counted, retried)
                    self.connect_failures[type(exc).__name__] += 1
            await asyncio.sleep(0.5 * 2 ** attempt)
        self.errors["connect_gave_up"] += 1
        return None

    async def connect_all(self) -> None:
        sem = asyncio.Semaphore(self.spec["connect_concurrency"])

        async def player(p: PlayerState) -> None:
            p.ws = await self.open(p.url, p.origin, p.token, sem)
            if p.ws is not None:
                self.readers.append(asyncio.create_task(self.read_player(p)))

        async def spectator(s: SpectatorState) -> None:
            s.ws = await self.open(s.url, s.origin, None, sem)
            if s.ws is not None:
                self.readers.append(asyncio.create_task(self.read_spectator(s)))

        for i, g in enumerate(self.spec["games"]):
            p = PlayerState(i, g["game"], g["player_url"], g["player_origin"], g["token"])
            self.players.append(p)
            for url, origin in g["spectators"]:
                s = SpectatorState(p, url, origin)
                p.spectators.append(s)
                self.spectators.append(s)
        await asyncio.gather(*(player(p) for p in self.players))
        await asyncio.gather(*(spectator(s) for s in self.spectators))

    # -- reading --------------------------------------------------------------

    async def read_player(self, p: PlayerState) -> None:
        from websockets.exceptions import ConnectionClosed

        bare = self.mode == "bare"
        try:
            async for raw in p.ws:
                now = time.perf_counter()
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "ack" or (bare and kind == "event" and msg.get("seq") == p.pending):
                    seq = msg["seq"]
                    if seq == p.pending:
                        if self.measuring and seq in p.sent:
                            self.ack_latencies.append(now - p.sent[seq])
                        p.acked.add(seq)
                        p.pending = None
                    p.seq = max(p.seq, seq)
                elif kind == "event":
                    p.seq = max(p.seq, msg["seq"])
                    view = msg.get("view")
                    if view is not None:
                        p.stock, p.waste = view["stock"]["count"], view["waste"]["count"]
                elif kind == "snapshot":
                    p.seq = msg["seq"]
                    view = msg["game"]["view"]
                    p.stock, p.waste = view["stock"]["count"], view["waste"]["count"]
                elif kind == "error":
                    self.errors[f"player:{msg.get('error')}"] += 1
                    if msg.get("error") == "seq_conflict" and isinstance(msg.get("seq"), int):
                        p.seq = msg["seq"]
                    if msg.get("id") == f"{p.index}:{p.pending}":
                        p.pending = None
        except ConnectionClosed as exc:
            if not self.closing:
                self.errors[f"player_closed:{exc.rcvd.code if exc.rcvd else 'abnormal'}"] += 1
        except Exception as exc:  # noqa: BLE001
            self.errors[f"player_reader:{type(exc).__name__}"] += 1

    async def read_spectator(self, s: SpectatorState) -> None:
        from websockets.exceptions import ConnectionClosed

        p = s.player
        if self.mode == "bare":
            s.base_seq = 0
        try:
            async for raw in s.ws:
                now = time.perf_counter()
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "event":
                    seq = msg["seq"]
                    seen = s.received.get(seq, 0)
                    s.received[seq] = seen + 1
                    if seen:
                        # The floor has no idempotency: a move sent again is broadcast again.
                        if not (self.mode == "bare" and seq in p.resent):
                            self.counts["duplicates"] += 1
                        continue
                    if seq < s.max_seq:
                        self.counts["out_of_order"] += 1
                    s.max_seq = max(s.max_seq, seq)
                    if "view" not in msg:
                        self.counts["gap_filled"] += 1   # a catch-up event, read from Postgres
                    self.counts["event_bytes"] += len(raw)
                    self.counts["events"] += 1
                    sent = p.sent.get(seq)
                    if sent is not None and self.measuring:
                        self.latencies.append(now - sent)
                        if now > self.grace_end:
                            self.counts["late"] += 1
                elif kind == "snapshot":
                    if s.base_seq is None:
                        s.base_seq = s.max_seq = msg["seq"]
                    else:
                        self.counts["resyncs"] += 1
                        for seq in range(s.max_seq + 1, msg["seq"] + 1):
                            s.received.setdefault(seq, 1)
                        s.max_seq = max(s.max_seq, msg["seq"])
                elif kind == "error":
                    self.errors[f"spectator:{msg.get('error')}"] += 1
        except ConnectionClosed as exc:
            if not self.closing:
                self.errors[f"spectator_closed:{exc.rcvd.code if exc.rcvd else 'abnormal'}"] += 1
        except Exception as exc:  # noqa: BLE001
            self.errors[f"spectator_reader:{type(exc).__name__}"] += 1

    # -- playing --------------------------------------------------------------

    def frame(self, p: PlayerState, seq: int, now: float) -> dict[str, Any]:
        if self.mode == "bare":
            # What the service's spectators receive, sent through the bare broadcast as is.
            return {"type": "event", "game": p.game, "seq": seq, "action": {"type": "draw"}, "score": 0,
                    "moves": seq, "at": "2025-01-01T00:00:00.000000+00:00", "view": self.view,
                    "status": "live", "id": f"{p.index}:{seq}", "t": now}
        move = {"type": "draw"} if p.stock > 0 else {"type": "recycle"}
        return {"type": "move", "move": move, "seq": seq, "id": f"{p.index}:{seq}"}  # the schema takes no more

    async def play(self, p: PlayerState, start: float, end: float) -> None:
        period = 1.0 / self.spec["rate"]
        next_at = start + random.random() * period
        while next_at < end:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at += period
            if p.ws is None:
                return
            now = time.perf_counter()
            if p.pending is not None:
                if now - p.pending_at < ACK_TIMEOUT:
                    self.counts["skipped_ticks"] += 1   # the previous move is not acknowledged yet
                    continue
                self.counts["ack_timeouts"] += 1
                p.pending = None
            if self.mode == "service" and p.stock == 0 and p.waste == 0:
                self.counts["no_legal_move"] += 1
                continue
            seq = p.seq + 1
            if seq in p.sent:
                p.resent.add(seq)
            else:
                p.sent[seq] = now
            p.pending_at = now
            p.pending = seq
            try:
                await p.ws.send(json.dumps(self.frame(p, seq, now)))
            except Exception as exc:  # noqa: BLE001
                self.errors[f"send:{type(exc).__name__}"] += 1
                return
            self.counts["attempted"] += 1

    def all_delivered(self) -> bool:
        for s in self.spectators:
            if s.ws is None:
                continue
            if any(seq not in s.received for seq in s.player.acked):
                return False
        return True

    # -- the run ----------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        await self.connect_all()
        connect_seconds = time.perf_counter() - t0
        self.conn.send(("ready", {"players": sum(p.ws is not None for p in self.players),
                                  "spectators": sum(s.ws is not None for s in self.spectators),
                                  "connect_seconds": round(connect_seconds, 2),
                                  "connect_failures": dict(self.connect_failures)}))
        message = await loop.run_in_executor(None, self.conn.recv)
        if message[0] != "go":
            raise RuntimeError(f"unexpected message {message!r}")
        start = time.perf_counter() + (message[1] - time.time())
        end = start + self.spec["seconds"]
        await asyncio.sleep(max(0.0, start - time.perf_counter()))
        # Nothing said before the window counts (watchers counts, connect snapshots).
        self.counts.clear()
        self.measuring = True
        cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        await asyncio.gather(*(self.play(p, start, end) for p in self.players))
        cpu1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        # Events after the grace period are late; after the drain period, lost.
        self.grace_end = end + self.spec["grace"]
        deadline = self.grace_end + self.spec["drain"]
        while time.perf_counter() < deadline and not (self.all_delivered() and
                                                      all(p.pending is None for p in self.players)):
            await asyncio.sleep(0.05)
        self.measuring = False
        lost = sum(1 for s in self.spectators if s.ws is not None
                   for seq in s.player.acked if seq not in s.received)
        drained = max(0.0, time.perf_counter() - self.grace_end)
        lost_disconnected = sum(len(s.player.acked) for s in self.spectators if s.ws is None)
        self.closing = True
        sem = asyncio.Semaphore(self.spec["connect_concurrency"] * 2)

        async def close(ws: Any) -> None:
            async with sem:
                try:
                    await asyncio.wait_for(ws.close(), 10)
                except Exception:  # noqa: BLE001
                    pass

        await asyncio.gather(*(close(x.ws) for x in [*self.players, *self.spectators] if x.ws is not None))
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        cpu_window = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        return {
            "latencies": self.latencies,
            "ack_latencies": self.ack_latencies,
            "acked": sum(len(p.acked) for p in self.players),
            "lost": lost,
            "drain_seconds": drained,
            "lost_never_connected": lost_disconnected,
            "counts": dict(self.counts),
            "errors": dict(self.errors),
            "client_cpu_seconds": cpu_window,
            "client_wall_seconds": wall1 - wall0,
            "connect_seconds": connect_seconds,
        }


def worker_main(conn: Any, spec: dict[str, Any]) -> None:
    try:
        result = asyncio.run(Worker(spec, conn).run())
        conn.send(("done", result))
    except BaseException:  # noqa: BLE001
        conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# One phase: servers up, clients connected, the window, figures
# ---------------------------------------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[k]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000.0, 1)


def run_phase(mode: str, args: argparse.Namespace, fixtures: list[dict[str, str]], log_dir: Path,
              view: dict[str, Any]) -> dict[str, Any]:
    flush_redis()
    servers: Servers | ProxiedServers
    if args.proxy:
        if mode == "service":
            extra = {"SECRET_KEY": "bench", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
            if args.db_pool_max_size is not None:
                extra["DB_POOL_MAX_SIZE"] = str(args.db_pool_max_size)
            servers = ProxiedServers("service", {}, args.processes, log_dir, bare=False, extra_env=extra)
        else:
            servers = ProxiedServers("bare", {**bare_env(), "BARE_DISPATCH": args.bare_dispatch}, args.processes,
                                     log_dir, bare=True, extra_env={})
    elif mode == "service":
        servers = Servers("service", args.service_app, ROOT, service_env(args.db_pool_max_size),
                          args.processes, log_dir)
    else:
        servers = Servers("bare", "bare_broadcast:application", BENCH, {**bare_env(), "BARE_DISPATCH": args.bare_dispatch},
                          args.processes, log_dir)
    path = "/ws/games/{}/" if mode == "service" else "/ws/bare/{}/"
    workers: list[tuple[Any, Any]] = []
    spies: list[subprocess.Popen] = []
    try:
        log(f"{mode}: starting {args.processes} Daphne process(es)" + (" behind nginx" if args.proxy else ""))
        servers.start()

        def url(i: int, game: str) -> tuple[str, str]:
            if isinstance(servers, ProxiedServers):  # one port: nginx picks the process
                return f"wss://localhost:{servers.port}" + path.format(game), servers.origin
            port = servers.ports[i % len(servers.ports)]
            return f"ws://127.0.0.1:{port}" + path.format(game), f"http://127.0.0.1:{port}"

        games = []
        for i, fx in enumerate(fixtures):
            player_url, player_origin = url(i, fx["game"])
            games.append({"game": fx["game"], "token": fx["token"], "player_url": player_url,
                          "player_origin": player_origin,
                          "spectators": [url(i + 1 + j, fx["game"]) for j in range(args.spectators)]})
        ctx = multiprocessing.get_context("spawn")
        for w in range(args.client_procs):
            spec = {"mode": mode, "games": games[w::args.client_procs], "rate": args.rate,
                    "seconds": args.seconds, "grace": args.grace, "drain": args.drain, "view": view,
                    "connect_concurrency": args.connect_concurrency,
                    "cafile": servers.cert if isinstance(servers, ProxiedServers) else None}
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=worker_main, args=(child, spec), daemon=True)
            proc.start()
            child.close()
            workers.append((proc, parent))
        log(f"{mode}: connecting {len(games)} players and {len(games) * args.spectators} spectators")
        ready = []
        for proc, parent in workers:
            if not parent.poll(READY_TIMEOUT):
                raise RuntimeError(f"{mode}: clients did not connect within {READY_TIMEOUT:g}s")
            message = parent.recv()
            if message[0] != "ready":
                raise RuntimeError(f"{mode}: client process failed:\n{message[1]}")
            ready.append(message[1])
        log(f"{mode}: connected {ready}; settling {SETTLE_SECONDS:g}s")
        time.sleep(SETTLE_SECONDS - IDLE_SAMPLE_SECONDS)
        proxy_pids = servers.proxy_pids() if args.proxy else None
        idle_before = CpuSample(servers.pids(), proxy_pids)
        time.sleep(IDLE_SAMPLE_SECONDS)
        idle = CpuSample.usage(idle_before, CpuSample(servers.pids(), proxy_pids))
        start_wall = time.time() + 0.5
        for _, parent in workers:
            parent.send(("go", start_wall))
        time.sleep(max(0.0, start_wall - time.time()))
        before = CpuSample(servers.pids(), proxy_pids)
        if args.py_spy:
            # --gil: only the thread holding the GIL (where Python CPU goes); otherwise
            # every thread, idle or not (where the wall-clock time goes).
            how = ["--gil"] if args.py_spy_gil else ["--idle"]
            for i, pid in enumerate(servers.pids()):
                with open(log_dir / f"{mode}-py-spy-{i}.log", "wb") as err:
                    spies.append(subprocess.Popen(
                        [args.py_spy, "record", "--pid", str(pid), "--duration", str(int(args.seconds)),
                         "--rate", "100", "--format", "raw", "--nonblocking", *how,
                         "--output", str(log_dir / f"{mode}-daphne-{i}.pyspy.txt")],
                        stdout=subprocess.DEVNULL, stderr=err))
        log(f"{mode}: {args.seconds:g}s of moves at {args.rate:g}/s per game")
        time.sleep(args.seconds)
        after = CpuSample(servers.pids(), proxy_pids)
        results = []
        for proc, parent in workers:
            if not parent.poll(args.grace + args.drain + 120):
                raise RuntimeError(f"{mode}: client process did not finish")
            message = parent.recv()
            if message[0] != "done":
                raise RuntimeError(f"{mode}: client process failed:\n{message[1]}")
            results.append(message[1])
        for spy in spies:
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
    finally:
        for proc, parent in workers:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for spy in spies:
            if spy.poll() is None:
                spy.kill()
        log(f"{mode}: stopping Daphne" + (" and nginx" if args.proxy else ""))
        servers.stop()
    return summarize(mode, args, ready, results, CpuSample.usage(before, after), idle)


def summarize(mode: str, args: argparse.Namespace, ready: list[dict[str, Any]], results: list[dict[str, Any]],
              cpu: dict[str, Any], idle: dict[str, Any]) -> dict[str, Any]:
    latencies = sorted(x for r in results for x in r["latencies"])
    acks = sorted(x for r in results for x in r["ack_latencies"])
    counts: collections.Counter[str] = collections.Counter()
    errors: collections.Counter[str] = collections.Counter()
    for r in results:
        counts.update(r["counts"])
        errors.update(r["errors"])
    acked = sum(r["acked"] for r in results)
    client_cpu = sum(r["client_cpu_seconds"] for r in results)
    client_wall = max((r["client_wall_seconds"] for r in results), default=args.seconds) or args.seconds
    expected = len(latencies) + sum(r["lost"] for r in results)
    per_move = lambda seconds: round(1000.0 * seconds / acked, 2) if acked else None  # noqa: E731
    # Daphne CPU for the moves alone: the window's, less what the idle connections
    # used per second just before it.
    idle_daphne = sum(idle["daphne_pct_core"]) / 100.0 * args.seconds
    return {
        "mode": mode,
        "connected_players": sum(r["players"] for r in ready),
        "connected_spectators": sum(r["spectators"] for r in ready),
        "connect_seconds": round(max(r["connect_seconds"] for r in ready), 1),
        "connect_failures": dict(sum((collections.Counter(r["connect_failures"]) for r in ready),
                                     collections.Counter())),
        "moves_attempted": counts["attempted"],
        "moves_acked": acked,
        "moves_per_second": round(acked / args.seconds, 1),
        "target_moves_per_second": round(args.games * args.rate, 1),
        "skipped_ticks": counts["skipped_ticks"],
        "ack_timeouts": counts["ack_timeouts"],
        "deliveries": len(latencies),
        "deliveries_expected": expected,
        "latency_ms": {"p50": ms(percentile(latencies, 0.50)), "p95": ms(percentile(latencies, 0.95)),
                       "p99": ms(percentile(latencies, 0.99)), "max": ms(latencies[-1] if latencies else None)},
        "ack_latency_ms": {"p50": ms(percentile(acks, 0.50)), "p95": ms(percentile(acks, 0.95)),
                           "p99": ms(percentile(acks, 0.99)), "max": ms(acks[-1] if acks else None)},
        # Lost as the target counts it: not received within the run and the grace period.
        "lost": counts["late"] + sum(r["lost"] for r in results) + sum(r["lost_never_connected"] for r in results),
        "late": counts["late"],
        "never_received": sum(r["lost"] for r in results) + sum(r["lost_never_connected"] for r in results),
        "drain_seconds": round(max(r["drain_seconds"] for r in results), 1),
        "duplicated": counts["duplicates"],
        "out_of_order": counts["out_of_order"],
        "gap_filled": counts["gap_filled"],
        "resyncs": counts["resyncs"],
        "errors": dict(errors),
        "error_count": sum(errors.values()),
        "event_bytes_mean": round(counts["event_bytes"] / counts["events"]) if counts["events"] else None,
        "client_cpu_pct_core": round(100.0 * client_cpu / client_wall, 1),
        "daphne_idle_pct_core": idle["daphne_pct_core"],
        "cpu_ms_per_move": {"daphne": per_move(cpu["cpu_seconds"]["daphne"]),
                            "daphne_less_idle": per_move(max(0.0, cpu["cpu_seconds"]["daphne"] - idle_daphne)),
                            "postgres": per_move(cpu["cpu_seconds"]["postgres"]),
                            "redis": per_move(cpu["cpu_seconds"]["redis"]),
                            "client": per_move(client_cpu),
                            **({"proxy": per_move(cpu["proxy_cpu_seconds"])} if "proxy_cpu_seconds" in cpu else {})},
        **cpu,
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 1)


def report(args: argparse.Namespace, phases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    service, bare = phases.get("service"), phases.get("bare")
    out: dict[str, Any] = {
        "params": {"games": args.games, "spectators": args.spectators, "rate": args.rate,
                   "seconds": args.seconds, "processes": args.processes, "client_procs": args.client_procs,
                   "grace": args.grace, "drain": args.drain, "db_pool_max_size": args.db_pool_max_size,
                   "bare_dispatch": args.bare_dispatch, "service_app": args.service_app, "proxy": args.proxy},
        **phases,
    }
    if service and bare:
        out["ratio"] = {q: ratio(service["latency_ms"][q], bare["latency_ms"][q]) for q in ("p50", "p95", "p99")}
    if service:
        out["target"] = {
            "p99_under_100ms": service["latency_ms"]["p99"] is not None and service["latency_ms"]["p99"] < 100,
            "nothing_lost": service["lost"] == 0,
            "nothing_duplicated": service["duplicated"] == 0,
            "full_rate": service["moves_per_second"] >= 0.98 * service["target_moves_per_second"],
        }
        out["target"]["met"] = all(out["target"].values())
    return out


def table(result: dict[str, Any]) -> str:
    cols = [m for m in ("service", "bare") if m in result]
    rows = [
        ("clients connected", lambda r: f"{r['connected_players']}+{r['connected_spectators']}"),
        ("connect s (retries)", lambda r: f"{r['connect_seconds']} ({sum(r['connect_failures'].values())})"),
        ("moves/s (target)", lambda r: f"{r['moves_per_second']:g} ({r['target_moves_per_second']:g})"),
        ("skipped ticks", lambda r: r["skipped_ticks"]),
        ("latency p50 ms", lambda r: r["latency_ms"]["p50"]),
        ("latency p95 ms", lambda r: r["latency_ms"]["p95"]),
        ("latency p99 ms", lambda r: r["latency_ms"]["p99"]),
        ("latency max ms", lambda r: r["latency_ms"]["max"]),
        ("ack p50 / p99 ms", lambda r: f"{r['ack_latency_ms']['p50']} / {r['ack_latency_ms']['p99']}"),
        ("deliveries", lambda r: f"{r['deliveries']}/{r['deliveries_expected']}"),
        ("lost (by end of grace)", lambda r: r["lost"]),
        ("  of which never came", lambda r: f"{r['never_received']} (drain {r['drain_seconds']} s)"),
        ("duplicated", lambda r: r["duplicated"]),
        ("out of order", lambda r: r["out_of_order"]),
        ("gap-filled from DB", lambda r: r["gap_filled"]),
        ("errors", lambda r: r["error_count"]),
        ("event frame bytes", lambda r: r["event_bytes_mean"]),
        ("client CPU % core", lambda r: r["client_cpu_pct_core"]),
        ("Daphne CPU % core", lambda r: " + ".join(str(x) for x in r["daphne_pct_core"])),
        ("Postgres CPU % (all)", lambda r: r["postgres_pct_core"]),
        ("Redis CPU % core", lambda r: r["redis_pct_core"]),
        *([("nginx CPU % core", lambda r: r.get("proxy_pct_core")),
           ("nginx CPU ms/move", lambda r: r["cpu_ms_per_move"].get("proxy"))]
          if result["params"].get("proxy") else []),
        ("Daphne idle CPU % core", lambda r: " + ".join(str(x) for x in r["daphne_idle_pct_core"])),
        ("Daphne CPU ms/move", lambda r: f"{r['cpu_ms_per_move']['daphne']} ({r['cpu_ms_per_move']['daphne_less_idle']} less idle)"),
        ("Postgres (all) ms/move", lambda r: r["cpu_ms_per_move"]["postgres"]),
        ("machine busy %", lambda r: r["machine_busy_pct"]),
        ("load average (1 min)", lambda r: r["loadavg_1m"]),
    ]
    header = ["", *("service" if c == "service" else "bare floor" for c in cols)]
    if len(cols) == 2:
        header.append("ratio")
    lines = [header]
    for name, get in rows:
        line = [name, *(str(get(result[c])) for c in cols)]
        if len(cols) == 2:
            q = {"latency p50 ms": "p50", "latency p95 ms": "p95", "latency p99 ms": "p99"}.get(name)
            line.append(f"{result['ratio'][q]}×" if q and result["ratio"][q] is not None else "")
        lines.append(line)
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    text = "\n".join("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)
    for c in cols:
        if result[c]["errors"]:
            text += f"\n{c} errors: {result[c]['errors']}"
    if "target" in result:
        t, p = result["target"], result["params"]
        size = p["games"] >= 200 and p["spectators"] >= 5 and p["rate"] >= 1.0
        text += ("\ntarget criteria (p99 < 100 ms, nothing lost or duplicated, full rate): "
                 + ("met" if t["met"] else "NOT met " + str({k: v for k, v in t.items() if k != "met"}))
                 + ("" if size else " (at this size; the target is 200 games x 5 spectators x 1 move/s)"))
    return text


# ---------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="live games, one player each (default 200)")
    parser.add_argument("--spectators", type=int, default=5, help="spectators per game (default 5)")
    parser.add_argument("--rate", type=float, default=1.0, help="moves per second per game (default 1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the measured window (default 30)")
    parser.add_argument("--processes", type=int, default=2, help="Daphne processes (default 2)")
    parser.add_argument("--client-procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds after the window for late events (default 5)")
    parser.add_argument("--drain", type=float, default=30.0,
                        help="further seconds to wait for late events before counting them lost (default 30)")
    parser.add_argument("--only", choices=("service", "bare"), help="run one side only")
    parser.add_argument("--connect-concurrency", type=int, default=16,
                        help="WebSocket handshakes in flight per client process (default 16)")
    parser.add_argument("--bare-dispatch", choices=("channels", "direct"), default="channels",
                        help="floor consumer: Channels' own dispatch (default), or one without its "
                             "per-message close_old_connections() thread hop")
    parser.add_argument("--proxy", action="store_true",
                        help="both phases behind nginx with TLS (deploy/stack.py), every client through its one "
                             "port; the service's processes are config.serve")
    parser.add_argument("--db-pool-max-size", type=int, default=None,
                        help="DB_POOL_MAX_SIZE for the service (default: unset, i.e. the settings default)")
    parser.add_argument("--service-app", default="config.asgi:application",
                        help="ASGI application Daphne serves for the service (for experiments; default "
                             "config.asgi:application)")
    parser.add_argument("--py-spy", metavar="PATH",
                        help="py-spy executable: sample each Daphne during the window (collapsed stacks "
                             "in the log directory)")
    parser.add_argument("--py-spy-gil", action="store_true",
                        help="sample only the thread holding the GIL (CPU) instead of every thread (wall)")
    parser.add_argument("--log-dir", type=Path, help="where Daphne logs go (default: a new /tmp directory)")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the bench database at the end")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if not (1 <= args.games <= 5000 and 0 <= args.spectators <= 50 and 0 < args.rate <= 20
            and 0 < args.seconds <= 600 and 1 <= args.processes <= 16 and 1 <= args.client_procs <= 16
            and 0 <= args.grace <= 120 and 0 <= args.drain <= 300 and 1 <= args.connect_concurrency <= 256):
        parser.error("out of range: games 1-5000, spectators 0-50, rate (0, 20], seconds (0, 600], "
                     "processes 1-16, client-procs 1-16, grace 0-120")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 2 * args.games * (1 + args.spectators) + 1024
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))
    lock = open(LOCK_FILE, "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"another bench/realtime.py run holds {LOCK_FILE}: they would share {DB_NAME} and Redis db 1",
              file=sys.stderr)
        return 2
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="klondike-bench-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    if args.proxy:
        if args.service_app != "config.asgi:application":
            parser.error("--proxy serves config.asgi:application (deploy/stack.py)")
        for name in PROXY_VARIABLES:  # the stack's readiness checks use urllib from this process
            os.environ.pop(name, None)
        if os.geteuid() == 0:
            log_dir.chmod(0o755)  # nginx's workers (nobody) reach the stack's temp and cache folders
    log(f"logs in {log_dir}")

    env = service_env(args.db_pool_max_size)
    phases: dict[str, dict[str, Any]] = {}
    created = False
    try:
        log(f"creating database {DB_NAME}, flushing {REDIS_URL}")
        flush_redis()
        create_database()
        created = True
        migrate(env, log_dir)
        log(f"creating {args.games} users, tokens and draw-one games")
        fixtures = create_fixtures(env, args.games)
        view = sample_view()
        for mode in ("bare", "service"):
            if args.only in (None, mode):
                phases[mode] = run_phase(mode, args, fixtures, log_dir, view)
    finally:
        if created and not args.keep_db:
            log(f"dropping database {DB_NAME}")
            drop_database()
        flush_redis()
    result = report(args, phases)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        p = result["params"]
        print(f"{p['games']} games x (1 player + {p['spectators']} spectators), {p['rate']:g} move/s per game, "
              f"{p['seconds']:g} s, {p['processes']} Daphne process(es)"
              + (" behind nginx (TLS, one port)" if p["proxy"] else "") + f", {p['client_procs']} client process(es)")
        print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
