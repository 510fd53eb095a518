#!/usr/bin/env python
"""Quick-match benchmark (#30): how long players wait for a match, with 20 and with 200
players queueing at once, across two Daphne processes.

    .venv/bin/python bench/matchmaking.py [--waiting 20 200] [--rounds 3] [--spread 150]
        [--seed 1] [--json]

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates the database ``klondike_bench_match`` (on the server of
   ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it,
   flushes the Redis database of ``BENCH_REDIS_URL`` (default redis://127.0.0.1:6379/10)
   and starts two Daphne processes serving ``config.asgi`` (``MATCH_WAVE_SECONDS`` as
   configured, 0.5 by default).
2. For each ``--waiting`` N and each of ``--rounds`` rounds: N fresh players with a
   token and a Glicko-2 rating drawn from a normal distribution (mean 1500, standard
   deviation ``--spread``; seeded), a stock of winnable-pool rows for their races
   (placeholders: the benchmark times matching, not the solver), every player's
   ``/ws/me/`` socket open (alternating between the processes). The servers run no
   winnable-pool top-ups (``WINNABLE_POOL_LOW=0``): the solver would take the CPU.
3. The floor, on the same sockets just before: one ping round trip each (all at once).
   Then every player sends ``queue`` at the same moment and waits for ``matched``; the
   time to match is from its send to that frame. A player left alone (an odd count, or
   a rating nobody is near yet) keeps waiting as the range widens; ``--timeout``
   seconds at most.
4. Prints, per N, every round pooled: the time to match p50/p90/max, the share matched
   within 2 s, the races made and their sizes, and the ratio of the median time to
   match to the median ping round trip measured in the same round (the floor: what any
   answer over these sockets costs). Then drops the database and flushes Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import fcntl
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _bench_module(name: str) -> Any:
    """A sibling script as a module (bench/ is not a package; bench/realtime.py must not
    shadow the realtime app)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_fair = _bench_module("fair_races")  # the bench database, Redis, Daphne processes, percentiles
admin, base_env, database_server, flush_redis = _fair.admin, _fair.base_env, _fair.database_server, _fair.flush_redis
log, percentile, redis_url, Servers = _fair.log, _fair.percentile, _fair.redis_url, _fair.Servers

DB_NAME = "klondike_bench_match"
LOCK_FILE = Path(tempfile.gettempdir()) / "klondike-bench-matchmaking.lock"
PROCESSES = 2
TARGET_SECONDS = 2.0


def setup_django() -> None:
    os.environ["DATABASE_URL"] = f"{database_server()}/{DB_NAME}"
    for name in ("REDIS_URL", "REDIS_CACHE_URL"):
        os.environ.pop(name, None)
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.update(DEBUG="false", ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
                      DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def server_env() -> dict[str, str]:
    env = base_env()
    env.update(DATABASE_URL=f"{database_server()}/{DB_NAME}", REDIS_URL=redis_url(), SECRET_KEY="bench",
               DEBUG="false", ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SETTINGS_MODULE="config.settings",
               WINNABLE_POOL_LOW="0")  # no solver top-ups of the other modes' empty stocks during the run
    env.pop("REDIS_CACHE_URL", None)
    return env


def make_players(tag: str, count: int, spread: float, rng: random.Random) -> list[tuple[str, float]]:
    """Fresh players (token, rating) and enough winnable-pool rows for their races."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import User
    from accounts.tokens import issue
    from games.models import SolvedDeal
    from leaderboards.models import Rating

    players = []
    for i in range(count):
        user = User.objects.create(username=f"{tag}-{i}", password=make_password(None))
        rating = rng.gauss(1500.0, spread)
        Rating.objects.create(user=user, rating=rating, rd=80.0, races=20)
        players.append((issue(user, name="bench", scope="play", expires_in_days=1)[1], rating))
    first = 10_000 + SolvedDeal.objects.count()
    SolvedDeal.objects.bulk_create([SolvedDeal(draw=1, scoring="normal", deal_number=first + n, result="win")
                                    for n in range(count + 10)])
    return players


def race_sizes(tag: str) -> list[int]:
    from races.models import RaceEntry

    counts = collections.Counter(RaceEntry.objects.filter(user__username__startswith=f"{tag}-")
                                 .values_list("race_id", flat=True))
    return sorted(counts.values())


async def one_round(ports: list[int], players: list[tuple[str, float]], timeout: float) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    sockets = []
    for index, (token, _) in enumerate(players):
        port = ports[index % len(ports)]
        ws = await connect(f"ws://127.0.0.1:{port}/ws/me/", open_timeout=30, max_queue=None,
                           additional_headers={"Authorization": f"Token {token}",
                                               "Origin": f"http://127.0.0.1:{port}"})
        sockets.append(ws)

    async def until(ws: Any, kind: str) -> float:
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return time.perf_counter()
            if message["type"] == "error":
                raise RuntimeError(f"error frame: {message}")

    await asyncio.gather(*(until(ws, "me") for ws in sockets))

    async def ping(ws: Any) -> float:
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "ping"}))
        return await until(ws, "pong") - sent

    pings = await asyncio.gather(*(ping(ws) for ws in sockets))

    async def match(ws: Any) -> float | None:
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "queue", "draw": 1, "scoring": "normal"}))
        try:
            return await asyncio.wait_for(until(ws, "matched"), timeout) - sent
        except asyncio.TimeoutError:
            return None

    waits = await asyncio.gather(*(match(ws) for ws in sockets))
    await asyncio.gather(*(ws.close() for ws in sockets))
    return {"pings": list(pings), "waits": list(waits)}


def summarize(n: int, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    waits = sorted(w for r in rounds for w in r["waits"] if w is not None)
    unmatched = sum(1 for r in rounds for w in r["waits"] if w is None)
    ratios = [statistics.median([w for w in r["waits"] if w is not None]) / statistics.median(r["pings"])
              for r in rounds if any(w is not None for w in r["waits"])]
    sizes = collections.Counter(size for r in rounds for size in r["sizes"])
    pings = sorted(p for r in rounds for p in r["pings"])
    return {
        "waiting": n, "rounds": len(rounds), "players": n * len(rounds), "unmatched": unmatched,
        "match_p50_ms": round(percentile(waits, 0.5) * 1000, 1), "match_p90_ms": round(percentile(waits, 0.9) * 1000, 1),
        "match_max_ms": round(waits[-1] * 1000, 1),
        "within_2s": round(sum(1 for w in waits if w <= TARGET_SECONDS) / (len(waits) + unmatched), 3),
        "ping_p50_ms": round(percentile(pings, 0.5) * 1000, 2),
        "ratio_match_to_ping_p50": [round(r, 1) for r in ratios],
        "race_sizes": dict(sorted(sizes.items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--waiting", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spread", type=float, default=150.0, help="standard deviation of the ratings")
    parser.add_argument("--timeout", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    lock = open(LOCK_FILE, "w")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-matchmaking-"))
    rng = random.Random(args.seed)
    servers = None
    try:
        log(f"creating database {DB_NAME}, flushing {redis_url()}")
        flush_redis()
        admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        admin(f"CREATE DATABASE {DB_NAME}")
        setup_django()
        servers = Servers("service", "config.asgi:application", ROOT, server_env(), PROCESSES, log_dir)
        servers.start()
        results = []
        for n in args.waiting:
            rounds = []
            for round_index in range(args.rounds):
                tag = f"p{n}r{round_index}"
                players = make_players(tag, n, args.spread, rng)
                outcome = asyncio.run(one_round(servers.ports, players, args.timeout))
                outcome["sizes"] = race_sizes(tag)
                rounds.append(outcome)
                log(f"{n} waiting, round {round_index + 1}: median match "
                    f"{statistics.median([w for w in outcome['waits'] if w is not None]) * 1000:.0f} ms")
            results.append(summarize(n, rounds))
        if args.json:
            print(json.dumps(results, indent=2))
        else:
            print(f"\nTime to match, {PROCESSES} Daphne processes, ratings N(1500, {args.spread:g}), "
                  f"{args.rounds} rounds each (logs in {log_dir})")
            print(f"{'waiting':>8} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8} {'≤2 s':>6} {'unmatched':>9} "
                  f"{'ping p50':>9} {'p50/ping per round':>20}  race sizes")
            for r in results:
                print(f"{r['waiting']:>8} {r['match_p50_ms']:>8} {r['match_p90_ms']:>8} {r['match_max_ms']:>8} "
                      f"{r['within_2s']:>6.0%} {r['unmatched']:>9} {r['ping_p50_ms']:>8}ms "
                      f"{str(r['ratio_match_to_ping_p50']):>20}  {r['race_sizes']}")
        return 0
    finally:
        if servers is not None:
            servers.stop()
        admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        flush_redis()


if __name__ == "__main__":
    sys.exit(main())
