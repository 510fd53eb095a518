#!/usr/bin/env python
"""Blocked-check benchmark: the solver's bit-set check against its card-by-card
specification (``tests/solver/test_solver.py::blocked_by_sweeps``), on the positions real
searches check.

    .venv/bin/python bench/blocked.py [--deals 248,569,270,5,108] [--modes D1N,D3N]
                                      [--nodes 20000] [--repeat 3]

1. Set-up (not timed): the complete search (``_DepthFirst``, level 0) runs on each
   deal and mode up to ``--nodes`` nodes, and every position it checks is recorded.
2. Three checks run over all recorded positions, ``--repeat`` times each, in turn:
   the specification, the previous production check (flat per-card tables, before
   the bit sets and the emptiable-column rule for Kings: the baseline) and the bit
   sets. The best time of each is reported (µs per check, and as a multiple of the
   bit sets' time), with how many positions each finds blocked. The bit sets must
   agree with the specification (exit status 1 if not).

A benchmark, not a test: it prints figures; the agreement is also a test
(``test_the_blocked_check_matches_its_specification``).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import DealCode, Game, Scoring  # noqa: E402
from engine.cards import RANK  # noqa: E402
from solver import search  # noqa: E402
from tests.test_solver import blocked_by_sweeps  # noqa: E402


_PARENTS = search._PARENTS
_FIRST_PARENT = tuple(ps[0] if ps else 0 for ps in _PARENTS)
_SECOND_PARENT = tuple(ps[-1] if ps else 0 for ps in _PARENTS)
_KING = tuple(RANK[c] == 13 for c in range(52))


def blocked_by_flat_tables(self: search._Search) -> bool:
    """The production check before the bit sets (commit c397e3d), kept as the speed
    baseline: per-card flags swept to the fixed point, parents from flat tables. It
    counts every King as movable (no emptiable-column rule), so it finds fewer
    positions blocked; its answers are counted, not compared."""
    cols, down, found, talon = self.cols, self.down, self.found, self.talon
    #: ``free[c]``: a card may ever be put on ``c`` — it is on a foundation (taken
    #: back), a talon card that can be put on a column, or a column card that
    #: everything above can leave from.
    free = [False] * 52
    up = [False] * 52
    for s in range(4):
        for c in range(s * 13, s * 13 + found[s]):
            free[c] = up[c] = True
    in_column = [False] * 52
    for col in cols:
        if col:
            free[col[-1]] = True
            for c in col:
                in_column[c] = True
    movable = [False] * 52
    first_parent, second_parent, king = _FIRST_PARENT, _SECOND_PARENT, _KING
    changed = True
    while changed:
        changed = False
        for c in talon:
            if not free[c] and (king[c] or free[first_parent[c]] or free[second_parent[c]]):
                free[c] = True
                changed = True
        for s in range(4):
            for c in range(s * 13 + found[s], s * 13 + 13):
                if up[c]:
                    continue
                if not in_column[c] or free[c]:
                    up[c] = True
                    changed = True
                else:
                    break
        for i in range(7):
            col = cols[i]
            n = len(col)
            if not n:
                continue
            d = down[i]
            for b in range(n):
                c = col[b]
                if not movable[c] and (b >= d or free[c]) and (
                    king[c] or free[first_parent[c]] or free[second_parent[c]]
                ):
                    movable[c] = True
                    changed = True
            # Above k - 1 everything leaves when each card from k up to the first
            # movable face-up card (which carries the rest) goes up or moves.
            first_carrier = bad = n
            for k in range(n - 1, 0, -1):
                c = col[k]
                if k >= d and movable[c]:
                    first_carrier = k
                if not (movable[c] or up[c]):
                    bad = k
                if bad >= first_carrier and not free[col[k - 1]]:
                    free[col[k - 1]] = True
                    changed = True
    return not all(up)



def record_positions(deals: list[int], modes: list[str], nodes: int) -> list[tuple]:
    positions: list[tuple] = []
    check = search._Search.blocked

    def recorded(self: search._Search) -> bool:
        positions.append(([list(c) for c in self.cols], list(self.down), list(self.found), list(self.talon)))
        return check(self)

    search._Search.blocked = recorded
    try:
        for mode in modes:
            for number in deals:
                code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
                search._DepthFirst(Game.new(code)).run(None, nodes, time.perf_counter)
    finally:
        search._Search.blocked = check
    return positions


def timed(check, holder: search._Search, positions: list[tuple]) -> tuple[float, list[bool]]:
    answers = []
    start = time.perf_counter()
    for holder.cols, holder.down, holder.found, holder.talon in positions:
        answers.append(check(holder))
    return time.perf_counter() - start, answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", default="248,569,270,5,108")
    parser.add_argument("--modes", default="D1N,D3N")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    positions = record_positions([int(d) for d in args.deals.split(",")], args.modes.split(","), args.nodes)
    holder = search._Search(Game.new("KL1-D1N-AAAAAAB"))
    gc.disable()
    checks = (("specification", blocked_by_sweeps), ("flat tables", blocked_by_flat_tables),
              ("bit sets", search._Search.blocked))
    best = {name: float("inf") for name, _ in checks}
    answers = {}
    for _ in range(args.repeat):
        for name, check in checks:
            seconds, answers[name] = timed(check, holder, positions)
            best[name] = min(best[name], seconds)
    agree = answers["specification"] == answers["bit sets"]
    count = len(positions)
    print(f"{count} positions checked by searches on deals {args.deals} ({args.modes}, {args.nodes} nodes each), "
          f"{sum(answers['bit sets'])} blocked; answers agree: {agree}")
    for name, seconds in best.items():
        print(f"{name:>14}: {1e6 * seconds / count:6.1f} µs per check (best of {args.repeat}), "
              f"{sum(answers[name])} blocked, {best[name] / best['bit sets']:.2f}x the bit sets' time")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
