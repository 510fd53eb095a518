#!/usr/bin/env python
"""Load benchmark of the API (#34): Locust users play real games through the REST API
against one and two Daphne processes, beside a minimal DRF view with the same session
authentication (``/api/accounts/csrf``, the floor: DRF's session authentication loads the
session and the user, and the view returns the CSRF token) measured in the same run.

    .venv/bin/python bench/load.py [--processes 1 2] [--users 8 32] [--paused 128 256]
        [--seconds 20] [--soak 0] [--handlers service stock] [--proxy] [--json]
    # diagnosis: --phases floor moves mixed, --py-spy PATH (collapsed stacks of the
    #            GIL-holding thread of each Daphne per phase, in the log directory)

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates ``klondike_bench_load`` (on ``BENCH_DATABASE_URL``'s server),
   migrates it, flushes the Redis database of ``BENCH_REDIS_URL`` (default db 11), and
   makes the users beforehand, so the sign-up and log-in throttles stay on: signed-in
   players (a session row each, as a log-in makes) and guests (who get their session
   from their first game). Every user sends the CSRF cookie and header as the web app does.
2. For each process count: Daphne processes serving ``config.asgi`` in production mode
   (users spread over them, as a balancer would), then phases of ``--seconds`` each, run
   by Locust (headless, in a subprocess of its own, ``FastHttpUser``):
   - throughput, no pause between actions, at each ``--users`` count: ``floor`` (signed-in
     users reading ``/api/accounts/csrf``), ``moves`` (every user plays legal moves of its
     own game: each picks from its own engine copy, sends ``{"move", "seq"}`` and applies
     the server's answer), and ``mixed`` (moves, reads of the game, the Vegas and daily
     leaderboards and the lobby, 1 in 3 users guests);
   - latency at each ``--paused`` count: ``mixed`` with a 1-3 s pause between actions.
   Each phase reports requests/s, p50/p99 per kind, errors (non-2xx, 503s apart), the
   Daphne CPU per request (``/proc``), and the peak PostgreSQL connections to the bench
   database (sampled every 50 ms) against the bound ``DB_POOL_MAX_SIZE`` x processes.
   With ``--handlers service stock`` each process count runs twice: ``service`` is
   ``config.asgi``, ``stock`` the same application with Django's stock ASGI handler for
   HTTP (``bench/stock_asgi.py``: a thread started per request, every request in flight
   on a thread, the middleware chain in async mode), the before of
   ``config/http_handler.py``, measured in the same run.
``--proxy``: each process count runs behind the front door as deployed (deploy/stack.py:
nginx with TLS from ``deploy/nginx/klondike.conf.template``, one port, least connections,
in front of ``config.serve`` web processes with the stack's environment, ``HTTPS=true``,
no Celery worker), and Locust reaches every phase, the floor's too, at
``https://localhost:<port>`` only, sending ``Origin`` and ``Referer`` as a browser does
(the certificate is self-signed: FastHttpUser does not check it). ``service`` handler only.

3. ``--soak N``: ``mixed`` at 32 users without pause for N seconds on one process,
   sampling Daphne's RSS and the connections every 10 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

DB_NAME = "klondike_bench_load"
POOL_MAX = 10
PLAYERS = 300      # signed-in users made beforehand
THROUGHPUT_PHASES = ("floor", "moves", "mixed")
HANDLERS = {"service": "config.asgi:application", "stock": "bench.stock_asgi:application"}
GUEST_SHARE = 3    # one user in this many is a guest in the mixed phases


def _bench_module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def database_server() -> str:
    return os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")


def redis_url() -> str:
    return os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")


# ---------------------------------------------------------------------------
# Orchestration (this process: Django for the set-up, no gevent)
# ---------------------------------------------------------------------------


def prepare() -> list[dict[str, str]]:
    """The bench database and the signed-in users' session cookies."""
    import psycopg
    import redis

    with psycopg.connect(f"{database_server()}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    redis.Redis.from_url(redis_url()).flushdb()
    os.environ.update(DATABASE_URL=f"{database_server()}/{DB_NAME}", SECRET_KEY="bench", DEBUG="false",
                      ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SETTINGS_MODULE="config.settings")
    for name in ("REDIS_URL", "REDIS_CACHE_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    users = []
    for i in range(PLAYERS):
        user = get_user_model().objects.create_user(f"load{i}")
        session = SessionStore()
        session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                        HASH_SESSION_KEY: user.get_session_auth_hash()})
        session.create()
        users.append({"name": user.username, "session": session.session_key})
    from django.db import connection

    connection.close()
    connection.close_pool()  # the peak counts the servers' connections only
    return users


def server_env() -> dict[str, str]:
    env = _bench_module("realtime").base_env()
    env.update(DATABASE_URL=f"{database_server()}/{DB_NAME}", REDIS_URL=redis_url(), SECRET_KEY="bench",
               DEBUG="false", ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SETTINGS_MODULE="config.settings",
               DB_POOL_MAX_SIZE=str(POOL_MAX))
    env.pop("REDIS_CACHE_URL", None)
    return env


class ConnectionPeak:
    """The most connections to the bench database seen while it runs (every 50 ms)."""

    def __init__(self) -> None:
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        import psycopg

        with psycopg.connect(f"{database_server()}/postgres", autocommit=True) as conn:
            while not self.stop.is_set():
                count = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                                     (DB_NAME,)).fetchone()[0]
                self.peak = max(self.peak, count)
                time.sleep(0.05)

    def __enter__(self) -> "ConnectionPeak":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join()


def run_phase(phase: str, users: int, pause: bool, seconds: float, ports: list[int], pids: list[int],
              accounts: list[dict[str, str]], py_spy: tuple[str, Path, str] | None = None,
              base_urls: list[str] | None = None) -> dict[str, Any]:
    """``base_urls``: where the users go (default one per port, http://127.0.0.1:<port>)."""
    spec = {"phase": phase, "users": users, "pause": pause, "seconds": seconds, "ports": ports, "pids": pids,
            "accounts": accounts, "base_urls": base_urls or [f"http://127.0.0.1:{port}" for port in ports]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        spies = start_py_spy(py_spy, f"{py_spy[2]}-{len(ports)}proc-{phase}-{users}", pids, seconds) if py_spy else []
        with ConnectionPeak() as peak:
            done = subprocess.run([sys.executable, __file__, "--locust", f.name], capture_output=True, text=True,
                                  timeout=seconds + 300)
    finally:
        os.unlink(f.name)
        for spy in spies:
            spy.wait(timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"locust phase {phase} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["peak_connections"] = peak.peak
    result["connection_bound"] = POOL_MAX * len(ports)
    return result


def start_py_spy(py_spy: tuple[str, Path, str], name: str, pids: list[int], seconds: float) -> list[subprocess.Popen]:
    """py-spy on each Daphne for the phase (Locust starts within a second): only the
    thread holding the GIL, so the stacks say where Daphne's CPU goes."""
    executable, log_dir, _ = py_spy
    return [subprocess.Popen([executable, "record", "--pid", str(pid), "--duration", str(max(1, int(seconds) - 2)),
                              "--rate", "200", "--format", "raw", "--nonblocking", "--gil",
                              "--output", str(log_dir / f"{name}-daphne{i}.pyspy.txt")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i, pid in enumerate(pids)]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--users", type=int, nargs="*", default=[8, 32])
    parser.add_argument("--paused", type=int, nargs="*", default=[128, 256])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--soak", type=float, default=0.0, help="seconds of the soak at 32 users (0: none)")
    parser.add_argument("--phases", nargs="*", default=list(THROUGHPUT_PHASES), choices=THROUGHPUT_PHASES,
                        help="the no-pause phases to run at each --users count")
    parser.add_argument("--handlers", nargs="*", default=["service"], choices=list(HANDLERS),
                        help="service: config.asgi; stock: the same with Django's stock ASGI handler for HTTP "
                             "(bench/stock_asgi.py, the before of #34's handler), each in turn")
    parser.add_argument("--py-spy", metavar="PATH",
                        help="py-spy executable: sample each Daphne in every phase (collapsed stacks of the "
                             "GIL-holding thread in the log directory)")
    parser.add_argument("--proxy", action="store_true",
                        help="behind nginx with TLS (deploy/stack.py), Locust through its one port only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--locust", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.locust:
        return locust_phase(args.locust)
    if args.proxy and (args.handlers != ["service"] or args.soak):
        parser.error("--proxy runs the service handler only, without --soak")

    realtime = _bench_module("realtime")
    accounts = prepare()
    log_dir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    py_spy = (args.py_spy, log_dir) if args.py_spy else None
    results: list[dict[str, Any]] = []
    for processes in args.processes:
        if args.proxy:
            results += run_proxied(args, processes, accounts, log_dir, py_spy)
            continue
        for handler in args.handlers:
            servers = realtime.Servers(f"{handler}{processes}", HANDLERS[handler], ROOT, server_env(), processes,
                                       log_dir)
            servers.start()
            pids = [proc.pid for proc in servers.procs]
            spy = (py_spy[0], py_spy[1], handler) if py_spy else None
            try:
                for users in args.users:
                    for phase in args.phases:
                        result = run_phase(phase, users, False, args.seconds, servers.ports, pids, accounts, spy)
                        results.append({"processes": processes, "handler": handler, **result})
                        print_phase(results[-1])
                for users in args.paused:
                    result = run_phase("mixed", users, True, args.seconds * 1.5, servers.ports, pids, accounts, spy)
                    results.append({"processes": processes, "handler": handler, **result})
                    print_phase(results[-1])
            finally:
                servers.stop()
    soak = run_soak(args.soak, accounts, log_dir) if args.soak else None
    if args.json:
        print(json.dumps({"phases": results, "soak": soak}, indent=2))
    print(f"Daphne logs: {log_dir}", file=sys.stderr)


def run_proxied(args: argparse.Namespace, processes: int, accounts: list[dict[str, str]], log_dir: Path,
                py_spy: tuple[str, Path] | None) -> list[dict[str, Any]]:
    """Every phase at this process count behind the stack's nginx, through its TLS port."""
    from deploy.stack import Stack, StackConfig

    realtime = _bench_module("realtime")
    for name in realtime.PROXY_VARIABLES:  # the stack's readiness checks use urllib from here
        os.environ.pop(name, None)
    if os.geteuid() == 0:
        log_dir.chmod(0o755)  # nginx's workers (nobody) reach the stack's temp and cache folders
    config = StackConfig(run_dir=log_dir / f"stack{processes}", port=realtime.free_port(),
                         web_ports=[realtime.free_port() for _ in range(processes)], workers=0,
                         database_url=f"{database_server()}/{DB_NAME}", redis_url=redis_url(),
                         cache_url=redis_url(), broker_url=redis_url(),
                         extra_env={"SECRET_KEY": "bench", "DB_POOL_MAX_SIZE": str(POOL_MAX)})
    stack = Stack(config)
    results = []
    try:
        stack.up()
        pids = [proc.pid for proc in stack.webs.values()]
        spy = (py_spy[0], py_spy[1], "proxy") if py_spy else None
        phase_args = dict(ports=config.web_ports, pids=pids, accounts=accounts, py_spy=spy,
                          base_urls=[config.origin])
        for users in args.users:
            for phase in args.phases:
                result = run_phase(phase, users, False, args.seconds, **phase_args)
                results.append({"processes": processes, "handler": "proxy", **result})
                print_phase(results[-1])
        for users in args.paused:
            result = run_phase("mixed", users, True, args.seconds * 1.5, **phase_args)
            results.append({"processes": processes, "handler": "proxy", **result})
            print_phase(results[-1])
    finally:
        stack.down()
    return results


def run_soak(seconds: float, accounts: list[dict[str, str]], log_dir: Path) -> dict[str, Any]:
    realtime = _bench_module("realtime")
    servers = realtime.Servers("soak", "config.asgi:application", ROOT, server_env(), 1, log_dir)
    servers.start()
    pid = servers.procs[0].pid
    samples: list[tuple[float, float, int]] = []
    try:
        import psycopg

        def sample(stop: threading.Event) -> None:
            with psycopg.connect(f"{database_server()}/postgres", autocommit=True) as conn:
                start = time.monotonic()
                while not stop.wait(10):
                    count = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                                         (DB_NAME,)).fetchone()[0]
                    samples.append((round(time.monotonic() - start), round(rss_mb(pid), 1), count))
                    print(f"soak {samples[-1][0]:>4} s  RSS {samples[-1][1]:7.1f} MB  connections {count}",
                          file=sys.stderr)

        stop = threading.Event()
        sampler = threading.Thread(target=sample, args=(stop,), daemon=True)
        sampler.start()
        result = run_phase("mixed", 32, False, seconds, servers.ports, [pid], accounts)
        stop.set()
        sampler.join()
    finally:
        servers.stop()
    return {"phase": result, "samples": samples}


def print_phase(r: dict[str, Any]) -> None:
    kinds = "  ".join(f"{name} {k['count'] / r['seconds']:.0f}/s p50 {k['p50']:.0f} p99 {k['p99']:.0f} ms"
                      for name, k in sorted(r["kinds"].items()))
    print(f"{r.get('handler', 'service'):>7} {r['processes']} proc {r['phase']:>5} {r['users']:>3} users{' paused' if r['pause'] else ''}: "
          f"{r['rps']:.0f} req/s  CPU {r['cpu_ms_per_request']:.2f} ms/req ({100 * r['cpu_system_share']:.0f}% system)  errors {r['errors']} "
          f"(503: {r['refused']})  peak conns {r['peak_connections']}/{r['connection_bound']}  | {kinds}",
          file=sys.stderr)


# ---------------------------------------------------------------------------
# One phase, in a subprocess of its own (Locust patches the standard library with gevent)
# ---------------------------------------------------------------------------


def cpu_seconds(pids: list[int]) -> tuple[float, float]:
    """(user, system) CPU seconds of the processes so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    user = system = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        user += int(fields[11])
        system += int(fields[12])
    return user / ticks, system / ticks


def locust_phase(spec_path: str) -> None:
    import gevent
    from locust import FastHttpUser, between, constant, task
    from locust.env import Environment

    spec = json.loads(Path(spec_path).read_text())
    phase, bases, accounts = spec["phase"], spec["base_urls"], spec["accounts"]
    from engine import DealCode, Game

    counter = iter(range(10**9))

    class Player(FastHttpUser):
        host = bases[0]
        wait_time = between(1, 3) if spec["pause"] else constant(0)

        def on_start(self) -> None:
            index = next(counter)
            self.rng = random.Random(index)
            self.client.base_url = bases[index % len(bases)]
            self.guest = phase == "mixed" and index % GUEST_SHARE == GUEST_SHARE - 1
            csrf = "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(32))
            self.cookie = f"csrftoken={csrf}"
            if not self.guest:
                self.cookie += f"; sessionid={accounts[index % len(accounts)]['session']}"
            self.headers = {"X-CSRFToken": csrf, "Referer": self.client.base_url + "/"}
            if self.client.base_url.startswith("https:"):  # behind the proxy: as a browser sends it
                self.headers["Origin"] = self.client.base_url
            if phase != "floor":
                self.new_game()

        def request(self, method: str, path: str, name: str, body: Any = None) -> Any:
            headers = {**self.headers, "Cookie": self.cookie}
            with self.client.request(method, path, name=name, json=body, headers=headers,
                                     catch_response=True) as response:
                if response.status_code >= 400:
                    response.failure(f"{response.status_code} {response.text[:200]}")
                    return None
                if self.guest and "sessionid=" not in self.cookie:
                    session = response.headers.get("set-cookie", "")
                    if "sessionid=" in session:
                        self.cookie += "; " + session.split(";")[0]
                return response.json() if response.text else {}

        def new_game(self) -> None:
            code = str(DealCode(self.rng.randrange(1, 10**6)))
            game = self.request("POST", "/api/games/", "create game", {"code": code})
            self.game, self.engine, self.seq = (game["id"], Game.new(code), 0) if game else (None, None, 0)

        def play(self) -> None:
            if self.game is None:
                return self.new_game()
            moves = [m.to_json() for m in self.engine.legal_moves()]
            cards = [m for m in moves if m["type"] == "move"]
            if not moves or self.seq >= 150:
                return self.new_game()
            move = self.rng.choice(cards) if cards and self.rng.random() < 0.7 else self.rng.choice(moves)
            result = self.request("POST", f"/api/games/{self.game}/moves", "move",
                                  {"move": move, "seq": self.seq + 1})
            if result is not None:
                self.seq = result["seq"]
                self.engine.apply_json(result["move"])
                if result["status"] != "live":
                    self.new_game()

        @task
        def act(self) -> None:
            if phase == "floor":
                self.request("GET", "/api/accounts/csrf", "floor")
            elif phase == "moves":
                self.play()
            else:
                roll = self.rng.random()
                if roll < 0.55:
                    self.play()
                elif roll < 0.7 and self.game:
                    self.request("GET", f"/api/games/{self.game}/", "read game")
                elif roll < 0.8:
                    self.request("GET", "/api/leaderboards/vegas", "vegas board")
                elif roll < 0.9:
                    self.request("GET", "/api/lobby", "lobby")
                else:
                    self.request("GET", "/api/leaderboards/daily", "daily board")

    env = Environment(user_classes=[Player])
    runner = env.create_local_runner()
    runner.start(spec["users"], spawn_rate=max(spec["users"] / 2, 8))
    gevent.sleep(3)  # every user spawned and started
    env.stats.reset_all()
    cpu_before, started = cpu_seconds(spec["pids"]), time.monotonic()
    gevent.sleep(spec["seconds"])
    cpu_after, elapsed = cpu_seconds(spec["pids"]), time.monotonic() - started
    stats = env.stats
    kinds = {}
    for (name, _method), entry in stats.entries.items():
        kinds[name] = {"count": entry.num_requests, "p50": entry.get_response_time_percentile(0.5) or 0,
                       "p99": entry.get_response_time_percentile(0.99) or 0, "failures": entry.num_failures}
    total = stats.total
    refused = sum(1 for error in stats.errors.values() for _ in range(error.occurrences)
                  if str(error.error).startswith("503"))
    runner.quit()
    print(json.dumps({
        "phase": phase, "users": spec["users"], "pause": spec["pause"], "seconds": round(elapsed, 1),
        "requests": total.num_requests, "rps": total.num_requests / elapsed, "errors": total.num_failures,
        "refused": refused, "error_samples": [str(e.error)[:200] for e in list(stats.errors.values())[:3]],
        "p50": total.get_response_time_percentile(0.5), "p99": total.get_response_time_percentile(0.99),
        "cpu_ms_per_request": 1000 * (sum(cpu_after) - sum(cpu_before)) / max(total.num_requests, 1),
        "cpu_system_share": (cpu_after[1] - cpu_before[1]) / max(sum(cpu_after) - sum(cpu_before), 1e-9),
        "kinds": kinds,
    }))


if __name__ == "__main__":
    main()
