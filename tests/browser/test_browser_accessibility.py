"""Accessibility in Chromium: axe-core (WCAG 2.1 A and AA, and WCAG 2.5.3's label in
name) finds no violation on any page of the web app, on a desktop and on a phone, in
the states people meet them (a guest, a player, a spectator; a race open, running and
finished; a replay; a challenge; a shared deal), and every page has a meta
description. The API reference (/api/docs/, Swagger UI's own page) is not part of the
web app and is not checked."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from matchmaking import challenges
from races import services as races
from races.models import Race
from tests.accessibility import problems
from tests.browser_helpers import chromium, daphne_server, new_page, sign_up  # noqa: F401
from tests.matchmaking.helpers import player, stock_deals
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)

SCREENS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def finished_game(user) -> str:
    game_id = new_game(user, DEAL)
    for seq in (1, 2, 3):
        submit(game_id, user, legal_moves(game_id)[0], seq)
    services.resign(game_id, services.Actor(user_id=user.pk))
    return game_id


def note(page, found: list[str], label: str) -> None:
    """The page as it is now: its problems, if any, under ``label``."""
    text = problems(page)
    if text:
        found.append(f"{label}:\n{text}")


def check(page, path: str, ready: str, found: list[str], label: str) -> None:
    page.goto(path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    note(page, found, f"{label} {path}")


@pytest.mark.parametrize("screen", SCREENS)
def test_every_page_passes_axe(chromium, daphne_server, screen):
    stock_deals()
    (alice, _), (bob, _) = player("alice", 1600), player("bob", 1550)
    live = new_game(alice, DEAL)
    done = finished_game(alice)
    running = races.start_race_now([alice, bob], draw=1, scoring="normal")
    Race.objects.filter(pk=running.id).update(starts_at=timezone.now() - timedelta(seconds=1))
    over = races.start_race_now([alice, bob], draw=1, scoring="normal", rated=False)
    races.finish_race(over.id, force=True)
    erin, _ = player("erin", 1500)  # not racing: she may challenge
    link = challenges.create(erin)
    waiting = races.create_race(player("frank")[0], max_players=3)
    found: list[str] = []
    ctx, page, errors = new_page(chromium, daphne_server, f"a11y-{screen}", viewport=SCREENS[screen])

    # A guest.
    guest_pages = [
        ("/", "#top-games li, #top-games .empty"), (f"/watch/{live}/", "#board [data-card]"),
        (f"/races/{waiting.id}/", "#players li"), (f"/races/{running.id}/", ".opponent [data-card]"), (f"/races/{over.id}/", "[data-testid=race-results]"),
        (f"/races/{over.id}/replay/", "section[data-player] [data-card]"), (f"/replays/{done}/", "#move-list li"),
        (f"/challenges/{link.id}/", "text=Log in to accept"), (f"/deals/{DEAL}/", "#play-deal"),
        ("/leaderboards/", "#table table, #table .empty"), ("/leaderboards/?tab=vegas", "#vegas-note"),
        ("/leaderboards/?tab=races", "#table table, #table .empty"),
        (f"/leaderboards/?tab=deal&code={DEAL}", "#table table, #table .empty"),
        ("/players/alice/", "#modes table"), ("/players/nobody/", "[data-testid=profile-missing]"),
        ("/signup/", "#auth-form"), ("/login/", "#auth-form"), ("/forgot/", "form"), ("/reset/", "main"),
        ("/verify-email/", "main"),
    ]
    for path, ready in guest_pages:
        check(page, path, ready, found, "guest")

    # A player: their game, a race, the home page with challenges and the queue.
    sign_up(page, "carol")
    challenges.create(erin, username="carol")
    check(page, "/", "[data-testid=challenges-received] li", found, "player")
    page.click("[data-testid=race-now]")
    page.wait_for_selector("#queue-status:has-text('Looking for an opponent')")
    note(page, found, "player / (waiting)")
    page.click("#cancel-queue")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/games/**")
    page.wait_for_selector("#board [data-card]")
    note(page, found, "player own game")
    page.click("#resign")
    page.click("#resign:has-text('Really')")
    page.wait_for_selector("#result:not([hidden])")
    note(page, found, "player finished game")
    check(page, "/account/", "main form", found, "player")
    check(page, f"/challenges/{link.id}/", "button:has-text('Accept')", found, "player")
    check(page, "/players/erin/", "[data-testid=challenge]", found, "player")
    errors.check()
    ctx.close()
    assert not found, "\n\n".join(found)
