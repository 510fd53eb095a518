"""The rough edges a new user hit, in Chromium: a guest's pages make no failed request
and log no error; a refusal message goes once the game moves on (an undo); the Moves
counter says undo counts and counts it; on a wide screen the race's boards are boards,
not thumbnails."""

import pytest
from django.utils import timezone

from races import services as races
from races.models import Race
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, wait_seq  # noqa: F401
from tests.matchmaking.helpers import player, stock_deals
from tests.realtime_helpers import DEAL, new_game

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_guests_pages_make_no_failed_request_and_log_no_error(chromium, daphne_server):
    alice, _ = player("alice")
    game_id = new_game(alice, DEAL)
    ctx, page, errors = new_page(chromium, daphne_server, "guest")
    failed, logged = [], []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: logged.append(m.text) if m.type == "error" else None)
    with diagnose("guest-pages", errors):
        for path, ready in (("/", "#top-games"), (f"/watch/{game_id}/", "#board [data-card]"),
                            ("/leaderboards/", "#table"), ("/players/alice/", "#modes"), ("/login/", "#auth-form")):
            page.goto(path)
            page.wait_for_selector(ready)
            page.wait_for_load_state("networkidle")
        assert failed == [] and logged == [], (failed, logged)
        errors.check()
    ctx.close()


def test_a_refusal_goes_when_the_game_moves_on_and_undo_is_counted(chromium, daphne_server):
    ctx, page, errors = new_page(chromium, daphne_server, "player")
    with diagnose("stale-message", errors):
        page.goto("/")
        page.fill("#code-input", DEAL)
        page.click("#play-code button[type=submit]")
        page.wait_for_url("**/games/**")
        wait_seq(page, 0)
        assert "(undo counts too)" in page.inner_text(".stats").lower()
        page.click("#board [data-testid=stock]")
        wait_seq(page, 1)
        # A move the rules refuse: the King of diamonds (t3) cannot go on the Ace of diamonds (t1).
        page.keyboard.press("Escape")
        page.evaluate("() => window.klondike.session.move({type: 'move', card: 'KD', to: 't1'})")
        page.wait_for_selector("#message[data-kind=error]")
        page.click("#undo")
        wait_seq(page, 2)
        page.wait_for_function("() => document.querySelector('#message').textContent === ''")
        assert page.inner_text("#moves") == "2"  # a draw and an undo: both count
        errors.check()
    ctx.close()


def test_opponents_boards_are_boards_on_a_wide_screen(chromium, daphne_server):
    stock_deals()
    (alice, _), (bob, _) = player("alice"), player("bob")
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now())
    ctx, page, errors = new_page(chromium, daphne_server, "spectator", viewport={"width": 1800, "height": 1000})
    with diagnose("wide-race", errors):
        page.goto(f"/races/{race.id}/")
        page.wait_for_selector(".opponent [data-card]")
        width = page.locator(".opponent .card[data-card]").first.bounding_box()["width"]
        assert width >= 80, width
        errors.check()
    ctx.close()
