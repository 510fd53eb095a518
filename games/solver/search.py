"""Depth-first search with a transposition table over canonical Klondike states.

Techniques (and why each one keeps a "lose" answer a proof):

* **Own compact state.** Columns are lists of card ints with a face-down count, the
  foundations are four counts, and the stock and waste form one *talon* list in draw
  order: ``talon[:pos]`` is the waste (top = ``talon[pos - 1]``), ``talon[pos:]`` the
  stock (next drawn = ``talon[pos]``). A recycle only resets ``pos`` to 0: the engine
  turns the waste over so that the first card drawn in the last pass comes first again.
  Moves are applied and undone in place.

* **Stock macro-moves.** Draws and recycles change nothing but ``pos``, and they commute
  with every move that does not touch the waste, so a line never needs a draw except
  right before playing the card it brings to the top. The search therefore has no draw
  move: it plays any card ``talon[p - 1]`` whose position ``p`` the stock can reach
  (:meth:`_Search.talon_positions`: draw one Normal, every card; draw three, ``pos``,
  ``pos + 3``, … the last card, and after a recycle 3, 6, … the last card; Vegas, no
  recycle). :func:`_expand` turns each into the draws/recycles it stands for.

* **Safe automatic moves** are applied without branching. A card ``c`` of rank ``r``
  goes up when its foundation is at ``r - 1``, both opposite-colour foundations are at
  ``r - 1`` or more and the other same-colour foundation at ``r - 2`` or more (any Ace
  qualifies). Proof sketch, take-backs included: let ``F`` be ``c`` and every card
  below those thresholds (all on the foundations but ``c``). A card of ``F`` only ever
  accepts cards of ``F`` on it, so in any winning line the cards of ``F`` that are off
  the foundations form the top segments of columns; the same line with every move of
  an ``F`` card skipped stays legal from the position where ``c`` went up first (every
  other move finds the same top card, a foundation at least as high, and never needed
  an ``F`` card under it) and still ends with 52 cards up. This holds for ``c`` on top
  of a column in every mode, and for ``c`` in the talon in draw one (skipping the draw
  that would have turned ``c`` up keeps every other card's turn — in Normal for any
  talon card since recycles make ``pos`` irrelevant, in Vegas only for the waste's top
  card, which needs no draw). In draw three, removing a talon card regroups the cards
  behind it, so talon cards never move automatically there.

* **Dominance / symmetry.** Column order is irrelevant (the transposition key sorts the
  columns), so a King goes to one empty column only, and a whole column (a King at the
  bottom with nothing face down) never moves to another empty column. Both prune only
  states identical up to column order.

* **Transposition table** of canonical keys (sorted columns with their face-down
  counts, the talon, and ``pos`` normalised to the class of positions with the same
  reachable set: any ``pos`` in draw one Normal; ``pos`` a multiple of 3 or the
  talon's end in draw three Normal). The moves counter and score are left out. The
  search is a plain graph search for a winning state, so a global visited set keeps it
  complete.

* **Order.** Foundation moves first, then moves that turn a face-down card up (the
  column with the most face-down cards first), talon cards to columns, moves that empty
  a column, other column moves, and take-backs last.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Final

from games.engine import Game, Move
from games.engine.cards import ACCEPTS, RANK, SUIT
from games.engine.moves import DRAW_MOVE, FOUNDATION, MOVE, RECYCLE_MOVE

WIN: Final = "win"
LOSE: Final = "lose"
UNKNOWN: Final = "unknown"

# Internal move kinds.
T2F: Final = 0  # (T2F, i): top of column i to its foundation
T2T: Final = 1  # (T2T, i, k, j): cards col_i[k:] onto column j
W2F: Final = 2  # (W2F, p): talon card talon[p - 1] to its foundation (after draws)
W2T: Final = 3  # (W2T, p, j): talon card talon[p - 1] onto column j (after draws)
F2T: Final = 4  # (F2T, s, j): top of foundation s onto column j (take-back)

_OPPOSITE: Final = ((1, 2), (0, 3), (0, 3), (1, 2))
_SIBLING: Final = (3, 2, 1, 0)
#: Per card: (suit, rank, opposite suit 1, opposite suit 2, same-colour other suit).
_SAFE: Final = tuple((SUIT[c], RANK[c], *_OPPOSITE[SUIT[c]], _SIBLING[SUIT[c]]) for c in range(52))
_DOWN_BYTE: Final = tuple(bytes((200 + d,)) for d in range(60))
_POS_BYTE: Final = tuple(bytes((100 + p,)) for p in range(60))

DEFAULT_BUDGET_SECONDS: Final = 10.0
DEFAULT_MAX_NODES: Final = 5_000_000


@dataclass
class SolveResult:
    """``result`` is ``"win"``, ``"lose"`` or ``"unknown"``; ``moves`` the winning
    line (engine moves, replayable with ``Game.apply``) when it is a win; ``nodes``
    the states the search generated; ``seconds`` the wall time."""

    result: str
    moves: list[Move] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {
            "result": self.result,
            "moves": [m.to_json() for m in self.moves],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
        }


class _Budget(Exception):
    pass


class _Search:
    __slots__ = ("cols", "down", "found", "talon", "pos", "draw", "vegas", "d1n")

    def __init__(self, game: Game) -> None:
        self.cols = [list(c) for c in game.columns]
        self.down = list(game.down)
        self.found = list(game.foundations)
        self.talon = list(game.waste) + list(reversed(game.stock))
        self.pos = len(game.waste)
        self.draw = game.draw
        self.vegas = game.vegas
        self.d1n = game.draw == 1 and not game.vegas

    # -- state -------------------------------------------------------------------

    def won(self) -> bool:
        f = self.found
        return f[0] + f[1] + f[2] + f[3] == 52

    def key(self) -> bytes:
        cols, down = self.cols, self.down
        encs = [bytes(cols[i]) + _DOWN_BYTE[down[i]] for i in range(7)]
        encs.sort()
        talon = self.talon
        pos = self.pos
        if self.d1n:
            pos = 0
        elif not self.vegas and self.draw == 3 and (pos % 3 == 0 or pos == len(talon)):
            pos = 0
        return b"".join(encs) + bytes(talon) + _POS_BYTE[pos]

    def talon_positions(self) -> list[int] | range:
        """The positions ``p`` (1-based) the stock can bring to the waste's top, fewest
        draws first: ``talon[p - 1]`` is then playable."""
        n = len(self.talon)
        if not n:
            return ()
        pos = self.pos
        if self.draw == 1:
            if self.vegas:
                return range(max(pos, 1), n + 1)
            return [*range(max(pos, 1), n + 1), *range(1, max(pos, 1))]
        result = [pos] if pos else []
        p = pos
        while p < n:
            p = p + 3 if p + 3 < n else n
            result.append(p)
        if not self.vegas and pos % 3 and pos != n:
            p = 0
            while p < pos:
                p = p + 3 if p + 3 < n else n
                if p < pos:
                    result.append(p)
        return result

    # -- moves -------------------------------------------------------------------

    def apply(self, move: tuple) -> tuple:
        """Apply one internal move; return its undo record
        ``(move, card, flipped, extra)``."""
        kind = move[0]
        cols, down = self.cols, self.down
        if kind == T2F:
            i = move[1]
            col = cols[i]
            card = col.pop()
            self.found[SUIT[card]] += 1
            flipped = down[i] > 0 and down[i] == len(col)
            if flipped:
                down[i] -= 1
            return (move, card, flipped, 0)
        if kind == T2T:
            _, i, k, j = move
            col = cols[i]
            card = col[k]
            count = len(col) - k
            cols[j] += col[k:]
            del col[k:]
            flipped = down[i] > 0 and down[i] == k
            if flipped:
                down[i] -= 1
            return (move, card, flipped, count)
        if kind == W2F or kind == W2T:
            p = move[1]
            card = self.talon.pop(p - 1)
            old = self.pos
            self.pos = p - 1
            if kind == W2F:
                self.found[SUIT[card]] += 1
            else:
                cols[move[2]].append(card)
            return (move, card, False, old)
        # F2T
        _, s, j = move
        self.found[s] -= 1
        card = s * 13 + self.found[s]
        cols[j].append(card)
        return (move, card, False, 0)

    def undo(self, record: tuple) -> None:
        move, card, flipped, extra = record
        kind = move[0]
        cols, down = self.cols, self.down
        if kind == T2F:
            i = move[1]
            if flipped:
                down[i] += 1
            cols[i].append(card)
            self.found[SUIT[card]] -= 1
        elif kind == T2T:
            _, i, k, j = move
            if flipped:
                down[i] += 1
            dst = cols[j]
            cols[i] += dst[-extra:]
            del dst[-extra:]
        elif kind == W2F or kind == W2T:
            if kind == W2F:
                self.found[SUIT[card]] -= 1
            else:
                cols[move[2]].pop()
            self.talon.insert(move[1] - 1, card)
            self.pos = extra
        else:
            _, s, j = move
            cols[j].pop()
            self.found[s] += 1

    def auto(self, records: list) -> None:
        """Apply safe foundation moves until none is left (see the module notes)."""
        cols, found = self.cols, self.found
        talon_auto = self.draw == 1
        changed = True
        while changed:
            changed = False
            for i in range(7):
                col = cols[i]
                while col:
                    s, r, o1, o2, sib = _SAFE[col[-1]]
                    if found[s] == r - 1 and (
                        r == 1 or (found[o1] >= r - 1 and found[o2] >= r - 1 and found[sib] >= r - 2)
                    ):
                        records.append(self.apply((T2F, i)))
                        changed = True
                    else:
                        break
            if talon_auto and self.talon:
                talon = self.talon
                if self.vegas:
                    candidates = (self.pos,) if self.pos else ()
                else:
                    candidates = range(len(talon), 0, -1)
                for p in candidates:
                    s, r, o1, o2, sib = _SAFE[talon[p - 1]]
                    if found[s] == r - 1 and (
                        r == 1 or (found[o1] >= r - 1 and found[o2] >= r - 1 and found[sib] >= r - 2)
                    ):
                        records.append(self.apply((W2F, p)))
                        changed = True
                        break

    def moves(self) -> list[tuple]:
        """Candidate moves, best first (safe foundation moves are applied by
        :meth:`auto` and never listed... unless they became available otherwise)."""
        cols, down, found, talon = self.cols, self.down, self.found, self.talon
        accepting: dict[int, list[int]] = {}
        empty = -1
        for j in range(7):
            col = cols[j]
            if col:
                for fit in ACCEPTS[col[-1]]:
                    lst = accepting.get(fit)
                    if lst is None:
                        accepting[fit] = [j]
                    else:
                        lst.append(j)
            elif empty < 0:
                empty = j
        up: list[tuple] = []
        flips: list[tuple] = []
        from_talon: list[tuple] = []
        emptying: list[tuple] = []
        other: list[tuple] = []
        backs: list[tuple] = []
        for i in range(7):
            col = cols[i]
            n = len(col)
            if not n:
                continue
            d = down[i]
            top = col[-1]
            if found[SUIT[top]] == RANK[top] - 1:
                up.append((T2F, i))
            for k in range(d, n):
                x = col[k]
                if RANK[x] == 13:
                    if empty >= 0 and k > 0:
                        (flips if k == d else other).append((T2T, i, k, empty))
                    continue
                targets = accepting.get(x)
                if targets:
                    for j in targets:
                        if j != i:
                            if k == d:
                                if d:
                                    flips.append((d, (T2T, i, k, j)))
                                else:
                                    emptying.append((T2T, i, k, j))
                            else:
                                other.append((T2T, i, k, j))
        for p in self.talon_positions():
            c = talon[p - 1]
            if found[SUIT[c]] == RANK[c] - 1:
                up.append((W2F, p))
            if RANK[c] == 13:
                if empty >= 0:
                    from_talon.append((W2T, p, empty))
            else:
                targets = accepting.get(c)
                if targets:
                    for j in targets:
                        from_talon.append((W2T, p, j))
        for s in range(4):
            r = found[s]
            if r:
                c = s * 13 + r - 1
                if r == 13:
                    if empty >= 0:
                        backs.append((F2T, s, empty))
                else:
                    targets = accepting.get(c)
                    if targets:
                        for j in targets:
                            backs.append((F2T, s, j))
        if flips:
            flips.sort(key=_first, reverse=True)
            up += [m for _, m in flips if type(_) is int] if False else [f[1] if type(f[0]) is int else f for f in flips]
        up += from_talon
        up += emptying
        up += other
        up += backs
        return up


def _first(item: tuple) -> int:
    return item[0] if type(item[0]) is int and len(item) == 2 and type(item[1]) is tuple else 0
