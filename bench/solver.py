"""Solver benchmark: deals 0..N-1 in D1N, D3N, D1V and D3V.

    .venv/bin/python bench/solver.py [--deals 1000] [--modes D1N,D3N,D1V,D3V]
                                     [--budget 10] [--workers 2] [--jsonl out.jsonl]
                                     [--cpu] [--only 1,62,104] [--complete-only]

For each mode: the share of deals decided (win or lose) within 1 s and within 10 s,
the median and 90th-percentile solve time (unknowns count as the full budget), and
the winnable share with Wilson 95% intervals, unknowns counted as losses (low) and
as wins (high). Each deal runs in a worker process (multiprocessing) with the given
wall-clock budget. ``--only`` runs the listed deal numbers instead of a range, and
``--complete-only`` the complete search alone instead of the schedule (diagnosis: how
much the complete search decides with the whole budget).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import DealCode, Game, Scoring  # noqa: E402
from solver import implementation, search, solve  # noqa: E402


def _one(task: tuple[str, int, float, bool, bool]) -> dict:
    mode, number, budget, cpu_clock, complete_only = task
    code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
    cpu = time.process_time()
    clock = time.process_time if cpu_clock else time.perf_counter
    if complete_only:
        start = clock()
        complete = implementation._depth_first(Game.new(code))
        complete.run(start + budget, -1, clock)
        result = complete.outcome(start, clock)
    else:
        result = solve(Game.new(code), budget_seconds=budget, max_nodes=None, clock=clock)
    return {
        "mode": mode, "deal": number, "code": code, "result": result.result,
        "nodes": result.nodes, "seconds": result.seconds, "cpu": time.process_time() - cpu,
        "moves": len(result.moves),
        # Workers are replaced every 50 deals: a solver rebuilt or edited mid-run shows here.
        "solver": "pure" if implementation is search else "compiled",
    }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def summarize(rows: list[dict], budget: float) -> dict:
    n = len(rows)
    wins = sum(r["result"] == "win" for r in rows)
    loses = sum(r["result"] == "lose" for r in rows)
    unknown = n - wins - loses
    times = [r["seconds"] if r["result"] != "unknown" else budget for r in rows]
    decided_1 = sum(r["result"] != "unknown" and r["seconds"] <= 1.0 for r in rows)
    decided_10 = sum(r["result"] != "unknown" and r["seconds"] <= 10.0 for r in rows)
    low = wilson(wins, n)[0]
    high = wilson(wins + unknown, n)[1]
    return {
        "deals": n, "win": wins, "lose": loses, "unknown": unknown,
        "decided_1s": decided_1 / n if n else 0.0, "decided_10s": decided_10 / n if n else 0.0,
        "median_s": statistics.median(times) if times else float("nan"),
        "p90_s": percentile(times, 0.9),
        "winnable_low": wins / n if n else 0.0, "winnable_high": (wins + unknown) / n if n else 0.0,
        "ci95": (low, high),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="deal numbers 0..N-1 (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="first deal number (default 0)")
    parser.add_argument("--modes", default="D1N,D3N,D1V,D3V")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per deal (default 10)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpu", action="store_true",
                        help="budget and report CPU seconds instead of wall seconds (busy machines)")
    parser.add_argument("--jsonl", help="also write one JSON line per deal here")
    parser.add_argument("--only", help="comma-separated deal numbers instead of --first/--deals")
    parser.add_argument("--complete-only", action="store_true",
                        help="run the complete search alone instead of solve's schedule")
    args = parser.parse_args(argv)
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        if mode not in ("D1N", "D3N", "D1V", "D3V"):
            parser.error(f"unknown mode {mode}")
    try:
        numbers = ([int(n) for n in args.only.split(",") if n.strip()] if args.only
                   else list(range(args.first, args.first + args.deals)))
    except ValueError:
        parser.error("--only takes comma-separated deal numbers")
    tasks = [(mode, n, args.budget, args.cpu, args.complete_only) for mode in modes for n in numbers]
    out = open(args.jsonl, "w") if args.jsonl else None
    rows: dict[str, list[dict]] = {mode: [] for mode in modes}
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers, maxtasksperchild=50) as pool:
        for row in pool.imap_unordered(_one, tasks):
            rows[row["mode"]].append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
    if out:
        out.close()
    print(f"{len(numbers)} deals {numbers[0]}..{numbers[-1]}"
          f"{' (complete search only)' if args.complete_only else ''}, budget {args.budget:g} s, "
          f"{'CPU' if args.cpu else 'wall'} clock, {args.workers} workers, wall {time.perf_counter() - started:.0f} s, "
          f"solver {'/'.join(sorted({row['solver'] for mode in modes for row in rows[mode]}))}")
    print("mode  deals  win lose unk  dec<=1s dec<=10s  median   p90   winnable (unknowns both ways)  95% CI")
    for mode in modes:
        s = summarize(rows[mode], args.budget)
        print(f"{mode}  {s['deals']:5d} {s['win']:4d} {s['lose']:4d} {s['unknown']:3d}  "
              f"{100 * s['decided_1s']:6.1f}% {100 * s['decided_10s']:6.1f}%  "
              f"{s['median_s']:6.3f} {s['p90_s']:6.2f}  "
              f"{100 * s['winnable_low']:6.2f}%–{100 * s['winnable_high']:6.2f}%        "
              f"{100 * s['ci95'][0]:6.2f}%–{100 * s['ci95'][1]:6.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
