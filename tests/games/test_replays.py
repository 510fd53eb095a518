"""The replay of a finished game (GET /api/games/<id>/replay): every move with its time
and, with ?views=true, every card after each move, for the replay viewer. Refused while
the game, its race or its daily deal is still going."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from engine import Game as EngineGame
from engine.views import full_view
from races import services as races
from tests.matchmaking.helpers import client_for, player, stock_deals
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def play(game_id: str, user, count: int) -> list[dict]:
    played = []
    for seq in range(1, count + 1):
        move = legal_moves(game_id)[0]
        submit(game_id, user, move, seq)
        played.append(move)
    return played


def test_each_step_shows_every_card_as_the_engine_has_it():
    alice, token = player("alice")
    game_id = new_game(alice, DEAL)
    played = play(game_id, alice, 6)
    submit(game_id, alice, {"type": "undo"}, 7)
    client_for(token).post(f"/api/games/{game_id}/resign", {"seq": 8}, format="json")
    body = APIClient().get(f"/api/games/{game_id}/replay", {"views": "true"}).json()
    assert body["owner"] == "alice" and body["status"] == "resigned" and body["race"] is None
    assert (body["draw"], body["scoring"], body["kind"]) == (1, "normal", "casual")
    assert body["started_at"] and body["finished_at"]
    engine = EngineGame.new(DEAL)
    assert body["start_view"] == full_view(engine)
    actions = played + [{"type": "undo"}]
    for step, action in zip(body["moves"], actions):
        engine.apply_json(action)
        assert step["view"] == full_view(engine)
    assert [m["move"]["type"] for m in body["moves"]][-2:] == ["undo", "resign"]
    assert body["moves"][-1]["view"] == body["moves"][-2]["view"]  # giving up moves no card


def test_without_views_the_answer_stays_small():
    alice, token = player("alice")
    game_id = new_game(alice, DEAL)
    play(game_id, alice, 2)
    client_for(token).post(f"/api/games/{game_id}/resign", {}, format="json")
    body = APIClient().get(f"/api/games/{game_id}/replay").json()
    assert "start_view" not in body and all("view" not in m for m in body["moves"])


@pytest.mark.parametrize("value", ["1", "yes", "True", ""])
def test_a_bad_views_flag_is_refused(value):
    alice, _ = player("alice")
    game_id = new_game(alice, DEAL)
    response = APIClient().get(f"/api/games/{game_id}/replay", {"views": value})
    assert response.status_code == 400 and response.json()["error"] == "invalid"


def test_a_race_game_replays_only_once_the_race_is_over():
    stock_deals()
    (alice, alice_token), (bob, _) = player("alice"), player("bob")
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    game_id = str(race.entries.get(user=alice).game_id)
    races.Race.objects.filter(pk=race.id).update(starts_at=race.created_at)
    races.resign_race(race.id, alice)
    refused = client_for(alice_token).get(f"/api/games/{game_id}/replay", {"views": "true"})
    assert refused.status_code == 409 and refused.json()["error"] == "game_live"
    races.resign_race(race.id, bob)
    races.finish_race(race.id)
    body = APIClient().get(f"/api/games/{game_id}/replay", {"views": "true"}).json()
    assert body["race"] == str(race.id) and body["kind"] == "ranked"
