"""Solves as the server's solver pool sees them: one process, a pause between solves.

    git worktree add /tmp/solver-old OLD_COMMIT   # and scripts/build-solver.sh there
    .venv/bin/python bench/solver_idle.py --old /tmp/solver-old --new . \
        --mode D3N --deals 792,832 --rounds 3 --pause 5 --budget 10

Each tree runs in one process that calls ``solve`` (the compiled solver, CPU-time
budget) on each deal ``--rounds`` times, pausing ``--pause`` seconds before each solve:
a player asks for Complete or a hint now and then, not back to back. It prints each
solve's verdict, positions, and user and system CPU seconds (the system time is mostly
page faults of the tables), then each tree's totals. The trees run one after the other.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, ".")
from engine import DealCode, Game, Scoring
from solver import implementation
from solver import search
mode, deals, rounds, pause, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
if implementation is search:
    sys.exit("no current compiled solver in this tree (scripts/build-solver.sh)")
for round_ in range(rounds):
    for number in map(int, deals.split(",")):
        game = Game.new(str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL)))
        time.sleep(pause)
        before = resource.getrusage(resource.RUSAGE_SELF)
        result = implementation.solve(game, budget_seconds=budget, max_nodes=None, clock=time.process_time)
        after = resource.getrusage(resource.RUSAGE_SELF)
        print(json.dumps({"round": round_, "deal": number, "result": result.result, "nodes": result.nodes,
                          "seconds": round(result.seconds, 2), "user": round(after.ru_utime - before.ru_utime, 2),
                          "sys": round(after.ru_stime - before.ru_stime, 2)}), flush=True)
"""


def run(tree: str, args: argparse.Namespace) -> list[dict]:
    child = subprocess.run([sys.executable, "-c", _CHILD, args.mode, args.deals, str(args.rounds), str(args.pause),
                            str(args.budget)], cwd=tree, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in child.stdout.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", required=True, help="source tree A")
    parser.add_argument("--new", required=True, help="source tree B")
    parser.add_argument("--mode", default="D3N")
    parser.add_argument("--deals", required=True, help="comma-separated deal numbers")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pause", type=float, default=5.0, help="seconds before each solve (default 5)")
    parser.add_argument("--budget", type=float, default=10.0, help="CPU seconds per solve (default 10)")
    args = parser.parse_args()
    totals = {}
    for name, tree in (("old", args.old), ("new", args.new)):
        rows = run(tree, args)
        for row in rows:
            print(name, json.dumps(row))
        totals[name] = (sum(r["nodes"] for r in rows), sum(r["user"] for r in rows), sum(r["sys"] for r in rows),
                        sum(r["result"] != "unknown" for r in rows), len(rows))
    for name, (nodes, user, system, decided, count) in totals.items():
        print(f"{name}: {decided}/{count} decided, {nodes:,} positions, user {user:.2f} s, system {system:.2f} s, "
              f"{nodes / (user + system) / 1e6:.2f} M positions per CPU second")
    (old_nodes, old_user, old_sys, *_), (new_nodes, new_user, new_sys, *_) = totals["old"], totals["new"]
    print(f"new/old positions per CPU second: {new_nodes / (new_user + new_sys) / (old_nodes / (old_user + old_sys)):.2f}")


if __name__ == "__main__":
    main()
