"""The game page through a database outage, in headless Chromium against a real Daphne
on a PostgreSQL of the test's own (tests/private_postgres.py), stopped and started in
the middle of play: a move refused with database_unavailable stays pending behind the
notice "The server is busy: reconnecting…", is sent again with the same seq once the
database is back, and is stored exactly once; the notice goes when it is acknowledged."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_helpers import PageErrors, diagnose, launch_chromium, require_chromium, shot, wait_seq
from tests.private_postgres import Stack, stack  # noqa: F401 (fixture)
from tests.realtime_helpers import DEAL, Daphne

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

BUSY = "The server is busy: reconnecting…"


@pytest.fixture
def server(stack: Stack) -> Iterator[Daphne]:
    # Static files straight from the apps' folders (no collectstatic), as the other
    # browser tests serve them.
    daphne = stack.daphne(WHITENOISE_USE_FINDERS="true")
    yield daphne
    daphne.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    require_chromium()
    with launch_chromium() as chromium:
        yield chromium



def test_a_move_during_an_outage_waits_behind_a_notice_and_lands_once(stack: Stack, server: Daphne,
                                                                        browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server.http)
    context.set_default_timeout(15000)
    page = context.new_page()
    errors = PageErrors(page, "player")
    sent: list[dict[str, Any]] = []  # the move frames the page sent over its game socket

    def watch(ws: Any) -> None:
        if "/ws/games/" in ws.url:
            ws.on("framesent", lambda payload: sent.append(json.loads(payload)))

    page.on("websocket", watch)
    with diagnose("database-outage", errors):
        # A guest game from the home page's deal-code form.
        page.goto("/")
        page.fill("#code-input", DEAL)
        page.click("#play-code button[type=submit]")
        page.wait_for_url("**/games/**")
        game_id = re.search(r"/games/([^/]+)/", page.url).group(1)
        wait_seq(page, 0)
        page.wait_for_selector("#board .card[data-card]")

        page.click("[data-testid=stock]")
        wait_seq(page, 1)
        page.wait_for_selector("#connection[data-status=open]", state="attached")
        assert page.locator("#connection").inner_text() == ""

        stack.postgres.stop()
        try:
            page.click("[data-testid=stock]")
            page.wait_for_selector("#connection[data-status=retrying]")
            assert page.locator("#connection").inner_text() == BUSY
            # The move is kept, pending, over the confirmed position.
            assert page.get_attribute("#board", "data-seq") == "1"
            assert page.get_attribute("#board", "data-pending") == "1"
            shot(page, "database-outage-busy")
        finally:
            stack.postgres.start()

        # Back: the same move, sent again, is acknowledged and the notice goes.
        wait_seq(page, 2, timeout=60000)
        page.wait_for_selector("#connection[data-status=open]", state="attached")
        assert page.locator("#connection").inner_text() == ""
        assert page.locator("#moves").inner_text() == "2"
        shot(page, "database-outage-recovered")
        errors.check()

    moves = [frame for frame in sent if frame.get("type") == "move"]
    first, again = moves[0], moves[1:]
    assert (first["seq"], first["move"]) == (1, {"type": "draw"})
    # The refused move and every retry of it: one frame, the same seq and id.
    assert len(again) >= 2, moves
    assert {(frame["seq"], frame["id"], json.dumps(frame["move"])) for frame in again} == {
        (2, again[0]["id"], json.dumps({"type": "draw"}))}, moves
    assert stack.postgres.stored_moves(game_id) == [1, 2]
    context.close()

    log = Path(server.log.name).read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    assert "database_unavailable" in log  # the refusal was logged
