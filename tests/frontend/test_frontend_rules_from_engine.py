"""The web app takes the rules from the engine instead of writing them again: the
Vegas figures on the home page, whether the waste may go back, which column a double
tap picks. The ES modules run in Node.js as the browser loads them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client

from engine import format_score
from engine.game import VEGAS_START, VEGAS_TO_FOUNDATION

JS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "js"


def run_module(script: str) -> object:
    node = shutil.which("node") or shutil.which("node", path="/usr/bin:/usr/local/bin")
    assert node, "Node.js runs the web app's modules in these tests: install `node` and put it on PATH"
    result = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.django_db
def test_the_home_pages_vegas_note_names_the_engines_figures():
    page = Client().get("/").content.decode()
    stake, per_card = format_score(VEGAS_START, vegas=True), format_score(VEGAS_TO_FOUNDATION, vegas=True)
    assert f"Vegas: starts at {stake}, {per_card} a card on a foundation" in page
    assert (stake, per_card) == ("-$52", "+$5")


def test_tapping_the_empty_stock_recycles_only_when_the_engine_allows_it():
    sent = run_module(f"""
        const {{ GameSession }} = await import("{JS / 'game-session.js'}");
        const session = new GameSession("game", {{ board: null }});
        session.seq = 0;
        const tapped = (canRecycle) => {{
          session.pending = [];
          session.view = {{ stock: {{ count: 0 }}, waste: {{ count: 3, visible: ["AH"] }}, can_recycle: canRecycle,
                           tableau: [], foundations: {{}} }};
          session.draw();
          return session.pending.map((item) => item.move.type);
        }};
        console.log(JSON.stringify({{ vegasSecondPass: tapped(false), normal: tapped(true) }}));
    """)
    # In Vegas the engine says no second pass (view.can_recycle): nothing is sent.
    assert sent == {"vegasSecondPass": [], "normal": ["recycle"]}


def test_a_double_tap_is_left_to_the_engine_and_a_drag_is_shown_at_once():
    guessed = run_module(f"""
        const {{ predict }} = await import("{JS / 'board.js'}");
        const column = (up) => ({{ down: 0, up }});
        const view = {{ stock: {{ count: 0 }}, waste: {{ count: 0, visible: [] }}, foundations: {{}}, foundation_count: 0,
                       tableau: [column(["8S"]), column(["7H"]), column([]), column([]), column([]), column([]), column([])] }};
        const drag = predict(view, {{ type: "move", card: "7H", to: "t1" }});
        console.log(JSON.stringify({{
          doubleTap: predict(view, {{ type: "move", card: "7H", to: "tableau" }}),
          drag: drag && drag.tableau.map((col) => col.up),
        }}));
    """)
    assert guessed["doubleTap"] is None  # which column is RULES.md's "Smart destinations": the engine's
    assert guessed["drag"] == [["8S", "7H"], [], [], [], [], [], []]
