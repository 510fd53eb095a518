"""Check the solver's "lose" verdicts from a `bench/solver.py --jsonl` file with an
independent brute force: `tests.test_solver.brute_force`, a plain depth-first search over
the engine's own `Game.legal_moves` (draws and recycles included, no pruning, no macro
moves) with a visited set and a state limit.

    .venv/bin/python bench/solver_crosscheck.py ROWS.jsonl [--modes D3N,D1V]
                                                [--states 200000] [--most N]

Per deal it prints whether the brute force agrees (no win), found the state space too
big for the limit, or disagrees (found a win: the solver is unsound there); then the
totals per mode. Exit status 1 if any deal disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import Game  # noqa: E402
from tests.test_solver import brute_force  # noqa: E402

VERDICTS = {False: "agree", None: "too_big", True: "disagree"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", help="a --jsonl file written by bench/solver.py")
    parser.add_argument("--modes", default="D1N,D3N,D1V,D3V")
    parser.add_argument("--states", type=int, default=200_000, help="state limit per deal")
    parser.add_argument("--most", type=int, help="check at most this many losses per mode")
    args = parser.parse_args(argv)
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        if mode not in ("D1N", "D3N", "D1V", "D3V"):
            parser.error(f"unknown mode {mode}")
    with open(args.rows) as rows_file:
        rows = sorted((json.loads(line) for line in rows_file), key=lambda r: (r["mode"], r["deal"]))
    totals = {mode: dict.fromkeys(VERDICTS.values(), 0) for mode in modes}
    for mode in modes:
        losses = [r for r in rows if r["mode"] == mode and r["result"] == "lose"][: args.most]
        for row in losses:
            started = time.process_time()
            verdict = VERDICTS[brute_force(Game.new(row["code"]), limit=args.states)]
            totals[mode][verdict] += 1
            print(json.dumps({"code": row["code"], "brute_force": verdict,
                              "cpu": round(time.process_time() - started, 1)}), flush=True)
    for mode, tally in totals.items():
        print(mode, ", ".join(f"{name} {count}" for name, count in tally.items()))
    return 1 if any(t["disagree"] for t in totals.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
