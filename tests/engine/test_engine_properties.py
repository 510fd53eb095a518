"""Property-based tests of the Klondike engine (``engine``) over random playouts.

Every test plays random games from random deal numbers in all four modes (draw one or
three, Normal or Vegas scoring, ranked or not). A playout picks among
``game.legal_moves()`` (sometimes sent as a double tap, ``to: tableau``), with an
occasional undo and an occasional deliberately random move (a random card to a random
destination, or a draw / recycle / undo whatever the position), up to
``MAX_ACTIONS`` actions.

The rule book is ``RULES.md``. The checks here restate it independently of the engine:
the score is recomputed from the scoring table by :class:`ScoreModel`, the smart
destination by :func:`expected_smart_column`, and so on.

These tests do not need Django (run them with ``-p no:django`` if no database is set
up). Nothing here measures time: speed is ``bench/engine.py``'s business.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    FOUNDATION,
    TABLEAU,
    UNDO_LIMIT,
    DealCode,
    Game,
    Move,
    MoveError,
    Outcome,
    Scoring,
    card_name,
    from_bytes,
    parse_card,
    public_view,
    replay,
    to_bytes,
)
from engine.cards import DECK, IS_RED, KING, RANK, SUIT

# -- strategies and settings ---------------------------------------------------

DEAL_NUMBERS = st.integers(0, 2**35 - 1)
DRAWS = st.sampled_from([1, 3])
SCORINGS = st.sampled_from(["normal", "vegas"])
RANKED = st.booleans()
RANDOMS = st.randoms(use_true_random=False)
LENGTHS = st.integers(1, 250)

MAX_ACTIONS = 250

PLAYOUTS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: The brute-force legal-move test is the costliest per position; it samples positions.
BRUTE_FORCE = settings(PLAYOUTS, max_examples=40)

DRAW = Move("draw")
RECYCLE = Move("recycle")
UNDO = Move("undo")
DESTINATIONS = (*range(7), FOUNDATION, TABLEAU)
DESTINATION_NAMES = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "foundation", "tableau")
#: Every concrete action but undo: what legal_moves() chooses from.
CANDIDATES = [DRAW, RECYCLE] + [Move("move", card, to) for card in range(52) for to in (*range(7), FOUNDATION)]

NORMAL_START, VEGAS_START = 0, -52

# -- independent models of the rules --------------------------------------------


class ScoreModel:
    """The scoring tables of RULES.md, recomputed from what each action did.

    Normal: +10 a card's first time on a foundation, +5 waste → column, +5 for a card
    turned face up, −100 a recycle, clamped at 0 after every action. Vegas: −52 at the
    start, +5 a card's first time on a foundation, nothing else, no floor. An undo
    restores the score (and the "has reached a foundation" memory) from before the
    action it takes back.
    """

    def __init__(self, vegas: bool) -> None:
        self.vegas = vegas
        self.score = VEGAS_START if vegas else NORMAL_START
        self.reached: frozenset[int] = frozenset()
        self._before: list[tuple[int, frozenset[int]]] = []

    def action(self, outcome: Outcome, source: str | None) -> None:
        """An accepted non-undo action; ``source`` is where the moved card was
        (``"waste"``, ``"column"`` or ``"foundation"``), recorded before the move."""
        self._before.append((self.score, self.reached))
        move = outcome.move
        gain = 0
        if move.kind == "recycle":
            assert not self.vegas, "Vegas scoring never recycles"
            gain = -100
        elif move.kind == "move":
            to_foundation = move.to == FOUNDATION
            if to_foundation and move.card not in self.reached:
                self.reached = self.reached | {move.card}
                gain += 5 if self.vegas else 10
            if not self.vegas:
                if source == "waste" and not to_foundation:
                    gain += 5
                if outcome.flipped is not None:
                    gain += 5
        else:
            assert move.kind == "draw", move
        self.score += gain
        if not self.vegas:
            self.score = max(0, self.score)

    def undo(self) -> None:
        self.score, self.reached = self._before.pop()

    @property
    def earned_bits(self) -> int:
        return sum(1 << card for card in self.reached)


def source_of(game: Game, card: int) -> str | None:
    """Where a card can move from, judged from the position alone (not the engine)."""
    if game.waste and game.waste[-1] == card:
        return "waste"
    if game.foundations[SUIT[card]] == RANK[card]:
        return "foundation"
    for col, down in zip(game.columns, game.down):
        if card in col[down:]:
            return "column"
    return None


def fits(card: int, target: int) -> bool:
    return RANK[target] == RANK[card] + 1 and IS_RED[target] != IS_RED[card]


def expected_smart_column(game: Game, card: int, columns: list[int]) -> int:
    """RULES.md "Smart destinations": among the legal columns, a King goes to the
    leftmost empty one; any other card to the one with the most cards (face-down ones
    count), leftmost on a tie."""
    if RANK[card] == KING:
        return min(columns)
    return min(columns, key=lambda i: (-len(game.columns[i]), i))


def full_state(game: Game) -> tuple:
    """The snapshot plus what it leaves out: the moves counter and the undo history
    (what ``to_bytes(game, history=True)`` stores, cheaper to take at every step)."""
    return game.snapshot(), game.moves, tuple(game.history), game.history_dropped


def hidden_cards(game: Game) -> list[int]:
    """Cards nobody may see: face down in a column, or anywhere in the stock."""
    return [c for col, down in zip(game.columns, game.down) for c in col[:down]] + list(game.stock)


# -- position checks -------------------------------------------------------------


def check_position(game: Game) -> None:
    """52 cards each exactly once, valid face-down counts, valid face-up runs, and the
    counters that follow from the position."""
    on_foundations = [suit * 13 + rank for suit in range(4) for rank in range(game.foundations[suit])]
    everywhere = [c for col in game.columns for c in col] + game.stock + game.waste + on_foundations
    assert sorted(everywhere) == list(DECK), "each of the 52 cards exactly once"
    assert all(0 <= n <= 13 for n in game.foundations)
    assert len(game.columns) == len(game.down) == 7
    for index, (col, down) in enumerate(zip(game.columns, game.down)):
        assert 0 <= down <= max(len(col) - 1, 0), f"t{index + 1}: {down} face down of {len(col)}"
        assert down <= index, f"t{index + 1} was dealt {index} face-down cards and cannot gain more"
        up = col[down:]
        for lower, upper in zip(up, up[1:]):
            assert fits(upper, lower), f"t{index + 1}: {card_name(upper)} on {card_name(lower)}"
    assert sum(game.down) <= 21
    assert len(game.stock) + len(game.waste) <= 24
    assert 0 <= game.fan <= game.draw
    assert game.won == (sum(game.foundations) == 52)
    if game.vegas:
        assert game.passes == 0
        assert game.score == VEGAS_START + 5 * bin(game.earned).count("1")
    else:
        assert game.score >= 0
    assert game.earned >> 52 == 0
    assert len(game.history) <= UNDO_LIMIT


def check_serial(game: Game) -> None:
    """Round trip through the compact binary form, with and without history."""
    live = to_bytes(game)
    assert len(live) <= 90, len(live)
    full = to_bytes(game, history=True)
    back = from_bytes(full)
    assert back.snapshot() == game.snapshot()
    assert back.moves == game.moves
    assert list(back.history) == list(game.history)
    assert back.history_dropped == game.history_dropped
    light = from_bytes(live)
    assert light.snapshot() == game.snapshot()
    assert light.moves == game.moves
    assert not light.history


def check_public_view(game: Game) -> None:
    """The view leaks no face-down or stock card; the waste fan is at most the draw."""
    view = public_view(game)
    text = json.dumps(view)
    for card in hidden_cards(game):
        assert f'"{card_name(card)}"' not in text, f"{card_name(card)} is hidden but in the view"
    if game.ranked and game.code is not None:
        assert str(game.code) not in text
    visible = view["waste"]["visible"]
    assert len(visible) <= game.draw
    assert view["waste"]["count"] == len(game.waste)
    assert view["stock"] == {"count": len(game.stock)}
    if game.waste:
        assert visible and visible[-1] == card_name(game.waste[-1])
        assert visible == [card_name(c) for c in game.waste[len(game.waste) - len(visible):]]
    else:
        assert visible == []
    for column, col, down in zip(view["tableau"], game.columns, game.down):
        assert column == {"down": down, "up": [card_name(c) for c in col[down:]]}


def check_undo_on_copy(game: Game, move: Move) -> None:
    """Apply ``move`` then undo on a copy: everything but the moves counter is back.
    (An undo is an action too, but undoing it takes back the action before it.)"""
    if move.kind == "undo":
        return
    trial = game.copy()
    before, moves = trial.snapshot(), trial.moves
    try:
        outcome = trial.apply(move)
    except MoveError:
        return
    assert game.snapshot() == before, "a copy shares no state with its original"
    reveals = outcome.move.kind == "draw" or outcome.flipped is not None
    if trial.won:
        assert not trial.can_undo()
    elif trial.ranked and reveals:
        assert not trial.can_undo()
    else:
        assert trial.can_undo()
    if not trial.can_undo():
        return  # e.g. the ranked policy refuses it: nothing to compare
    trial.apply(UNDO)
    assert trial.snapshot() == before
    assert trial.moves == moves + 2


def check_legal_moves(game: Game) -> None:
    """``legal_moves()`` is exactly the set of (concrete) moves ``apply`` accepts."""
    legal = game.legal_moves()
    assert len(legal) == len(set(legal)), "no duplicates"
    assert UNDO not in legal
    for move in legal:
        trial = game.copy()
        outcome = trial.apply(move)
        assert outcome.move == move, "legal moves are listed in canonical form"
    accepted = set()
    trial = game.copy()
    for move in CANDIDATES:
        try:
            trial.apply(move)
        except MoveError:
            continue  # a refusal changes nothing (test_a_refused_move_changes_nothing)
        accepted.add(move)
        trial = game.copy()
    assert accepted == set(legal)
    # The double tap goes where RULES.md says, and only where a column move is legal.
    for card in DECK:
        columns = [m.to for m in legal if m.kind == "move" and m.card == card and m.to < 7]
        try:
            outcome = trial.apply(Move("move", card, TABLEAU))
        except MoveError:
            assert not columns, f"{card_name(card)} may go to {columns} but the double tap was refused"
        else:
            assert columns and outcome.move.to == expected_smart_column(game, card, columns)
            trial = game.copy()


# -- the playout driver ----------------------------------------------------------


class Playout:
    """A random game. Every action is checked for the cheap properties (refused
    moves change nothing, the moves counter, the score follows the table, an undo
    restores the position from before the action it takes back); the position
    invariants are checked at the end, and ``on_position`` (after every action) and
    ``on_action`` (before every action) add a test's own checks."""

    #: Also compare ``to_bytes(game, history=True)`` before and after each refusal.
    exact_refusals = False

    def __init__(self, number: int, draw: int, scoring: str, ranked: bool, rnd: random.Random) -> None:
        self.code = str(DealCode(number, draw, Scoring(scoring)))
        self.ranked = ranked
        self.game = Game.new(self.code, ranked=ranked)
        self.rnd = rnd
        self.model = ScoreModel(self.game.vegas)
        self.sent: list[Move] = []  # accepted moves as sent (taps included)
        self.canonical: list[Move] = []  # Outcome.move of each accepted action
        self.snapshots: list[tuple] = []  # position before each action not undone yet
        self.refused = 0
        self.greedy = rnd.randrange(3) != 0

    def random_move(self) -> Move:
        """A move chosen without looking at the position: often refused."""
        rnd = self.rnd
        roll = rnd.randrange(10)
        if roll == 0:
            return DRAW
        if roll == 1:
            return RECYCLE
        if roll == 2:
            return UNDO
        card, to = rnd.randrange(52), rnd.randrange(len(DESTINATIONS))
        if roll == 3:  # through the wire format, in odd case and spacing
            return Move.from_json({"type": "move", "card": card_name(card).lower(),
                                   "to": f" {DESTINATION_NAMES[to].upper()} "})
        return Move("move", card, DESTINATIONS[to])

    def progress(self, move: Move) -> int:
        """How much a legal move helps (a greedy player's preference): 3 a card up to
        a foundation, 2 a move that uncovers a face-down card, 1 a waste card played
        to a column, 0 anything else."""
        game = self.game
        if move.kind != "move":
            return 0
        source = source_of(game, move.card)
        if source == "foundation":
            return 0
        if move.to == FOUNDATION:
            return 3
        for col, down in zip(game.columns, game.down):
            if down and len(col) > down and col[down] == move.card:
                return 2
        return 1 if source == "waste" else 0

    def choose(self) -> Move:
        """The next action. A chaotic playout undoes and throws random moves often;
        a greedy one mostly plays the most useful legal move, so that some playouts
        reach late positions (many cards up, empty columns, sometimes a win)."""
        rnd = self.rnd
        legal = self.game.legal_moves()
        roll = rnd.randrange(100)
        undo, wild, greedy = (2, 5, 85) if self.greedy else (8, 18, 60)
        if roll < undo or not legal:
            return UNDO
        if roll < wild:
            return self.random_move()
        if roll < greedy:
            best = max(map(self.progress, legal))
            if best:
                legal = [m for m in legal if self.progress(m) == best]
            elif self.greedy and legal[0].kind != "move":
                legal = legal[:1]  # nothing useful: turn the stock
        move = rnd.choice(legal)
        if move.kind == "move" and move.to < 7 and rnd.randrange(4) == 0:
            return Move("move", move.card, TABLEAU)  # the double tap
        return move

    def step(self, move: Move, on_action=None) -> Outcome | None:
        game = self.game
        before, moves, state = game.snapshot(), game.moves, full_state(game)
        stored = to_bytes(game, history=True) if self.exact_refusals else None
        source = source_of(game, move.card) if move.kind == "move" else None
        if on_action is not None:
            on_action(game, move)
        try:
            outcome = game.apply(move)
        except MoveError as error:
            assert isinstance(error.code, str) and error.code and error.detail
            assert game.snapshot() == before, f"refused {move} ({error.code}) changed the position"
            assert game.moves == moves, "refused input counts nothing"
            assert full_state(game) == state
            if stored is not None:
                assert to_bytes(game, history=True) == stored
            self.refused += 1
            return None
        assert outcome.moves == game.moves == moves + 1, "every accepted action counts one move"
        assert outcome.score == game.score
        assert outcome.won == game.won
        if move.kind == "undo":
            assert outcome.move == UNDO and outcome.flipped is None
            assert game.snapshot() == self.snapshots.pop(), "undo restores the position before the action"
            self.model.undo()
        else:
            if move.kind == "move":
                assert source is not None, f"{card_name(move.card)} moved from nowhere"
                assert outcome.move.card == move.card
                if move.to in (FOUNDATION, *range(7)):
                    assert outcome.move.to == move.to
                else:
                    assert 0 <= outcome.move.to < 7
                if outcome.flipped is not None:
                    assert source == "column"
            else:
                assert outcome.move == move and outcome.flipped is None
            self.snapshots.append(before)
            self.model.action(outcome, source)
        assert game.score == self.model.score, (
            f"after {move}: engine score {game.score}, scoring table {self.model.score}")
        assert game.earned == self.model.earned_bits
        self.sent.append(move)
        self.canonical.append(outcome.move)
        return outcome

    def run(self, length: int = MAX_ACTIONS, on_position=None, on_action=None) -> "Playout":
        if on_position is not None:
            on_position(self.game)
        for _ in range(length):
            if self.game.won:
                break
            self.step(self.choose(), on_action)
            if on_position is not None:
                on_position(self.game)
        check_position(self.game)
        return self


def playout(number, draw, scoring, ranked, rnd, length=MAX_ACTIONS, **checks) -> Playout:
    return Playout(number, draw, scoring, ranked, rnd).run(length, **checks)


# -- the properties --------------------------------------------------------------


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_cards_are_conserved_and_columns_stay_valid(number, draw, scoring, ranked, rnd):
    playout(number, draw, scoring, ranked, rnd, on_position=check_position)


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_undo_after_an_action_restores_everything_but_the_moves_counter(number, draw, scoring, ranked, rnd):
    playout(number, draw, scoring, ranked, rnd, on_action=check_undo_on_copy)


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_a_refused_move_changes_nothing(number, draw, scoring, ranked, rnd):
    # Playout.step checks every refusal (snapshot, moves counter and, here, the
    # stored bytes with the undo history); this playout throws many random moves.
    class WildPlayout(Playout):
        exact_refusals = True

        def choose(self) -> Move:
            return self.random_move() if self.rnd.randrange(2) else super().choose()

    play = WildPlayout(number, draw, scoring, ranked, rnd).run()
    assert play.refused + len(play.sent) > 0


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS, LENGTHS)
def test_replay_is_deterministic(number, draw, scoring, ranked, rnd, length):
    play = playout(number, draw, scoring, ranked, rnd, length)
    expected = to_bytes(play.game, history=True)
    assert to_bytes(replay(play.code, play.sent, ranked=ranked), history=True) == expected
    assert to_bytes(replay(play.code, play.canonical, ranked=ranked), history=True) == expected
    wire = json.loads(json.dumps([move.to_json() for move in play.sent]))
    again = replay(play.code, wire, ranked=ranked)
    assert to_bytes(again, history=True) == expected
    assert again.snapshot() == play.game.snapshot() and again.moves == play.game.moves


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_the_score_follows_the_scoring_table(number, draw, scoring, ranked, rnd):
    # Playout.step compares the engine's score with ScoreModel after every action.
    play = playout(number, draw, scoring, ranked, rnd)
    assert play.game.score == play.model.score
    if play.game.won and not play.game.vegas:
        assert play.game.score <= 625 + 5 * 24
    if play.game.won and play.game.vegas:
        assert play.game.score == 208


@BRUTE_FORCE
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_legal_moves_are_exactly_the_accepted_moves(number, draw, scoring, ranked, rnd):
    def sample(game: Game) -> None:
        if game.moves % 20 == 0:
            check_legal_moves(game)

    play = playout(number, draw, scoring, ranked, rnd, on_position=sample)
    check_legal_moves(play.game)
    if play.game.won:
        assert play.game.legal_moves() == []


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_serial_round_trip(number, draw, scoring, ranked, rnd):
    playout(number, draw, scoring, ranked, rnd, on_position=check_serial)


@PLAYOUTS
@given(DEAL_NUMBERS, DRAWS, SCORINGS, RANKED, RANDOMS)
def test_public_view_shows_no_hidden_card(number, draw, scoring, ranked, rnd):
    playout(number, draw, scoring, ranked, rnd, on_position=check_public_view)


# -- a won game -------------------------------------------------------------------

#: A deal that a greedy playout wins: the stock holds A…6 of each suit in foundation
#: order and each column one suit's high cards, lowest on top. Random deals are won
#: only now and then, so the properties of a won game are also checked here.
EASY_COLUMNS = ["7H", "8D 7D", "9C 8C 7C", "KC QC JC TC", "KD QD JD TD 9D",
                "KH QH JH TH 9H 8H", "KS QS JS TS 9S 8S 7S"]
EASY_STOCK = [f"{rank}{suit}" for rank in "A23456" for suit in "SHDC"]


def easy_game(draw: int, scoring: str, ranked: bool) -> Game:
    columns = [[parse_card(name) for name in text.split()] for text in EASY_COLUMNS]
    return Game.from_layout(columns, [parse_card(name) for name in EASY_STOCK],
                            draw=draw, scoring=scoring, ranked=ranked)


@settings(PLAYOUTS, max_examples=30)
@given(DRAWS, SCORINGS, RANKED, RANDOMS)
def test_a_won_game_accepts_nothing_more(draw, scoring, ranked, rnd):
    play = Playout(0, draw, scoring, ranked, rnd)
    game = play.game = easy_game(draw, scoring, ranked)
    undos = 0
    for _ in range(1000):
        if game.won:
            break
        check_position(game)
        check_serial(game)
        check_public_view(game)
        legal = game.legal_moves()
        up = [m for m in legal if m.kind == "move" and m.to == FOUNDATION]
        if undos < 60 and rnd.randrange(10) == 0:
            undos += 1
            move = UNDO  # the greedy play below puts things right again
        elif up:
            move = rnd.choice(up)
        else:
            move = legal[0]
            assert move.kind == "draw", "the easy deal never needs a recycle"
        check_undo_on_copy(game, move)
        play.step(move)
    game = play.game
    assert game.won, "a greedy playout wins the easy deal"
    check_legal_moves(game)
    assert game.legal_moves() == [] and not game.can_undo()
    state = to_bytes(game, history=True)
    for move in [DRAW, RECYCLE, UNDO] + [Move("move", c, to) for c in DECK for to in DESTINATIONS]:
        try:
            game.apply(move)
        except MoveError:
            pass
        else:
            raise AssertionError(f"{move} accepted after the win")
    assert to_bytes(game, history=True) == state
    assert public_view(game)["won"] is True
    # Normal: 52 × 10 + 21 flips × 5, no waste card played to a column, no recycle.
    assert game.score == (208 if game.vegas else 625) == play.model.score


# -- the driver itself -------------------------------------------------------------


def test_the_playouts_exercise_what_the_properties_rely_on():
    """Not a property of the engine: a guard, over fixed seeds, that the playouts
    contain accepted and refused undos, refused moves, double taps, recycles,
    flips, foundation moves and take-backs, and dropped undo history."""
    seen = dict.fromkeys(["undo accepted", "undo refused", "move refused", "double tap", "recycle",
                          "flip", "to foundation", "take-back", "history dropped", "ranked refusal"], 0)
    for seed in range(24):
        rnd = random.Random(seed)
        draw, scoring, ranked = (1, 3)[seed % 2], ("normal", "vegas")[seed // 2 % 2], seed % 3 == 0
        play = Playout(rnd.randrange(2**35), draw, scoring, ranked, rnd)
        taken_back = []

        def spy(game: Game, move: Move) -> None:
            if move.kind == "move" and source_of(game, move.card) == "foundation":
                taken_back.append(move)
            if move.kind == "undo" and not game.can_undo():
                seen["undo refused"] += 1
                if game.ranked and game.history:
                    seen["ranked refusal"] += 1

        play.run(on_action=spy)
        seen["undo accepted"] += sum(m.kind == "undo" for m in play.sent)
        seen["move refused"] += play.refused
        seen["double tap"] += sum(m.kind == "move" and m.to == TABLEAU for m in play.sent)
        seen["recycle"] += sum(m.kind == "recycle" for m in play.sent)
        seen["flip"] += 21 - sum(play.game.down)
        seen["to foundation"] += sum(m.kind == "move" and m.to == FOUNDATION for m in play.canonical)
        seen["take-back"] += len(taken_back)
        seen["history dropped"] += play.game.history_dropped
    assert all(seen.values()), seen
