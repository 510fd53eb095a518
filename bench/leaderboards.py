#!/usr/bin/env python
"""Leaderboard benchmark: board pages and the balance update on generated data.

    .venv/bin/python bench/leaderboards.py [--accounts 100000] [--games 1000000]
        [--reps 200] [--seed 1] [--keep] [--explain] [--json PATH]

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates the database ``klondike_bench_boards`` (on the server of
   ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates
   it, and generates with ``COPY`` (psycopg 3):

   * ``--accounts`` accounts;
   * ``--games`` games: 48 % attempts at 30 daily deals (today and the 14 days before,
     draw one and three; at most one ranked attempt per account and deal, about 15 %
     practice attempts, a few guests), 30 % ranked random Vegas games (every account
     has at least one), 22 % casual games on 3,000 deal codes (one very popular code
     with 30 % of them, the others Zipf-distributed; a few guests);
   * realistic results (won, resigned, live) whose standings keys come from
     ``Game.update_standing`` itself, and engine states taken from real games;
   * a Vegas balance per account (the sum of its counted games' scores, as the
     service keeps it) and its balance history (a start and an end row per game).

   then ``VACUUM ANALYZE``.
2. Times, each ``--reps`` times after a warm-up, through the service functions the
   API calls (``leaderboards.services``: a count and a page query, rows built): the
   first page and a deep page (offset 50,000) of the daily board, the Vegas board and
   the per-deal board; the first pages of the three largest boards again with their
   size not cached (a board over 10,000 entries is counted in full at most once a
   minute: these are the requests that do it); the Vegas "me" query (rank, balance, history) for the best, a
   middle and the last account; one move's balance update (``UPDATE … SET balance =
   balance + 5`` with ``F()`` in its own transaction); and the same first pages
   through the whole Django/DRF stack (``django.test.Client``). The baseline, measured
   in the same run, is one ``SELECT 1`` round trip.
3. Prints a table (median, p95, ratio of the median to the baseline's) and, with
   ``--explain`` or for anything whose median is over 20 ms, the ``EXPLAIN (ANALYZE,
   BUFFERS)`` of its page and count queries.
4. Drops the database (unless ``--keep``).
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import os
import random
import statistics
import sys
import time
import uuid
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_database import admin, server_url, setup_django  # noqa: E402 - beside this script

DB_NAME = "klondike_bench_boards"
TARGET_MS = 20.0
DEEP = 50_000


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=200, help="timed repetitions per query (fewer for slow ones)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="do not drop the database at the end")
    parser.add_argument("--reuse", action="store_true",
                        help="time the data a previous --keep run left (no generation)")
    parser.add_argument("--explain", action="store_true", help="print every query plan, not only slow ones")
    parser.add_argument("--json", help="also write the figures to this file")
    return parser.parse_args()


# --- database set-up -------------------------------------------------------------------




def recreate_database() -> None:
    import psycopg

    with psycopg.connect(f"{server_url()}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {DB_NAME}")


def drop_database() -> None:
    import psycopg

    with psycopg.connect(f"{server_url()}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")




# --- generated data --------------------------------------------------------------------


def engine_states(rng: random.Random, count: int = 64) -> list[bytes]:
    """Stored engine states of real games at various stages (91 to ~1,000 bytes)."""
    from engine import DealCode, Game as EngineGame, to_bytes

    states = []
    for i in range(count):
        engine = EngineGame.new(DealCode(rng.randrange(10**9), 1 + 2 * (i % 2)), ranked=True)
        for _ in range(rng.choice([0, 10, 40, 80, 150, 250])):
            moves = engine.legal_moves()
            if not moves:
                break
            engine.apply(rng.choice(moves))
        states.append(to_bytes(engine, history=True))
    return states


def result(rng: random.Random, *, vegas: bool, won_rate: float, live_rate: float) -> dict[str, Any]:
    """A plausible result; the standings keys come from Game.update_standing."""
    from games.models import Game

    roll = rng.random()
    if roll < won_rate:
        status, fc = "won", 52
        moves = rng.randint(95, 260)
        seconds = round(rng.lognormvariate(5.6, 0.45), 3)  # median ~4.5 minutes
        score = 208 if vegas else max(0, int(rng.gauss(620, 70)))
    else:
        status = "live" if roll < won_rate + live_rate else ("resigned" if rng.random() < 0.97 else "timed_out")
        fc = min(51, int(rng.expovariate(1 / 12)))
        moves = rng.randint(fc, fc + 200)
        seconds = None if status == "live" else round(rng.lognormvariate(5.3, 0.6), 3)
        score = -52 + 5 * fc if vegas else max(0, 10 * fc + 5 * rng.randint(0, 25))
    standing = SimpleNamespace(status=status, score=score, seconds=seconds, moves=moves, foundation_count=fc,
                               Status=Game.Status)
    Game.update_standing(standing)  # the model's own formula
    return {"status": status, "score": score, "seconds": seconds, "moves": moves, "foundation_count": fc,
            "board_won": standing.board_won, "board_primary": standing.board_primary,
            "board_secondary": standing.board_secondary, "board_tertiary": standing.board_tertiary}


GAME_COLUMNS = ["id", "owner_id", "guest_key", "race_id", "daily_id", "practice", "code", "deal_number", "draw",
                "scoring", "kind", "ranked_undo", "public", "status", "score", "moves", "foundation_count", "seq",
                "state", "created_at", "started_at", "finished_at", "seconds", "board_won", "board_primary",
                "board_secondary", "board_tertiary", "visible_from", "cards_seen"]


def generate(args: argparse.Namespace) -> dict[str, Any]:
    """Accounts, daily deals, games, balances and history. Returns what the timings need."""
    import psycopg
    from engine import DealCode, Scoring
    from games import daily_deals

    rng = random.Random(args.seed)
    now = dt.datetime.now(dt.timezone.utc)
    today = daily_deals.today()
    states = engine_states(rng)
    n_accounts, n_games = args.accounts, args.games
    started = time.perf_counter()
    conn = psycopg.connect(f"{server_url()}/{DB_NAME}")

    # Accounts.
    with conn.cursor() as cur:
        with cur.copy("COPY accounts_user (password, is_superuser, username, first_name, last_name, email, "
                      "is_staff, is_active, date_joined) FROM STDIN") as copy:
            for i in range(n_accounts):
                joined = now - dt.timedelta(days=rng.uniform(15, 400))
                copy.write_row(("!", False, f"player{i:06d}", "", "", "", False, True, joined))
        cur.execute("SELECT id FROM accounts_user ORDER BY id")
        accounts = [row[0] for row in cur.fetchall()]
    conn.commit()
    print(f"  {len(accounts):,} accounts ({time.perf_counter() - started:.0f} s)", flush=True)

    # Daily deals: today and the 14 days before, draw one and three.
    dailies = []
    with conn.cursor() as cur:
        for back in range(15):
            day = today - dt.timedelta(days=back)
            for draw in (1, 3):
                number = daily_deals.daily_deal_number(day, draw)
                cur.execute("INSERT INTO games_dailydeal (date, draw, deal_number, code) VALUES (%s, %s, %s, %s) "
                            "RETURNING id", (day, draw, number, str(DealCode(number, draw))))
                weight = (6.0 if draw == 1 else 2.0) if back == 0 else (1.2 if draw == 1 else 0.5)
                dailies.append({"id": cur.fetchone()[0], "date": day, "draw": draw, "number": number,
                                "weight": weight})
    conn.commit()

    n_daily = int(n_games * 0.48)
    n_vegas = int(n_games * 0.30)
    n_casual = n_games - n_daily - n_vegas
    total_weight = sum(d["weight"] for d in dailies)
    for d in dailies:
        d["games"] = int(n_daily * d["weight"] / total_weight)
    dailies[0]["games"] += n_daily - sum(d["games"] for d in dailies)

    # Deal codes for casual games: one very popular, the others Zipf.
    codes = [DealCode(rng.randrange(10**10), 1 if rng.random() < 0.75 else 3,
                      Scoring.VEGAS if rng.random() < 0.15 else Scoring.NORMAL) for _ in range(3000)]
    codes[0] = DealCode(codes[0].number, 1, Scoring.NORMAL)
    zipf = [1 / (rank + 1) for rank in range(len(codes) - 1)]
    cumulative, acc = [], 0.0
    for w in zipf:
        acc += w
        cumulative.append(acc)

    def casual_code() -> DealCode:
        if rng.random() < 0.30:
            return codes[0]
        return codes[1 + bisect.bisect_left(cumulative, rng.random() * acc)]

    state_count = len(states)
    written = 0

    def row(owner: int | None, code: DealCode, *, kind: str, daily: dict | None = None, practice: bool = False,
            created: dt.datetime, res: dict[str, Any]) -> tuple:
        nonlocal written
        written += 1
        live = res["status"] == "live"
        started_at = created + dt.timedelta(seconds=rng.uniform(1, 20))
        finished_at = None if live else started_at + dt.timedelta(seconds=res["seconds"] or 0)
        # Game.result_visible_from: a ranked daily attempt joins its deal's board when
        # its day is over, anything else when it ends (no race games here).
        visible_from = finished_at
        if finished_at is not None and daily is not None and kind == "ranked" and not practice:
            visible_from = max(finished_at, dt.datetime.combine(daily["date"] + dt.timedelta(days=1), dt.time(),
                                                                dt.timezone.utc))
        return (uuid.UUID(int=rng.getrandbits(128), version=4), owner, "" if owner else f"g{rng.getrandbits(60)}",
                None, daily["id"] if daily else None, practice, str(code), code.number, code.draw,
                code.scoring.value, kind, kind == "ranked" and not practice, True, res["status"], res["score"],
                res["moves"], res["foundation_count"], res["moves"] + (0 if live else 1),
                states[written % state_count], created, started_at, finished_at, res["seconds"], res["board_won"],
                res["board_primary"], res["board_secondary"], res["board_tertiary"], visible_from,
                0)  # cards_seen: only races read it

    columns = ", ".join(GAME_COLUMNS)
    with conn.cursor() as cur, cur.copy(f"COPY games_game ({columns}) FROM STDIN") as copy:
        # Daily attempts: one ranked attempt per account and deal, practice after it.
        for d in dailies:
            n = d["games"]
            guests = int(n * 0.02)
            ranked = min(int((n - guests) * 0.85), len(accounts))
            practice = n - guests - ranked
            owners = rng.sample(accounts, ranked)
            day_start = dt.datetime.combine(d["date"], dt.time(), dt.timezone.utc)
            span = min(86400.0, (now - day_start).total_seconds()) - 60
            code = DealCode(d["number"], d["draw"])
            live_rate = 0.10 if d["date"] == today else 0.01
            for owner in owners:
                created = day_start + dt.timedelta(seconds=rng.uniform(0, span))
                copy.write_row(row(owner, code, kind="ranked", daily=d, created=created,
                                   res=result(rng, vegas=False, won_rate=0.32, live_rate=live_rate)))
            for i in range(practice + guests):
                owner = rng.choice(owners) if i < practice and owners else None
                created = day_start + dt.timedelta(seconds=rng.uniform(0, span))
                copy.write_row(row(owner, code, kind="ranked", daily=d, practice=True, created=created,
                                   res=result(rng, vegas=False, won_rate=0.45, live_rate=live_rate)))
        print(f"  {written:,} daily attempts ({time.perf_counter() - started:.0f} s)", flush=True)
        # Ranked random Vegas games: every account has one, some players many more.
        heavy = accounts[: max(1, len(accounts) // 20)]
        for i in range(n_vegas):
            owner = accounts[i] if i < len(accounts) else (rng.choice(heavy) if rng.random() < 0.5
                                                          else rng.choice(accounts))
            code = DealCode(rng.randrange(10**10), 1 if rng.random() < 0.8 else 3, Scoring.VEGAS)
            created = now - dt.timedelta(seconds=rng.uniform(60, 15 * 86400))
            copy.write_row(row(owner, code, kind="ranked", created=created,
                               res=result(rng, vegas=True, won_rate=0.08, live_rate=0.05)))
        print(f"  {written:,} games with Vegas ({time.perf_counter() - started:.0f} s)", flush=True)
        # Casual games on chosen codes.
        for _ in range(n_casual):
            code = casual_code()
            owner = rng.choice(accounts) if rng.random() < 0.97 else None
            created = now - dt.timedelta(seconds=rng.uniform(60, 15 * 86400))
            copy.write_row(row(owner, code, kind="casual", created=created,
                               res=result(rng, vegas=code.scoring is Scoring.VEGAS, won_rate=0.3, live_rate=0.08)))
    conn.commit()
    print(f"  {written:,} games ({time.perf_counter() - started:.0f} s)", flush=True)

    # Balances (what the service keeps: the sum of the counted games' current scores)
    # and their history (a start row per game, an end row per finished game).
    with conn.cursor() as cur:
        cur.execute("""
            INSERT INTO leaderboards_vegasbalance (user_id, balance, games, updated_at)
            SELECT owner_id, SUM(score), COUNT(*), now() FROM games_game
            WHERE scoring = 'vegas' AND kind = 'ranked' AND owner_id IS NOT NULL GROUP BY owner_id""")
        cur.execute("""
            INSERT INTO leaderboards_balancechange (user_id, game_id, reason, balance, at)
            SELECT owner_id, id, reason, balance, at FROM (
                SELECT owner_id, id, 'start' AS reason, created_at AS at,
                       SUM(score) OVER w AS balance
                FROM games_game WHERE scoring = 'vegas' AND kind = 'ranked' AND owner_id IS NOT NULL
                WINDOW w AS (PARTITION BY owner_id ORDER BY created_at)
                UNION ALL
                SELECT owner_id, id, 'end', finished_at, SUM(score) OVER w
                FROM games_game WHERE scoring = 'vegas' AND kind = 'ranked' AND owner_id IS NOT NULL
                                  AND status <> 'live'
                WINDOW w AS (PARTITION BY owner_id ORDER BY created_at)) AS history""")
    conn.commit()
    conn.autocommit = True
    conn.execute("VACUUM ANALYZE")
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM games_game")
        games = cur.fetchone()[0]
        cur.execute("SELECT COUNT(*) FROM leaderboards_balancechange")
        history = cur.fetchone()[0]
        cur.execute("SELECT pg_size_pretty(pg_total_relation_size('games_game'))")
        size = cur.fetchone()[0]
    conn.close()
    print(f"  balances, {history:,} history rows, VACUUM ANALYZE ({time.perf_counter() - started:.0f} s); "
          f"games_game with indexes: {size}", flush=True)

    return {"games": games, "accounts": len(accounts), "history": history, "size": size,
            "generation_seconds": time.perf_counter() - started}


def targets() -> dict[str, Any]:
    """What to time, read back from the database: the busiest daily deal, yesterday's
    draw-one deal, the most played casual code and a middling one."""
    from django.db import connection

    from engine import DealCode
    from games import daily_deals

    today = daily_deals.today()
    with connection.cursor() as cur:
        cur.execute("SELECT d.id, d.date, d.draw, d.deal_number, COUNT(*) FROM games_dailydeal d "
                    "JOIN games_game g ON g.daily_id = d.id GROUP BY d.id ORDER BY COUNT(*) DESC")
        dailies = [{"id": r[0], "date": r[1], "draw": r[2], "number": r[3], "games": r[4]} for r in cur.fetchall()]
        cur.execute("SELECT code, COUNT(*) FROM games_game WHERE kind = 'casual' GROUP BY code ORDER BY 2 DESC, 1")
        codes = [r[0] for r in cur.fetchall()]
        cur.execute("SELECT COUNT(*) FROM games_game")
        games = cur.fetchone()[0]
    past = next(d for d in dailies if d["date"] == today - dt.timedelta(days=1) and d["draw"] == 1)
    return {"big_daily": dailies[0], "past_daily": past, "top_code": DealCode.parse(codes[0]),
            "typical_code": DealCode.parse(codes[len(codes) // 2]), "games": games}


# --- timing ----------------------------------------------------------------------------


def measure(fn: Callable[[], Any], reps: int, warmup: int = 5,
            before: Callable[[], Any] | None = None) -> list[float]:
    """Milliseconds of ``reps`` calls after ``warmup`` calls (``before``, untimed,
    ahead of each); a query slower than 100 ms is repeated a fifth as often (at
    least 20 times)."""
    slowest = 0.0
    for _ in range(warmup):
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        slowest = max(slowest, time.perf_counter() - t0)
    if slowest > 0.1:
        reps = max(20, reps // 5)
    times = []
    for _ in range(reps):
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def explain(fn: Callable[[], Any]) -> list[tuple[str, str]]:
    """EXPLAIN (ANALYZE, BUFFERS) of every SELECT ``fn`` makes."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    plans = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT") or sql.strip() == "SELECT 1":
                continue
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
            plans.append((sql, "\n".join(r[0] for r in cursor.fetchall())))
    return plans


def captured_sql(fn: Callable[[], Any]) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]


def run_sql(statements: list[str]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
            cursor.fetchall()


def run_timings(args: argparse.Namespace, data: dict[str, Any]) -> list[dict[str, Any]]:
    from django.db import connection, transaction
    from django.db.models import F
    from django.test import Client
    from django.utils import timezone

    from games.models import Game
    from leaderboards import services
    from leaderboards.models import VegasBalance

    big = data["big_daily"]
    past = data["past_daily"]
    top_code, typical = data["top_code"], data["typical_code"]
    counts = {
        "daily": Game.objects.filter(daily_id=big["id"], practice=False, owner__isnull=False).count(),
        "vegas": VegasBalance.objects.count(),
        "deal": services.deal_board(top_code)["count"],
        "typical": services.deal_board(typical)["count"],
    }
    balances = list(VegasBalance.objects.order_by("-balance", "user_id").values_list("user_id", flat=True))
    best, middle, last = balances[0], balances[len(balances) // 2], balances[-1]
    rng = random.Random(args.seed + 1)
    client = Client()

    def select_1() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    def balance_update() -> None:
        user_id = rng.choice(balances)
        with transaction.atomic():
            VegasBalance.objects.filter(user_id=user_id).update(balance=F("balance") + 5, updated_at=timezone.now())

    def api(url: str) -> Callable[[], None]:
        def get() -> None:
            response = client.get(url)
            assert response.status_code == 200, response.content[:200]
        return get

    day, draw = big["date"], big["draw"]
    deep_daily = min(DEEP, max(0, counts["daily"] - 20))
    deep_vegas = min(DEEP, max(0, counts["vegas"] - 20))
    deep_deal = min(DEEP, max(0, counts["deal"] - 20))
    cases: list[tuple[str, Callable[[], Any], int]] = [
        ("baseline: SELECT 1 round trip", select_1, args.reps * 5),
        (f"daily board, page 1 ({counts['daily']:,} ranked attempts)", lambda: services.daily_board(day, draw), args.reps),
        (f"daily board, offset {deep_daily:,}", lambda: services.daily_board(day, draw, deep_daily), args.reps),
        ("daily board of a past day, page 1", lambda: services.daily_board(past["date"], past["draw"]), args.reps),
        (f"Vegas board, page 1 ({counts['vegas']:,} balances)", lambda: services.vegas_board(), args.reps),
        (f"Vegas board, offset {deep_vegas:,}", lambda: services.vegas_board(deep_vegas), args.reps),
        (f"per-deal board, popular code, page 1 ({counts['deal']:,} results)", lambda: services.deal_board(top_code),
         args.reps),
        (f"per-deal board, popular code, offset {deep_deal:,}", lambda: services.deal_board(top_code, deep_deal),
         args.reps),
        (f"per-deal board, typical code, page 1 ({counts['typical']:,} results)",
         lambda: services.deal_board(typical), args.reps),
        ("vegas/me: rank + history, best account", lambda: services.vegas_rank(best), args.reps),
        ("vegas/me: rank + history, middle account", lambda: services.vegas_rank(middle), args.reps),
        ("vegas/me: rank + history, last account", lambda: services.vegas_rank(last), args.reps),
        ("one move's balance update (UPDATE … F(), own transaction)", balance_update, args.reps * 2),
        ("HTTP GET /api/leaderboards/daily (page 1)", api(f"/api/leaderboards/daily?date={day}&draw={draw}"), args.reps),
        ("HTTP GET /api/leaderboards/vegas (page 1)", api("/api/leaderboards/vegas"), args.reps),
        (f"HTTP GET /api/leaderboards/deals/<popular> (page 1)", api(f"/api/leaderboards/deals/{top_code}"), args.reps),
        ("HTTP GET /api/leaderboards/vegas/me (middle account)", None, args.reps),
    ]
    results = []
    baseline = None
    from django.core.cache import cache

    def uncounted(key: str) -> Callable[[], None]:
        """Forget a large board's cached size: the request that counts it in full."""
        return lambda: cache.delete(f"board-count:{key}")

    deal_key = f"deal:{top_code.number}:{top_code.draw}:{top_code.scoring.value}"
    colds = {
        f"daily board, page 1 ({counts['daily']:,} ranked attempts)": (f"daily:{big['id']}", lambda: services.daily_board(day, draw)),
        f"Vegas board, page 1 ({counts['vegas']:,} balances)": ("vegas", lambda: services.vegas_board()),
        f"per-deal board, popular code, page 1 ({counts['deal']:,} results)": (deal_key, lambda: services.deal_board(top_code)),
    }
    with_cold: list[tuple[str, Callable[[], Any] | None, int, Callable[[], Any] | None]] = []
    for name, fn, reps in cases:
        with_cold.append((name, fn, reps, None))
        if name in colds:
            key, call = colds[name]
            with_cold.append((name.replace("page 1", "page 1, size not cached"), call, reps, uncounted(key)))
    for name, fn, reps, before in with_cold:
        if fn is None:  # an authenticated request
            from django.contrib.auth import get_user_model

            me = Client()
            me.force_login(get_user_model().objects.get(pk=middle))

            def fn() -> None:
                assert me.get("/api/leaderboards/vegas/me").status_code == 200
        times = measure(fn, reps, before=before)
        median = statistics.median(times)
        baseline = baseline or median
        row = {"name": name, "reps": len(times), "median_ms": median, "p95_ms": p95(times), "ratio": median / baseline}
        sql = ""
        if fn is not select_1 and fn is not balance_update and not name.startswith("HTTP"):
            # The same statements as raw SQL: the database's share of the time.
            statements = captured_sql(fn)
            row["sql_median_ms"] = statistics.median(measure(lambda: run_sql(statements), max(20, reps // 2)))
            if before:
                before()
            sql = f"{row['sql_median_ms']:8.2f}"
        results.append(row)
        print(f"  {name:<66} {len(times):5d} {median:8.2f} {row['p95_ms']:8.2f} {row['ratio']:8.0f}x {sql}",
              flush=True)
        if fn is not select_1 and (args.explain or median > TARGET_MS) and not name.startswith("HTTP"):
            row["plans"] = explain(fn)
    return results


def main() -> int:
    args = parse_args()
    t0 = time.perf_counter()
    warnings.filterwarnings("ignore", message="No directory at")  # WhiteNoise: static files not collected
    if not args.reuse:
        print(f"database {DB_NAME}: create and migrate", flush=True)
        recreate_database()
    try:
        setup_django(DB_NAME)
        generated = {}
        if not args.reuse:
            print(f"generate {args.accounts:,} accounts and {args.games:,} games", flush=True)
            generated = generate(args)
        data = targets()
        from django.db import connection, connections

        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            version = cursor.fetchone()[0].split(" on ")[0]
        print(f"\ntimings on {data['games']:,} games ({version}; {os.cpu_count()} CPUs; load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})", flush=True)
        print(f"  {'query':<66} {'reps':>5} {'median':>8} {'p95':>8} {'vs base':>8} {'SQL only':>8}")
        print(f"  {'':<66} {'':>5} {'ms':>8} {'ms':>8} {'':>8} {'ms':>8}")
        results = run_timings(args, data)
        boards = [r for r in results if not r["name"].startswith(("baseline", "one move", "HTTP", "vegas/me"))]
        slow = [r for r in boards if r["median_ms"] > TARGET_MS]
        print(f"\ntarget: a page of any board under {TARGET_MS:.0f} ms (median, service level): "
              + ("met" if not slow else "NOT met by: " + "; ".join(f"{r['name']} ({r['median_ms']:.1f} ms)"
                                                                 for r in slow)))
        print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for r in results:
            for sql, plan in r.get("plans", []):
                print(f"\n-- {r['name']}\n{sql}\n{plan}")
        total = time.perf_counter() - t0
        print(f"\ntotal {total:.0f} s" + (f" (generation {generated['generation_seconds']:.0f} s)" if generated else ""))
        if args.json:
            Path(args.json).write_text(json.dumps({"args": vars(args), "results": results, **generated},
                                                  default=str, indent=1))
        connections.close_all()
    finally:
        if not args.keep:
            try:
                from django.db import connections

                connections.close_all()
            except Exception:  # noqa: BLE001 - Django may not be set up
                pass
            drop_database()
            print(f"database {DB_NAME} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
