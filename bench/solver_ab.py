"""A/B of the complete search: the same deals solved by two source trees, alternately.

    git worktree add /tmp/solver-old OLD_COMMIT
    .venv/bin/python bench/solver_ab.py --old /tmp/solver-old --new . \
        --mode D1N --deals 66,110,265,21,167 --rounds 2 [--compiled] [--nodes 1000000]

Each solve runs the complete search alone (``_solve``, no streamlined search first) in
a fresh process of its tree, with a CPU-time budget, and prints the verdict, the nodes
and the CPU seconds of both trees and their ratio. The trees alternate deal by deal and
round by round, so a busy machine slows both alike. ``--compiled`` runs each tree's
compiled solver (``solver.implementation``; build it in the tree first with
``scripts/build-solver.sh``) instead of the pure module; ``--nodes N`` stops each
search at N nodes instead of a time budget, so that when both trees search the same
nodes (a change that only makes a node cheaper) the CPU ratio is the speed-up.
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
from engine import DealCode, Game, Scoring
from solver import implementation, search
mode, number, budget, nodes, compiled = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
solver = implementation if compiled else search
if compiled and solver is search:
    sys.exit("no current compiled solver in this tree (scripts/build-solver.sh)")
game = Game.new(str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL)))
start = time.process_time()
deadline = None if nodes >= 0 else start + budget
result = solver._solve(game, start, deadline, nodes, time.process_time)
print(json.dumps({"result": result.result, "nodes": result.nodes, "cpu": time.process_time() - start}))
"""


def solve_in(tree: str, mode: str, number: int, budget: float, nodes: int = -1, compiled: bool = False) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(number), str(budget), str(nodes),
                          "1" if compiled else "0"],
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
    parser.add_argument("--nodes", type=int, default=-1, help="stop at this many nodes instead (no time budget)")
    parser.add_argument("--compiled", action="store_true", help="each tree's compiled solver, not the pure one")
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
            rows = {name: solve_in(trees[name], mode, number, args.budget, args.nodes, args.compiled)
                    for name in order}
            old, new = rows["old"], rows["new"]
            print(f"{number:4d} {rnd:5d}  {old['result']:>7} {old['nodes']:9d} {old['cpu']:6.2f}   "
                  f"{new['result']:>7} {new['nodes']:9d} {new['cpu']:6.2f}   {old['cpu'] / max(new['cpu'], 1e-9):6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
