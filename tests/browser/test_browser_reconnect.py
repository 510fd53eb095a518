"""A dropped socket: the server goes away mid-game (every WebSocket drops), the game goes
on meanwhile from elsewhere, the server comes back; the page reconnects with
?since=<last seq>, shows what it missed and plays on, without a page reload."""

import json
import subprocess
import sys

import pytest

from tests.browser_helpers import (  # noqa: F401 (fixtures)
    ROOT, card, chromium, daphne_server, diagnose, drag_card, new_page, shot, sign_up, wait_seq, winnable_deal,
)

pytestmark = pytest.mark.django_db(transaction=True)


ELSEWHERE = """
import json, sys
import django
django.setup()
from accounts.models import User
from games.models import Game
from games.services import Actor, submit_move
user = User.objects.get(username=sys.argv[1])
game = Game.objects.get(owner=user)
submit_move(game.id, Actor(user_id=user.pk), json.loads(sys.argv[2]), int(sys.argv[3]))
"""


def play_elsewhere(server, username, move, seq):
    """The same player moves from another device while the page is cut off: a separate
    process on the same database (and channel layer)."""
    subprocess.run([sys.executable, "-c", ELSEWHERE, username, json.dumps(move), str(seq)],
                   cwd=ROOT, env=server.env, check=True, timeout=60)


def test_a_dropped_socket_reconnects_and_resumes(chromium, daphne_server):
    code, line = winnable_deal(draw=1)
    context, page, errors = new_page(chromium, daphne_server, "player")
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    with diagnose("reconnect", errors):
        sign_up(page, "rita")
        page.fill("#code-input", code)
        page.click("#play-code button[type=submit]")
        page.wait_for_url("**/games/**")
        wait_seq(page, 0)
        page.evaluate("window.__sameDocument = true")

        # Three moves through the page.
        for seq, move in enumerate(line[:3], start=1):
            if move["type"] in ("draw", "recycle"):
                page.click("[data-testid=stock]")
            elif move["to"] == "foundation":
                card(page, move["card"]).click()
            else:
                drag_card(page, move["card"], move["to"])
            wait_seq(page, seq)

        # The server goes away: the page says so and keeps trying.
        daphne_server.stop()
        page.wait_for_selector("#connection[data-status=reconnecting]")
        shot(page, "reconnect-lost")

        # Meanwhile the game goes on from another device (event 4).
        play_elsewhere(daphne_server, "rita", line[3], 4)

        # Back up: the page catches up from where it was, then plays on.
        daphne_server.start()
        wait_seq(page, 4, timeout=30000)
        page.wait_for_selector("#connection[data-status=open]", state="attached")
        assert page.evaluate("window.__sameDocument") is True  # no reload
        resumed = [url for url in sockets if "/ws/games/" in url][1:]
        assert resumed and all(url.endswith("?since=3") for url in resumed[:1]), sockets
        if line[3]["type"] == "move":
            to = line[3]["to"]
            pile = card(page, line[3]["card"]).get_attribute("data-pile")
            assert pile == to or (to == "foundation" and pile.startswith("f")), (pile, line[3])

        move = line[4]
        if move["type"] in ("draw", "recycle"):
            page.click("[data-testid=stock]")
        elif move["to"] == "foundation":
            card(page, move["card"]).click()
        else:
            drag_card(page, move["card"], move["to"])
        wait_seq(page, 5)
        assert page.locator("#moves").inner_text() == "5"
        shot(page, "reconnect-resumed")
        errors.check()

    from games.models import Game

    assert Game.objects.get().seq == 5
    context.close()
