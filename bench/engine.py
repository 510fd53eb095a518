#!/usr/bin/env python
"""Engine benchmark: moves applied, legal-move lists, state size and state round trips.

    .venv/bin/python bench/engine.py [--deals 40] [--seconds 0.3] [--repeat 5]
        [--length 200] [--seed 1] [--clock perf|process] [--json]

A benchmark, not a test: it prints figures and exits 0; nothing here asserts a time.
Everything runs in this one process, on one core (CPython runs it on one thread).

1. Set-up (not timed): random playouts of deals ``0 … N−1`` in draw one and draw
   three, Normal scoring, up to ``--length`` actions each, from a seeded
   ``random.Random``: mostly a greedy choice (a card up to a foundation, then a move
   that uncovers a face-down card, then a waste card played) and otherwise any legal
   move, all taken from ``game.legal_moves()``. The accepted moves are recorded, and
   so is every position along the way (a ``Game.copy()``, undo history included).
2. Measurements, after a warm-up, each repeated ``--repeat`` times; one repetition
   goes through the recorded material in chunks, round and round, until at least
   ``--seconds`` of timed work, and only the measured calls are inside the
   ``time.perf_counter`` windows (fresh games for the replays are copied outside;
   ``--clock process`` uses ``time.process_time`` instead, see below):

   * **baseline**: a trivial Python loop doing one ``list.append`` and one
     ``list.pop`` per iteration (iterations per second);
   * **moves applied**: the recorded move lists replayed with ``game.apply`` on
     fresh games of their deals;
   * **legal-move lists**: ``game.legal_moves()`` on every recorded position;
   * **state round trips**: ``to_bytes(from_bytes(data))`` of every position, live
     state only and with the undo history;
   * **server step**: what the service does per move: ``from_bytes`` of the stored
     state with history, ``apply`` of the next recorded move, ``to_bytes`` with
     history.

   Each repetition of a figure is paired with a baseline measured just before it
   (half as long). Best (highest rate) and median of the repetitions are reported,
   and the figure's **cost in baseline iterations** (paired baseline rate ÷ figure
   rate; best = lowest, and median): on a noisy machine that ratio moves much less
   than the raw rates, between runs and between machines.
3. State size (not timed): mean and max of ``len(to_bytes(game))`` and of
   ``len(to_bytes(game, history=True))`` over the recorded positions.

Clocks: the default wall clock also counts the time other processes hold the core
(the 2-core development machine is shared and noisy); ``--clock process`` counts
this process's CPU time only. Either way, compare the cost in baseline iterations.

The targets (issue): ≥100,000 moves applied per second and ≥20,000 legal-move
lists per second on one core of CPython; live state ≤200 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import FOUNDATION, DealCode, Game, Move, Scoring, from_bytes, to_bytes  # noqa: E402
from engine.cards import RANK, SUIT  # noqa: E402

#: The timer of the measured windows: ``time.perf_counter`` (wall clock, the
#: default) or, with ``--clock process``, ``time.process_time`` (this process's CPU
#: time, which leaves out the time other processes take the core away).
CLOCKS = {"perf": time.perf_counter, "process": time.process_time}
clock = time.perf_counter

TARGETS = {"moves_applied": 100_000, "legal_move_lists": 20_000}
TARGET_LIVE_BYTES = 200


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40, help="deal numbers 0 … N-1, each in draw one and three")
    parser.add_argument("--seconds", type=float, default=0.3,
                        help="minimum timed work per repetition of each measurement")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of each measurement")
    parser.add_argument("--length", type=int, default=200, help="maximum actions per playout")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="perf",
                        help="perf: time.perf_counter (wall clock); process: time.process_time (CPU time)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.seconds <= 0 or args.repeat < 1 or args.length < 1:
        parser.error("--deals, --seconds, --repeat and --length must be positive")
    return args


# -- set-up: recorded playouts ---------------------------------------------------


class Playout:
    __slots__ = ("code", "moves", "positions")

    def __init__(self, code: str) -> None:
        self.code = code
        self.moves: list[Move] = []
        self.positions: list[Game] = []  # positions[i]: before moves[i]; one more at the end


def progress(game: Game, move: Move) -> int:
    """A greedy player's preference for a legal move (higher is better)."""
    if move.kind != "move":
        return 0
    card = move.card
    if game.foundations[SUIT[card]] == RANK[card]:
        return 0  # a take-back
    if move.to == FOUNDATION:
        return 3
    for col, down in zip(game.columns, game.down):
        if down and len(col) > down and col[down] == card:
            return 2
    return 1 if game.waste and game.waste[-1] == card else 0


def record_playouts(deals: int, length: int, seed: int) -> list[Playout]:
    rnd = random.Random(seed)
    playouts = []
    for number in range(deals):
        for draw in (1, 3):
            play = Playout(str(DealCode(number, draw, Scoring.NORMAL)))
            game = Game.new(play.code)
            for _ in range(length):
                legal = game.legal_moves()
                if not legal:
                    break
                if rnd.random() < 0.7:
                    best = max(progress(game, m) for m in legal)
                    if best:
                        legal = [m for m in legal if progress(game, m) == best]
                    elif legal[0].kind != "move":
                        legal = legal[:1]  # nothing useful: turn the stock
                move = rnd.choice(legal)
                play.positions.append(game.copy())
                game.apply(move)
                play.moves.append(move)
            play.positions.append(game.copy())
            playouts.append(play)
    return playouts


# -- timing ----------------------------------------------------------------------


def timed_rate(one_pass: Callable[[], tuple[float, int]], seconds: float) -> float:
    """Operations per second over at least ``seconds`` of timed work. ``one_pass``
    does its own set-up, times only the measured calls and returns ``(elapsed, ops)``."""
    elapsed, ops = 0.0, 0
    while elapsed < seconds:
        e, n = one_pass()
        elapsed += e
        ops += n
    return ops / elapsed


def measure(one_pass: Callable[[], tuple[float, int]], baseline: Callable[[], tuple[float, int]],
            seconds: float, repeat: int) -> tuple[list[float], list[float]]:
    """``repeat`` rates of ``one_pass``, each paired with a baseline rate measured
    just before it (half as long), so that a ratio compares like with like when the
    machine's load changes during the run."""
    timed_rate(one_pass, seconds / 3)  # warm-up
    rates, baseline_rates = [], []
    for _ in range(repeat):
        baseline_rates.append(timed_rate(baseline, seconds / 2))
        rates.append(timed_rate(one_pass, seconds))
    return rates, baseline_rates


def baseline_pass(iterations: int = 100_000) -> Callable[[], tuple[float, int]]:
    def one_pass() -> tuple[float, int]:
        items: list[int] = []
        append, pop = items.append, items.pop
        start = clock()
        for i in range(iterations):
            append(i)
            pop()
        return clock() - start, iterations

    return one_pass


class Cycle:
    """Hands out the recorded material in chunks, round and round, so that one pass
    is short and a repetition stops soon after ``--seconds``."""

    def __init__(self, items: list, size: int) -> None:
        self.chunks = [items[i:i + size] for i in range(0, len(items), size)]
        self.next = 0

    def __call__(self) -> list:
        chunk = self.chunks[self.next]
        self.next = (self.next + 1) % len(self.chunks)
        return chunk


def apply_pass(playouts: list[Playout]) -> Callable[[], tuple[float, int]]:
    cycle = Cycle([(play.positions[0], play.moves) for play in playouts], 4)

    def one_pass() -> tuple[float, int]:
        games = [(start.copy(), moves) for start, moves in cycle()]  # fresh games, not timed
        perf = clock
        elapsed, total = 0.0, 0
        for game, moves in games:
            apply = game.apply
            t0 = perf()
            for move in moves:
                apply(move)
            elapsed += perf() - t0
            total += len(moves)
        return elapsed, total

    return one_pass


def legal_moves_pass(positions: list[Game]) -> Callable[[], tuple[float, int]]:
    # legal_moves never changes a game, so the same positions serve every pass.
    cycle = Cycle([game.legal_moves for game in positions], 1000)

    def one_pass() -> tuple[float, int]:
        calls = cycle()
        start = clock()
        for call in calls:
            call()
        return clock() - start, len(calls)

    return one_pass


def round_trip_pass(states: list[bytes], history: bool) -> Callable[[], tuple[float, int]]:
    cycle = Cycle(states, 200)

    def one_pass() -> tuple[float, int]:
        chunk = cycle()
        start = clock()
        for data in chunk:
            to_bytes(from_bytes(data), history=history)
        return clock() - start, len(chunk)

    return one_pass


def server_step_pass(steps: list[tuple[bytes, Move]]) -> Callable[[], tuple[float, int]]:
    cycle = Cycle(steps, 200)

    def one_pass() -> tuple[float, int]:
        chunk = cycle()
        start = clock()
        for data, move in chunk:
            game = from_bytes(data)
            game.apply(move)
            to_bytes(game, history=True)
        return clock() - start, len(chunk)

    return one_pass


def summary(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "max": max(values)}


# -- main ------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict:
    global clock
    clock = CLOCKS[args.clock]
    t0 = time.perf_counter()
    playouts = record_playouts(args.deals, args.length, args.seed)
    positions = [game for play in playouts for game in play.positions]
    live = [to_bytes(game) for game in positions]
    full = [to_bytes(game, history=True) for game in positions]
    steps = [(to_bytes(play.positions[i], history=True), move)
             for play in playouts for i, move in enumerate(play.moves)]
    setup_seconds = time.perf_counter() - t0

    baseline = baseline_pass()
    measurements = [
        ("baseline", "iterations/s", baseline),
        ("moves_applied", "moves/s", apply_pass(playouts)),
        ("legal_move_lists", "lists/s", legal_moves_pass(positions)),
        ("round_trip_live", "round trips/s", round_trip_pass(live, history=False)),
        ("round_trip_history", "round trips/s", round_trip_pass(full, history=True)),
        ("server_step", "steps/s", server_step_pass(steps)),
    ]
    results: dict[str, dict] = {}
    for name, unit, one_pass in measurements:
        rates, baseline_rates = measure(one_pass, baseline, args.seconds, args.repeat)
        costs = [b / r for b, r in zip(baseline_rates, rates)]
        row = results[name] = {
            "unit": unit, "best": max(rates), "median": statistics.median(rates), "rates": rates,
            "baseline_rates": baseline_rates,
            # Baseline iterations one operation costs (paired repetitions): lower is faster.
            "cost_best": min(costs), "cost_median": statistics.median(costs),
        }
        if name in TARGETS:
            row["target"] = TARGETS[name]
            row["target_met_best"] = row["best"] >= TARGETS[name]
            row["target_met_median"] = row["median"] >= TARGETS[name]

    sizes = {"live": summary([len(d) for d in live]), "history": summary([len(d) for d in full])}
    sizes["live"]["target"] = TARGET_LIVE_BYTES
    sizes["live"]["target_met"] = sizes["live"]["max"] <= TARGET_LIVE_BYTES
    won = sum(play.positions[-1].won for play in playouts)
    return {
        "machine": {
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "args": vars(args),
        "workload": {
            "playouts": len(playouts),
            "moves": sum(len(play.moves) for play in playouts),
            "positions": len(positions),
            "won": won,
            "setup_seconds": setup_seconds,
        },
        "results": results,
        "sizes": sizes,
        "seconds": time.perf_counter() - t0,
    }


def print_table(report: dict) -> None:
    machine, work, results, sizes = report["machine"], report["workload"], report["results"], report["sizes"]
    load = machine["load_average"]
    print(f"{machine['python']} on {machine['platform']}, {machine['cpus']} CPUs"
          + (f", load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}" if load else ""))
    print(f"workload: {work['playouts']} playouts, {work['moves']:,} moves, {work['positions']:,} positions "
          f"({work['won']} won), set-up {work['setup_seconds']:.1f} s")
    args = report["args"]
    print(f"clock: {args['clock']}; each figure: {args['repeat']} repetitions of ≥{args['seconds']} s "
          f"of timed work, each after {args['seconds'] / 2:g} s of baseline;\n"
          "cost = baseline iterations per operation (baseline rate ÷ figure rate, per repetition; "
          "best and median)\n")
    header = (f"{'measurement':<27} {'best':>11} {'median':>11}  {'unit':<14} {'cost best':>9} "
              f"{'median':>8}  target")
    print(header)
    print("-" * len(header))
    labels = {
        "baseline": "baseline: append+pop loop",
        "moves_applied": "moves applied",
        "legal_move_lists": "legal-move lists",
        "round_trip_live": "round trip, live state",
        "round_trip_history": "round trip, with history",
        "server_step": "from_bytes+apply+to_bytes",
    }
    for name, row in results.items():
        target = ""
        if "target" in row:
            met = ("met" if row["target_met_median"]
                   else "met by the best only" if row["target_met_best"] else "not met")
            target = f"≥{row['target']:,}: {met}"
        print(f"{labels[name]:<27} {row['best']:>11,.0f} {row['median']:>11,.0f}  {row['unit']:<14} "
              f"{row['cost_best']:>9.1f} {row['cost_median']:>8.1f}  {target}")
    print()
    live, hist = sizes["live"], sizes["history"]
    print(f"state size, live:          mean {live['mean']:.1f} B, max {live['max']} B "
          f"(target ≤{live['target']} B: {'met' if live['target_met'] else 'not met'})")
    print(f"state size, with history:  mean {hist['mean']:.1f} B, max {hist['max']} B")
    print(f"\ntotal {report['seconds']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
