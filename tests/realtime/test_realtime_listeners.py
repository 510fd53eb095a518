"""The socket tier hears the rooms below it (realtime/listeners.py): their domain
events become channel-group news, in the order clients rely on. The service calls
run as a consumer runs them (``collecting_sends``), against real PostgreSQL."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from races import services as races
from races.models import Race
from realtime import publishing
from tests.realtime_helpers import make_user, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def collected(call, *args, **kwargs):
    result, error, sends = publishing.collecting_sends(call)(*args, **kwargs)
    assert error is None, error
    return result, [(group, message["type"]) for group, message in sends], sends


def running_race(*usernames: str) -> tuple[Race, list]:
    users = [make_user(name)[0] for name in usernames]
    race = races.create_race(users[0], rated=False)
    for user in users[1:]:
        races.join_race(race.id, user)
    for user in users:
        races.set_ready(race.id, user)
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now() - dt.timedelta(seconds=1))
    return Race.objects.get(pk=race.id), users


def test_a_new_game_is_news_for_the_lobby_and_its_first_move_for_its_group_and_the_lobby():
    user, _ = make_user("lone")
    game_id, kinds, _ = collected(new_game, user)
    assert kinds == [(publishing.LOBBY_GROUP, "lobby.changed")]
    result, kinds, sends = collected(submit, game_id, user, {"type": "draw"}, 1)
    assert kinds == [(publishing.game_group(game_id), "game.event"), (publishing.LOBBY_GROUP, "lobby.changed")]
    message = sends[0][1]
    assert json.loads(message["text"])["view"] == result["view"] and message["seq"] == 1
    _, kinds, _ = collected(submit, game_id, user, {"type": "draw"}, 2)
    assert kinds == [(publishing.game_group(game_id), "game.event")]


def test_a_vegas_games_stake_tells_the_vegas_board_after_the_lobby():
    user, _ = make_user("gambler")
    _, kinds, _ = collected(new_game, user, code=None, scoring="vegas")
    assert kinds == [(publishing.LOBBY_GROUP, "lobby.changed"), (publishing.board_group("vegas"), "board.changed")]


def test_a_race_starting_is_one_race_change_not_one_lobby_change_per_game():
    first, _ = make_user("first")
    second, _ = make_user("second")
    race = races.create_race(first, rated=False)
    races.join_race(race.id, second)
    races.set_ready(race.id, first)
    _, kinds, sends = collected(races.set_ready, race.id, second)
    assert kinds == [(publishing.race_group(race.id), "race.changed"), (publishing.LOBBY_GROUP, "lobby.changed")]
    assert sends[0][1]["finished"] is False


def test_the_last_racers_event_reaches_the_race_before_the_race_finishes():
    race, (first, second) = running_race("ann", "bob")
    game_id = str(race.entries.get(user=first).game_id)
    _, kinds, sends = collected(submit, game_id, first, {"type": "draw"}, 1)
    assert kinds[:1] == [(publishing.game_group(game_id), "game.event")]
    racer = dict(sends)[publishing.race_group(race.id)]
    assert racer["type"] == "racer.event" and racer["event"]["seq"] == 1 and racer["live"] is True
    assert isinstance(racer["seen"], int) and racer["seen"] > 0
    races.resign_race(race.id, first)
    _, kinds, sends = collected(races.resign_race, race.id, second)
    group = publishing.race_group(race.id)
    race_news = [message for name, message in sends if name == group]
    assert [message["type"] for message in race_news] == ["racer.event", "race.changed"]
    assert race_news[0]["live"] is False and race_news[1]["finished"] is True
    assert Race.objects.get(pk=race.id).status == Race.Status.FINISHED
