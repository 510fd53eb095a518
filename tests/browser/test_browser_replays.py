"""Replays in Chromium: a finished game stepped through with the buttons, the keyboard
and the scrubber, with score and time at each step and a link that opens the same
move; a finished race replayed with both racers side by side in time."""

import pytest

from races import services as races
from races.models import Race
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot  # noqa: F401
from tests.matchmaking.helpers import player, stock_deals
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def played_game(user, moves: int) -> str:
    from games import services

    game_id = new_game(user, DEAL)
    for seq in range(1, moves + 1):
        submit(game_id, user, legal_moves(game_id)[0], seq)
    services.resign(game_id, services.Actor(user_id=user.pk), moves + 1)
    return game_id


def test_stepping_through_a_replay(chromium, daphne_server):
    alice, _ = player("alice")
    game_id = played_game(alice, 5)
    ctx, page, errors = new_page(chromium, daphne_server, "viewer")
    with diagnose("replay", errors):
        page.goto(f"/replays/{game_id}/")
        page.wait_for_selector("#step:has-text('0 of 6')")
        assert page.locator("#move-list li").count() == 6
        assert page.get_attribute("#back", "disabled") is not None
        page.click("#forward")
        page.wait_for_selector("#step:has-text('1 of 6')")
        assert page.locator("#move-list a[aria-current=step]").get_attribute("data-step") == "1"
        page.keyboard.press("ArrowRight")
        page.wait_for_selector("#step:has-text('2 of 6')")
        page.keyboard.press("End")
        page.wait_for_selector("#step:has-text('6 of 6')")
        assert "Gave up" in page.inner_text("#move-list li:last-child")
        page.keyboard.press("Home")
        page.wait_for_selector("#step:has-text('0 of 6')")
        page.locator("#scrub").fill("4")
        page.wait_for_selector("#step:has-text('4 of 6')")
        assert "at=4" in page.url
        page.click("#move-list li:nth-child(3) a")
        page.wait_for_selector("#step:has-text('3 of 6')")
        shot(page, "replay-step-3")
        board_at_3 = page.inner_html("#board")
        # Playing runs to the end by itself.
        page.select_option("#speed", "10")
        page.click("#play")
        page.wait_for_selector("#step:has-text('6 of 6')", timeout=20000)
        page.wait_for_selector("#play:has-text('Play')")
        # A shared link opens the replay at its move.
        other = ctx.new_page()
        other.goto(f"/replays/{game_id}/?at=3")
        other.wait_for_selector("#step:has-text('3 of 6')")
        assert other.locator("#board [data-card]").count() == page.locator("#board [data-card]").count()
        assert other.inner_html("#board").count("data-card") == board_at_3.count("data-card")
        errors.check()
    ctx.close()


def test_a_live_game_has_no_replay_yet(chromium, daphne_server):
    alice, _ = player("alice")
    game_id = new_game(alice, DEAL)
    ctx, page, errors = new_page(chromium, daphne_server, "viewer")
    with diagnose("replay-live", errors):
        page.goto(f"/replays/{game_id}/")
        page.wait_for_selector("#replay-error:has-text('opens once the game is over')")
        assert page.locator("#replay").is_hidden()
    ctx.close()


def test_a_race_replayed_side_by_side(chromium, daphne_server):
    stock_deals()
    (alice, _), (bob, _) = player("alice"), player("bob")
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    Race.objects.filter(pk=race.id).update(starts_at=race.created_at)
    games = {e.user.username: str(e.game_id) for e in race.entries.select_related("user")}
    for seq in (1, 2, 3):
        submit(games["alice"], alice, legal_moves(games["alice"])[0], seq)
    submit(games["bob"], bob, legal_moves(games["bob"])[0], 1)
    races.resign_race(race.id, alice)
    races.resign_race(race.id, bob)
    races.finish_race(race.id)
    ctx, page, errors = new_page(chromium, daphne_server, "viewer", viewport={"width": 1280, "height": 900})
    with diagnose("race-replay", errors):
        page.goto(f"/races/{race.id}/replay/")
        page.wait_for_selector("section[data-player=alice] .board [data-card]")
        assert page.locator("section[data-player]").count() == 2
        assert page.inner_text("section[data-player=bob] .meta") == "Not started"
        page.keyboard.press("End")
        page.wait_for_selector("section[data-player=alice] .meta:has-text('Gave up')")
        page.wait_for_selector("section[data-player=bob] .meta:has-text('Gave up')")
        shot(page, "race-replay-end")
        errors.check()
    ctx.close()
