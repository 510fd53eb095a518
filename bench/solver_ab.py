"""A/B of the complete search: the same deals solved by two source trees, alternately.

    git worktree add /tmp/solver-old OLD_COMMIT
    .venv/bin/python bench/solver_ab.py --old /tmp/solver-old --new . \
        --mode D1N --deals 66,110,265,21,167 --rounds 2

Each solve runs the complete search alone (``games.solver.search._solve``, no
streamlined search first) in a fresh process of its tree, with a CPU-time budget, and
prints the verdict, the nodes and the CPU seconds of both trees and their ratio. The
trees alternate deal by deal and round by round, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import json, sys, time
sys.path.insert(0, ".")
from games.engine import DealCode, Game, Scoring
from games.solver import search
mode, number, budget = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
game = Game.new(str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL)))
start = time.process_time()
result = search._solve(game, start, start + budget, -1, time.process_time)
print(json.dumps({"result": result.result, "nodes": result.nodes, "cpu": time.process_time() - start}))
"""


def solve_in(tree: str, mode: str, number: int, budget: float) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(number), str(budget)],
                         cwd=tree, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="source tree A (e.g. a git worktree)")
    parser.add_argument("--new", default=".", help="source tree B (default: this one)")
    parser.add_argument("--mode", default="D1N")
    parser.add_argument("--deals", required=True, help="comma-separated deal numbers")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budget", type=float, default=60.0, help="CPU seconds per solve (default 60)")
    args = parser.parse_args(argv)
    mode = args.mode.upper()
    if mode not in ("D1N", "D3N", "D1V", "D3V"):
        parser.error(f"unknown mode {mode}")
    deals = [int(d) for d in args.deals.split(",") if d.strip()]
    trees = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    print("deal round  old: result nodes cpu      new: result nodes cpu      old/new cpu")
    for rnd in range(args.rounds):
        for number in deals:
            order = ("old", "new") if (rnd + number) % 2 == 0 else ("new", "old")
            rows = {name: solve_in(trees[name], mode, number, args.budget) for name in order}
            old, new = rows["old"], rows["new"]
            print(f"{number:4d} {rnd:5d}  {old['result']:>7} {old['nodes']:9d} {old['cpu']:6.2f}   "
                  f"{new['result']:>7} {new['nodes']:9d} {new['cpu']:6.2f}   {old['cpu'] / max(new['cpu'], 1e-9):6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
