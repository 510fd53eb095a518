#!/usr/bin/env python
"""Winnable-deal benchmark: ``POST /api/games/ {"winnable": true}`` from a stocked pool
against a plain random-deal ``POST /api/games/``, in the same run.

    .venv/bin/python bench/winnable.py [--reps 300] [--stock 2000] [--handed-out 100000] [--keep]

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates the database ``klondike_bench_winnable`` (on the server of
   ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it,
   and stores per mode (D1N, D1V) ``--stock`` wins not handed out and ``--handed-out``
   wins already handed out (a long-running service's history), then ``VACUUM ANALYZE``.
   The rows are marked wins without solving them: a winnable request never runs the
   solver, so what is timed is taking a deal from the stock.
2. Through the whole Django/DRF stack (``django.test.Client``, one guest session), after
   a warm-up: ``--reps`` pairs of requests, interleaved so that the machine's load hits
   both alike: a plain random deal, then a winnable deal, in Normal and in Vegas scoring.
   The stock stays above ``WINNABLE_POOL_LOW``, so no top-up runs (each request still
   has the background thread check the stock, as in production).
3. Prints the median and p95 of each, the ratio of the medians (winnable ÷ plain), and
   the SQL queries of one request of each kind.
4. Drops the database (unless ``--keep``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_database import admin, server_url, setup_django  # noqa: E402 - beside this script

DB_NAME = "klondike_bench_winnable"
MODES = (("normal", "D1N"), ("vegas", "D1V"))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=300, help="timed pairs per scoring")
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--stock", type=int, default=2000, help="wins in stock per mode")
    parser.add_argument("--handed-out", type=int, default=100_000, help="wins already handed out per mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="do not drop the database at the end")
    return parser.parse_args()








def stock_the_pool(args: argparse.Namespace) -> None:
    from django.db import connection
    from django.utils import timezone

    from games.models import SolvedDeal

    rng = random.Random(args.seed)
    now = timezone.now()
    for scoring, _name in MODES:
        numbers = rng.sample(range(2**35), args.stock + args.handed_out)
        rows = [SolvedDeal(draw=1, scoring=scoring, deal_number=n, result="win", nodes=1,
                           handed_out_at=now if i < args.handed_out else None) for i, n in enumerate(numbers)]
        SolvedDeal.objects.bulk_create(rows, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE games_solveddeal")


def timed(client, body: dict) -> float:
    started = time.perf_counter()
    response = client.post("/api/games/", body, content_type="application/json")
    elapsed = time.perf_counter() - started
    if response.status_code != 201:
        raise SystemExit(f"{body}: {response.status_code} {response.content[:200]!r}")
    return elapsed


def queries_of(client, body: dict) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        timed(client, body)
    return [query["sql"] for query in captured.captured_queries]


def main() -> int:
    args = parse_args()
    needed = 2 * (args.reps + args.warmup) + 100
    if args.stock < needed:
        raise SystemExit(f"--stock must be at least {needed} so that no top-up runs during the timing")
    admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    admin(f"CREATE DATABASE {DB_NAME}")
    try:
        setup_django(DB_NAME)
        started = time.perf_counter()
        stock_the_pool(args)
        print(f"set-up: {args.stock:,} wins in stock and {args.handed_out:,} handed out per mode "
              f"({time.perf_counter() - started:.1f} s)")
        from django.conf import settings
        from django.test import Client

        from games import winnable_pool

        print(f"WINNABLE_POOL_LOW={settings.WINNABLE_POOL_LOW}, HIGH={settings.WINNABLE_POOL_HIGH}; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        client = Client()
        client.get("/api/accounts/csrf")
        print(f"\n{'request':<34}{'median ms':>10}{'p95 ms':>9}{'queries':>9}")
        for scoring, name in MODES:
            plain_body = {"draw": 1, "scoring": scoring}
            winnable_body = {**plain_body, "winnable": True}
            for _ in range(args.warmup):
                timed(client, plain_body)
                timed(client, winnable_body)
            plain, winnable = [], []
            for _ in range(args.reps):
                plain.append(timed(client, plain_body))
                winnable.append(timed(client, winnable_body))
            for label, body, times in ((f"{name} random deal", plain_body, plain),
                                       (f"{name} winnable deal (stock)", winnable_body, winnable)):
                p95 = statistics.quantiles(times, n=20)[-1]
                print(f"{label:<34}{statistics.median(times) * 1000:>10.2f}{p95 * 1000:>9.2f}"
                      f"{len(queries_of(client, body)):>9}")
            print(f"{name} ratio of medians, winnable ÷ random: {statistics.median(winnable) / statistics.median(plain):.2f}")
        winnable_pool.wait_until_idle(60)
        print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
