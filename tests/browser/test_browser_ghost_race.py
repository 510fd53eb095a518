"""A ghost race in Chromium: from a finished game's replay, race its ghost; the ghost's
board moves beside yours at the recorded pace once you make your first move, names no
card you have not seen, and the result compares your time with the ghost's."""

from datetime import timedelta

import pytest

from games import services
from games.models import Game, Move
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot, sign_up  # noqa: F401
from tests.matchmaking.helpers import player
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def recorded_game(user, moves: int, seconds_apart: float) -> str:
    game_id = new_game(user, DEAL)
    for seq in range(1, moves + 1):
        submit(game_id, user, legal_moves(game_id)[0], seq)
    services.resign(game_id, services.Actor(user_id=user.pk))
    game = Game.objects.get(pk=game_id)
    for row in Move.objects.filter(game=game):
        Move.objects.filter(pk=row.pk).update(
            created_at=game.started_at + timedelta(seconds=seconds_apart * (row.seq - 1)))
    Game.objects.filter(pk=game_id).update(seconds=seconds_apart * moves)
    return game_id


def test_racing_a_ghost(chromium, daphne_server):
    alice, _ = player("alice")
    ghost_id = recorded_game(alice, 8, 0.5)
    ctx, page, errors = new_page(chromium, daphne_server, "bob")
    with diagnose("ghost-race", errors):
        sign_up(page, "bob")
        page.goto(f"/replays/{ghost_id}/")
        page.click("[data-testid=race-ghost]")
        page.wait_for_url("**/games/**")
        page.wait_for_selector("#ghost-area:not([hidden]) h2:has-text('Ghost of alice')")
        page.wait_for_selector("#ghost-line:has-text('Starts with your first move')")
        assert page.get_attribute("#ghost-area", "data-seq") == "0"
        page.wait_for_selector("#board[data-seq='0']")
        page.click("#board [data-testid=stock]")
        # The ghost plays its recorded moves, half a second apart, from bob's first move.
        page.wait_for_function("() => Number(document.querySelector('#ghost-area').dataset.seq) >= 4", timeout=15000)
        texts = page.locator("#ghost-board [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        assert texts and all(len(t) == 2 for t in texts)
        shot(page, "ghost-race")
        page.wait_for_function("() => document.querySelector('#ghost-line').textContent.includes('gave up')",
                               timeout=15000)
        page.click("#resign")
        page.click("#resign:has-text('Really')")
        page.wait_for_selector("[data-testid=ghost-verdict]:has-text('Neither of you won')")
        errors.check()
    ctx.close()
