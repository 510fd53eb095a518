#!/usr/bin/env python
"""Viewer-policy benchmark: what the race's spectator delay costs a read.

    .venv/bin/python bench/viewer_policy.py [--reps 200] [--moves 40 150] [--keep]

A benchmark, not a test: it prints figures and exits 0 unless it could not run.

1. Set-up: drops and creates the database ``klondike_bench_viewer`` (on the server of
   ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it,
   and for each ``--moves`` count starts a two-player race with a spectator delay of 5
   and plays that many random legal moves in the first racer's game.
2. Through the whole Django/DRF stack (``django.test.Client``), after a warm-up,
   ``--reps`` rounds interleaved so that the machine's load hits every kind alike:
   ``GET /api/games/<id>/`` as the racer's opponent (live: the policy decides, the stored
   board is shown) and as an anonymous spectator (delayed: the board is replayed from
   the move log up to seq − 5), and ``GET /api/races/<id>/`` as each.
3. Prints the median and p95 of each, and the ratio of the medians (spectator ÷ racer).
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

DB_NAME = "klondike_bench_viewer"
DELAY = 5


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200, help="timed rounds")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--moves", type=int, nargs="+", default=[40, 150], help="moves played in the racer's game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="do not drop the database at the end")
    return parser.parse_args()








def race_with_moves(index: int, moves: int, rng: random.Random) -> tuple[str, str, str]:
    """A running race; the first racer's game has ``moves`` events. Returns the race
    id, that game's id and the opponent's API token."""
    from django.contrib.auth import get_user_model
    from accounts.tokens import issue

    from games import services
    from races import services as races
    from games.models import Game

    users = [get_user_model().objects.create(username=f"bench{index}{name}") for name in "ab"]
    race = races.create_race(users[0], spectator_delay=DELAY, time_limit=3600)
    races.join_race(race.id, users[1])
    races.COUNTDOWN_SECONDS = 0
    for user in users:
        races.set_ready(race.id, user)
    game_id = str(race.entries.get(user=users[0]).game_id)
    actor = services.Actor(user_id=users[0].pk)
    for seq in range(1, moves + 1):
        legal = [m.to_json() for m in Game.objects.get(pk=game_id).engine().legal_moves()]
        cards = [m for m in legal if m["type"] == "move"]
        services.submit_move(game_id, actor, rng.choice(cards if cards and rng.random() < 0.6 else legal), seq)
    return str(race.id), game_id, issue(users[1], name="bench", scope="play", expires_in_days=1)[1]


def timed(client, url: str, **headers: str) -> float:
    started = time.perf_counter()
    response = client.get(url, **headers)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, response.content
    return elapsed * 1000


def main() -> None:
    args = parse_args()
    admin(f"DROP DATABASE IF EXISTS {DB_NAME}")
    admin(f"CREATE DATABASE {DB_NAME}")
    try:
        setup_django(DB_NAME, redis_cache=False)
        from django.test import Client

        rng = random.Random(args.seed)
        setups = {moves: race_with_moves(i, moves, rng) for i, moves in enumerate(args.moves)}
        client = Client()
        print(f"spectator delay {DELAY}; {args.reps} rounds after {args.warmup} warm-up; medians and p95 in ms")
        for moves, (race_id, game_id, token) in setups.items():
            kinds = {
                "game, racer (live)": (f"/api/games/{game_id}/", {"HTTP_AUTHORIZATION": f"Token {token}"}),
                "game, spectator (delayed)": (f"/api/games/{game_id}/", {}),
                "race, racer (live)": (f"/api/races/{race_id}/", {"HTTP_AUTHORIZATION": f"Token {token}"}),
                "race, spectator (delayed)": (f"/api/races/{race_id}/", {}),
            }
            figures: dict[str, list[float]] = {kind: [] for kind in kinds}
            for round_ in range(args.warmup + args.reps):
                for kind, (url, headers) in kinds.items():
                    elapsed = timed(client, url, **headers)
                    if round_ >= args.warmup:
                        figures[kind].append(elapsed)
            print(f"\n{moves} moves in the racer's game:")
            medians = {}
            for kind, values in figures.items():
                medians[kind] = statistics.median(values)
                p95 = sorted(values)[int(len(values) * 0.95) - 1]
                print(f"  {kind:28s} median {medians[kind]:7.2f}  p95 {p95:7.2f}")
            for what in ("game", "race"):
                ratio = medians[f"{what}, spectator (delayed)"] / medians[f"{what}, racer (live)"]
                print(f"  {what}: spectator / racer = {ratio:.2f}")
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            admin(f"DROP DATABASE IF EXISTS {DB_NAME}")


if __name__ == "__main__":
    main()
