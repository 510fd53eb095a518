"""A two-player race with a spectator, in three browser contexts: the lobby lists the
race, the players join and get ready, the countdown runs, each sees the other's board
live, the spectator sees both boards and is counted, and everyone gets the results."""

import pytest

from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot, sign_up, wait_seq  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_race_with_two_players_and_a_spectator(chromium, daphne_server):
    ctx_a, alice, errors_a = new_page(chromium, daphne_server, "alice")
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob", viewport={"width": 1024, "height": 800})
    ctx_s, spectator, errors_s = new_page(chromium, daphne_server, "spectator", viewport={"width": 1280, "height": 800})
    with diagnose("race", errors_a, errors_b, errors_s):
        sign_up(alice, "alice")
        sign_up(bob, "bob")

        # Alice opens a race from the lobby.
        alice.click("#new-race-box summary")
        alice.fill("#new-race [name=max_players]", "2")
        alice.fill("#new-race [name=minutes]", "3")
        alice.click("#new-race button[type=submit]")
        alice.wait_for_url("**/races/**")
        alice.wait_for_selector("#players li[data-player=alice]")

        # Bob finds it in the lobby and joins; a guest comes to watch.
        bob.goto("/")
        bob.click("[data-testid=races] a:has-text('Join')")
        bob.wait_for_url("**/races/**")
        bob.click("button:has-text('Join race')")
        spectator.goto("/")
        spectator.click("[data-testid=races] a")
        spectator.wait_for_url("**/races/**")
        spectator.wait_for_selector("text=Log in to race")
        for page in (alice, bob, spectator):
            page.wait_for_selector("#players li[data-player=bob]")
        # The spectator is counted (the count is pushed to everyone in the room).
        spectator.wait_for_function("() => Number(document.querySelector('#watchers').textContent) >= 1")
        shot(spectator, "race-lobby-spectator")

        alice.click("button:has-text(\"I'm ready\")")
        bob.wait_for_selector("#players li[data-player=alice] .ready-yes")
        bob.click("button:has-text(\"I'm ready\")")
        for page in (alice, bob, spectator):
            page.wait_for_selector("#phase[data-phase=countdown], #phase[data-phase=running]")
        alice.wait_for_selector("#my-area:not([hidden]) #board [data-testid=stock]")
        wait_seq(alice, 0)  # her game's socket is up
        seconds_left = alice.evaluate("Number(document.querySelector('#race-clock.countdown')?.textContent || 0)")
        if seconds_left >= 2:
            # During the countdown a move is refused with the server's reason and snaps back
            # (unless a slow machine let the countdown run out meanwhile).
            alice.click("#board [data-testid=stock]")
            alice.wait_for_function("() => document.querySelector('#message').textContent.includes('not started')"
                                    " || document.querySelector('#board').dataset.seq === '1'")
            if alice.get_attribute("#board", "data-seq") == "0":
                shot(alice, "race-countdown-alice")

        for page in (alice, bob, spectator):
            page.wait_for_selector("#phase[data-phase=running]", timeout=15000)

        # Alice draws three cards; Bob and the spectator see her board move.
        wait_seq(alice, 0)
        base = int(alice.get_attribute("#board", "data-seq"))
        for seq in (base + 1, base + 2, base + 3):
            alice.click("#board [data-testid=stock]")
            wait_seq(alice, seq)
        bob.wait_for_selector(f".opponent[data-player=alice][data-moves='{base + 3}']")
        spectator.wait_for_selector(f".opponent[data-player=alice][data-moves='{base + 3}']")
        assert bob.locator(".opponent").count() == 1  # his own board is the big one
        assert spectator.locator(".opponent").count() == 2
        assert spectator.locator("#my-area").is_hidden()
        wait_seq(bob, 0)
        bob.click("#board [data-testid=stock]")
        wait_seq(bob, 1)
        alice.wait_for_selector(".opponent[data-player=bob][data-moves='1']")
        spectator.wait_for_selector(".opponent[data-player=bob][data-moves='1']")
        shot(alice, "race-running-alice")
        shot(bob, "race-running-bob")
        shot(spectator, "race-running-spectator")

        # Both give up: the race ends and everyone sees the results.
        for page in (alice, bob):
            page.click("#resign")
            page.click("#resign:has-text('Really')")
        for page in (alice, bob, spectator):
            page.wait_for_selector("[data-testid=race-results] tbody tr >> nth=1")
            page.wait_for_selector("#phase[data-phase=finished]")
        rows = spectator.locator("[data-testid=race-results] tbody tr").all_inner_texts()
        assert len(rows) == 2 and rows[0].startswith("1") and rows[1].startswith("2")
        shot(alice, "race-results-alice")
        shot(spectator, "race-results-spectator")
        for errors in (errors_a, errors_b, errors_s):
            errors.check()
    for context in (ctx_a, ctx_b, ctx_s):
        context.close()
