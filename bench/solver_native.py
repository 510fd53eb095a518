"""The compiled solver (mypyc, ``games.solver._native``) against the pure-Python one.

    scripts/build-solver.sh          # or make solver
    .venv/bin/python bench/solver_native.py [--deals 30] [--modes D1N,D3N] [--nodes 100000]

Both modules are the same source, so they search the same nodes in the same order:
each deal is solved by both with a node cap and no time budget
(``solve(game, budget_seconds=None, max_nodes=N)``), the benchmark checks that the
verdicts, node counts and lines are equal, and reports the CPU seconds of each and
their ratio. The two alternate deal by deal (which one goes first too), so a busy
machine slows both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from games.engine import DealCode, Game, Scoring  # noqa: E402
from games.solver import load_native, search  # noqa: E402


def _timed(module, game: Game, nodes: int) -> tuple[object, float]:
    start = time.process_time()
    result = module.solve(game, budget_seconds=None, max_nodes=nodes)
    return result, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=30, help="deal numbers 0..N-1 (default 30)")
    parser.add_argument("--modes", default="D1N,D3N")
    parser.add_argument("--nodes", type=int, default=100_000, help="node cap per solve (default 100000)")
    args = parser.parse_args(argv)
    native = load_native()
    if native is None:
        print("the compiled solver is not built or is stale: run scripts/build-solver.sh", file=sys.stderr)
        return 1
    print(f"deals 0..{args.deals - 1}, node cap {args.nodes}, CPU seconds")
    print("mode  deals   nodes     pure  compiled  ratio (total)  ratio (median per deal)")
    for mode in args.modes.split(","):
        pure_total = native_total = 0.0
        ratios: list[float] = []
        node_total = 0
        for number in range(args.deals):
            code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
            game = Game.new(code)
            order = (search, native) if number % 2 == 0 else (native, search)
            runs = {module: _timed(module, game, args.nodes) for module in order}
            (pure, pure_cpu), (compiled, native_cpu) = runs[search], runs[native]
            same = (pure.result, pure.nodes, pure.moves) == (compiled.result, compiled.nodes, compiled.moves)
            if not same:
                print(f"{code}: the two modules disagree: {pure.result}/{pure.nodes} vs "
                      f"{compiled.result}/{compiled.nodes}", file=sys.stderr)
                return 1
            pure_total += pure_cpu
            native_total += native_cpu
            node_total += pure.nodes
            if native_cpu > 0:
                ratios.append(pure_cpu / native_cpu)
        print(f"{mode}  {args.deals:5d} {node_total:8d} {pure_total:7.2f}  {native_total:7.2f}  "
              f"{pure_total / native_total:10.2f}x  {statistics.median(ratios):14.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
