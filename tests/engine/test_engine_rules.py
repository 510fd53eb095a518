"""One test per rule and per edge case of RULES.md."""

from __future__ import annotations

import json

import pytest

from engine import FOUNDATION, TABLEAU, Game, Move, MoveError, card_name, parse_card, public_view
from engine.game import UNDO_LIMIT

from tests.engine_helpers import cards, easy_game, position

DRAW = {"type": "draw"}
RECYCLE = {"type": "recycle"}
UNDO = {"type": "undo"}


def move(card: str, to: str) -> dict:
    return {"type": "move", "card": card, "to": to}


def names(pile: list[int]) -> list[str]:
    return [card_name(c) for c in pile]


def refused(game: Game, data: dict, code: str) -> MoveError:
    """Assert that ``data`` is refused with ``code`` and changes nothing."""
    before, moves = game.snapshot(), game.moves
    with pytest.raises(MoveError) as info:
        game.apply_json(data)
    assert info.value.code == code, info.value.detail
    assert game.snapshot() == before
    assert game.moves == moves
    return info.value


def win_easy_game(game: Game, waste_to_column: str | None = None) -> None:
    """Play the easy deal to the end: each stock card straight to its foundation
    (optionally one via a column), then the columns' tops in order."""
    for _ in range(24):
        game.apply_json(DRAW)
        top = card_name(game.waste[-1])
        if top == waste_to_column:
            game.apply_json(move(top, "t7"))
        else:
            game.apply_json(move(top, "foundation"))
    win_easy_game_columns(game)


# -- set-up -------------------------------------------------------------------

def test_deal_sets_up_seven_columns_with_only_top_cards_face_up():
    game = Game.new("KL1-D1N-AAAAAAG")
    assert [len(col) for col in game.columns] == [1, 2, 3, 4, 5, 6, 7]
    assert game.down == [0, 1, 2, 3, 4, 5, 6]
    assert len(game.stock) == 24 and game.waste == [] and game.foundations == [0, 0, 0, 0]
    assert game.score == 0 and game.moves == 0


def test_vegas_game_starts_at_minus_52():
    assert Game.new("KL1-D3V-AAAAAAG").score == -52


# -- draw and recycle -----------------------------------------------------------

def test_draw_one_turns_the_top_stock_card_onto_the_waste():
    game = position(["KS"], stock="2H 3H 4H")
    game.apply_json(DRAW)
    assert names(game.waste) == ["2H"] and len(game.stock) == 2 and game.moves == 1


def test_draw_three_turns_three_cards_the_last_one_on_top():
    game = position(["KS"], stock="2H 3H 4H 5H", draw=3)
    game.apply_json(DRAW)
    assert names(game.waste) == ["2H", "3H", "4H"]
    assert names(game.visible_waste()) == ["2H", "3H", "4H"]
    assert names(game.stock) == ["5H"]


@pytest.mark.parametrize("left", [1, 2])
def test_draw_three_with_fewer_cards_left_draws_what_remains(left):
    stock = " ".join(["2H", "3H"][:left])
    game = position(["KS"], stock=stock, waste="9C", draw=3)
    game.apply_json(DRAW)
    assert names(game.waste) == ["9C"] + stock.split() and game.stock == []
    assert game.fan == left


def test_draw_three_card_under_the_top_becomes_playable_once_the_top_is_played():
    game = position(["KS", "7C", "6S"], stock="8H 5H 6D", draw=3)
    game.apply_json(DRAW)
    refused(game, move("5H", "t3"), "card_not_available")
    game.apply_json(move("6D", "t2"))
    game.apply_json(move("5H", "t3"))
    assert names(game.columns[2]) == ["6S", "5H"] and names(game.waste) == ["8H"]
    assert names(game.visible_waste()) == ["8H"]


def test_draw_from_an_empty_stock_is_refused():
    refused(position(["KS"], waste="2H"), DRAW, "stock_empty")
    refused(position(["KS"]), DRAW, "stock_empty")


def test_recycle_turns_the_waste_over_without_shuffling():
    game = position(["KS"], stock="2H 3H 4H", score=150)
    for _ in range(3):
        game.apply_json(DRAW)
    game.apply_json(RECYCLE)
    assert game.waste == [] and game.passes == 1 and game.score == 50
    game.apply_json(DRAW)
    assert names(game.waste) == ["2H"], "the first card of the last pass is drawn first again"


def test_recycle_is_unlimited_in_normal_scoring():
    game = position(["KS"], stock="2H")
    for _ in range(10):
        game.apply_json(DRAW)
        game.apply_json(RECYCLE)
    assert game.passes == 10 and game.score == 0


def test_recycle_hits_the_floor_at_zero():
    game = position(["KS"], waste="2H 3H", score=40)
    game.apply_json(RECYCLE)
    assert game.score == 0


def test_vegas_never_recycles():
    game = position(["KS"], waste="2H 3H", scoring="vegas", score=-52)
    error = refused(game, RECYCLE, "no_recycle_in_vegas")
    assert "once" in error.detail


def test_recycle_needs_an_empty_stock_and_a_waste():
    refused(position(["KS"], stock="2H", waste="3H"), RECYCLE, "stock_not_empty")
    refused(position(["KS"]), RECYCLE, "waste_empty")


# -- tableau ----------------------------------------------------------------------

def test_a_run_moves_with_the_card_under_it():
    game = position(["#2C TD 9S 8H", "JC"])
    game.apply_json(move("TD", "t2"))
    assert names(game.columns[1]) == ["JC", "TD", "9S", "8H"]
    assert names(game.columns[0]) == ["2C"] and game.down[0] == 0


def test_a_card_that_does_not_fit_is_refused_with_a_sentence():
    game = position(["9S", "#2C 8H"])
    error = refused(game, move("9S", "t2"), "does_not_fit")
    assert error.detail == "9S does not fit on 8H in t2"


def test_same_colour_is_refused():
    refused(position(["9S", "TC"]), move("9S", "t2"), "does_not_fit")


def test_a_queen_is_refused_on_an_empty_column():
    game = position(["#2C QH", ""])
    error = refused(game, move("QH", "t2"), "needs_king")
    assert "King" in error.detail


def test_a_king_leading_a_run_goes_to_an_empty_column():
    game = position(["#2C KS QH JC", ""])
    game.apply_json(move("KS", "t2"))
    assert names(game.columns[1]) == ["KS", "QH", "JC"]


def test_a_pointless_king_move_is_legal():
    game = position(["KS", ""])
    game.apply_json(move("KS", "t2"))
    assert names(game.columns[1]) == ["KS"] and game.columns[0] == []


def test_a_card_cannot_move_onto_its_own_column():
    refused(position(["KS QH"]), move("QH", "t1"), "same_column")


def test_only_the_waste_top_plays():
    game = position(["KS"], waste="QH AC")
    refused(game, move("QH", "t1"), "card_not_available")
    game.apply_json(move("AC", "foundation"))
    game.apply_json(move("QH", "t1"))
    assert names(game.columns[0]) == ["KS", "QH"]


def test_waste_to_column_scores_five():
    game = position(["KS"], waste="QH")
    game.apply_json(move("QH", "t1"))
    assert game.score == 5


def test_face_down_and_stock_cards_are_refused_without_saying_where_they_are():
    game = position(["#2C KS"], stock="3D")
    down = refused(game, move("2C", "t2"), "card_not_available")
    hidden = refused(game, move("3D", "t2"), "card_not_available")
    assert down.detail.replace("2C", "X") == hidden.detail.replace("3D", "X")


# -- foundations --------------------------------------------------------------------

def test_an_ace_opens_its_foundation_and_the_two_follows():
    game = position(["2S", "AS"])
    game.apply_json(move("AS", "foundation"))
    game.apply_json(move("2S", "foundation"))
    assert game.foundations[0] == 2 and game.score == 20


def test_a_card_out_of_order_is_refused():
    error = refused(position(["3S"], foundations={"S": 1}), move("3S", "foundation"), "foundation_mismatch")
    assert "2S" in error.detail


def test_a_card_with_cards_on_it_cannot_go_to_a_foundation():
    refused(position(["AS 2H"]), move("AS", "foundation"), "not_top_card")


def test_a_waste_card_goes_to_its_foundation():
    game = position(["KS"], waste="AD")
    game.apply_json(move("AD", "foundation"))
    assert game.foundations == [0, 0, 1, 0] and game.score == 10


def test_take_back_is_worth_zero_and_cannot_be_farmed():
    game = position(["2S", "AS", "3H"])
    game.apply_json(move("AS", "foundation"))
    game.apply_json(move("2S", "foundation"))
    assert game.score == 20
    for _ in range(5):
        game.apply_json(move("2S", "t3"))
        assert game.score == 20 and names(game.columns[2]) == ["3H", "2S"]
        game.apply_json(move("2S", "foundation"))
        assert game.score == 20, "a card earns its foundation points once"


def test_a_king_taken_back_goes_to_an_empty_column():
    game = position(["", "QD"], foundations={"C": 13})
    game.apply_json(move("KC", "t1"))
    assert names(game.columns[0]) == ["KC"] and game.foundations[3] == 12


def test_take_back_follows_the_tableau_rule():
    refused(position(["9H"], foundations={"C": 8}), move("8C", "t2"), "needs_king")
    refused(position(["9C"], foundations={"S": 8}), move("8S", "t1"), "does_not_fit")


def test_a_card_on_its_foundation_is_already_there():
    refused(position(["KS"], foundations={"S": 1}), move("AS", "foundation"), "already_on_foundation")


# -- flip -----------------------------------------------------------------------------

def test_a_face_down_card_turns_up_as_part_of_the_move_and_scores_five():
    game = position(["#4C AS", "KH"])
    outcome = game.apply_json(move("AS", "foundation"))
    assert outcome.flipped == parse_card("4C") and game.down[0] == 0
    assert game.score == 15 and game.moves == 1


def test_vegas_pays_nothing_for_a_flip():
    game = position(["#4C AS"], scoring="vegas", score=-52)
    game.apply_json(move("AS", "foundation"))
    assert game.score == -47


def test_nothing_goes_to_a_foundation_by_itself():
    game = position(["AS", "#3C 2S"], stock="5D")
    game.apply_json(DRAW)
    assert game.foundations == [0, 0, 0, 0]


# -- smart destinations -------------------------------------------------------------

def test_tap_sends_a_card_to_its_foundation():
    game = position(["#2C AH"])
    outcome = game.apply(Move("move", parse_card("AH"), FOUNDATION))
    assert outcome.move.to_json() == move("AH", "foundation")


def test_double_tap_picks_the_longest_legal_column_counting_face_down_cards():
    game = position(["9D", "#2C TS", "#3C #4C #5C TC", "9H"])
    outcome = game.apply_json(move("9D", "tableau"))
    assert outcome.move.to_json() == move("9D", "t3")


def test_double_tap_breaks_ties_leftmost():
    game = position(["9D", "#4C TC", "#2C TS"])
    assert game.apply_json(move("9D", "tableau")).move.to_json() == move("9D", "t2")


def test_double_tap_sends_a_king_to_the_leftmost_empty_column():
    game = position(["QD", "#2C KS", "", "JH", ""])
    assert game.apply_json(move("KS", "tableau")).move.to_json() == move("KS", "t3")


def test_double_tap_with_nowhere_to_go_is_refused():
    refused(position(["9D", "TD"]), move("9D", "tableau"), "no_destination")


# -- undo -------------------------------------------------------------------------------

def test_undo_restores_the_exact_state_and_the_score_but_counts_as_a_move():
    game = position(["#4C AS", "KH"], stock="2D")
    before = game.snapshot()
    game.apply_json(move("AS", "foundation"))
    assert game.score == 15
    game.apply_json(UNDO)
    assert game.snapshot() == before and game.score == 0 and game.moves == 2


def test_undo_restores_a_recycle_and_its_penalty():
    game = position(["KS"], waste="2H 3H", score=70)
    before = game.snapshot()
    game.apply_json(RECYCLE)
    game.apply_json(UNDO)
    assert game.snapshot() == before


def test_undo_of_a_foundation_move_lets_the_card_score_again():
    game = position(["AS", "KH"])
    game.apply_json(move("AS", "foundation"))
    game.apply_json(UNDO)
    game.apply_json(move("AS", "foundation"))
    assert game.score == 10


def test_the_101st_undo_is_refused():
    game = position(["KS", ""])
    for i in range(UNDO_LIMIT + 5):
        game.apply_json(move("KS", "t2" if i % 2 == 0 else "t1"))
    for _ in range(UNDO_LIMIT):
        game.apply_json(UNDO)
    error = refused(game, UNDO, "undo_limit")
    assert "100" in error.detail


def test_nothing_to_undo_at_the_start():
    refused(Game.new("KL1-D1N-AAAAAAA"), UNDO, "nothing_to_undo")


def test_ranked_undo_refuses_a_draw():
    game = position(["KS"], stock="2H", ranked=True)
    game.apply_json(DRAW)
    assert not game.can_undo()
    refused(game, UNDO, "undo_refused_ranked")


def test_ranked_undo_refuses_a_move_that_flipped_a_card():
    game = position(["#4C AS"], ranked=True)
    game.apply_json(move("AS", "foundation"))
    error = refused(game, UNDO, "undo_refused_ranked")
    assert "revealed" in error.detail


def test_ranked_undo_allows_a_move_that_revealed_nothing():
    game = position(["KS", "", "QH"], ranked=True)
    game.apply_json(move("QH", "t1"))
    game.apply_json(UNDO)
    assert names(game.columns[2]) == ["QH"]


# -- counters, win, scoring totals ------------------------------------------------------

def test_the_moves_counter_counts_every_accepted_action_and_no_refusal():
    game = position(["KS", ""], stock="2H", waste="")
    game.apply_json(DRAW)
    game.apply_json(RECYCLE)
    game.apply_json(move("KS", "t2"))
    game.apply_json(UNDO)
    for bad in (RECYCLE, move("2H", "t1"), {"type": "jump"}):
        with pytest.raises(MoveError):
            game.apply_json(bad)
    assert game.moves == 4


def test_a_won_game_scores_625():
    game = easy_game()
    win_easy_game(game)
    assert game.won and game.score == 625 and game.foundations == [13, 13, 13, 13]


def test_each_waste_card_played_to_a_column_adds_five():
    game = easy_game()
    win_easy_game(game, waste_to_column="6H")
    assert game.won and game.score == 630


def test_a_vegas_win_ends_at_plus_208_and_is_negative_until_the_11th_card():
    game = easy_game("vegas")
    scores = []
    for _ in range(12):
        game.apply_json(DRAW)
        game.apply_json(move(card_name(game.waste[-1]), "foundation"))
        scores.append(game.score)
    assert scores[9] == -2 and scores[10] == 3
    win_easy_game_rest(game)
    assert game.won and game.score == 208
    assert public_view(game)["score_text"] == "+$208"


def win_easy_game_rest(game: Game) -> None:
    while game.stock:
        game.apply_json(DRAW)
        game.apply_json(move(card_name(game.waste[-1]), "foundation"))
    win_easy_game_columns(game)


def win_easy_game_columns(game: Game) -> None:
    while not game.won:
        for col in game.columns:
            if col:
                try:
                    game.apply_json(move(card_name(col[-1]), "foundation"))
                except MoveError:
                    pass


def test_nothing_is_accepted_after_the_win():
    game = easy_game()
    win_easy_game(game)
    refused(game, UNDO, "game_over")
    refused(game, DRAW, "game_over")
    assert game.legal_moves() == []


# -- wire format --------------------------------------------------------------------------

@pytest.mark.parametrize("data, code", [
    ("draw", "bad_move"),
    ({"type": "fly"}, "bad_move"),
    ({"type": "draw", "extra": 1}, "bad_move"),
    ({"type": "move", "card": "9S"}, "bad_move"),
    ({"type": "move", "card": "1S", "to": "t1"}, "bad_card"),
    ({"type": "move", "card": 9, "to": "t1"}, "bad_card"),
    ({"type": "move", "card": "9S", "to": "t8"}, "bad_destination"),
    ({"type": "move", "card": "9S", "to": None}, "bad_destination"),
])
def test_malformed_moves_get_a_stable_code(data, code):
    with pytest.raises(MoveError) as info:
        Move.from_json(data)
    assert info.value.code == code and info.value.detail


def test_moves_round_trip_through_json_case_insensitively():
    parsed = Move.from_json({"type": "move", "card": "th", "to": "T4"})
    assert parsed.to_json() == move("TH", "t4")
    assert Move.from_json(move("10H", "tableau")).to == TABLEAU
    assert json.loads(json.dumps(parsed.to_json())) == move("TH", "t4")
    assert MoveError("x", "y").to_json() == {"error": "x", "detail": "y"}


def test_cards_parse_case_insensitively():
    assert cards("as th 10c") == cards("AS TH TC")
    with pytest.raises(ValueError):
        parse_card("ZZ")


@pytest.mark.parametrize("card", [-1, 52, None])
def test_a_move_value_without_a_real_card_is_refused(card):
    game = position(["", "QD"], foundations={"C": 13})
    before = game.snapshot()
    with pytest.raises(MoveError) as info:
        game.apply(Move("move", card, 0))
    assert info.value.code == "bad_card" and game.snapshot() == before
