#!/usr/bin/env python
"""Fair-race benchmark (#33): a race of 8 racers watched by 50 spectators on two Daphne
processes, fair (each viewer's own redacted boards) against open boards, in the same run.

    .venv/bin/python bench/fair_races.py [--moves 40] [--rounds 4] [--spectators 50]
        [--game-watchers 8] [--interval 0.2 0.4] [--seed 1] [--json]

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates the database ``klondike_bench_fair`` (on the server of
   ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it,
   flushes the Redis database of ``BENCH_REDIS_URL`` (default ``redis://127.0.0.1:6379/10``:
   the servers' channel layer and cache), makes 8 racers and a few signed-in spectators
   with tokens, and starts two Daphne processes serving ``config.asgi``; they serve
   every race of the run.
2. ``--rounds`` rounds, each a fair race and then an open-boards race (A/B/A/B, so the
   machine's noise hits both alike). Each race: unrated with open boards, or rated and
   fair; spectator delay 0, no countdown, one fixed deal (the same in every race). Every
   racer connects to ``/ws/races/<id>/`` with its token, the racers alternating between
   the two processes, and so do the ``--spectators`` spectators (one in five signed in,
   the rest anonymous), plus ``--game-watchers`` anonymous spectators on
   ``/ws/games/<id>/`` (one per racer's game, on the other process). Then every racer
   plays ``--moves`` moves over its race socket (``{"type": "move", "move", "seq"}``: the
   service's own path), one every ``--interval`` seconds (uniform, each after the
   previous one's ack): seeded random legal moves from its own engine (card moves
   preferred, draws and recycles otherwise), the same moves in both kinds of race.
3. Measures, for every move after each racer's first ``--warmup``: the time from the
   racer's send to the event with that game and seq arriving on every opponent's and
   spectator's socket (``time.perf_counter``, one client process), per delivery and per
   move (until its last screen); the ack time; whether every socket received every
   event of every game it follows exactly once and in order (lost, duplicated, out of
   order, filled in from the database); the "view" frames (boards filled in when a
   viewer learns a card); the distinct texts each process sent for one event (the
   renderings: one shared by all spectators in a fair race, one per racer); and the
   CPU of each Daphne, PostgreSQL and Redis per move.
4. Prints p50/p95/p99/max per kind (every round's latencies pooled), the ratio fair ÷
   open (target: p99 at most 1.5×, nothing lost or duplicated), each round's figures and
   the median of the rounds' p99 ratios; stops Daphne, drops the database and flushes
   the Redis database. Daphne logs go to ``--log-dir`` (default a new /tmp
   directory); ``--py-spy PATH`` samples each Daphne during every race (collapsed
   stacks there). Two runs cannot overlap (a lock file).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import fcntl
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))


def _bench_module(name: str) -> Any:
    """A sibling script as a module (bench/ is not a package, and its file names, such
    as leaderboards.py, must not shadow the project's apps)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_realtime = _bench_module("realtime")  # its Daphne processes, CPU accounting and percentiles
CpuSample, Servers, base_env, log = _realtime.CpuSample, _realtime.Servers, _realtime.base_env, _realtime.log
ms, percentile = _realtime.ms, _realtime.percentile

DB_NAME = "klondike_bench_fair"
LOCK_FILE = Path(tempfile.gettempdir()) / "klondike-bench-fair-races.lock"
RACERS = 8
PROCESSES = 2
DEAL_NUMBER = 4242             # one deal for every race: the same moves in both kinds
CONNECT_CONCURRENCY = 16
OPEN_TIMEOUT = 30.0
READY_TIMEOUT = 60.0           # seconds for every socket to get its snapshots
ACK_TIMEOUT = 10.0
SETTLE_SECONDS = 2.0           # quiet time between the last snapshot and the first move
CARD_MOVE_SHARE = 0.6          # how often a racer picks a card move when it has one


def database_server() -> str:
    return os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")


def redis_url() -> str:
    return os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/10")


def admin(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{database_server()}/postgres", autocommit=True, connect_timeout=10) as connection:
        connection.execute(statement)


def flush_redis() -> None:
    import redis

    client = redis.Redis.from_url(redis_url(), socket_timeout=10)
    try:
        client.flushdb()
    finally:
        client.close()


# ---------------------------------------------------------------------------
# Set-up, in this process (Django, no channel layer) and in the servers
# ---------------------------------------------------------------------------


def setup_django() -> None:
    """Django on the bench database, to migrate and create races. No channel layer
    here: the sockets connect after a race has started and close before it ends."""
    os.environ["DATABASE_URL"] = f"{database_server()}/{DB_NAME}"
    for name in ("REDIS_URL", "REDIS_CACHE_URL"):
        os.environ.pop(name, None)
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ["DEBUG"] = "false"
    os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from races import services as races
    from engine import DealCode, Scoring

    races.COUNTDOWN_SECONDS = 0
    # One deal for every race of the run, so that both kinds play the same moves.
    DealCode.random = classmethod(lambda cls, draw=1, scoring=Scoring.NORMAL: cls(DEAL_NUMBER, draw, scoring))


def server_env() -> dict[str, str]:
    env = base_env()
    env.update(DATABASE_URL=f"{database_server()}/{DB_NAME}", REDIS_URL=redis_url(), SECRET_KEY="bench",
               DEBUG="false", ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SETTINGS_MODULE="config.settings")
    env.pop("REDIS_CACHE_URL", None)  # the cache (throttles) shares the bench's Redis database
    return env


def make_users(spectators: int) -> tuple[list[tuple[Any, str]], list[str]]:
    """The racers (user, token) and the signed-in spectators' tokens (one in five)."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import User
    from accounts.tokens import issue

    def create(name: str) -> tuple[Any, str]:
        user = User.objects.create(username=name, password=make_password(None))
        return user, issue(user, name="bench", scope="play", expires_in_days=1)[1]

    racers = [create(f"racer{i}") for i in range(RACERS)]
    watchers = [create(f"watcher{j:02d}")[1] for j in range(0, spectators, 5)]
    return racers, watchers


def start_race(racers: list[tuple[Any, str]], open_boards: bool) -> dict[str, Any]:
    """A started race of every racer: no countdown, spectator delay 0."""
    from races import services as races

    host = racers[0][0]
    race = races.create_race(host, max_players=RACERS, time_limit=3600, spectator_delay=0,
                             rated=not open_boards, open_boards=open_boards)
    for user, _ in racers[1:]:
        races.join_race(race.id, user)
    for user, _ in racers:
        races.set_ready(race.id, user)
    race.refresh_from_db()
    games = {entry.user_id: str(entry.game_id) for entry in race.entries.all()}
    return {"id": str(race.id), "code": race.code, "games": [games[user.pk] for user, _ in racers]}


def end_race(race_id: str, racers: list[tuple[Any, str]]) -> None:
    from races import services as races
    from api.errors import ServiceError

    for user, _ in racers:
        try:
            races.resign_race(race_id, user)
        except ServiceError:
            pass  # already over
    races.finish_race(race_id, force=True)


# ---------------------------------------------------------------------------
# The clients of one race (one asyncio loop in this process)
# ---------------------------------------------------------------------------


class Socket:
    """One client socket and everything it received: per game, the seqs of the events
    in arrival order."""

    def __init__(self, role: str, server: int, url: str, origin: str, token: str | None,
                 games: list[str], own: str | None = None) -> None:
        self.role, self.server, self.url, self.origin, self.token = role, server, url, origin, token
        self.games, self.own = games, own
        self.ws: Any = None
        self.base: dict[str, int] = {}                 # game -> seq of its snapshot
        self.seqs: dict[str, list[int]] = {g: [] for g in games}
        self.last: dict[str, int] = {}
        self.pending: tuple[int, asyncio.Future] | None = None  # a racer's move awaiting its ack


class RaceRun:
    """The clients of one race: connect, play, measure, check."""

    def __init__(self, kind: str, race: dict[str, Any], racers: list[tuple[Any, str]], watchers: list[str],
                 ports: list[int], args: argparse.Namespace) -> None:
        self.kind, self.race, self.args, self.ports = kind, race, args, ports
        games = race["games"]
        race_path = f"/ws/races/{race['id']}/"
        self.racers = [self.socket("racer", i % PROCESSES, race_path, token, games, own=games[i])
                       for i, (_, token) in enumerate(racers)]
        self.spectators = [self.socket("spectator", j % PROCESSES, race_path,
                                       watchers[j // 5] if j % 5 == 0 else None, games)
                           for j in range(args.spectators)]
        self.game_watchers = [self.socket("game", (k + 1) % PROCESSES, f"/ws/games/{games[k % RACERS]}/", None,
                                          [games[k % RACERS]])
                              for k in range(args.game_watchers)]
        self.sockets = [*self.racers, *self.spectators, *self.game_watchers]
        self.sent: dict[tuple[str, int], float] = {}    # (game, seq) -> perf_counter at send
        self.measured: set[tuple[str, int]] = set()     # the moves past each racer's warm-up
        self.arrivals: dict[tuple[str, int], list[float]] = collections.defaultdict(list)
        self.acks: list[float] = []
        self.counts: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        # Distinct texts per (process, game, seq): all sockets, and spectators' only.
        self.texts: dict[tuple[int, str, int], set[int]] = collections.defaultdict(set)
        self.spectator_texts: dict[tuple[int, str, int], set[int]] = collections.defaultdict(set)
        self.final: dict[str, int] = {}
        self.closing = False

    def socket(self, role: str, server: int, path: str, token: str | None, games: list[str],
               own: str | None = None) -> Socket:
        port = self.ports[server]
        return Socket(role, server, f"ws://127.0.0.1:{port}{path}", f"http://127.0.0.1:{port}", token, games, own)

    # -- connecting and reading ------------------------------------------------

    async def connect(self, s: Socket, sem: asyncio.Semaphore) -> None:
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Token {s.token}"} if s.token else None
        async with sem:
            s.ws = await connect(s.url, origin=s.origin, additional_headers=headers, compression=None, proxy=None,
                                 open_timeout=OPEN_TIMEOUT, ping_interval=None, close_timeout=5, max_queue=None)

    async def read(self, s: Socket) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in s.ws:
                now = time.perf_counter()
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "event":
                    self.on_event(s, msg, raw, now)
                elif kind == "snapshot":
                    game = msg["game"]["id"]
                    if game in s.base:
                        self.counts["resyncs"] += 1
                    s.base[game] = s.last[game] = msg["seq"]
                elif kind == "view":
                    self.counts[f"view_frames_{s.role}"] += 1
                elif kind == "ack" and s.pending is not None and msg.get("seq") == s.pending[0]:
                    s.pending[1].set_result(msg)
                elif kind == "error":
                    self.errors[f"{s.role}:{msg.get('error')}"] += 1
                    if s.pending is not None and msg.get("id") == f"{s.own}:{s.pending[0]}":
                        s.pending[1].set_result(msg)
        except ConnectionClosed as exc:
            if not self.closing:
                self.errors[f"{s.role}_closed:{exc.rcvd.code if exc.rcvd else 'abnormal'}"] += 1

    def on_event(self, s: Socket, msg: dict[str, Any], raw: str, now: float) -> None:
        game, seq = msg["game"], msg["seq"]
        if game not in s.seqs:
            self.counts["foreign_events"] += 1
            return
        s.seqs[game].append(seq)
        last = s.last.get(game, -1)
        if seq <= last:
            return  # a duplicate: counted in check()
        s.last[game] = seq
        if "view" not in msg:
            self.counts["gap_filled"] += 1
        key = (s.server, game, seq)
        digest = hash(raw)
        self.texts[key].add(digest)
        if s.role != "racer":
            self.spectator_texts[key].add(digest)
        if game != s.own and (game, seq) in self.measured:
            self.arrivals[(game, seq)].append(now - self.sent[(game, seq)])

    def ready(self) -> bool:
        return all(set(s.base) == set(s.games) for s in self.sockets)

    def delivered(self) -> bool:
        return all(s.last.get(g, -1) >= self.final.get(g, 0) for s in self.sockets for g in s.games)

    # -- playing ---------------------------------------------------------------

    async def play(self, index: int, start: float) -> None:
        from engine import DealCode
        from engine import Game as EngineGame

        s = self.racers[index]
        game = s.own
        engine = EngineGame.new(DealCode.parse(self.race["code"]), ranked=True)
        moves = random.Random(self.args.seed * 1000 + index)      # the same moves in both kinds
        pace = random.Random(self.args.seed * 1000 + 500 + index)
        low, high = self.args.interval
        next_at = start + pace.uniform(0, high)
        seq = 0
        loop = asyncio.get_running_loop()
        for k in range(self.args.moves):
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                self.counts["late_ticks"] += 1  # the previous ack came after this move's time
            legal = engine.legal_moves()
            if not legal:
                self.counts["no_legal_move"] += 1
                break
            cards = [m for m in legal if m.kind == "move"]
            move = moves.choice(cards) if cards and moves.random() < CARD_MOVE_SHARE else moves.choice(legal)
            seq += 1
            future = loop.create_future()
            s.pending = (seq, future)
            sent = time.perf_counter()
            self.sent[(game, seq)] = sent
            if k >= self.args.warmup:
                self.measured.add((game, seq))
            await s.ws.send(json.dumps({"type": "move", "move": move.to_json(), "seq": seq, "id": f"{game}:{seq}"}))
            self.counts["moves_sent"] += 1
            try:
                reply = await asyncio.wait_for(future, ACK_TIMEOUT)
            except asyncio.TimeoutError:
                self.errors["ack_timeout"] += 1
                break
            finally:
                s.pending = None
            if reply["type"] != "ack":
                break  # counted by the reader
            engine.apply(move)
            self.final[game] = seq
            if k >= self.args.warmup:
                self.acks.append(time.perf_counter() - sent)
            next_at += pace.uniform(low, high)

    # -- the run -----------------------------------------------------------------

    async def run(self, servers: Servers) -> dict[str, Any]:
        t0 = time.perf_counter()
        sem = asyncio.Semaphore(CONNECT_CONCURRENCY)
        await asyncio.gather(*(self.connect(s, sem) for s in self.sockets))
        readers = [asyncio.create_task(self.read(s)) for s in self.sockets]
        deadline = time.perf_counter() + READY_TIMEOUT
        while not self.ready():
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{self.kind}: not every socket got its snapshots in {READY_TIMEOUT:g}s")
            await asyncio.sleep(0.05)
        connect_seconds = time.perf_counter() - t0
        await asyncio.sleep(SETTLE_SECONDS)
        self.counts.clear()  # watcher counts and the like before the moves do not count
        spies = self.spy(servers)
        before = CpuSample(servers.pids())
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter() + 0.2
        await asyncio.gather(*(self.play(i, start) for i in range(RACERS)))
        moves_seconds = time.perf_counter() - start
        deadline = time.perf_counter() + self.args.drain
        while not self.delivered() and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)
        after = CpuSample(servers.pids())
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        for spy in spies:
            spy.send_signal(2)  # SIGINT: py-spy writes its output and exits
        self.closing = True
        await asyncio.gather(*(asyncio.wait_for(s.ws.close(), 10) for s in self.sockets), return_exceptions=True)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        for spy in spies:
            try:
                spy.wait(timeout=30)
            except subprocess.TimeoutExpired:
                spy.kill()
        client_cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        return self.summary(connect_seconds, moves_seconds, CpuSample.usage(before, after), client_cpu,
                            after.wall - before.wall)

    def spy(self, servers: Servers) -> list[subprocess.Popen]:
        if not self.args.py_spy:
            return []
        spies = []
        for i, pid in enumerate(servers.pids()):
            name = f"{self.kind}-{int(time.time())}-daphne-{i}"
            with open(self.args.log_dir / f"{name}.py-spy.log", "wb") as err:
                spies.append(subprocess.Popen(
                    [self.args.py_spy, "record", "--pid", str(pid), "--rate", "200", "--format", "raw",
                     "--nonblocking", "--gil", "--output", str(self.args.log_dir / f"{name}.pyspy.txt")],
                    stdout=subprocess.DEVNULL, stderr=err))
        return spies

    # -- figures ------------------------------------------------------------------

    def check(self) -> dict[str, int]:
        """Every socket, every game it follows: each event after its snapshot exactly
        once, in order."""
        expected = delivered = lost = duplicated = out_of_order = 0
        for s in self.sockets:
            for game in s.games:
                wanted = range(s.base[game] + 1, self.final.get(game, 0) + 1)
                got = s.seqs[game]
                expected += len(wanted)
                unique = set(got)
                delivered += len(unique & set(wanted))
                lost += len(set(wanted) - unique)
                duplicated += len(got) - len(unique)
                out_of_order += sum(1 for a, b in zip(got, got[1:]) if b < a)
        return {"expected": expected, "delivered": delivered, "lost": lost, "duplicated": duplicated,
                "out_of_order": out_of_order}

    def summary(self, connect_seconds: float, moves_seconds: float, cpu: dict[str, Any], client_cpu: float,
                wall: float) -> dict[str, Any]:
        receivers = {game: sum(1 for s in self.sockets if game in s.games and game != s.own)
                     for game in self.race["games"]}
        deliveries = sorted(x for xs in self.arrivals.values() for x in xs)
        # A move is on every screen when its last receiver has it (complete moves only).
        to_all = sorted(max(xs) for (game, _), xs in self.arrivals.items() if len(xs) == receivers[game])
        moves = sum(self.final.values())
        texts = [len(t) for t in self.texts.values()]
        spectator_texts = [len(t) for t in self.spectator_texts.values()]
        per_move = lambda seconds: round(1000.0 * seconds / moves, 2) if moves else None  # noqa: E731
        return {
            "kind": self.kind,
            "sockets": {"racers": len(self.racers), "spectators": len(self.spectators),
                        "game_watchers": len(self.game_watchers)},
            "connect_seconds": round(connect_seconds, 2),
            "moves": moves,
            "moves_measured": len(self.measured),
            "moves_per_second": round(moves / moves_seconds, 1) if moves_seconds else None,
            "deliveries": deliveries,
            "to_all": to_all,
            "acks": sorted(self.acks),
            **self.check(),
            "gap_filled": self.counts["gap_filled"],
            "resyncs": self.counts["resyncs"],
            **{f"view_frames_{role}": self.counts[f"view_frames_{role}"] for role in ("racer", "spectator", "game")},
            "late_ticks": self.counts["late_ticks"],
            "no_legal_move": self.counts["no_legal_move"],
            "errors": dict(self.errors),
            "texts_per_event_process": {"mean": round(sum(texts) / len(texts), 2) if texts else None,
                                        "max": max(texts, default=None)},
            "spectator_texts_per_event_process": {
                "mean": round(sum(spectator_texts) / len(spectator_texts), 2) if spectator_texts else None,
                "max": max(spectator_texts, default=None)},
            "cpu_ms_per_move": {"daphne": per_move(cpu["cpu_seconds"]["daphne"]),
                                "postgres": per_move(cpu["cpu_seconds"]["postgres"]),
                                "redis": per_move(cpu["cpu_seconds"]["redis"]), "client": per_move(client_cpu)},
            "daphne_pct_core": cpu["daphne_pct_core"],
            "machine_busy_pct": cpu["machine_busy_pct"],
            "loadavg_1m": cpu["loadavg_1m"],
            "client_cpu_pct_core": round(100.0 * client_cpu / wall, 1) if wall else None,
        }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def quantiles(values: list[float]) -> dict[str, float | None]:
    values = sorted(values)
    return {"p50": ms(percentile(values, 0.50)), "p95": ms(percentile(values, 0.95)),
            "p99": ms(percentile(values, 0.99)), "max": ms(values[-1] if values else None), "n": len(values)}


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 2)


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One kind's runs together: the latencies pooled, the counts summed."""
    pooled = lambda key: [x for r in runs for x in r[key]]  # noqa: E731
    total = lambda key: sum(r[key] for r in runs)  # noqa: E731
    errors: collections.Counter[str] = collections.Counter()
    for r in runs:
        errors.update(r["errors"])
    cpu = lambda key: round(sum(r["cpu_ms_per_move"][key] * r["moves"] for r in runs) / total("moves"), 2)  # noqa: E731
    return {
        "runs": len(runs),
        "latency_ms": quantiles(pooled("deliveries")),
        "to_all_ms": quantiles(pooled("to_all")),
        "ack_ms": quantiles(pooled("acks")),
        **{key: total(key) for key in ("moves", "moves_measured", "expected", "delivered", "lost", "duplicated",
                                      "out_of_order", "gap_filled", "resyncs", "view_frames_racer", "view_frames_spectator",
                                      "view_frames_game", "late_ticks",
                                      "no_legal_move")},
        "errors": dict(errors),
        "texts_per_event_process": [r["texts_per_event_process"] for r in runs],
        "spectator_texts_per_event_process": [r["spectator_texts_per_event_process"] for r in runs],
        "cpu_ms_per_move": {key: cpu(key) for key in ("daphne", "postgres", "redis", "client")},
        "machine_busy_pct": [r["machine_busy_pct"] for r in runs],
        "moves_per_second": [r["moves_per_second"] for r in runs],
    }


def report(args: argparse.Namespace, runs: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = {kind: combine([r for r in runs if r["kind"] == kind]) for kind in ("fair", "open")}
    fair, open_ = kinds["fair"], kinds["open"]
    rounds = []
    for i in range(0, len(runs) - 1, 2):
        a, b = quantiles(runs[i]["deliveries"]), quantiles(runs[i + 1]["deliveries"])
        rounds.append({"round": i // 2 + 1, "fair": a, "open": b, "p99_ratio": ratio(a["p99"], b["p99"]),
                       "daphne_cpu_ratio": ratio(runs[i]["cpu_ms_per_move"]["daphne"],
                                                 runs[i + 1]["cpu_ms_per_move"]["daphne"])})
    target = {
        "p99_at_most_1_5x": (ratio(fair["latency_ms"]["p99"], open_["latency_ms"]["p99"]) or 99) <= 1.5,
        "nothing_lost": fair["lost"] == 0 and open_["lost"] == 0,
        "nothing_duplicated": fair["duplicated"] == 0 and open_["duplicated"] == 0,
    }
    target["met"] = all(target.values())
    return {
        "params": {"racers": RACERS, "spectators": args.spectators, "game_watchers": args.game_watchers,
                   "moves": args.moves, "warmup": args.warmup, "rounds": args.rounds,
                   "interval": args.interval, "seed": args.seed, "processes": PROCESSES},
        "fair": fair,
        "open": open_,
        "ratio": {key: {q: ratio(fair[key][q], open_[key][q]) for q in ("p50", "p95", "p99", "max")}
                  for key in ("latency_ms", "to_all_ms", "ack_ms")},
        "rounds": rounds,
        "median_round_p99_ratio": round(statistics.median(r["p99_ratio"] for r in rounds), 2) if rounds else None,
        "target": target,
    }


def table(result: dict[str, Any]) -> str:
    fair, open_, r = result["fair"], result["open"], result["ratio"]
    q = lambda d: f"{d['p50']} / {d['p95']} / {d['p99']} / {d['max']}"  # noqa: E731
    rq = lambda d: f"{d['p50']}× / {d['p95']}× / {d['p99']}× / {d['max']}×"  # noqa: E731
    texts = lambda k: " ".join(f"{t['mean']} (max {t['max']})" for t in k)  # noqa: E731
    rows = [
        ("runs", fair["runs"], open_["runs"], ""),
        ("moves (measured)", f"{fair['moves']} ({fair['moves_measured']})", f"{open_['moves']} ({open_['moves_measured']})", ""),
        ("moves/s per run", fair["moves_per_second"], open_["moves_per_second"], ""),
        ("delivery p50 / p95 / p99 / max ms", q(fair["latency_ms"]), q(open_["latency_ms"]), rq(r["latency_ms"])),
        ("  deliveries timed", fair["latency_ms"]["n"], open_["latency_ms"]["n"], ""),
        ("on every screen p50 / p95 / p99 / max", q(fair["to_all_ms"]), q(open_["to_all_ms"]), rq(r["to_all_ms"])),
        ("ack p50 / p95 / p99 / max ms", q(fair["ack_ms"]), q(open_["ack_ms"]), rq(r["ack_ms"])),
        ("events delivered / expected", f"{fair['delivered']}/{fair['expected']}", f"{open_['delivered']}/{open_['expected']}", ""),
        ("lost / duplicated / out of order", f"{fair['lost']} / {fair['duplicated']} / {fair['out_of_order']}",
         f"{open_['lost']} / {open_['duplicated']} / {open_['out_of_order']}", ""),
        ("gap-filled / resyncs", f"{fair['gap_filled']} / {fair['resyncs']}", f"{open_['gap_filled']} / {open_['resyncs']}", ""),
        ("view frames to racers / spectators", f"{fair['view_frames_racer']} / {fair['view_frames_spectator']} + "
         f"{fair['view_frames_game']}", f"{open_['view_frames_racer']} / {open_['view_frames_spectator']} + "
         f"{open_['view_frames_game']}", ""),
        ("texts per event per process", texts(fair["texts_per_event_process"]), texts(open_["texts_per_event_process"]), ""),
        ("  among spectators", texts(fair["spectator_texts_per_event_process"]),
         texts(open_["spectator_texts_per_event_process"]), ""),
        ("errors", sum(fair["errors"].values()), sum(open_["errors"].values()), ""),
        ("late ticks", fair["late_ticks"], open_["late_ticks"], ""),
        ("Daphne CPU ms/move", fair["cpu_ms_per_move"]["daphne"], open_["cpu_ms_per_move"]["daphne"],
         f"{ratio(fair['cpu_ms_per_move']['daphne'], open_['cpu_ms_per_move']['daphne'])}×"),
        ("PostgreSQL (all) / Redis ms/move", f"{fair['cpu_ms_per_move']['postgres']} / {fair['cpu_ms_per_move']['redis']}",
         f"{open_['cpu_ms_per_move']['postgres']} / {open_['cpu_ms_per_move']['redis']}", ""),
        ("client CPU ms/move", fair["cpu_ms_per_move"]["client"], open_["cpu_ms_per_move"]["client"], ""),
        ("machine busy %", fair["machine_busy_pct"], open_["machine_busy_pct"], ""),
    ]
    lines = [("", "fair", "open boards", "fair ÷ open"), *rows]
    widths = [max(len(str(line[i])) for line in lines) for i in range(4)]
    text = "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)
    for kind in ("fair", "open"):
        if result[kind]["errors"]:
            text += f"\n{kind} errors: {result[kind]['errors']}"
    text += "\nper round, delivery p50 / p95 / p99 / max ms:" + "".join(
        f"\n  {x['round']}: fair {q(x['fair'])}; open {q(x['open'])}; p99 {x['p99_ratio']}×, "
        f"Daphne CPU {x['daphne_cpu_ratio']}×" for x in result["rounds"])
    text += f"\nmedian of the rounds' p99 ratios: {result['median_round_p99_ratio']}×"
    t = result["target"]
    text += ("\ntarget (fair p99 at most 1.5× open, nothing lost or duplicated): "
             + ("met" if t["met"] else "NOT met " + str({k: v for k, v in t.items() if k != "met"})))
    return text


# ---------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=40, help="moves per racer per race (default 40)")
    parser.add_argument("--warmup", type=int, default=5, help="each racer's first moves, not timed (default 5)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of one fair and one open race (default 4)")
    parser.add_argument("--spectators", type=int, default=50, help="spectators on the race socket (default 50)")
    parser.add_argument("--game-watchers", type=int, default=8,
                        help="anonymous spectators on the racers' game sockets (default 8: one per game)")
    parser.add_argument("--interval", type=float, nargs=2, default=(0.2, 0.4), metavar=("LOW", "HIGH"),
                        help="seconds between a racer's moves, uniform (default 0.2 0.4)")
    parser.add_argument("--drain", type=float, default=15.0,
                        help="seconds to wait after the last move for every event to arrive (default 15)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--py-spy", metavar="PATH", help="py-spy executable: sample each Daphne (--gil) per race")
    parser.add_argument("--log-dir", type=Path, help="where Daphne logs go (default: a new /tmp directory)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if not (1 <= args.moves <= 2000 and 0 <= args.warmup < args.moves and 1 <= args.rounds <= 20
            and 0 <= args.spectators <= 500 and 0 <= args.game_watchers <= 100
            and 0 < args.interval[0] <= args.interval[1] <= 10):
        parser.error("out of range: moves 1-2000, warmup below moves, rounds 1-20, spectators 0-500, "
                     "game-watchers 0-100, 0 < interval LOW <= HIGH <= 10")
    lock = open(LOCK_FILE, "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"another bench/fair_races.py run holds {LOCK_FILE}", file=sys.stderr)
        return 2
    args.log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="klondike-bench-fair-"))
    args.log_dir.mkdir(parents=True, exist_ok=True)
    log(f"logs in {args.log_dir}")

    runs: list[dict[str, Any]] = []
    servers: Servers | None = None
    created = False
    try:
        log(f"creating database {DB_NAME}, flushing {redis_url()}")
        flush_redis()
        admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        admin(f"CREATE DATABASE {DB_NAME}")
        created = True
        setup_django()
        racers, watchers = make_users(args.spectators)
        servers = Servers("fair", "config.asgi:application", ROOT, server_env(), PROCESSES, args.log_dir)
        log(f"starting {PROCESSES} Daphne processes")
        servers.start()
        for round_ in range(args.rounds):
            for kind in ("fair", "open"):
                race = start_race(racers, open_boards=kind == "open")
                log(f"round {round_ + 1}: {kind} race {race['id']}, {RACERS} racers x {args.moves} moves")
                run = RaceRun(kind, race, racers, watchers, servers.ports, args)
                try:
                    runs.append(asyncio.run(run.run(servers)))
                finally:
                    end_race(race["id"], racers)
                latest = runs[-1]
                log(f"  p50 {ms(percentile(sorted(latest['deliveries']), 0.5))} ms, "
                    f"p99 {ms(percentile(sorted(latest['deliveries']), 0.99))} ms, lost {latest['lost']}, "
                    f"duplicated {latest['duplicated']}, errors {sum(latest['errors'].values())}")
    finally:
        if servers is not None:
            log("stopping Daphne")
            servers.stop()
        if created:
            from django.db import connections

            connections.close_all()
            log(f"dropping database {DB_NAME}")
            admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        flush_redis()
    result = report(args, runs)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        p = result["params"]
        print(f"{p['racers']} racers + {p['spectators']} spectators on the race socket + {p['game_watchers']} on "
              f"game sockets, {p['processes']} Daphne processes; {p['moves']} moves per racer every "
              f"{p['interval'][0]:g}-{p['interval'][1]:g} s ({p['warmup']} not timed), {p['rounds']} rounds "
              f"fair/open alternated, seed {p['seed']}")
        print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
