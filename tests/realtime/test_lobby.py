"""The lobby (realtime/lobby.py) lists games being played, with their spectators; a game
idle for LOBBY_IDLE_SECONDS leaves it and one left for GAME_ABANDON_HOURS is abandoned
(an event like a resignation); a full race offers no seat; the top live games put
rated, watched and close races first. Real PostgreSQL and Redis (presence)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Game, Move
from leaderboards.models import VegasBalance
from races import services as races
from races.models import Race
from realtime import lobby as lobby_module
from realtime.presence import presence
from realtime.publishing import race_group
from tests.matchmaking.helpers import player, stock_deals
from tests.realtime_helpers import DEAL, new_game, reset_process_state, submit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_lobby():
    lobby_module.forget()
    reset_process_state()
    yield
    lobby_module.forget()
    reset_process_state()


def lobby() -> dict:
    return APIClient().get("/api/lobby").json()


def listed(game_id: str) -> bool:
    return any(g["id"] == game_id for g in lobby()["games"])


def test_a_game_idle_for_a_while_leaves_the_list_and_comes_back_when_played(settings):
    alice, _ = player("alice")
    game_id = new_game(alice, DEAL)
    assert listed(game_id)
    Game.objects.filter(pk=game_id).update(last_move_at=timezone.now() - timedelta(seconds=settings.LOBBY_IDLE_SECONDS + 1))
    assert not listed(game_id)
    submit(game_id, alice, {"type": "draw"}, 1)
    assert listed(game_id)


def test_a_game_left_for_long_is_abandoned_with_an_event_and_keeps_its_vegas_stake(settings):
    alice, _ = player("alice")
    vegas = str(services.create_game(services.Actor(user_id=alice.pk), scoring="vegas").id)
    casual = new_game(alice, DEAL)
    submit(casual, alice, {"type": "draw"}, 1)
    stake = VegasBalance.objects.get(user=alice).balance
    assert stake == -52
    long_ago = timezone.now() - timedelta(hours=settings.GAME_ABANDON_HOURS, seconds=1)
    Game.objects.filter(pk__in=[vegas, casual]).update(last_move_at=long_ago)
    lobby()  # the lobby's sweep
    for game_id, seq in ((vegas, 1), (casual, 2)):
        game = Game.objects.get(pk=game_id)
        assert game.status == Game.Status.ABANDONED and game.seq == seq and game.finished_at
        assert Move.objects.get(game=game, seq=seq).action == {"type": "abandon"}
    assert VegasBalance.objects.get(user=alice).balance == stake  # the stake stays paid
    with pytest.raises(services.ServiceError) as over:
        services.submit_move(casual, services.Actor(user_id=alice.pk), {"type": "draw"}, 3)
    assert over.value.code == "game_over"


def test_recent_games_and_race_games_are_not_abandoned(settings):
    stock_deals()
    (alice, _), (bob, _) = player("alice"), player("bob")
    recent = new_game(alice, DEAL)
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    long_ago = timezone.now() - timedelta(hours=settings.GAME_ABANDON_HOURS + 1)
    Game.objects.filter(race=race).update(last_move_at=long_ago)
    assert services.abandon_idle() == 0
    assert Game.objects.get(pk=recent).status == Game.Status.LIVE
    assert set(Game.objects.filter(race=race).values_list("status", flat=True)) == {"live"}


def test_statistics_count_abandoned_games_apart():
    alice, _ = player("alice")
    won_nothing = new_game(alice, DEAL)
    services.resign(won_nothing, services.Actor(user_id=alice.pk))
    left = new_game(alice, DEAL)
    Game.objects.filter(pk=left).update(last_move_at=timezone.now() - timedelta(days=30))
    services.abandon_idle()
    profile = APIClient().get("/api/players/alice").json()
    assert (profile["games"], profile["finished"], profile["wins"], profile["abandoned"]) == (2, 1, 0, 1)
    mode = APIClient().get("/api/players/alice/stats").json()["modes"][0]
    assert (mode["games"], mode["wins"], mode["win_rate"], mode["abandoned"]) == (1, 0, 0.0, 1)


def test_spectators_are_counted_and_a_full_race_says_so():
    (alice, _), (bob, _) = player("alice"), player("bob")
    game_id = new_game(alice, DEAL)
    race = races.create_race(alice, max_players=2)

    async def watch() -> None:
        await presence().join(game_id, "spectator-1")
        await presence().join(game_id, "spectator-2")
        await presence().join(race_group(race.id), "spectator-3")

    asyncio.run(watch())
    reset_process_state()
    data = lobby()
    assert next(g for g in data["games"] if g["id"] == game_id)["watchers"] == 2
    line = next(r for r in data["races"] if r["id"] == str(race.id))
    assert line["watchers"] == 1 and line["full"] is False
    races.join_race(race.id, bob)
    assert next(r for r in lobby()["races"] if r["id"] == str(race.id))["full"] is True


def test_the_top_live_games_put_a_close_rated_race_first():
    stock_deals()
    (alice, _), (bob, _) = player("alice", 1900), player("bob", 1880)
    carol, _ = player("carol", 1400)
    new_game(carol, DEAL)
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now() - timedelta(seconds=1))
    top = lobby()["top"]
    assert [pick["kind"] for pick in top] == ["race", "game"]
    first = top[0]
    assert first["id"] == str(race.id) and first["watch"] == f"/races/{race.id}/"
    assert first["rating"] == 1890 and first["closeness"] == 1.0
    assert sorted(p["player"] for p in first["players"]) == ["alice", "bob"]
    assert top[1]["title"] == "carol" and top[1]["watch"].startswith("/watch/")
