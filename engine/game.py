"""The Klondike game: position, rules, scoring, undo and legal moves.

:class:`Game` is mutable for speed (the server applies one move per request and the
solver millions), but every refused move leaves it exactly as it was, and
:meth:`Game.copy`, :meth:`Game.to_bytes` and :meth:`Game.snapshot` give value
semantics where they are needed.

Internal layout (all cards are ints, see :mod:`.cards`):

* ``columns[i]``: t(i+1), bottom → top; its first ``down[i]`` cards are face down.
* ``stock``: the next card to be drawn is ``stock[-1]``.
* ``waste``: the top card is ``waste[-1]``; ``fan`` of them were dealt by the last draw.
* ``foundations[s]``: how many cards of suit ``s`` are on their foundation.
* ``earned``: bit ``c`` set once card ``c`` has earned its foundation points.
"""

from __future__ import annotations

from collections import deque
from typing import Final, Iterable, NamedTuple

from .cards import ACCEPTS, DECK, IS_RED, KING, KINGS, RANK, SUIT, Card, card_name, make_card
from .deal import DealCode, Scoring, layout, shuffled_deck
from .moves import (
    DRAW,
    DRAW_MOVE,
    FOUNDATION,
    MOVE,
    RECYCLE,
    RECYCLE_MOVE,
    TABLEAU,
    UNDO,
    UNDO_MOVE,
    Move,
    MoveError,
    target_name,
)
from .text import Text, gettext_noop

UNDO_LIMIT: Final = 100

# Pile numbers in undo records: 0..6 columns, then these.
WASTE: Final = 7
STOCK: Final = 8
FOUNDATION_BASE: Final = 9  # + suit

# Scoring tables (RULES.md).
NORMAL_TO_FOUNDATION: Final = 10
NORMAL_WASTE_TO_COLUMN: Final = 5
NORMAL_FLIP: Final = 5
NORMAL_RECYCLE: Final = -100
VEGAS_START: Final = -52
VEGAS_TO_FOUNDATION: Final = 5

# An undo record: (kind, src, dst, count, flipped, fan, score, earned card or -1),
# where fan and score are the values *before* the action.
Record = tuple[str, int, int, int, bool, int, int, int]


class Outcome(NamedTuple):
    """What an accepted action did: the canonical move, the card it turned face up
    (or ``None``), and the score and moves counter after it."""

    move: Move
    flipped: Card | None
    score: int
    moves: int
    won: bool


class Game:
    """A game of Klondike under this service's rules."""

    __slots__ = (
        "code", "draw", "vegas", "ranked", "columns", "down", "stock", "waste", "fan",
        "foundations", "score", "moves", "passes", "earned", "won", "history", "history_dropped",
    )

    def __init__(
        self,
        columns: list[list[Card]],
        down: list[int],
        stock: list[Card],
        *,
        draw: int = 1,
        scoring: Scoring | str = Scoring.NORMAL,
        ranked: bool = False,
        code: DealCode | None = None,
    ) -> None:
        if draw not in (1, 3):
            raise ValueError("draw must be 1 or 3")
        self.code = code
        self.draw = draw
        self.vegas = Scoring(scoring) is Scoring.VEGAS
        self.ranked = ranked
        self.columns = columns
        self.down = down
        self.stock = stock
        self.waste: list[Card] = []
        self.fan = 0
        self.foundations = [0, 0, 0, 0]
        self.score = VEGAS_START if self.vegas else 0
        self.moves = 0
        self.passes = 0
        self.earned = 0
        self.won = False
        self.history: deque[Record] = deque(maxlen=UNDO_LIMIT)
        self.history_dropped = False

    # -- construction ---------------------------------------------------------

    @classmethod
    def new(cls, code: DealCode | str, *, ranked: bool = False) -> "Game":
        """The opening position of a deal code."""
        if isinstance(code, str):
            code = DealCode.parse(code)
        columns, stock = layout(shuffled_deck(code.number))
        return cls.from_layout(columns, stock, draw=code.draw, scoring=code.scoring, ranked=ranked, code=code)

    @classmethod
    def from_layout(
        cls,
        columns: list[list[Card]],
        stock: list[Card],
        *,
        draw: int = 1,
        scoring: Scoring | str = Scoring.NORMAL,
        ranked: bool = False,
        code: DealCode | None = None,
    ) -> "Game":
        """A fresh deal from columns (bottom → top, only the top card face up) and a
        stock (next drawn first). All 52 cards must be there exactly once."""
        if len(columns) != 7:
            raise ValueError("a layout has 7 columns")
        if sorted([c for col in columns for c in col] + list(stock)) != list(DECK):
            raise ValueError("a layout holds each of the 52 cards exactly once")
        return cls(
            [list(col) for col in columns],
            [max(len(col) - 1, 0) for col in columns],
            list(reversed(stock)),
            draw=draw, scoring=scoring, ranked=ranked, code=code,
        )

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        for name in ("code", "draw", "vegas", "ranked", "fan", "score", "moves", "passes", "earned",
                     "won", "history_dropped"):
            setattr(other, name, getattr(self, name))
        other.columns = [list(col) for col in self.columns]
        other.down = list(self.down)
        other.stock = list(self.stock)
        other.waste = list(self.waste)
        other.foundations = list(self.foundations)
        other.history = deque(self.history, maxlen=UNDO_LIMIT)
        return other

    # -- queries --------------------------------------------------------------

    @property
    def scoring(self) -> Scoring:
        return Scoring.VEGAS if self.vegas else Scoring.NORMAL

    @property
    def foundation_count(self) -> int:
        return sum(self.foundations)

    def snapshot(self) -> tuple:
        """Everything that defines the position, for equality checks (the moves
        counter and the undo history excluded)."""
        return (
            self.draw, self.vegas, self.ranked, tuple(map(tuple, self.columns)), tuple(self.down),
            tuple(self.stock), tuple(self.waste), self.fan, tuple(self.foundations), self.score,
            self.passes, self.earned, self.won,
        )

    def can_undo(self) -> bool:
        """Whether an undo would be accepted now (ranked policy included)."""
        if self.won or not self.history:
            return False
        return not (self.ranked and _reveals(self.history[-1]))

    def can_recycle(self) -> bool:
        return not self.won and not self.stock and bool(self.waste) and not self.vegas

    def visible_waste(self) -> list[Card]:
        """The face-up fan of the waste, bottom → top (one card in draw one, up to
        three in draw three)."""
        if not self.waste:
            return []
        return self.waste[-min(len(self.waste), max(self.fan, 1)):]

    # -- actions --------------------------------------------------------------

    def apply(self, move: Move) -> Outcome:
        """Apply one action, or raise :class:`MoveError` leaving the game unchanged."""
        if self.won:
            raise MoveError("game_over", Text(gettext_noop("the game is won: there is nothing left to play")))
        kind = move.kind
        if kind == MOVE:
            return self._move(move.card, move.to)
        if kind == DRAW:
            return self._draw()
        if kind == RECYCLE:
            return self._recycle()
        if kind == UNDO:
            return self._undo()
        raise MoveError("bad_move", Text(gettext_noop("unknown move type %(kind)s"), kind=repr(kind)))

    def apply_json(self, data: object) -> Outcome:
        return self.apply(Move.from_json(data))

    def _record(self, record: Record) -> None:
        history = self.history
        if len(history) == UNDO_LIMIT:
            self.history_dropped = True
        history.append(record)

    def _draw(self) -> Outcome:
        stock, waste = self.stock, self.waste
        if not stock:
            if waste:
                raise MoveError("stock_empty", Text(
                    gettext_noop("the stock is empty: recycle the waste to go through it again") if not self.vegas
                    else gettext_noop("the stock is empty, and Vegas scoring allows one pass only")))
            raise MoveError("stock_empty", Text(gettext_noop("the stock and the waste are both empty")))
        count = min(self.draw, len(stock))
        self._record((DRAW, STOCK, WASTE, count, False, self.fan, self.score, -1))
        for _ in range(count):
            waste.append(stock.pop())
        self.fan = count
        self.moves += 1
        return Outcome(DRAW_MOVE, None, self.score, self.moves, False)

    def _recycle(self) -> Outcome:
        if self.stock:
            raise MoveError("stock_not_empty", Text(gettext_noop("the stock still has cards: draw them first")))
        if not self.waste:
            raise MoveError("waste_empty", Text(gettext_noop("there is nothing to recycle: the waste is empty")))
        if self.vegas:
            raise MoveError("no_recycle_in_vegas",
                            Text(gettext_noop("Vegas scoring goes through the stock once: no recycling")))
        self._record((RECYCLE, WASTE, STOCK, len(self.waste), False, self.fan, self.score, -1))
        self.waste.reverse()
        self.stock, self.waste = self.waste, self.stock
        self.fan = 0
        self.passes += 1
        self.score = max(0, self.score + NORMAL_RECYCLE)
        self.moves += 1
        return Outcome(RECYCLE_MOVE, None, self.score, self.moves, False)

    def _locate(self, card: Card) -> tuple[int, int]:
        """Where a movable card is: ``(pile, count)`` with the number of cards that
        move with it. Refuses cards that cannot move without saying where they are,
        so the error reveals nothing about face-down cards."""
        waste = self.waste
        if waste and waste[-1] == card:
            return WASTE, 1
        suit = SUIT[card]
        if self.foundations[suit] == RANK[card]:
            return FOUNDATION_BASE + suit, 1
        for index, col in enumerate(self.columns):
            if card in col:
                position = col.index(card)
                if position >= self.down[index]:
                    return index, len(col) - position
                break
        raise MoveError("card_not_available", Text(gettext_noop(
            "%(card)s cannot be moved: only face-up cards in the columns, the top of the waste "
            "and the top of a foundation can move"), card=card_name(card)))

    def _move(self, card: Card, to: int) -> Outcome:
        if type(card) is not int or not 0 <= card < 52:
            raise MoveError("bad_card", Text(gettext_noop("%(card)s is not a card"), card=repr(card)))
        src, count = self._locate(card)
        columns = self.columns
        if to == FOUNDATION:
            dst = self._foundation_for(card, src, count)
        elif to == TABLEAU:
            dst = self._best_column(card, src)
        elif 0 <= to < 7:
            dst = to
            self._check_column(card, src, dst)
        else:
            # Translators: t1…t7, foundation and tableau are values of the protocol: keep them as they are.
            raise MoveError("bad_destination", Text(gettext_noop("a destination is t1…t7, foundation or tableau")))

        prev_fan, prev_score = self.fan, self.score
        # Take the cards off their pile.
        if src < 7:
            col = columns[src]
            moved = col[-count:]
            del col[-count:]
        elif src == WASTE:
            moved = [self.waste.pop()]
            self.fan = self.fan - 1 if self.fan > 1 else 1
        else:
            self.foundations[src - FOUNDATION_BASE] -= 1
            moved = [card]
        # Put them on the destination.
        earned = -1
        gain = 0
        if dst < 7:
            columns[dst] += moved
            if src == WASTE and not self.vegas:
                gain = NORMAL_WASTE_TO_COLUMN
        else:
            self.foundations[dst - FOUNDATION_BASE] += 1
            bit = 1 << card
            if not self.earned & bit:
                self.earned |= bit
                earned = card
                gain = VEGAS_TO_FOUNDATION if self.vegas else NORMAL_TO_FOUNDATION
        # Automatic flip.
        flipped = None
        if src < 7 and self.down[src] and self.down[src] == len(columns[src]):
            self.down[src] -= 1
            flipped = columns[src][-1]
            if not self.vegas:
                gain += NORMAL_FLIP
        self._record((MOVE, src, dst, count, flipped is not None, prev_fan, prev_score, earned))
        self.score += gain
        self.moves += 1
        if dst >= FOUNDATION_BASE and sum(self.foundations) == 52:
            self.won = True
        canonical = Move(MOVE, card, FOUNDATION if dst >= FOUNDATION_BASE else dst)
        return Outcome(canonical, flipped, self.score, self.moves, self.won)

    def _foundation_for(self, card: Card, src: int, count: int) -> int:
        if src >= FOUNDATION_BASE:
            raise MoveError("already_on_foundation",
                            Text(gettext_noop("%(card)s is already on its foundation"), card=card_name(card)))
        if count > 1:
            raise MoveError("not_top_card", Text(
                gettext_noop("%(card)s has cards on it: only a top card can go to a foundation"), card=card_name(card)))
        suit = SUIT[card]
        have = self.foundations[suit]
        if have != RANK[card] - 1:
            needed = card_name(make_card(have + 1, suit))
            raise MoveError("foundation_mismatch", Text(
                gettext_noop("%(card)s cannot go to its foundation yet: it needs %(needed)s first"),
                card=card_name(card), needed=needed))
        return FOUNDATION_BASE + suit

    def _check_column(self, card: Card, src: int, dst: int) -> None:
        if dst == src:
            # Translators: %(column)s is a column as the protocol names it: t1…t7.
            raise MoveError("same_column", Text(gettext_noop("%(card)s is already in %(column)s"),
                                                card=card_name(card), column=target_name(dst)))
        col = self.columns[dst]
        if not col:
            if RANK[card] != KING:
                raise MoveError("needs_king", Text(
                    gettext_noop("only a King can go to an empty column: %(card)s cannot go to %(column)s"),
                    card=card_name(card), column=target_name(dst)))
            return
        top = col[-1]
        if RANK[top] != RANK[card] + 1 or IS_RED[top] == IS_RED[card]:
            raise MoveError("does_not_fit", Text(gettext_noop("%(card)s does not fit on %(top)s in %(column)s"),
                                                 card=card_name(card), top=card_name(top), column=target_name(dst)))

    def _best_column(self, card: Card, src: int) -> int:
        """The smart destination of a double tap: the legal column with the most
        cards (face-down ones count), leftmost on a tie; for a King, the leftmost
        empty column."""
        best, best_len = -1, -1
        king = RANK[card] == KING
        for index, col in enumerate(self.columns):
            if index == src:
                continue
            if king:
                if not col:
                    return index
            elif col and card in ACCEPTS[col[-1]] and len(col) > best_len:
                best, best_len = index, len(col)
        if best < 0:
            raise MoveError("no_destination", Text(gettext_noop("%(card)s has no column to go to"), card=card_name(card)))
        return best

    def _undo(self) -> Outcome:
        history = self.history
        if not history:
            if self.history_dropped:
                raise MoveError("undo_limit", Text(gettext_noop("only the last %(limit)s actions can be undone"),
                                                   limit=UNDO_LIMIT))
            raise MoveError("nothing_to_undo", Text(gettext_noop("there is nothing to undo")))
        record = history[-1]
        if self.ranked and _reveals(record):
            raise MoveError("undo_refused_ranked", Text(
                gettext_noop("in a ranked game a draw cannot be undone: it revealed a card") if record[0] == DRAW
                else gettext_noop("in a ranked game a move that turned a card face up cannot be undone: it revealed a card")))
        history.pop()
        kind, src, dst, count, flipped, fan, score, earned = record
        if kind == DRAW:
            stock, waste = self.stock, self.waste
            for _ in range(count):
                stock.append(waste.pop())
        elif kind == RECYCLE:
            self.stock.reverse()
            self.stock, self.waste = self.waste, self.stock
            self.passes -= 1
        else:
            if flipped:
                self.down[src] += 1
            if dst < 7:
                col = self.columns[dst]
                moved = col[-count:]
                del col[-count:]
            else:
                self.foundations[dst - FOUNDATION_BASE] -= 1
                moved = [make_card(self.foundations[dst - FOUNDATION_BASE] + 1, dst - FOUNDATION_BASE)]
            if src < 7:
                self.columns[src] += moved
            elif src == WASTE:
                self.waste.append(moved[0])
            else:
                self.foundations[src - FOUNDATION_BASE] += 1
            if earned >= 0:
                self.earned &= ~(1 << earned)
        self.fan = fan
        self.score = score
        self.moves += 1
        return Outcome(UNDO_MOVE, None, self.score, self.moves, False)

    # -- legal moves ----------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal action in canonical form: draw or recycle, then card moves with
        a concrete destination (a column index or ``FOUNDATION``). Undo is not listed."""
        if self.won:
            return []
        result: list[Move] = []
        if self.stock:
            result.append(DRAW_MOVE)
        elif self.waste and not self.vegas:
            result.append(RECYCLE_MOVE)
        columns, foundations = self.columns, self.foundations
        # Which cards each column accepts, and the empty columns (for Kings).
        accepting: dict[Card, list[int]] = {}
        empty: list[int] = []
        for index, col in enumerate(columns):
            if col:
                for fit in ACCEPTS[col[-1]]:
                    if fit in accepting:
                        accepting[fit].append(index)
                    else:
                        accepting[fit] = [index]
            else:
                empty.append(index)
        no_targets: list[int] = []

        def targets(card: Card) -> list[int]:
            return empty if RANK[card] == KING else accepting.get(card, no_targets)

        if self.waste:
            card = self.waste[-1]
            if foundations[SUIT[card]] == RANK[card] - 1:
                result.append(Move(MOVE, card, FOUNDATION))
            for index in targets(card):
                result.append(Move(MOVE, card, index))
        for index, col in enumerate(columns):
            if not col:
                continue
            top = col[-1]
            if foundations[SUIT[top]] == RANK[top] - 1:
                result.append(Move(MOVE, top, FOUNDATION))
            for position in range(self.down[index], len(col)):
                card = col[position]
                for dst in targets(card):
                    if dst != index:
                        result.append(Move(MOVE, card, dst))
        for suit in range(4):
            rank = foundations[suit]
            if rank:
                card = suit * 13 + rank - 1
                for index in targets(card):
                    result.append(Move(MOVE, card, index))
        return result


def _reveals(record: Record) -> bool:
    """Whether an action revealed a card, so a ranked game may not take it back."""
    return record[0] == DRAW or record[4]


def replay(code: DealCode | str, moves: Iterable[Move | dict], *, ranked: bool = False) -> Game:
    """The game after applying ``moves`` (values or their JSON) to the deal ``code``.
    Raises :class:`MoveError` at the first refused move."""
    game = Game.new(code, ranked=ranked)
    for move in moves:
        game.apply(move if isinstance(move, Move) else Move.from_json(move))
    return game


__all__ = ["Game", "Outcome", "replay", "UNDO_LIMIT", "KINGS"]
