"""Views without hidden cards, the full view, the compact state and replay."""

from __future__ import annotations

import json

import pytest

from engine import (
    Game, Move, MoveError, board_text, card_name, deal_json, format_score, from_bytes, full_view,
    public_view, replay, to_bytes,
)

from tests.engine_helpers import position

CODE = "KL1-D3N-AAAAAAG"


def hidden_names(game: Game) -> set[str]:
    hidden = {card_name(c) for c in game.stock}
    for col, down in zip(game.columns, game.down):
        hidden |= {card_name(c) for c in col[:down]}
    return hidden


def test_public_view_shows_no_face_down_card_and_no_stock_order():
    game = Game.new(CODE)
    game.apply_json({"type": "draw"})
    view = public_view(game)
    text = json.dumps(view)
    for name in hidden_names(game):
        assert f'"{name}"' not in text
    assert view["stock"] == {"count": 21}
    assert view["waste"]["count"] == 3 and len(view["waste"]["visible"]) == 3
    assert [col["down"] for col in view["tableau"]] == [0, 1, 2, 3, 4, 5, 6]
    assert all(len(col["up"]) == 1 for col in view["tableau"])


def test_public_view_fan_shrinks_as_draw_three_cards_are_played():
    game = position(["KS", "7C"], stock="8H 5H 6D", draw=3)
    game.apply_json({"type": "draw"})
    game.apply_json({"type": "move", "card": "6D", "to": "t2"})
    assert public_view(game)["waste"]["visible"] == ["8H", "5H"]


def test_full_view_shows_every_card():
    game = Game.new(CODE)
    view = full_view(game)
    listed = [c for col in view["tableau"] for c in col["cards"]] + view["stock"] + view["waste"]
    assert sorted(listed) == sorted(card_name(c) for c in range(52))
    assert view["stock"] == deal_json(game)["stock"]


def test_public_view_of_foundations_and_scores():
    game = position(["KS"], foundations={"S": 3, "D": 13}, scoring="vegas", score=-52 + 16 * 5)
    view = public_view(game)
    assert view["foundations"] == {"S": "3S", "H": None, "D": "KD", "C": None}
    assert view["score_text"] == "+$28" and view["foundation_count"] == 16


@pytest.mark.parametrize("score, vegas, text", [
    (208, True, "+$208"), (0, True, "$0"), (-52, True, "-$52"), (625, False, "625"), (0, False, "0"),
])
def test_scores_are_shown_as_the_app_shows_them(score, vegas, text):
    assert format_score(score, vegas) == text


def test_board_text_hides_face_down_cards():
    game = Game.new(CODE)
    text = board_text(game)
    assert "##" in text and "KL1-D3N-AAAAAAG" in text
    for name in hidden_names(game):
        assert name not in text.split()


def play(game: Game, steps: int) -> list[dict]:
    log = []
    for step in range(steps):
        legal = game.legal_moves()
        if not legal:
            break
        chosen = legal[(step * 7) % len(legal)].to_json() if step % 9 else {"type": "undo"}
        try:
            game.apply_json(chosen)
        except MoveError:
            continue
        log.append(chosen)
    return log


def test_compact_state_is_small_and_round_trips():
    game = Game.new(CODE)
    play(game, 150)
    data = to_bytes(game)
    assert len(data) <= 90
    assert from_bytes(data).snapshot() == game.snapshot()
    full = from_bytes(to_bytes(game, history=True))
    assert full.snapshot() == game.snapshot() and list(full.history) == list(game.history)
    assert full.moves == game.moves


@pytest.mark.parametrize("data", [b"", b"\x02" + bytes(60), b"\x01" + bytes(40), bytes(200)])
def test_corrupt_state_is_refused(data):
    with pytest.raises(ValueError):
        from_bytes(data)


def test_replay_from_code_and_moves_reproduces_the_state():
    game = Game.new(CODE)
    log = play(game, 200)
    again = replay(CODE, log)
    assert again.snapshot() == game.snapshot() and again.moves == game.moves
    assert to_bytes(again, history=True) == to_bytes(game, history=True)
    assert replay(CODE, [Move.from_json(m) for m in log]).snapshot() == game.snapshot()


def test_replay_stops_at_a_refused_move():
    with pytest.raises(MoveError):
        replay(CODE, [{"type": "recycle"}])
