"""Playing together in Chromium: two browsers press "Race now" and meet in a race they
play, then rematch with one click each; a challenge link accepted; a challenge from a
profile, answered from the home page."""

import pytest

from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot, sign_up, wait_seq  # noqa: F401
from tests.matchmaking.helpers import stock_deals

pytestmark = pytest.mark.django_db(transaction=True)


def both_in_race(alice, bob) -> str:
    alice.wait_for_url("**/races/**")
    bob.wait_for_url("**/races/**")
    assert alice.url == bob.url
    for page in (alice, bob):
        page.wait_for_selector("#my-area:not([hidden]) #board [data-testid=stock]")
        page.wait_for_selector("#phase[data-phase=running]", timeout=20000)
    return alice.url


def test_quick_match_into_a_race_played_then_a_rematch(chromium, daphne_server):
    stock_deals()
    ctx_a, alice, errors_a = new_page(chromium, daphne_server, "alice")
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob", viewport={"width": 1024, "height": 800})
    with diagnose("quick-match", errors_a, errors_b):
        sign_up(alice, "alice")
        sign_up(bob, "bob")
        alice.click("[data-testid=race-now]")
        alice.wait_for_selector("#queue-status:has-text('Looking for an opponent')")
        alice.wait_for_selector("#cancel-queue:visible")
        shot(alice, "quick-match-waiting")
        bob.click("[data-testid=race-now]")
        first = both_in_race(alice, bob)

        # They play: Alice draws, Bob sees her board move.
        wait_seq(alice, 0)
        alice.click("#board [data-testid=stock]")
        wait_seq(alice, 1)
        bob.wait_for_selector(".opponent[data-player=alice][data-moves='1']")
        shot(bob, "quick-match-race")

        # Both give up; each asks for a rematch with one click and both land in a new race.
        for page in (alice, bob):
            page.click("#resign")
            page.click("#resign:has-text('Really')")
        for page in (alice, bob):
            page.wait_for_selector("[data-testid=rematch-button]")
        alice.click("[data-testid=rematch-button]")
        bob.wait_for_selector("[data-testid=rematch]:has-text('alice wants to race again')")
        shot(bob, "rematch-offered")
        bob.click("[data-testid=rematch-button]")
        second = both_in_race(alice, bob)
        assert second != first
        for errors in (errors_a, errors_b):
            errors.check()
    for context in (ctx_a, ctx_b):
        context.close()


def test_a_challenge_link_accepted(chromium, daphne_server):
    stock_deals()
    ctx_a, alice, errors_a = new_page(chromium, daphne_server, "alice")
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob", viewport={"width": 390, "height": 844})
    with diagnose("challenge-link", errors_a, errors_b):
        sign_up(alice, "alice")
        alice.click("#challenge-box summary")
        alice.click("#challenge-form button[type=submit]")
        alice.wait_for_url("**/challenges/**")
        link = alice.input_value("[data-testid=challenge-link]")
        assert link == alice.url
        shot(alice, "challenge-link")
        sign_up(bob, "bob")
        bob.goto(link)
        bob.wait_for_selector("text=alice challenges anyone with this link")
        shot(bob, "challenge-link-bob")
        bob.click("button:has-text('Accept')")
        both_in_race(alice, bob)
        for errors in (errors_a, errors_b):
            errors.check()
    for context in (ctx_a, ctx_b):
        context.close()


def test_a_challenge_from_a_profile_declined_then_accepted(chromium, daphne_server):
    stock_deals()
    ctx_a, alice, errors_a = new_page(chromium, daphne_server, "alice")
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob")
    with diagnose("challenge-profile", errors_a, errors_b):
        sign_up(alice, "alice")
        sign_up(bob, "bob")
        alice.goto("/players/bob/")
        alice.click("[data-testid=challenge]")
        alice.wait_for_selector("text=Waiting for bob to answer")
        bob.wait_for_selector("[data-testid=challenges-received] li:has-text('alice')")
        bob.click("[data-testid=challenges-received] button:has-text('Decline')")
        alice.wait_for_selector("[data-testid=challenge-status]:has-text('declined')")
        bob.wait_for_selector("[data-testid=challenges-received]", state="detached")
        alice.goto("/players/bob/")
        alice.click("[data-testid=challenge]")
        alice.wait_for_selector("text=Waiting for bob to answer")
        bob.click("[data-testid=challenges-received] button:has-text('Accept')")
        both_in_race(alice, bob)
        for errors in (errors_a, errors_b):
            errors.check()
    for context in (ctx_a, ctx_b):
        context.close()
