"""The operators' command ``manage.py klondike``: its JSON shapes are a contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine import Game, card_name

ROOT = Path(__file__).resolve().parents[2]


def klondike(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "klondike", *args],
        cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60,
    )


def test_deal_json_has_the_contract_shape():
    result = klondike("deal", " kl1-d1n-aaaaaag ", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"code", "draw", "scoring", "tableau", "stock"}
    assert data["code"] == "KL1-D1N-AAAAAAG" and data["draw"] == 1 and data["scoring"] == "normal"
    assert [len(col) for col in data["tableau"]] == [1, 2, 3, 4, 5, 6, 7] and len(data["stock"]) == 24
    game = Game.new("KL1-D1N-AAAAAAG")
    assert data["tableau"][0] == [card_name(game.columns[0][0])]
    assert data["stock"][0] == card_name(game.stock[-1]), "the stock is listed next drawn first"


def test_deal_text_shows_the_board():
    result = klondike("deal", "KL1-D3V-AAAAAAG")
    assert result.returncode == 0
    assert "KL1-D3V-AAAAAAG" in result.stdout and "##" in result.stdout


def test_bad_code_is_a_clear_error():
    result = klondike("deal", "KL1-D2N-AAAAAAG")
    assert result.returncode != 0 and "bad_draw" in result.stderr


def test_replay_writes_one_line_per_move():
    code = "KL1-D1N-AAAAAAG"
    game = Game.new(code)
    first = game.legal_moves()[1].to_json()
    moves = [{"type": "draw"}, first, {"type": "recycle"}, "not json", {"type": "undo"}]
    stdin = "\n".join(m if isinstance(m, str) else json.dumps(m) for m in moves) + "\n"
    result = klondike("replay", code, stdin=stdin)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 5
    for line in lines:
        assert set(line) >= {"ok", "score", "moves", "won", "foundation", "legal"}
    assert [line["ok"] for line in lines] == [True, True, False, False, True]
    assert lines[2]["error"] == "stock_not_empty" and lines[3]["error"] == "bad_json"
    assert [line["moves"] for line in lines] == [1, 2, 2, 2, 3]
    assert {"type": "draw"} in lines[0]["legal"]
    for move in lines[0]["legal"]:
        assert move["type"] in {"draw", "recycle", "move"}
        if move["type"] == "move":
            assert move["to"] in {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "foundation"}


def test_ranked_replay_refuses_to_undo_a_draw():
    stdin = json.dumps({"type": "draw"}) + "\n" + json.dumps({"type": "undo"}) + "\n"
    result = klondike("replay", "KL1-D1N-AAAAAAG", "--ranked", stdin=stdin)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[1] == {**lines[1], "ok": False, "error": "undo_refused_ranked", "moves": 1}
