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
  counts, the talon), each with the set of talon positions it was visited with, as
  classes of positions with the same reachable set (:meth:`_Search.pos_class`: any
  ``pos`` in draw one Normal; ``pos`` a multiple of 3 or the talon's end in draw three
  Normal). The moves counter and score are left out. The search is a plain graph
  search for a winning state, so a global visited table keeps it complete. Half of
  the positions a hard draw-three search generates are in the table already, a
  third of those the position two moves up the line (a run moved and moved
  straight back); where that position had no obligation pending, the table would skip it
  (see "Obligations"), so the depth-first searches do not make that move at all
  (:func:`_reverse`; D3N deal 925's loss proof: 3.12 million positions → 2.78).

* **Talon positions (dominance).** Two states that differ only in ``pos`` differ only
  in which talon cards the stock can bring to the top. If the cards reachable from
  ``pos = a`` include those reachable from ``b`` (draw three: ``a <= b`` with
  ``a ≡ b`` mod 3; Normal, also any ``a`` when ``b`` is a multiple of 3 or the
  talon's end; Vegas, any ``a`` when ``b`` is the talon's end), the state at ``a`` can
  play every line the state at ``b`` can: a talon card brought up from either leads
  to the same state, and any other move keeps the relation. So the complete draw-three
  searches skip a state when the same cards were visited with a dominating position
  (:data:`_DOMINATING_D3N`, :data:`_DOMINATING_D3V`): if it could win, so could the
  visited one, in as few moves. (Were a win missed, take the visited winnable state
  nearest a win: its next move on a shortest winning line leads to a state that was
  visited, or skipped for a visited one at most as far from a win — either way a
  nearer visited winnable state.) This needs every successor rule to be blind to
  ``pos`` except through the reachable set, which holds where no talon card moves
  automatically (the complete draw-three searches; :meth:`auto`
  moves the waste's top card only when streamlined). The streamlined draw-three
  searches skip the same states: they need not be complete, and a smaller space
  finds wins sooner. Draw one Vegas matches positions exactly (:data:`_EXACT`): its
  complete search moves the waste's top card automatically.

* **Obligations** (a partial-order reduction). Some moves only matter through the
  move that later *uses* what they produced, and nothing in between needs them, so a
  winning line can always be rearranged to play them right before that use: a
  take-back (used by a card put on the card taken back, or by taking back the card
  under it), a run moved off a face-up card (used by a card put on the card it
  uncovered, or that card going up), a talon card put on a column in draw one Normal
  (used by a card put on it), a talon card put on its foundation (when not safe) in
  draw one Normal (used by the next card of its suit going up; nothing else needs it
  there, and taking it back is the same as playing it from the talon, which can give
  any card at any time), a column's top card put on its foundation (when not safe)
  from a face-up card (used by a card put on the card it uncovered, that card going
  up, or the next card of its suit going up; a move of the uncovered card, or of a
  run under it, can carry the top card along instead, and taking it back is the same
  as moving it), and a whole column moved onto another so that it is empty (used by
  a King moved into an empty column; an empty column takes nothing else). After such
  a move the search allows only its uses, plus, when one move can serve two pending
  obligations at once (a take-back of the card under a taken-back card onto the
  other's card; a card going up that one obligation left on top of a column and the
  other waits for), the second delayable move first (:meth:`_Search.pair_moves`).
  A winning line rearranged so that each delayable move comes right before its
  first use can still hold longer chains of them before one use: a card waiting to
  go up may need the lower cards of its suit put up one by one first (each from
  over a face-up card or the talon, each maybe left on top of a column first), and
  a card to be uncovered may need a target for the run on it first (from the
  talon, a foundation, or uncovered). The complete searches allow such a chain's
  first move with one obligation pending and its next moves with two
  (:meth:`_Search.chain_starts`, :meth:`_Search.chain_moves`). Without them the
  search called won positions lost: D1N deal 198 (and through the relaxation D3N
  198), found by checking that no position on the solver's winning lines is
  called lost (tests). The rules allow two obligations pending at most: a line
  needing three at once (two such chains, one of them branching) is not covered
  — none was found among about 20,000 positions on the winning lines of D1N deals
  0–199 and D3N deals 0–299 (docs/solver-history.md, eleventh run).
  The complete search applies the foundation-move obligation only from
  :data:`LIFT_AFTER` nodes on: putting cards up at once finds many wins sooner.
  Switching rules mid-search keeps it complete, since each state is expanded under
  one complete set of rules and a visited state's subtree is covered either way.
  The pending obligations are part of the transposition key; but a position visited
  with none pending covers every line from it (each winning line, rearranged, in as
  many moves), so the search skips it when it comes back with some pending (as for
  talon positions above, a visited state at most as far from a win stands for it).
  Of the 30 D3N deals of 0–999 it left unknown before, the complete search alone then
  wins 540 and 602 within 10 s; it proves late D3N losses in 12–31% fewer nodes.
  Turning a face-down card up is *not* delayable: the card's use may need two chains
  of delayable moves at once (its own target built from the talon, and the target of
  the run moved off it) — a counterexample found on real deals, where that rule called
  won deals lost.

* **Relaxation.** Every move of draw three or of Vegas is a move of draw one Normal
  from the same position (the talon reaches a subset of its cards; nothing else
  differs), so a position lost in draw one Normal is lost in every mode. :func:`solve`
  searches draw three and Vegas games as draw one Normal too (:class:`_Relaxation`): its
  losses are often proved much faster there (any talon card can be played at any
  time, so the talon's position drops out of the state), and its "lose" is the answer.

* **Blocked positions.** :meth:`_Search.blocked` proves some positions lost without
  searching: a card that can never leave from above a card it needs (J♥ on 10♥ and
  on both black Queens, or two such cards waiting for each other across columns)
  keeps cards off the foundations for good. It derives, as a least fixed point, which
  cards could ever go up, which column cards could ever move onto a column, and which
  cards could ever leave from above the card they cover; each fact is derived only
  from facts that must hold earlier in any line where it happens, so a card never
  derived is a proof of loss, take-backs included. In draw one Normal the talon is
  assumed to give any card at any time. In draw three and in Vegas a talon card
  counts only once the stock can reach it: now (:meth:`_Search.talon_positions`),
  once the card behind it leaves (it becomes the waste's top), or in draw three
  Normal once enough cards before it have left that a pass after a recycle lands
  on it (:class:`_TalonFacts`; taking a card off the waste changes
  nothing ahead in the pass); and a talon card leaves only when it is derived to
  go up or onto a column. (That decides D3N deal 237 before any move,
  where the complete search needed 1.87 million positions; and since playing a
  talon card changes what the stock reaches, the complete searches of those modes
  check after each one too.) The facts are bit sets of cards and all follow from
  one of them (the cards something may ever be put on), so a check is a few dozen
  integer operations per round. :func:`solve` checks the deal first (of deals 0–999,
  40 are blocked from the start in draw one and 78 in draw three, some beyond any
  search's reach in 10 s); the complete searches (and in draw three the streamlined
  ones: D3N decided within 10 s 95.8% → 96.3%; in draw one they are after a quick
  win, and there a check costs more than the small subtrees it cuts) check again
  after a move that puts a card above one it needs (:meth:`_Search.new_needs`), while
  such checks keep pruning (one in :data:`BLOCKED_MIN_RATE` or more; else only
  one move in :data:`BLOCKED_PROBE`), since a check costs as much as one or two nodes.
  When a check prunes, the position before the move is checked too (once per
  position): it is often blocked already, by a move the cheap filter let through, and
  then its whole subtree is lost — the search abandons it and climbs the line, one
  check per position, until a position that is not blocked. On some deals most
  checks found such a subtree (D1N deal 108: 99%), which the search had wandered
  through move by move.

* **Streamlined searches, taking turns with the complete one.** Smaller searches
  (Blake & Gent call such restrictions streamliners) make every foundation move at
  once and take no card back; level 2 also moves no part of a run between columns.
  Each of their moves is legal, so a win they find is a win (its line is replayed like
  any other); when they find none, that proves nothing. A depth-first search that took
  a bad turn early stays in that subtree, so they restart with a node cap that doubles
  each time, the moves shuffled within their groups (seeded: the same budget gives the
  same answer). :func:`solve` runs level 2 alone for the first 2% of the budget (most
  winnable deals are won there), then level 2, later both levels, in turns with the
  complete search (:data:`SCHEDULE_D1N`, :data:`SCHEDULE_D3N`, :data:`SCHEDULE_OTHER`;
  for draw three and Vegas the relaxation takes turns too, until it finds a
  draw-one win, which proves nothing; draw three Normal has a short step of level 2
  with the best-first search first, a step without level 2 from 20% to 30%, and from
  50% on only the relaxation and the complete search, three turns to one), and the
  complete search alone at the end (draw three Normal: from 50% where the relaxation
  has ended).
  Every search stops at the end of its turn and resumes where it stopped
  (:class:`_DepthFirst`), so starting the complete search early costs it nothing:
  the wins only it finds quickly (those needing a take-back or a card kept off its
  foundation) come early, and its loss proofs get more of the budget.

* **Best first** (draw three Normal). A depth-first search, restarts or not, follows
  one subtree for a long time. :class:`_BestFirst` searches the level-1 moves greedily
  instead: it always expands the open state with the lowest estimate (cards off the
  foundations, twice the face-down cards, one per card above a lower card of its
  suit), so a line is dropped as soon as any state looks better, and a state the
  blocked check proves lost is dropped. Its win is replayed like any other; running
  out of states proves nothing. Alone, it won within 10 s 10 of the 65 draw-three
  deals of 0–999 the other searches left unknown, six of them in under a second; so it
  takes turns with level 2 from 2% to 6% of the budget (:data:`SCHEDULE_D3N`) and
  stops there: taking turns until 90%, it cost the complete search four loss proofs.
  The same search over the level-2 moves wins other deals; it takes turns from 30% to
  50%, where it does not delay the complete search's quick loss proofs (from 2% it
  did). In draw one Normal the level-1 one won none of the unknowns, so
  :data:`SCHEDULE_D1N` leaves both out; Vegas (:data:`SCHEDULE_OTHER`) was not
  measured with them and leaves them out too.

* **Order.** Foundation moves first, then moves that turn a face-down card up (the
  column with the most face-down cards first), talon cards to columns, moves that empty
  a column, other column moves, and take-backs last.

* **The C core.** This module is the specification; the depth-first searches
  (:class:`_DepthFirst` with :class:`_Search`: complete, streamlined, restarted with
  shuffling, relaxed) also exist in C, ``solver/_core.c``, function by function,
  and :func:`_depth_first` runs them there when the core is built and current
  (:data:`CORE`): 7–10 times as fast as the mypyc build, node for node the same search
  (tests/solver/test_solver_core.py compares positions, answers and lines in all four modes).
  Its table keys states by a 128-bit hash instead of their bytes (two states share one
  with probability about 2^-127: module notes of ``_core.c``). A rule changed here
  must be changed there too: the comparison tests fail until it is.
"""

from __future__ import annotations

import gc
import hashlib
import heapq
import random
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable, Final

from engine import Game, Move
from engine import cards as _cards
from engine.moves import DRAW_MOVE, FOUNDATION, MOVE, RECYCLE_MOVE

#: The engine's card tables bound as this module's own final names: the compiled search
#: reads those as C statics instead of looking each use up in the module's namespace.
RANK: Final[tuple[int, ...]] = _cards.RANK
SUIT: Final[tuple[int, ...]] = _cards.SUIT
ACCEPTS: Final[tuple[tuple[int, ...], ...]] = _cards.ACCEPTS

WIN: Final = "win"
LOSE: Final = "lose"
UNKNOWN: Final = "unknown"

# Internal move kinds.
T2F: Final = 0  # (T2F, i): top of column i to its foundation
T2T: Final = 1  # (T2T, i, k, j): cards col_i[k:] onto column j
W2F: Final = 2  # (W2F, p): talon card talon[p - 1] to its foundation (after draws)
W2T: Final = 3  # (W2T, p, j): talon card talon[p - 1] onto column j (after draws)
F2T: Final = 4  # (F2T, s, j): top of foundation s onto column j (take-back)

#: An internal move: its kind, then its arguments (above).
InternalMove = tuple[int, ...]
#: :meth:`_Search.apply`'s undo record: (move, card, whether a card was turned up, extra).
UndoRecord = tuple[InternalMove, int, bool, int]
#: A pending obligation (module notes): the card to be used next, and the kind.
Obligation = tuple[int, int]

_OPPOSITE: Final = ((1, 2), (0, 3), (0, 3), (1, 2))
_SIBLING: Final = (3, 2, 1, 0)
#: Per card: (suit, rank, opposite suit 1, opposite suit 2, same-colour other suit).
_SAFE: Final = tuple((SUIT[c], RANK[c], *_OPPOSITE[SUIT[c]], _SIBLING[SUIT[c]]) for c in range(52))
#: Per card: the cards it may be put on (its two parents; none for a King).
_PARENTS: Final = tuple(tuple(p for p in range(52) if c in ACCEPTS[p]) for c in range(52))
#: Bit sets of cards for the blocked check: a card's bit position (:data:`_WHERE`)
#: is 14 × its suit + its rank - 1, so each suit's cards are contiguous, Ace first,
#: with a spare bit above the King.
_WHERE: Final = tuple(14 * SUIT[c] + RANK[c] - 1 for c in range(52))
_BIT: Final = tuple(1 << w for w in _WHERE)
_ALL_CARDS: Final = sum(_BIT)
_ACES: Final = 1 | 1 << 14 | 1 << 28 | 1 << 42
_RANKS_BELOW_KING: Final = (1 << 12) - 1
_KINGS: Final = sum(b for c, b in enumerate(_BIT) if RANK[c] == 13)
_DOWN_BYTE: Final = tuple(bytes((200 + d,)) for d in range(52))
_CARD_BYTE: Final = tuple(bytes((c,)) for c in range(52))
#: :class:`_BestFirst`'s snapshot of a state it has expanded (only its line is kept).
_EXPANDED: Final = (b"", 0)
#: Obligation kinds.
_TB: Final = 0
_EXPOSE: Final = 1
_EMPTY: Final = 2
_UP: Final = 3
_LIFT: Final = 4
_NEED_BYTES: Final = tuple(tuple(bytes((0xFD, c, k)) for k in range(5)) for c in range(52))
#: :meth:`_Search.pos_class` of a Vegas talon whose cards are all in the waste.
_END: Final = 53
#: Per position class, the classes whose visited states make a state of this class
#: redundant (module notes, "Talon positions"): the class itself only ...
_EXACT: Final = tuple(1 << i for i in range(54))
#: ... or, in the draw-three searches, every class whose reachable set contains this
#: one's: a smaller position of the same residue mod 3, and any position at all for
#: the talon's end (Vegas) or the classes sharing index 0 (Normal, where every
#: position reaches them).
_DOMINATING_D3N: Final = (-1, *(sum(1 << a for a in range(b % 3, b + 1, 3) if a) for b in range(1, 53)), 0)
_DOMINATING_D3V: Final = (*(sum(1 << a for a in range(b % 3, b + 1, 3)) for b in range(53)), -1)

#: Draw three and Vegas games are also searched as draw one Normal (a superset of
#: their moves), to prove a loss faster: one of the schedule's searches.
RELAXATION: Final = -1
#: A greedy best-first search over the level-1 moves (:class:`_BestFirst`), for
#: draw three Normal: one of the schedule's searches.
BEST_FIRST: Final = -2
#: The same over the level-2 moves (no part of a run moves between columns): it wins
#: other deals, so it takes turns later, where it does not delay the complete search's
#: quick loss proofs.
BEST_FIRST_WHOLE_RUNS: Final = -3
#: :func:`solve`'s schedule: steps of (searches, share of the budget, time and
#: nodes, at which the step ends). The searches are the streamlined ones (level 2
#: also leaves out moving part of a run between columns; 1 does not), the complete
#: search (level 0) and the relaxation. The searches of one step take turns of
#: SLICE_SHARE of the budget each; each resumes where it stopped, so the complete
#: search loses nothing by starting early, and a win either finds quickly is found
#: quickly. In draw three Normal the complete search (in C, the search that decides
#: most late deals) has most of the budget: the streamlined searches and the
#: best-first ones stop at 50%; the relaxation takes turns until 30% and from 50% on
#: takes three turns for the complete search's one. It only still runs where it found
#: no draw-one win (a win ends it), and a draw-one loss can take it 3–5 s (D3N deals
#: 284, 320 and 792); elsewhere the complete search runs alone from 50%. Two turns to
#: one decided 284 and 320 (and left 737, won at 8 s by the complete search alone,
#: unknown); three decided 792 too: the deals the complete search decides late end
#: their relaxation with a draw-one win within a second, so the ratio costs them nothing.
SCHEDULE_D1N: Final = (((2,), 0.02), ((2, 0), 0.3), ((2, 1, 0), 0.7), ((0,), 1.0))
SCHEDULE_D3N: Final = (((2,), 0.02), ((2, BEST_FIRST), 0.06), ((2, 0, RELAXATION), 0.2),
                        ((0, RELAXATION), 0.3), ((2, 1, 0, BEST_FIRST_WHOLE_RUNS), 0.5),
                        ((0, RELAXATION, RELAXATION, RELAXATION), 1.0))
SCHEDULE_OTHER: Final = (((2,), 0.02), ((2, 0, RELAXATION), 0.4), ((2, 1, 0, RELAXATION), 0.9), ((0,), 1.0))
SLICE_SHARE: Final = 0.02
#: A turn's node cap when there is no time budget.
SLICE_NODES: Final = 20_000
#: The complete search first plays foundation moves freely, as a quick way to a win
#: (a card put up early makes others safe to follow); from this many nodes on, a
#: card put up from a face-up card waits for its use (module notes, "Obligations"),
#: which shrinks loss proofs two to four times but makes the first wins slower.
LIFT_AFTER: Final = 30_000
#: The node cap of the streamlined search's first attempt (doubled at each restart).
RESTART_NODES: Final = 50_000
DEFAULT_BUDGET_SECONDS: Final = 10.0
#: The blocked-position check during the search (module notes) pays off only where
#: it prunes: it runs after a move that puts cards above one they need while at least
#: one check in BLOCKED_MIN_RATE of the recent ones pruned, else on one such move in
#: BLOCKED_PROBE (to notice when it starts paying again).
BLOCKED_MIN_RATE: Final = 5
BLOCKED_PROBE: Final = 16
BLOCKED_WINDOW: Final = 4096
#: The default node cap: about ten seconds of the C core, and the memory bound of one
#: solve (about 0.7 GB at the cap, D3N deal 1; the Python search's was 5,000,000
#: positions, about 0.4 GB). The process keeps up to 1.5 GiB of freed table memory
#: for its next searches (:func:`keep_table_memory`).
DEFAULT_MAX_NODES: Final = 20_000_000
#: Whether the depth-first searches skip a position reached with obligations pending
#: when the same position was visited with none (module notes, "Obligations"). Only
#: tests and benchmarks turn it off, to compare.
SKIP_COVERED = True
#: Entries of the blocked check's talon cache (a :class:`_TalonFacts` per talon order)
#: before it starts afresh (a search meets a few thousand; this only bounds the memory).
_REACH_CACHE_SIZE: Final = 1 << 16


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


class _TalonFacts:
    """What the blocked check needs to know about one talon order (module notes,
    "Blocked positions"): by position, the cards the stock reaches now (-1 until
    asked); and tables for the cards it reaches once some talon cards have left.
    Removing a card from the waste changes nothing ahead in the pass (the stock is
    the same), so a card becomes reachable only as the waste's top when the card
    after it leaves, or, in draw three Normal, after a recycle: the pass then lands
    on every third card, so the card at index ``i`` needs ``(i + 1) % 3`` more of
    the cards before it gone (it may be fewer in the end, never more: this
    over-approximates)."""

    __slots__ = ("now", "index", "before", "always", "after_one", "after_two")

    def __init__(self, talon: list[int], counting: bool) -> None:
        n = len(talon)
        self.now = [-1] * (n + 1)
        #: By bit position (:data:`_WHERE`): a talon card's index, and the card before it.
        self.index = index = [n] * 56
        self.before = before = [0] * 56
        #: The cards a pass after a recycle lands on whatever has gone (draw three
        #: Normal: index ``i`` with ``(i + 1) % 3 == 0``).
        self.always = 0
        #: By index ``j``: the cards after ``j`` that need one (``(i + 1) % 3 == 1``)
        #: or two (``== 2``) cards gone before them, the first or second at ``j``.
        self.after_one = after_one = [0] * (n + 1)
        self.after_two = after_two = [0] * (n + 1)
        for i in range(n):
            where = _WHERE[talon[i]]
            index[where] = i
            if i:
                before[where] = _BIT[talon[i - 1]]
            if counting and (i + 1) % 3 == 0:
                self.always |= _BIT[talon[i]]
        one = two = 0
        for i in range(n - 1, -1, -1):
            after_one[i] = one
            after_two[i] = two
            if counting and (i + 1) % 3 == 1:
                one |= _BIT[talon[i]]
            elif counting and (i + 1) % 3 == 2:
                two |= _BIT[talon[i]]


class _Search:
    __slots__ = ("cols", "down", "found", "talon", "pos", "draw", "vegas", "d1n", "enc", "tbytes", "eager",
                 "shuffle", "lift", "talon_facts", "talon_bits",
                 "hidden")

    def __init__(self, game: Game, level: int = 0, shuffle: Callable[[list], None] | None = None,
                 relaxed: bool = False) -> None:
        #: Restarts of the streamlined search shuffle the moves within each group.
        self.shuffle = shuffle
        #: Streamlining (module notes): 0 for the complete search; from 1 every
        #: foundation move is made at once and nothing is taken back; 2 also leaves out
        #: moves of part of a run between columns.
        self.eager = level
        #: Whether a column's top put up from a face-up card waits for its use
        #: (``_LIFT``): only in the complete search, once :class:`_DepthFirst` says so.
        self.lift = False
        self.cols = [list(c) for c in game.columns]
        self.down = list(game.down)
        #: The face-down cards as a bit set (:data:`_BIT`), kept up to date by apply/undo.
        self.hidden = _hidden(self.cols, self.down)
        self.found = list(game.foundations)
        self.talon = list(game.waste) + list(reversed(game.stock))
        self.pos = len(game.waste)
        #: ``relaxed``: search draw one Normal whatever the game's mode (see solve()).
        self.draw = 1 if relaxed else game.draw
        self.vegas = False if relaxed else game.vegas
        self.d1n = self.draw == 1 and not self.vegas
        #: ``enc[i]``: column i's part of the key (cards, then a byte 200 + face-down
        #: count); ``tbytes``: the talon's part. Kept up to date by apply/undo.
        self.enc = [bytes(self.cols[i]) + _DOWN_BYTE[self.down[i]] for i in range(7)]
        self.tbytes = bytes(self.talon)
        #: The talon's cards as a bit set (:data:`_BIT`), kept up to date by apply/undo.
        self.talon_bits = _bits(self.talon)
        #: The blocked check's facts per talon order (a search meets a few thousand).
        self.talon_facts: dict[bytes, _TalonFacts] = {}

    # -- state -------------------------------------------------------------------

    def won(self) -> bool:
        f = self.found
        return f[0] + f[1] + f[2] + f[3] == 52

    def key(self) -> bytes:
        """The state's canonical key without the talon's position (see
        :meth:`pos_class`)."""
        return b"".join(sorted(self.enc)) + self.tbytes

    def pos_class(self) -> int:
        """The talon's position as a bit index for the visited table: positions with
        the same reachable set share one (any in draw one Normal; in draw three
        Normal every multiple of 3 and the talon's end, index 0); in Vegas the
        talon's end is index :data:`_END`."""
        if self.d1n:
            return 0
        pos = self.pos
        n = len(self.talon)
        if self.vegas:
            return _END if pos == n else pos
        if self.draw == 3 and (pos % 3 == 0 or pos == n):
            return 0
        return pos

    def dominating(self) -> tuple[int, ...]:
        """Per position class, the bit set of the classes whose visited states make a
        state of this class redundant (module notes, "Talon positions")."""
        if self.draw == 3:
            return _DOMINATING_D3V if self.vegas else _DOMINATING_D3N
        return _EXACT

    def blocked(self) -> bool:
        """Whether some card can never reach its foundation, whatever is played: then
        the position is lost in every mode (module notes, "Blocked positions").

        A least fixed point over four kinds of facts, each derived only from facts
        that must have held *earlier* in any line where it happens: a card goes up
        (its predecessor went up, and every card first dealt above it left from above
        it); a column card moves onto a column (a King once a column is empty or
        its bottom card leaves, or a parent that is on a foundation, a talon card
        that can be put on a column, or a column card with everything above it gone;
        a face-down card only once everything above it is gone); everything leaves
        from above a column card (the card above it goes up or moves: moving, it
        carries the rest, and going up or moving face-down, it needed the rest gone
        first); a talon card can be put on a column (a King or a parent, as
        above). In draw one Normal the talon gives any card at any time. In draw
        three and in Vegas a talon card is played only once the stock reaches it: it
        does now, or the one behind it left (it is then the waste's top), or in draw
        three Normal enough cards before it left (:class:`_TalonFacts`), and
        a talon card leaves by going up or onto a column.

        The facts are bit sets of cards (:data:`_BIT`). All of them follow from one:
        ``free``, the cards something may ever be put on (on a foundation, a talon
        card that can be put on a column, or a column card that everything above can
        leave from); the loop grows it to its fixed point."""
        cols, down, found, bit, where = self.cols, self.down, self.found, _BIT, _WHERE
        in_column = face_up = bottoms = 0
        #: The card under each column card but the bottom one, by bit position.
        under = [0] * 56
        kings = 0
        on_foundations = free = ((1 << found[0]) - 1) | (((1 << found[1]) - 1) << 14) | (
            ((1 << found[2]) - 1) << 28) | (((1 << found[3]) - 1) << 42)
        for i in range(7):
            col = cols[i]
            if not col:
                kings = _KINGS  # an empty column: any King can go there
                continue
            bottoms |= bit[col[0]]
            d = down[i]
            below = 0
            for k, c in enumerate(col):
                b = bit[c]
                in_column |= b
                under[where[c]] = below
                below = b
                if k >= d:
                    face_up |= b
            free |= below
        in_talon = _ALL_CARDS & ~in_column & ~on_foundations
        talon = self.talon
        restricted = not self.d1n and len(talon) > 1
        facts: _TalonFacts | None = None
        if restricted:
            # Draw three or Vegas: only the cards the stock reaches now can be played
            # until a talon card leaves (:class:`_TalonFacts`).
            facts = self.talon_facts_now()
            in_talon = reached_now = self.talon_reached_now(facts)
        talon_left = 0  # talon cards already found to be able to leave
        # What those leaving do for the stock (:class:`_TalonFacts`), kept up as cards
        # are added: the cards before them, and the indexes of the first two.
        gone_before = 0
        first = second = len(talon)
        outside = on_foundations | in_talon
        left = 0  # column cards already found to be able to leave
        while True:
            # Cards with a parent something may be put on (or Kings: an empty column);
            # by rank, a black card's parents are the red cards one rank up, and so on.
            red = ((free >> 14) | (free >> 28)) >> 1 & _RANKS_BELOW_KING
            black = (free | (free >> 42)) >> 1 & _RANKS_BELOW_KING
            settle = kings | red | (red << 42) | (black << 14) | (black << 28)
            grown = free | (in_talon & settle)
            # Each suit's run of cards that can go up, from the Ace: its trailing ones
            # (a suit's 14th bit is always clear, so no carry crosses suits).
            candidates = outside | grown
            up = ((candidates + _ACES) & ~candidates) - _ACES
            if up == _ALL_CARDS:
                return False
            if facts is not None:
                leaves = in_talon & (settle | up) & ~talon_left
                if leaves:
                    talon_left |= leaves
                    index, before = facts.index, facts.before
                    while leaves:
                        low = leaves & -leaves
                        w = low.bit_length() - 1
                        gone_before |= before[w]
                        i = index[w]
                        if i < first:
                            first, second = i, first
                        elif i < second:
                            second = i
                        leaves ^= low
                    reached = (reached_now | facts.always | gone_before | facts.after_one[first]
                               | facts.after_two[second])
                    if reached != in_talon:
                        in_talon = reached
                        outside = on_foundations | in_talon
                        free = grown
                        continue
            leaving = ((face_up | grown) & settle | up) & in_column & ~left
            left |= leaving
            while leaving:
                low = leaving & -leaving
                grown |= under[low.bit_length() - 1]
                leaving ^= low
            if not kings and bottoms & left:
                kings = _KINGS  # a column can be emptied: Kings can go there
                free = grown
                continue
            if grown == free:
                return True
            free = grown

    def talon_facts_now(self) -> _TalonFacts:
        """The blocked check's facts about the current talon order (cached)."""
        facts = self.talon_facts.get(self.tbytes)
        if facts is None:
            if len(self.talon_facts) >= _REACH_CACHE_SIZE:
                self.talon_facts.clear()
            facts = self.talon_facts[self.tbytes] = _TalonFacts(self.talon, not self.vegas and self.draw == 3)
        return facts

    def talon_reached_now(self, facts: _TalonFacts) -> int:
        """The bit set of the talon cards the stock can bring to the waste's top now
        (:meth:`talon_positions`), cached in ``facts`` (the current talon's) by
        position."""
        reached = facts.now[self.pos]
        if reached < 0:
            talon = self.talon
            reached = 0
            for p in self.talon_positions():
                reached |= _BIT[talon[p - 1]]
            facts.now[self.pos] = reached
        return reached

    def worth_checking(self, move: InternalMove, record: UndoRecord) -> bool:
        """Whether the blocked check is worth running after ``move``: a talon card
        played in draw three or Vegas (it changes what the stock reaches), or a move
        that puts a card above one it needs (:meth:`new_needs`)."""
        kind = move[0]
        if kind == W2F or kind == W2T:
            if not self.d1n:
                return True
            if kind == W2F:
                return False
        elif kind == T2F:
            return False
        return self.new_needs(move, record)

    def new_needs(self, move: InternalMove, record: UndoRecord) -> bool:
        """Whether a card the move just put on a column now lies above a card it needs
        (its foundation predecessor, or the parent it does not sit on) and has no
        parent on a foundation or in the talon to escape to: the cheap filter for the
        blocked check during the search. (A block can also arise through a longer
        chain; skipping a check only loses a prune, never a win.)"""
        kind = move[0]
        col = self.cols[move[3] if kind == T2T else move[2]]
        base = len(col) - (record[3] if kind == T2T else 1)
        if base <= 0:
            return False
        bit = _BIT
        below = 0  # the cards under the ones the move put there, as a bit set
        for k in range(base):
            below |= bit[col[k]]
        in_talon, found = self.talon_bits, self.found
        for k in range(base, len(col)):
            card = col[k]
            if RANK[card] == 13:
                continue
            need = RANK[card] > 1 and bit[card - 1] & below != 0
            free = False
            for p in _PARENTS[card]:
                if bit[p] & below:
                    if p != col[k - 1]:
                        need = True
                elif found[SUIT[p]] >= RANK[p] or bit[p] & in_talon:
                    free = True
            if need and not free:
                return True
        return False

    def talon_positions(self) -> list[int] | range:
        """The positions ``p`` (1-based) the stock can bring to the waste's top, fewest
        draws first: ``talon[p - 1]`` is then playable."""
        n = len(self.talon)
        if not n:
            return []
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
        if not self.vegas:
            # After a recycle: 3, 6, … and the last card, whichever are not reached
            # already (all of them when the waste holds the whole talon).
            reached = set(result)
            p = 0
            while p < n:
                p = p + 3 if p + 3 < n else n
                if p not in reached:
                    result.append(p)
        return result

    def reaches(self, p: int) -> bool:
        """Whether ``p`` is one of :meth:`talon_positions` (without listing them)."""
        pos = self.pos
        if self.draw == 1:
            return not self.vegas or p >= pos
        if p == len(self.talon) or (p >= pos and p > 0 and (p - pos) % 3 == 0):
            return True
        return not self.vegas and p % 3 == 0

    # -- moves -------------------------------------------------------------------

    def apply(self, move: InternalMove) -> UndoRecord:
        """Apply one internal move; return its undo record
        ``(move, card, flipped, extra)``."""
        kind = move[0]
        cols, down, enc = self.cols, self.down, self.enc
        if kind == T2F:
            i = move[1]
            col = cols[i]
            card = col.pop()
            self.found[SUIT[card]] += 1
            flipped = down[i] > 0 and down[i] == len(col)
            if flipped:
                down[i] -= 1
                self.hidden ^= _BIT[col[-1]]
            # The keys are sliced rather than rebuilt from the lists: a memcpy instead
            # of converting each card.
            enc[i] = enc[i][:-2] + _DOWN_BYTE[down[i]]
            return (move, card, flipped, 0)
        if kind == T2T:
            _, i, k, j = move
            col = cols[i]
            card = col[k]
            count = len(col) - k
            dst = cols[j]
            dst += col[k:]
            del col[k:]
            flipped = down[i] > 0 and down[i] == k
            if flipped:
                down[i] -= 1
                self.hidden ^= _BIT[col[-1]]
            enc[i] = enc[i][:k] + _DOWN_BYTE[down[i]]
            enc[j] = bytes(dst) + _DOWN_BYTE[down[j]]
            return (move, card, flipped, count)
        if kind == W2F or kind == W2T:
            p = move[1]
            card = self.talon.pop(p - 1)
            tb = self.tbytes
            self.tbytes = tb[:p - 1] + tb[p:]
            self.talon_bits ^= _BIT[card]
            old = self.pos
            self.pos = p - 1
            if kind == W2F:
                self.found[SUIT[card]] += 1
            else:
                j = move[2]
                dst = cols[j]
                dst.append(card)
                target = enc[j]
                enc[j] = target[:-1] + _CARD_BYTE[card] + target[-1:]
            return (move, card, False, old)
        # F2T
        _, s, j = move
        self.found[s] -= 1
        card = s * 13 + self.found[s]
        cols[j].append(card)
        target = enc[j]
        enc[j] = target[:-1] + _CARD_BYTE[card] + target[-1:]
        return (move, card, False, 0)

    def undo(self, record: UndoRecord) -> None:
        move, card, flipped, extra = record
        kind = move[0]
        cols, down, enc = self.cols, self.down, self.enc
        if kind == T2F:
            i = move[1]
            if flipped:
                down[i] += 1
                self.hidden |= _BIT[cols[i][-1]]
            cols[i].append(card)
            enc[i] = enc[i][:-1] + _CARD_BYTE[card] + _DOWN_BYTE[down[i]]
            self.found[SUIT[card]] -= 1
        elif kind == T2T:
            _, i, k, j = move
            if flipped:
                down[i] += 1
                self.hidden |= _BIT[cols[i][-1]]
            dst = cols[j]
            col = cols[i]
            col += dst[-extra:]
            del dst[-extra:]
            enc[i] = bytes(col) + _DOWN_BYTE[down[i]]
            target = enc[j]
            enc[j] = target[:-1 - extra] + target[-1:]
        elif kind == W2F or kind == W2T:
            if kind == W2F:
                self.found[SUIT[card]] -= 1
            else:
                j = move[2]
                cols[j].pop()
                target = enc[j]
                enc[j] = target[:-2] + target[-1:]
            p = move[1]
            self.talon.insert(p - 1, card)
            tb = self.tbytes
            self.tbytes = tb[:p - 1] + _CARD_BYTE[card] + tb[p - 1:]
            self.talon_bits |= _BIT[card]
            self.pos = extra
        else:
            _, s, j = move
            cols[j].pop()
            target = enc[j]
            enc[j] = target[:-2] + target[-1:]
            self.found[s] += 1

    def auto(self, records: list[UndoRecord]) -> None:
        """Apply safe foundation moves until none is left (see the module notes)."""
        cols, found = self.cols, self.found
        eager = self.eager
        talon_auto = self.draw == 1 or eager
        changed = True
        while changed:
            changed = False
            for i in range(7):
                col = cols[i]
                while col:
                    s, r, o1, o2, sib = _SAFE[col[-1]]
                    if found[s] == r - 1 and (
                        r == 1 or eager or (found[o1] >= r - 1 and found[o2] >= r - 1 and found[sib] >= r - 2)
                    ):
                        records.append(self.apply((T2F, i)))
                        changed = True
                    else:
                        break
            if talon_auto and self.talon:
                talon = self.talon
                if self.vegas or self.draw == 3:
                    # Only the waste's top: reaching another card changes what the
                    # stock can reach next (draw three's groups, Vegas's single pass).
                    candidates: tuple[int, ...] | range = (self.pos,) if self.pos else ()
                else:
                    candidates = range(len(talon), 0, -1)
                for p in candidates:
                    s, r, o1, o2, sib = _SAFE[talon[p - 1]]
                    if found[s] == r - 1 and (
                        r == 1 or eager or (found[o1] >= r - 1 and found[o2] >= r - 1 and found[sib] >= r - 2)
                    ):
                        records.append(self.apply((W2F, p)))
                        changed = True
                        break

    def moves_onto(self, t: int, ob_kind: int) -> list[InternalMove]:
        """The moves that discharge an obligation of kind ``ob_kind`` on the card ``t``
        (a column's top): a card onto ``t``; also ``t`` to its foundation when it was
        exposed, or the take-back of the card under ``t`` on its foundation when ``t``
        was taken back. For an emptied column (``_EMPTY``, ``t`` unused): a King into
        an empty column."""
        if ob_kind == _EMPTY:
            return self.kings_to_empty()
        if ob_kind == _UP:
            return self.ups_of(t + 1) if RANK[t] < 13 else []
        if ob_kind == _LIFT:
            lifts = self.moves_onto(t, _EXPOSE)
            for x in ACCEPTS[t]:
                if self.found[SUIT[x]] == RANK[x]:
                    lifts += self.ups_of(x + 1)
            return lifts
        cols, down, found, talon = self.cols, self.down, self.found, self.talon
        for j in range(7):
            col = cols[j]
            if col and col[-1] == t:
                break
        else:
            return []
        tb = ob_kind == _TB
        fits = ACCEPTS[t]
        result: list[InternalMove] = []
        s, r = SUIT[t], RANK[t]
        if not tb and found[s] == r - 1:
            result.append((T2F, j))
        for z in fits:
            zs = SUIT[z]
            zr = RANK[z]
            fz = found[zs]
            if fz >= zr:
                if fz == zr and not self.eager:
                    result.append((F2T, zs, j))
                continue
            if _BIT[z] & self.talon_bits:
                p = talon.index(z) + 1
                if self.reaches(p):
                    result.append((W2T, p, j))
                continue
            for i in range(7):
                col = cols[i]
                if z in col:
                    if i != j:
                        k = col.index(z)
                        if k >= down[i]:
                            result.append((T2T, i, k, j))
                    break
        if tb and found[s] == r - 1 and r > 1 and not self.eager:
            below = t - 1
            for jj in range(7):
                col = cols[jj]
                if col and below in ACCEPTS[col[-1]]:
                    result.append((F2T, s, jj))
        return result

    def ups_of(self, card: int) -> list[InternalMove]:
        """The move of ``card`` to its foundation, from a column's top or the talon
        (none if it is elsewhere; the caller knows its foundation is ready)."""
        cols = self.cols
        for j in range(7):
            col = cols[j]
            if col and col[-1] == card:
                return [(T2F, j)]
        if _BIT[card] & self.talon_bits:
            p = self.talon.index(card) + 1
            if self.reaches(p):
                return [(W2F, p)]
        return []

    def next_can_follow(self, card: int) -> bool:
        """Whether the next card of ``card``'s suit is in the talon or face up in a
        column: otherwise no move can use ``card`` going up from the talon in draw
        one Normal (an ``_UP`` obligation), so the search does not try it."""
        if RANK[card] == 13:
            return False
        card += 1
        if _BIT[card] & self.talon_bits:
            return True
        cols, down = self.cols, self.down
        for i in range(7):
            col = cols[i]
            if card in col:
                return col.index(card) >= down[i]
        return False

    def kings_to_empty(self) -> list[InternalMove]:
        """Every move of a King into an empty column (one column: they are alike)."""
        cols, down = self.cols, self.down
        for e in range(7):
            if not cols[e]:
                break
        else:
            return []
        result: list[InternalMove] = []
        for i in range(7):
            col = cols[i]
            for k in range(max(down[i], 1), len(col)):
                if RANK[col[k]] == 13:
                    result.append((T2T, i, k, e))
        talon = self.talon
        for p in self.talon_positions():
            if RANK[talon[p - 1]] == 13:
                result.append((W2T, p, e))
        if not self.eager:
            for s in range(4):
                if self.found[s] == 13:
                    result.append((F2T, s, e))
        return result

    def delayable(self, move: InternalMove) -> int:
        """The obligation a move leaves (module notes): ``_TB`` for a take-back,
        ``_EXPOSE`` for a run moved off a face-up card or (draw one Normal) a talon
        card put on a column, ``_EMPTY`` for a whole column moved onto another,
        ``_UP`` for (draw one Normal) a talon card put on its foundation, ``_LIFT``
        (complete searches) for a column's top put on its foundation from a face-up
        card, ``-1`` for the others. (Safe foundation moves rarely get here:
        :meth:`auto` made them, unless an obligation was pending.)"""
        kind = move[0]
        if kind == F2T:
            return _TB
        if kind == T2T:
            k, d = move[2], self.down[move[1]]
            if k > d:
                return _EXPOSE
            return -1 if d else _EMPTY
        if kind == T2F:
            n = len(self.cols[move[1]])
            return _LIFT if self.lift and n >= 2 and n - 2 >= self.down[move[1]] else -1
        if self.d1n:
            if kind == W2T:
                return _EXPOSE
            if kind == W2F:
                return _UP
        return -1

    def pairable(self, ob: Obligation, move: InternalMove) -> bool:
        """Whether ``move`` is delayable and one later move could discharge both its
        obligation and ``ob`` (nothing else does): a take-back of the card under a
        taken-back card onto the other obligation's card; or a card going up that
        one obligation left on top of a column (``_EXPOSE``, ``_LIFT``) while the
        other put its predecessor up (``_UP``, ``_LIFT``, which may wait for either
        card that fits on the card it left). The specification of
        :meth:`pair_moves`, which the search calls instead."""
        kind2 = self.delayable(move)
        if kind2 < 0 or kind2 == _EMPTY:
            return False
        a, kind1 = ob
        if kind1 == _EMPTY:
            return False
        kind = move[0]
        found = self.found
        lifted = -1  # the card the move puts up
        if kind == T2T:
            b = self.cols[move[1]][move[2] - 1]
        elif kind == W2T:
            b = self.talon[move[1] - 1]
        elif kind == W2F:
            b, lifted = -1, self.talon[move[1] - 1]
        elif kind == T2F:
            b, lifted = self.cols[move[1]][-2:]
        else:
            b = move[1] * 13 + found[move[1]] - 1
        if kind1 in (_EXPOSE, _LIFT) and lifted == a - 1 and RANK[a] > 1:
            return True
        if kind2 in (_EXPOSE, _LIFT):
            if kind1 == _UP and b == a + 1 and RANK[a] < 13:
                return True
            if kind1 == _LIFT and RANK[b] > 1 and b - 1 in ACCEPTS[a] and found[SUIT[b]] == RANK[b] - 1:
                return True
        if kind1 == _UP or kind2 == _UP:
            return False
        if kind2 == _TB and RANK[b] > 1 and b - 1 in ACCEPTS[a]:
            return True
        return kind1 == _TB and RANK[a] > 1 and a - 1 in ACCEPTS[b]

    def pair_moves(self, ob: Obligation) -> list[InternalMove]:
        """The moves for which :meth:`pairable` holds, generated directly: take-backs
        of a card whose under-card fits on ``ob``'s card, and (``ob`` a take-back of
        ``a``) the delayable moves that leave a parent of ``a - 1`` on a column's
        top; for a card going up, the delayable moves that leave it on top (``ob``
        put its predecessor up) or put its predecessor up (``ob`` left it on top)."""
        a, kind1 = ob
        if kind1 == _EMPTY or self.eager:
            return []
        if kind1 == _UP:
            return self._exposing(a + 1) if RANK[a] < 13 else []
        found = self.found
        result: list[InternalMove] = []
        if kind1 != _TB and RANK[a] > 1 and found[SUIT[a]] == RANK[a] - 2:
            self._lifting(a - 1, result)
        if kind1 == _LIFT:
            for x in ACCEPTS[a]:
                if found[SUIT[x]] == RANK[x]:
                    self._exposing(x + 1, result)
        fits_a = ACCEPTS[a]
        # The cards to take back, in the order found (a dict, not a set: the search
        # order must not depend on hashing, and the C core follows it move for move).
        taken: dict[int, None] = {}
        for s in range(4):
            r = found[s]
            if r >= 2 and s * 13 + r - 2 in fits_a:
                taken[s * 13 + r - 1] = None
        if kind1 == _TB and RANK[a] > 1:
            for parent in _PARENTS[a - 1]:
                s, r = SUIT[parent], RANK[parent]
                if found[s] == r:
                    taken[parent] = None
                    continue
                if found[s] > r:
                    continue
                self._exposing(parent, result)
        for card in taken:
            self._onto_tops(result, (F2T, SUIT[card]), card, -1)
        if kind1 == _LIFT:
            result = list(dict.fromkeys(result))  # a move can both lift and expose
        return result

    def _awaited(self, ob: Obligation) -> tuple[int, int, int]:
        """For the chains of :meth:`chain_starts`: the next card to go up of the suit
        of a card whose going up uses ``ob`` (``_EXPOSE``, ``_LIFT``: the card left on
        top), when it is lower and each card up to that one could go up by a
        delayable move (:meth:`can_go_up_in_a_chain`); and up to two cards whose
        going up uses ``ob`` and that may need uncovering first (``_UP``: the next
        card of the suit; ``_LIFT``: the next card of the suit of a card that fits on
        the one left on top and is its foundation's top). -1 where there is none."""
        card, kind = ob
        found = self.found
        if kind == _EXPOSE or kind == _LIFT:
            suit = SUIT[card]
            low = suit * 13 + found[suit] if found[suit] < RANK[card] - 1 else -1
            if low >= 0 and not self.can_go_up_in_a_chain(low, card):
                low = -1
            first = second = -1
            if kind == _LIFT:
                x, y = ACCEPTS[card] if RANK[card] > 1 else (-1, -1)
                if x >= 0 and found[SUIT[x]] == RANK[x]:
                    first = x + 1
                if y >= 0 and found[SUIT[y]] == RANK[y]:
                    second = y + 1
            return low, first, second
        if kind == _UP and RANK[card] < 13:
            return -1, card + 1, -1
        return -1, -1, -1

    def can_go_up_in_a_chain(self, low: int, card: int) -> bool:
        """Whether the cards from ``low`` up to the one below ``card`` (one suit) could
        each go up by a delayable move: none is face down, and in draw three or Vegas
        none is in the talon (a talon card going up is delayable in draw one Normal
        only). Else a chain of ups toward ``card`` needs a move that is not delayable
        and cannot lie inside one."""
        # The cards low … card - 1 are contiguous bits (one suit, by rank).
        between = _BIT[card] - _BIT[low]
        if between & self.hidden:
            return False
        return self.d1n or not between & self.talon_bits

    def chain_starts(self, ob: Obligation) -> list[InternalMove]:
        """With one obligation pending, the delayable moves that may start a chain of
        delayable moves ending in a move that uses ``ob`` and the chain's last move
        at once (beyond :meth:`pair_moves`, whose chains are one move long). A card
        waiting to go up may need the lower cards of its suit put up one by one
        first, each from over a face-up card or the talon, and each maybe left on top
        of a column first (a run moved off it, the card on it put up); a card that
        must be uncovered to go up may need a target for the run on it first (put
        there from the talon or a foundation, or uncovered). A winning line can need
        two such chains at once (the card uncovered by a run moved onto a talon
        card, and its suit's lower cards put up one by one): with chains of one move
        only, the search called won positions lost (D1N deals 29, 86 and 198)."""
        if self.eager:
            return []
        low, first, second = self._awaited(ob)
        if low < 0 and first < 0 and second < 0:
            return []
        result: list[InternalMove] = []
        if low >= 0:
            if RANK[low] < RANK[ob[0]] - 1:
                self._lifting(low, result)  # (the predecessor: pair_moves has it)
            self._exposing(low, result)
            self._preparing(low, result)
        if first >= 0:
            self._preparing(first, result)
        if second >= 0:
            self._preparing(second, result)
        return list(dict.fromkeys(result)) if len(result) > 1 else result

    def chain_moves(self, first: Obligation, second: Obligation) -> list[InternalMove]:
        """With two obligations pending, the delayable moves that use one of them and
        go on with a chain toward a move that uses the other (:meth:`chain_starts`):
        the next lower card of the waiting card's suit put up or left on top of a
        column, or the card to be uncovered left on top."""
        result: list[InternalMove] = []
        for waiting, other in ((first, second), (second, first)):
            low, up_first, up_second = self._awaited(waiting)
            if low < 0 and up_first < 0 and up_second < 0:
                continue
            steps: list[InternalMove] = []
            if low >= 0:
                self._lifting(low, steps)
                self._exposing(low, steps)
            if up_first >= 0:
                self._exposing(up_first, steps)
            if up_second >= 0:
                self._exposing(up_second, steps)
            for move in steps:
                target = self.target(move)
                if self.discharges(move, target, other) and not self.discharges(move, target, waiting):
                    result.append(move)
        return list(dict.fromkeys(result)) if len(result) > 1 else result

    def _preparing(self, card: int, result: list[InternalMove]) -> None:
        """Append the delayable moves that give the run on ``card`` (a face-up card
        of a column, not on top) a card to go on: a parent of the run's first card
        put on a column from a foundation, or left on top of a column."""
        cols, found = self.cols, self.found
        for i in range(7):
            col = cols[i]
            if card in col:
                q = col.index(card)
                if q < self.down[i] or q == len(col) - 1 or RANK[col[q + 1]] == 13:
                    return
                for parent in _PARENTS[col[q + 1]]:
                    if found[SUIT[parent]] == RANK[parent]:
                        self._onto_tops(result, (F2T, SUIT[parent]), parent, -1)
                    else:
                        self._exposing(parent, result)
                return

    def _exposing(self, card: int, result: list[InternalMove] | None = None) -> list[InternalMove]:
        """Append to ``result`` the delayable moves that leave ``card`` on top of a
        column: a run moved off it, the card on it put up (``_LIFT``), or (draw one
        Normal) ``card`` put on a column from the talon."""
        if result is None:
            result = []
        cols, found = self.cols, self.found
        if _BIT[card] & self.talon_bits:
            if self.d1n:
                self._onto_tops(result, (W2T, self.talon.index(card) + 1), card, -1)
            return result
        if found[SUIT[card]] >= RANK[card]:
            return result
        for i in range(7):
            col = cols[i]
            if card in col:
                q = col.index(card)
                n = len(col)
                if self.down[i] <= q < n - 1:
                    self._onto_tops(result, (T2T, i, q + 1), col[q + 1], i)
                    if q == n - 2 and self.lift:
                        top = col[-1]
                        if found[SUIT[top]] == RANK[top] - 1:
                            result.append((T2F, i))
                return result
        return result

    def _lifting(self, card: int, result: list[InternalMove]) -> None:
        """Append the delayable moves that put ``card`` up (its foundation is ready):
        from a column's top over a face-up card (``_LIFT``), or (draw one Normal)
        from the talon (``_UP``)."""
        result += [move for move in self.ups_of(card) if self.delayable(move) >= 0]

    def _onto_tops(self, result: list[InternalMove], head: InternalMove, card: int, source: int) -> None:
        """Append ``head + (j,)`` for every column ``j`` (not ``source``) that can take
        ``card``: one whose top accepts it, or the first empty one for a King."""
        cols = self.cols
        if RANK[card] == 13:
            for j in range(7):
                if not cols[j]:
                    result.append(head + (j,))
                    return
            return
        for j in range(7):
            col = cols[j]
            if col and j != source and card in ACCEPTS[col[-1]]:
                result.append(head + (j,))

    def target(self, move: InternalMove) -> int:
        """The card a move puts a card on (-1 for an empty column or a foundation)."""
        kind = move[0]
        if kind == T2T:
            col = self.cols[move[3]]
        elif kind == W2T or kind == F2T:
            col = self.cols[move[2]]
        else:
            return -1
        return col[-1] if col else -1

    def discharges(self, move: InternalMove, target: int, ob: Obligation) -> bool:
        """Whether ``move`` (about to be applied; ``target`` is :meth:`target`)
        discharges the obligation ``ob = (card, kind)``."""
        t, ob_kind = ob
        kind = move[0]
        if ob_kind == _EMPTY:
            if kind == T2T:
                return not self.cols[move[3]]
            return (kind == W2T or kind == F2T) and not self.cols[move[2]]
        if ob_kind == _LIFT:
            if target == t:
                return True
            if kind == T2F:
                card = self.cols[move[1]][-1]
            elif kind == W2F:
                card = self.talon[move[1] - 1]
            else:
                return False
            x = card - 1
            return card == t or (RANK[card] > 1 and x in ACCEPTS[t] and self.found[SUIT[x]] == RANK[x])
        if ob_kind == _UP:
            if kind == T2F:
                return self.cols[move[1]][-1] == t + 1
            return kind == W2F and self.talon[move[1] - 1] == t + 1
        if target == t:
            return True
        if ob_kind == _TB:
            return kind == F2T and move[1] == SUIT[t] and self.found[move[1]] == RANK[t] - 1
        return kind == T2F and self.cols[move[1]][-1] == t

    def moves(self) -> list[InternalMove]:
        """Candidate moves, best first. (Safe foundation moves have already been
        applied by :meth:`auto`.)"""
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
        up: list[InternalMove] = []
        #: (face-down count, move): the most face-down cards first.
        flips: list[tuple[int, InternalMove]] = []
        from_talon: list[InternalMove] = []
        emptying: list[InternalMove] = []
        other: list[InternalMove] = []
        backs: list[InternalMove] = []
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
                        if k == d:
                            flips.append((d, (T2T, i, k, empty)))
                        else:
                            other.append((T2T, i, k, empty))
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
        d1n = self.d1n
        for p in self.talon_positions():
            c = talon[p - 1]
            if found[SUIT[c]] == RANK[c] - 1 and (not d1n or self.next_can_follow(c)):
                up.append((W2F, p))
            if RANK[c] == 13:
                if empty >= 0:
                    from_talon.append((W2T, p, empty))
            else:
                targets = accepting.get(c)
                if targets:
                    for j in targets:
                        from_talon.append((W2T, p, j))
        for s in range(4 if not self.eager else 0):
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
        shuffle = self.shuffle
        if shuffle is not None:
            shuffle(flips)
            shuffle(from_talon)
            shuffle(emptying)
            shuffle(other)
        elif flips:
            flips.sort(key=_first, reverse=True)
        if flips:
            up += [m for _, m in flips]
        up += from_talon
        up += emptying
        if self.eager < 2:
            up += other
        up += backs
        return up


def _bits(cards: list[int]) -> int:
    """The bit set (:data:`_BIT`) of ``cards``."""
    result = 0
    for card in cards:
        result |= _BIT[card]
    return result


def _hidden(cols: list[list[int]], down: list[int]) -> int:
    """The bit set (:data:`_BIT`) of the face-down cards."""
    result = 0
    for i in range(7):
        for k in range(down[i]):
            result |= _BIT[cols[i][k]]
    return result


def _reverse(move: InternalMove, record: UndoRecord, cols: list[list[int]]) -> InternalMove | None:
    """The move that undoes ``move`` (just applied, turning no card up), if any: a
    run moved back onto the card it left, or a card put up taken back onto it (not
    into the column either emptied)."""
    kind = move[0]
    if kind == T2T:
        if not move[2]:
            return None
        j = move[3]
        return (T2T, j, len(cols[j]) - record[3], move[1])
    if kind == T2F:
        col = cols[move[1]]
        card = record[1]
        return (F2T, SUIT[card], move[1]) if col and card in ACCEPTS[col[-1]] else None
    return None


def _first(item: tuple[int, InternalMove]) -> int:
    return item[0]


def _expand(game: Game, records: list[UndoRecord]) -> tuple[list[Move], Game]:
    """Turn internal move records into engine moves, applying them to a copy of
    ``game`` (a refused move raises :class:`engine.MoveError`)."""
    g = game.copy()
    out: list[Move] = []
    for move, card, _flipped, _extra in records:
        kind = move[0]
        if kind == W2F or kind == W2T:
            guard = 0
            while not (g.waste and g.waste[-1] == card):
                step = DRAW_MOVE if g.stock else RECYCLE_MOVE
                g.apply(step)
                out.append(step)
                guard += 1
                if guard > 120:
                    raise RuntimeError(f"solver bug: the stock never brings card {card} to the top")
            dest = FOUNDATION if kind == W2F else move[2]
        elif kind == T2F:
            dest = FOUNDATION
        elif kind == T2T:
            dest = move[3]
        else:
            dest = move[2]
        m = Move(MOVE, card, dest)
        g.apply(m)
        out.append(m)
    return out, g


def solve(
    game: Game,
    *,
    budget_seconds: float | None = DEFAULT_BUDGET_SECONDS,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    clock: Callable[[], float] = time.perf_counter,
) -> SolveResult:
    """Solve ``game`` from its current position (it is not modified).

    Returns ``SolveResult("win", moves, …)`` with a line verified by replaying it on
    ``game.copy()``, ``"lose"`` when no win exists (the search space was exhausted),
    or ``"unknown"`` when ``budget_seconds`` or ``max_nodes`` ran out first
    (``None`` means no limit). The streamlined searches, the complete search, for
    draw three and Vegas the draw-one-Normal relaxation, and for draw three Normal
    the best-first search share the budget as :data:`SCHEDULE_D1N`,
    :data:`SCHEDULE_D3N` and :data:`SCHEDULE_OTHER` say (module notes).
    ``clock`` measures the budget and ``seconds``: wall time by default;
    ``time.process_time`` gives CPU time (benchmarks on a busy machine)."""
    start = clock()
    if game.won:
        return SolveResult(WIN, [], 0, clock() - start)
    if _Search(game).blocked():
        return SolveResult(LOSE, [], 1, clock() - start)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the search allocates millions of small acyclic objects
    try:
        return _Schedule(game, start, budget_seconds, max_nodes, clock).run()
    finally:
        if gc_was_enabled:
            gc.enable()


class _Schedule:
    """Runs :func:`solve`'s searches by its schedule and keeps their node counts."""

    def __init__(self, game: Game, start: float, budget_seconds: float | None, max_nodes: int | None,
                 clock: Callable[[], float]) -> None:
        self.game, self.start, self.budget, self.clock = game, start, budget_seconds, clock
        self.max_nodes = max_nodes
        #: The blocked check's recent checks and prunes, shared by the searches.
        self.gate = [0, 0]
        #: The searches by level, each made when the schedule first needs it.
        self.searches: dict[int, _DepthFirst | _CoreDepthFirst | _Restarts | _Relaxation | _BestFirst] = {}
        #: Searches that can tell nothing more (a streamlined search out of moves, a
        #: relaxation that found a win).
        self.finished: set[int] = set()

    def nodes(self) -> int:
        return sum(search.nodes for search in self.searches.values())

    def limits(self, share: float) -> tuple[float | None, int]:
        """The deadline and the node cap (for all searches together) at ``share`` of
        the budget."""
        deadline = self.start + share * self.budget if self.budget is not None else None
        cap = int(share * self.max_nodes) if self.max_nodes is not None else -1
        return deadline, cap

    def run(self) -> SolveResult:
        game = self.game
        schedule: tuple[tuple[tuple[int, ...], float], ...] = SCHEDULE_OTHER
        if not game.vegas:
            schedule = SCHEDULE_D1N if game.draw == 1 else SCHEDULE_D3N
        for levels, share in schedule:
            deadline, cap = self.limits(share)
            active = [level for level in levels if level not in self.finished]
            while active:
                for level in active:
                    search = self.search(level)
                    if len(active) == 1:
                        turn_deadline, turn_cap = deadline, cap
                    else:
                        turn_deadline, turn_cap = self.turn(deadline, cap)
                    if self.over(turn_deadline, turn_cap):
                        break
                    own_cap = max(search.nodes + turn_cap - self.nodes(), search.nodes) if turn_cap >= 0 else -1
                    outcome = search.run(turn_deadline, own_cap, self.clock)
                    if outcome == UNKNOWN:
                        continue
                    if outcome in search.ANSWERS:
                        result = search.outcome(self.start, self.clock)
                        result.nodes = self.nodes()
                        return result
                    self.finished.add(level)
                    active.remove(level)
                    break
                if self.over(deadline, cap):
                    break
        return SolveResult(UNKNOWN, [], self.nodes(), self.clock() - self.start)

    def search(self, level: int) -> _DepthFirst | _CoreDepthFirst | _Restarts | _Relaxation | _BestFirst:
        if level not in self.searches:
            if level == 0:
                self.searches[level] = _depth_first(self.game, gate=self.gate)
            elif level == RELAXATION:
                self.searches[level] = _Relaxation(self.game, self.gate)
            elif level == BEST_FIRST:
                self.searches[level] = _BestFirst(self.game, 1)
            elif level == BEST_FIRST_WHOLE_RUNS:
                self.searches[level] = _BestFirst(self.game, 2)
            else:
                self.searches[level] = _Restarts(self.game, level, self.gate)
        return self.searches[level]

    def turn(self, deadline: float | None, cap: int) -> tuple[float | None, int]:
        """The deadline and node cap of one turn, within the step's."""
        if self.budget is not None:
            turn_deadline = self.clock() + SLICE_SHARE * self.budget
            if deadline is not None and deadline < turn_deadline:
                turn_deadline = deadline
            return turn_deadline, cap
        turn_cap = self.nodes() + SLICE_NODES
        return None, turn_cap if cap < 0 else min(turn_cap, cap)

    def over(self, deadline: float | None, cap: int) -> bool:
        return (deadline is not None and self.clock() >= deadline) or 0 <= cap <= self.nodes()


def _relaxed(game: Game, start: float, deadline: float | None, node_limit: int,
             clock: Callable[[], float], gate: list[int] | None = None) -> SolveResult:
    """The relaxation (:class:`_Relaxation`) run once to its end or budget."""
    relaxation = _Relaxation(game, gate if gate is not None else [0, 0])
    relaxation.run(deadline, node_limit, clock)
    return relaxation.outcome(start, clock)


class _Relaxation:
    """The game searched as draw one Normal: ``"lose"`` there is a loss in every mode
    (module notes), ``"win"`` proves nothing. A streamlined search first (up to
    :data:`RESTART_NODES` nodes), since a relaxed win, the usual answer, ends the
    relaxation; then the complete relaxed search. It can stop and resume."""

    ANSWERS: Final = (LOSE,)

    def __init__(self, game: Game, gate: list[int]) -> None:
        self.game, self.gate = game, gate
        self.quick = True
        #: Nodes of the quick search once it is over.
        self.done = 0
        self.dfs: _DepthFirst | _CoreDepthFirst = _depth_first(game, 1, None, True, gate)

    @property
    def nodes(self) -> int:
        return self.done + self.dfs.nodes

    def run(self, deadline: float | None, node_limit: int, clock: Callable[[], float]) -> str:
        while True:
            limit = node_limit - self.done if node_limit >= 0 else -1
            if self.quick:
                limit = RESTART_NODES if limit < 0 else min(RESTART_NODES, limit)
            outcome = self.dfs.run(deadline, limit, clock)
            if not self.quick or outcome == WIN or (outcome == UNKNOWN and self.dfs.nodes < RESTART_NODES):
                return outcome
            # The quick search found no win (its cap, or its whole space): the
            # complete relaxed search takes over.
            self.quick = False
            self.done = self.dfs.nodes
            self.dfs = _depth_first(self.game, 0, None, True, self.gate)
            if (deadline is not None and clock() > deadline) or 0 <= node_limit <= self.done:
                return UNKNOWN

    def outcome(self, start: float, clock: Callable[[], float]) -> SolveResult:
        return self.dfs.outcome(start, clock)


class _Restarts:
    """A streamlined search, restarted: first in the usual order with a node cap,
    then with the moves shuffled within their groups (seeded, so the same budget
    gives the same answer) and the cap doubled each time. A depth-first search that
    took a bad turn early stays in that subtree; a restart does not. Like
    :class:`_DepthFirst`, it can stop and resume."""

    #: A streamlined search's win is an answer; running out of moves proves nothing.
    ANSWERS: Final = (WIN,)

    def __init__(self, game: Game, level: int, gate: list[int]) -> None:
        self.game, self.level, self.gate = game, level, gate
        self.attempt = 0
        self.cap = RESTART_NODES
        #: Nodes of the attempts that are over.
        self.done = 0
        self.dfs: _DepthFirst | _CoreDepthFirst = _depth_first(game, level, None, False, gate)

    @property
    def nodes(self) -> int:
        return self.done + self.dfs.nodes

    def run(self, deadline: float | None, node_limit: int, clock: Callable[[], float]) -> str:
        """Search on (restarting as needed) until a win, the end of an attempt's
        whole space (LOSE: it proves nothing), ``deadline`` or ``node_limit`` (on
        :attr:`nodes`; -1: none). UNKNOWN: call again to go on."""
        while True:
            limit = self.cap if node_limit < 0 else min(self.cap, node_limit - self.done)
            outcome = self.dfs.run(deadline, limit, clock)
            if outcome != UNKNOWN or self.dfs.nodes < self.cap:
                return outcome
            self.done += self.dfs.nodes
            self.attempt += 1
            self.cap *= 2
            self.dfs = _depth_first(self.game, self.level, self.attempt, False, self.gate)
            if (deadline is not None and clock() > deadline) or 0 <= node_limit <= self.done:
                return UNKNOWN

    def outcome(self, start: float, clock: Callable[[], float]) -> SolveResult:
        return self.dfs.outcome(start, clock)


class _BestFirst:
    """A greedy best-first search over the level-1 (or level-2) streamlined moves
    (every foundation move at once, nothing taken back): it always expands the generated
    state that looks nearest a win (:meth:`estimate`). Depth-first searches follow
    one subtree; this one drops a line as soon as a sibling anywhere looks better,
    and on draw three it finds wins the others miss within the budget (module
    notes, "Best first"). Its win is an answer; running out of states proves
    nothing. A state the blocked check proves lost is dropped (checked after the
    moves :class:`_DepthFirst` checks after, every time: D3N 62 and 864 are won in
    17,101 and 7,302 states, nothing in 200,000 before). The open states are kept
    as compact snapshots (the key's bytes in column order and the talon's
    position); it can stop and resume."""

    ANSWERS: Final = (WIN,)

    def __init__(self, game: Game, level: int = 1) -> None:
        self.game = game
        self.search = search = _Search(game, level)
        search.auto([])
        self.nodes = 1
        self.result = WIN if search.won() else UNKNOWN
        #: Per stored state: the state it was generated from and the move.
        self.parents: list[int] = [-1]
        self.moves: list[InternalMove] = [()]
        self.snapshots: list[tuple[bytes, int]] = [self.snapshot()]
        self.visited = {search.key(): 1 << search.pos_class()}
        self.dominating = search.dominating()
        #: (estimate, -state): the lowest estimate first, the newest among equals.
        self.heap: list[tuple[int, int]] = [(self.estimate(), 0)]
        #: The stored state that won.
        self.winner = 0

    def snapshot(self) -> tuple[bytes, int]:
        search = self.search
        return b"".join(search.enc) + search.tbytes, search.pos

    def restore(self, snapshot: tuple[bytes, int]) -> None:
        data, pos = snapshot
        search = self.search
        cols: list[list[int]] = []
        down: list[int] = []
        found = [13, 13, 13, 13]
        cur: list[int] = []
        i = 0
        while len(cols) < 7:
            b = data[i]
            i += 1
            if b >= 200:
                cols.append(cur)
                down.append(b - 200)
                cur = []
            else:
                cur.append(b)
                found[SUIT[b]] -= 1
        talon = list(data[i:])
        for c in talon:
            found[SUIT[c]] -= 1
        search.cols, search.down, search.found = cols, down, found
        search.hidden = _hidden(cols, down)
        search.talon, search.tbytes, search.pos = talon, data[i:], pos
        search.talon_bits = _bits(talon)
        search.enc = [bytes(cols[j]) + _DOWN_BYTE[down[j]] for j in range(7)]

    def estimate(self) -> int:
        """How far the state looks from a win: the cards off the foundations, twice
        the face-down cards (each needs the cards above it moved), and one per card
        lying above a lower card of its own suit (one of them must move again)."""
        search = self.search
        found = search.found
        estimate = 52 - found[0] - found[1] - found[2] - found[3] + 2 * sum(search.down)
        for col in search.cols:
            lowest = [14, 14, 14, 14]
            for c in col:
                s, r = SUIT[c], RANK[c]
                if r > lowest[s]:
                    estimate += 1
                elif r < lowest[s]:
                    lowest[s] = r
        return estimate

    def run(self, deadline: float | None, node_limit: int, clock: Callable[[], float]) -> str:
        """Search on until a win, no open state left (LOSE: it proves nothing),
        ``deadline`` or ``node_limit`` (-1: none). UNKNOWN: call again to go on."""
        if self.result != UNKNOWN:
            return self.result
        search, heap, visited, dominating = self.search, self.heap, self.visited, self.dominating
        parents, moves, snapshots = self.parents, self.moves, self.snapshots
        apply, undo, auto, won, key, pos_class = (
            search.apply, search.undo, search.auto, search.won, search.key, search.pos_class,
        )
        nodes = self.nodes
        next_check = nodes + 1024
        blocked, worth_checking = search.blocked, search.worth_checking
        result = LOSE
        while heap:
            if 0 <= node_limit <= nodes:
                result = UNKNOWN
                break
            if nodes >= next_check:
                next_check = nodes + 1024
                if deadline is not None and clock() > deadline:
                    result = UNKNOWN
                    break
            state = -heapq.heappop(heap)[1]
            self.restore(snapshots[state])
            snapshots[state] = _EXPANDED  # only its line is kept
            for move in search.moves():
                records = [apply(move)]
                auto(records)
                nodes += 1
                if won():
                    parents.append(state)
                    moves.append(move)
                    self.winner = len(moves) - 1
                    result = WIN
                    break
                k = key()
                pc = pos_class()
                seen = visited.get(k, 0)
                if not seen & dominating[pc]:
                    visited[k] = seen | (1 << pc)
                    if worth_checking(move, records[0]) and blocked():
                        for record in reversed(records):
                            undo(record)
                        continue
                    parents.append(state)
                    moves.append(move)
                    snapshots.append(self.snapshot())
                    heapq.heappush(heap, (self.estimate(), 1 - len(moves)))
                for record in reversed(records):
                    undo(record)
            if result == WIN:
                break
        self.nodes = nodes
        self.result = result
        if result != UNKNOWN:
            self.heap, self.visited, self.snapshots = [], {}, []
        return result

    def outcome(self, start: float, clock: Callable[[], float]) -> SolveResult:
        """The search's answer so far, with the winning line replayed on the game."""
        if self.result != WIN:
            return SolveResult(self.result, [], self.nodes, clock() - start)
        line: list[InternalMove] = []
        state = self.winner
        while state > 0:
            line.append(self.moves[state])
            state = self.parents[state]
        replay = _Search(self.game, self.search.eager)
        records: list[UndoRecord] = []
        replay.auto(records)
        for move in reversed(line):
            records.append(replay.apply(move))
            replay.auto(records)
        moves, final = _expand(self.game, records)
        if not final.won:
            raise RuntimeError("solver bug: the line found does not win when replayed")
        return SolveResult(WIN, moves, self.nodes, clock() - start)


def _solve(game: Game, start: float, deadline: float | None, node_limit: int,
           clock: Callable[[], float], level: int = 0, seed: int | None = None, relaxed: bool = False,
           gate: list[int] | None = None, lift_after: int | None = None) -> SolveResult:
    """One depth-first search from start to end (or its budget). ``seed`` shuffles the
    moves (as a restart does); ``gate`` carries the blocked check's recent checks and
    prunes from one search of a :func:`solve` call to the next; ``lift_after``
    overrides :data:`LIFT_AFTER`."""
    dfs = _depth_first(game, level, seed, relaxed, gate, lift_after)
    dfs.run(deadline, node_limit, clock)
    return dfs.outcome(start, clock)


class _Frame:
    """One position on :class:`_DepthFirst`'s line: its candidate moves, the index of
    the next one to try, its pending obligations, and whether it was found not
    blocked (a native class, so the compiled search reads typed fields)."""

    __slots__ = ("moves", "index", "pending", "not_blocked")

    def __init__(self, moves: list[InternalMove], pending: tuple[Obligation, ...]) -> None:
        self.moves = moves
        self.index = 0
        self.pending = pending
        self.not_blocked = False


class _DepthFirst:
    """A depth-first search that can stop at a deadline or node cap and resume where
    it stopped (:func:`solve` interleaves the complete search with the streamlined
    ones without losing the complete search's work)."""

    #: The complete search's win and loss are both answers.
    ANSWERS: Final = (WIN, LOSE)

    def __init__(self, game: Game, level: int = 0, shuffle: Callable[[list], None] | None = None,
                 relaxed: bool = False, gate: list[int] | None = None, lift_after: int | None = None) -> None:
        self.game = game
        self.level = level
        #: The node count from which the complete search makes foundation moves off
        #: face-up cards wait for their use (:data:`LIFT_AFTER`; -1: never).
        self.lift_after = -1 if level else (LIFT_AFTER if lift_after is None else lift_after)
        self.relaxed = relaxed
        #: The blocked check's recent checks and prunes, shared with other searches.
        self.gate = gate if gate is not None else [0, 0]
        self.search = search = _Search(game, level, shuffle, relaxed)
        self.root: list[UndoRecord] = []
        search.auto(self.root)
        self.nodes = 1
        #: The records of each move on the current line.
        self.path: list[list[UndoRecord]] = []
        #: WIN or LOSE once decided; UNKNOWN while it can go on.
        self.result = WIN if search.won() else UNKNOWN
        #: Canonical key → the bit set of the talon position classes visited with it.
        self.visited = {search.key(): 1 << search.pos_class()}
        #: Per move on the line: its candidate moves, the next one's index, the
        #: pending obligations, and whether the position was found not blocked.
        self.stack: list[_Frame] = [_Frame(search.moves(), ())] if self.result == UNKNOWN else []
        self.dominating = search.dominating()
        #: Nodes since the last clock reading; moves since the last blocked check.
        self.check = 0
        self.probe = 0

    def run(self, deadline: float | None, node_limit: int, clock: Callable[[], float]) -> str:
        """Search on until a win, the end of the search space (a loss, for the
        complete search), ``clock()`` passing ``deadline`` or the node count reaching
        ``node_limit`` (-1: no cap). Returns WIN, LOSE or UNKNOWN (call again to go on)."""
        if self.result != UNKNOWN:
            return self.result
        search = self.search
        key, apply, undo, auto, gen, won = (
            search.key, search.apply, search.undo, search.auto, search.moves, search.won,
        )
        pos_class = search.pos_class
        blocked, worth_checking = search.blocked, search.worth_checking
        moves_onto, delayable, target, discharges, pair_moves = (
            search.moves_onto, search.delayable, search.target, search.discharges, search.pair_moves,
        )

        chain_starts, chain_moves = search.chain_starts, search.chain_moves
        # Chains of delayable moves keep the complete searches complete; the
        # streamlined ones need not be.
        chains = not self.level

        def candidates(pending: tuple[Obligation, ...]) -> list[InternalMove]:
            if not pending:
                return gen()
            first = pending[0]
            result = moves_onto(first[0], first[1])
            if len(pending) == 2:
                second = pending[1]
                both = [m for m in result if discharges(m, target(m), second)]
                if chains:
                    both += chain_moves(first, second)
                return both
            # One more delayable move may come first if the next move discharges both,
            # or a chain of them toward such a move.
            extra = pair_moves(first)
            if chains:
                starts = chain_starts(first)
                if starts:
                    extra = list(dict.fromkeys(extra + starts))
            return result + extra

        cols = search.cols
        visited, dominating, stack, path = self.visited, self.dominating, self.stack, self.path
        nodes, check, probe = self.nodes, self.check, self.probe
        gate = self.gate
        lift_after = self.lift_after
        search.lift = 0 <= lift_after <= nodes
        checks, prunes = gate
        # The complete search, and in draw three the streamlined ones too: the talon
        # rule cuts subtrees there that a quick win would wander through (in draw one a
        # streamlined search's check cost more than the small subtrees it cut).
        check_blocks = self.level == 0 or search.draw == 3
        skip_covered = SKIP_COVERED
        narrow_talon = not search.d1n
        result = LOSE
        #: Set while frames of a blocked position are cut: the one under it is checked too.
        cutting = False
        while stack:
            frame = stack[-1]
            moves, index, pending = frame.moves, frame.index, frame.pending
            if index >= len(moves):
                stack.pop()
                if path:
                    for record in reversed(path.pop()):
                        undo(record)
                if cutting:
                    if stack and blocked():
                        stack[-1].index = len(stack[-1].moves)
                    else:
                        cutting = False
                continue
            frame.index = index + 1
            move = moves[index]
            left: tuple[Obligation, ...] = ()
            if pending:
                tgt = target(move)
                left = tuple([ob for ob in pending if not discharges(move, tgt, ob)])
            ob_kind = delayable(move)
            record = apply(move)
            if ob_kind >= 0:
                # The card to be used next: the one a run was moved off, or the
                # card just put on a column; none for an emptied column.
                if ob_kind == _EMPTY:
                    left += ((0, _EMPTY),)
                elif ob_kind == _UP:
                    left += ((record[1], _UP),)
                elif ob_kind == _LIFT:
                    left += ((cols[move[1]][-1], _LIFT),)
                else:
                    col = cols[move[1]] if move[0] == T2T else cols[move[-1]]
                    left += ((col[-1], ob_kind),)
            records = [record]
            nodes += 1
            talon_move = narrow_talon and (move[0] == W2F or move[0] == W2T)
            if check_blocks and (talon_move or (move[0] != T2F and move[0] != W2F)):
                probe += 1
                if prunes * BLOCKED_MIN_RATE >= checks or probe >= BLOCKED_PROBE:
                    probe = 0
                    if worth_checking(move, record):
                        checks += 1
                        if checks >= BLOCKED_WINDOW:
                            checks >>= 1
                            prunes >>= 1
                        if blocked():
                            prunes += 1
                            undo(record)
                            # The position before the move is often blocked already
                            # (by a move the cheap filter let through): then its
                            # whole subtree, and maybe more, is lost.
                            if not frame.not_blocked:
                                if blocked():
                                    frame.index = len(moves)
                                    cutting = True
                                else:
                                    frame.not_blocked = True
                            continue
            if not left:
                auto(records)
                if won():
                    path.append(records)
                    result = WIN
                    break
            k = key()
            pc = pos_class()
            seen = visited.get(k, 0)
            # With obligations pending, the key names them too; but when the position
            # was visited with none pending, that visit covered every line from it
            # (module notes, "Obligations"): nothing to add.
            if left and not (skip_covered and seen & dominating[pc]):
                for card, kind in sorted(left):
                    k += _NEED_BYTES[card][kind]
                seen = visited.get(k, 0)
            if seen & dominating[pc]:
                for record in reversed(records):
                    undo(record)
            else:
                visited[k] = seen | (1 << pc)
                path.append(records)
                following = candidates(left)
                if left and not pending and skip_covered and not record[2]:
                    # The move straight back would give the position before this
                    # move, which was visited with no obligation pending: the
                    # table would skip it (module notes, "Transposition table"), so
                    # it is not even made.
                    back = _reverse(move, record, cols)
                    if back is not None and back in following:
                        following.remove(back)
                stack.append(_Frame(following, left))
            check += 1
            if check >= 1024:
                check = 0
                if 0 <= lift_after <= nodes:
                    search.lift = True
                if (deadline is not None and clock() > deadline) or (
                    0 <= node_limit <= nodes
                ):
                    result = UNKNOWN
                    break
            elif 0 <= node_limit <= nodes:
                result = UNKNOWN
                break
        gate[0], gate[1] = checks, prunes
        self.nodes, self.check, self.probe = nodes, check, probe
        self.result = result
        if result != UNKNOWN:
            self.stack = []
            self.visited = {}  # the memory goes back while the other searches run
        return result

    def outcome(self, start: float, clock: Callable[[], float]) -> SolveResult:
        """The search's answer so far, with the winning line replayed on the game."""
        line = self.root + [r for records in self.path for r in records] if self.result == WIN else []
        return _answer(self.game, self.result, self.relaxed, line, self.nodes, start, clock)


def _answer(game: Game, result: str, relaxed: bool, line: list[UndoRecord], nodes: int, start: float,
            clock: Callable[[], float]) -> SolveResult:
    """A depth-first search's answer: a win's line (its undo records from the game's
    position) replayed on the game."""
    if result != WIN or relaxed:
        # A relaxed win is no line for the real game: it only says the relaxation
        # cannot prove a loss.
        return SolveResult(result, [], nodes, clock() - start)
    moves, final = _expand(game, line)
    if not final.won:
        raise RuntimeError("solver bug: the line found does not win when replayed")
    return SolveResult(WIN, moves, nodes, clock() - start)


def _load_core() -> ModuleType | None:
    """The C core (``solver/_core.c``, built by ``scripts/build-solver.sh``) if it
    is built from that file as it is now; else ``None`` (with a warning when stale)."""
    try:
        from solver import _core
    except ImportError:
        return None
    try:
        digest = hashlib.sha256(Path(__file__).with_name("_core.c").read_bytes()).hexdigest()
    except OSError:
        return None
    if _core.SOURCE_DIGEST != digest:
        warnings.warn("solver._core was compiled from another version of _core.c; the depth-first "
                      "searches run in Python (rebuild it with `make solver`)", RuntimeWarning, stacklevel=2)
        return None
    return _core


#: The C core of the depth-first search, or None (not built, or stale).
CORE: Final = _load_core()
#: Whether :func:`_depth_first` uses :data:`CORE` when it can. Only tests and
#: benchmarks turn it off, to compare the two node for node.
USE_CORE = True


def _depth_first(game: Game, level: int = 0, seed: int | None = None, relaxed: bool = False,
                 gate: list[int] | None = None, lift_after: int | None = None) -> _DepthFirst | _CoreDepthFirst:
    """A depth-first search (:class:`_DepthFirst`'s arguments; ``seed``: the moves
    shuffled by ``random.Random(seed).shuffle``): run by the C core when it is built,
    else in Python. Both visit the same positions in the same order and find the same
    line (tests/solver/test_solver_core.py)."""
    if CORE is not None and USE_CORE:
        return _CoreDepthFirst(CORE, game, level, relaxed, gate, lift_after, seed)
    shuffle = random.Random(seed).shuffle if seed is not None else None
    return _DepthFirst(game, level, shuffle, relaxed, gate, lift_after)


def keep_table_memory(limit: int) -> None:
    """Bound the table memory (bytes; 0: none) this process keeps between the C core's
    searches instead of faulting fresh memory in again (``_core.c``, "Table memory");
    what is kept now is freed. Without the core, nothing is kept."""
    if CORE is not None:
        CORE.table_cache(limit)


def table_memory() -> tuple[int, int]:
    """This process's bound on kept table memory and the bytes it keeps now."""
    if CORE is None:
        return 0, 0
    limit, kept, _, _ = CORE.table_cache()
    return limit, kept


class _CoreDepthFirst:
    """:class:`_DepthFirst` run by the C core, ``solver/_core.c``:
    the same rules, moves and order, about ten times as fast. Python makes the root's
    safe moves, hands the position over, reads the clock every 1,024 positions (the
    core returns to it then) and replays the winning line."""

    ANSWERS: Final = (WIN, LOSE)

    def __init__(self, core: ModuleType, game: Game, level: int = 0, relaxed: bool = False,
                 gate: list[int] | None = None, lift_after: int | None = None, seed: int | None = None) -> None:
        self.game, self.level, self.relaxed = game, level, relaxed
        self.gate = gate if gate is not None else [0, 0]
        search = _Search(game, level, None, relaxed)
        self.root: list[UndoRecord] = []
        search.auto(self.root)
        self.result = WIN if search.won() else UNKNOWN
        after = -1 if level else (LIFT_AFTER if lift_after is None else lift_after)
        self.core = core.Core(search.cols, search.down, search.found, search.talon, search.pos, search.draw,
                              int(search.vegas), level, after, SKIP_COVERED, search.dominating(),
                              -1 if seed is None else seed)
        #: The core's status codes: an answer, or a tick (read the clock, call again).
        self.statuses: dict[int, str] = {core.UNKNOWN: UNKNOWN, core.WIN: WIN, core.LOSE: LOSE}
        self.tick: int = core.TICK

    @property
    def nodes(self) -> int:
        return int(self.core.nodes)

    def run(self, deadline: float | None, node_limit: int, clock: Callable[[], float]) -> str:
        """As :meth:`_DepthFirst.run`."""
        if self.result != UNKNOWN:
            return self.result
        gate = self.gate
        run = self.core.run
        while True:
            status, gate[0], gate[1] = run(node_limit, gate[0], gate[1])
            if status != self.tick:
                break
            if deadline is not None and clock() > deadline:
                return UNKNOWN
        self.result = self.statuses[status]
        return self.result

    def outcome(self, start: float, clock: Callable[[], float]) -> SolveResult:
        """The search's answer so far, with the winning line replayed on the game."""
        line = self.root + list(self.core.line()) if self.result == WIN else []
        return _answer(self.game, self.result, self.relaxed, line, self.nodes, start, clock)
