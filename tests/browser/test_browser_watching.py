"""Watching and sharing in Chromium: the lobby drops a game nobody is playing any
more and lists it again when it is played; the top live games open with one click;
a casual game's shared deal link opens the same deal for someone else."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games.models import Game
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot, sign_up  # noqa: F401
from tests.matchmaking.helpers import player
from tests.realtime_helpers import DEAL, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lobby_drops_an_idle_game_and_top_games_open_with_one_click(chromium, daphne_server):
    alice, _ = player("alice", 1700)
    bob, _ = player("bob", 1450)
    busy = new_game(alice, DEAL)
    idle = new_game(bob, DEAL)
    submit(busy, alice, {"type": "draw"}, 1)
    ctx, page, errors = new_page(chromium, daphne_server, "visitor")
    with diagnose("lobby-idle", errors):
        page.goto("/")
        page.wait_for_selector(f"[data-testid=live-games] li[data-game='{idle}']")
        page.wait_for_selector(f"[data-testid=live-games] li[data-game='{busy}']")
        # Bob stops playing: after LOBBY_IDLE_SECONDS his game leaves the list; the open
        # page gets the new list within the lobby socket's periodic refresh (15 s).
        Game.objects.filter(pk=idle).update(
            last_move_at=timezone.now() - timedelta(seconds=settings.LOBBY_IDLE_SECONDS + 1))
        page.wait_for_selector(f"[data-testid=live-games] li[data-game='{idle}']", state="detached", timeout=25000)
        assert page.locator(f"[data-testid=live-games] li[data-game='{busy}']").count() == 1
        shot(page, "lobby-without-idle-game")
        # The top live games: Alice (the higher rating) first; one click to watch.
        first = page.locator("[data-testid=top-games] li").first
        assert "alice" in first.inner_text()
        first.locator("a:has-text('Watch')").click()
        page.wait_for_url(f"**/watch/{busy}/")
        page.wait_for_selector("#board [data-card]")
        errors.check()
    ctx.close()


def test_a_shared_deal_link_opens_the_same_deal(chromium, daphne_server):
    ctx_a, alice, errors_a = new_page(chromium, daphne_server, "alice")
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob", viewport={"width": 390, "height": 844})
    ctx_a.grant_permissions(["clipboard-read", "clipboard-write"], origin=daphne_server.url)
    with diagnose("shared-deal", errors_a, errors_b):
        sign_up(alice, "alice")
        alice.fill("#code-input", DEAL)
        alice.click("#play-code button[type=submit]")
        alice.wait_for_url("**/games/**")
        alice.wait_for_selector("#deal-line:not([hidden])")
        assert alice.inner_text("#deal-code") == DEAL
        alice.click("#share-deal")
        alice.wait_for_selector(".toast:has-text('Link to this deal copied')")
        link = alice.evaluate("() => navigator.clipboard.readText()")
        assert link.endswith(f"/deals/{DEAL}/")
        alice_columns = alice.locator("#board [data-card]").evaluate_all("els => els.map(e => e.dataset.card).sort()")
        bob.goto(link)
        bob.wait_for_selector(f"[data-testid=shared-code]:has-text('{DEAL}')")
        bob.click("#play-deal")
        bob.wait_for_url("**/games/**")
        bob.wait_for_selector("#board [data-card]")
        assert bob.inner_text("#deal-code") == DEAL
        bob_columns = bob.locator("#board [data-card]").evaluate_all("els => els.map(e => e.dataset.card).sort()")
        assert bob_columns == alice_columns  # the same seven cards face up
        for errors in (errors_a, errors_b):
            errors.check()
    for context in (ctx_a, ctx_b):
        context.close()


def test_an_unknown_players_page_says_so(chromium, daphne_server):
    ctx, page, errors = new_page(chromium, daphne_server, "visitor")
    with diagnose("unknown-player", errors):
        page.goto("/players/nobody-here/")
        page.wait_for_selector("[data-testid=profile-missing]:has-text('There is no player called')")
        assert page.inner_text("h1") == "No such player"
        assert page.locator(".profile > section:visible").count() == 0
        errors.check()
    ctx.close()
