"""The solver's three builds of one search: pure Python (``search.py``), the mypyc
build of the same file (``solver._native``), and that build with its
depth-first searches in the C core (``solver/_core.c``), the default.

    scripts/build-solver.sh          # or make solver
    .venv/bin/python bench/solver_native.py [--deals 30] [--modes D1N,D3N] [--nodes 100000]

All three search the same nodes in the same order: each deal is solved by each with
a node cap and no time budget (``solve(game, budget_seconds=None, max_nodes=N)``),
the benchmark checks that the verdicts, node counts and lines are equal, and reports
the CPU seconds of each and the ratios to pure Python and to mypyc. The three take
turns deal by deal (which one goes first rotates), so a busy machine slows them alike.
(Only the best-first search of draw three Normal stays in Python in the core's runs.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from types import ModuleType

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine import DealCode, Game, Scoring  # noqa: E402
from solver import load_native, search  # noqa: E402

BUILDS = ("pure", "mypyc", "core")


def _timed(module: ModuleType, core: bool, game: Game, nodes: int) -> tuple[object, float]:
    module.USE_CORE = core
    try:
        start = time.process_time()
        result = module.solve(game, budget_seconds=None, max_nodes=nodes)
        return result, time.process_time() - start
    finally:
        module.USE_CORE = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=30, help="deal numbers 0..N-1 (default 30)")
    parser.add_argument("--modes", default="D1N,D3N")
    parser.add_argument("--nodes", type=int, default=100_000, help="node cap per solve (default 100000)")
    args = parser.parse_args(argv)
    native = load_native()
    if native is None or native.CORE is None:
        print("the compiled solver or its C core is not built or is stale: run scripts/build-solver.sh",
              file=sys.stderr)
        return 1
    runners = {"pure": (search, False), "mypyc": (native, False), "core": (native, True)}
    print(f"deals 0..{args.deals - 1}, node cap {args.nodes}, CPU seconds")
    print("mode  deals    nodes     pure    mypyc     core  mypyc/pure  core/pure  core/mypyc (median per deal)")
    for mode in args.modes.split(","):
        totals = dict.fromkeys(BUILDS, 0.0)
        per_deal: list[float] = []
        node_total = 0
        for number in range(args.deals):
            code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
            game = Game.new(code)
            order = BUILDS[number % 3:] + BUILDS[:number % 3]
            runs = {build: _timed(*runners[build], game, args.nodes) for build in order}
            answers = {build: (r.result, r.nodes, r.moves) for build, (r, _) in runs.items()}  # type: ignore[attr-defined]
            if len(set(map(repr, answers.values()))) != 1:
                print(f"{code}: the builds disagree: "
                      + ", ".join(f"{b} {a[0]}/{a[1]}" for b, a in answers.items()), file=sys.stderr)
                return 1
            for build, (_, cpu) in runs.items():
                totals[build] += cpu
            node_total += answers["pure"][1]
            if runs["core"][1] > 0:
                per_deal.append(runs["mypyc"][1] / runs["core"][1])
        pure, mypyc, core = (totals[b] for b in BUILDS)
        print(f"{mode}  {args.deals:5d} {node_total:8d} {pure:8.2f} {mypyc:8.2f} {core:8.2f} "
              f"{pure / mypyc:10.2f}x {pure / core:9.2f}x {mypyc / core:10.2f}x ({statistics.median(per_deal):.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
