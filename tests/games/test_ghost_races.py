"""Ghost races (games/ghosts.py): a new casual game on a finished game's deal, whose
recorded moves come back at their original pace; the ghost's board names only the
cards face up in the player's own game, and never shows a moment ahead of the clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from engine import Game as EngineGame
from engine.cards import parse_card
from engine.views import UNSEEN, card_mask, public_view, redact_view
from games import services
from games.models import Game, Move
from races import services as races
from tests.matchmaking.helpers import client_for, player, stock_deals
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)


def recorded_game(user, moves: int, seconds_apart: float = 2.0) -> Game:
    """A finished game whose moves were made ``seconds_apart`` from each other."""
    game_id = new_game(user, DEAL)
    for seq in range(1, moves + 1):
        submit(game_id, user, legal_moves(game_id)[0], seq)
    services.resign(game_id, services.Actor(user_id=user.pk))
    game = Game.objects.get(pk=game_id)
    start = game.started_at
    for row in Move.objects.filter(game=game):
        Move.objects.filter(pk=row.pk).update(created_at=start + timedelta(seconds=seconds_apart * (row.seq - 1)))
    return game


def test_a_ghost_race_is_a_casual_game_on_the_recorded_deal():
    alice, _ = player("alice")
    bob, bob_token = player("bob")
    ghost = recorded_game(alice, 4)
    made = client_for(bob_token).post("/api/games/", {"ghost": str(ghost.id)}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["code"] == DEAL and body["kind"] == "casual" and body["yours"]
    assert body["ghost"] == {"game": str(ghost.id), "owner": "alice", "status": "resigned", "seconds": ghost.seconds,
                             "score": ghost.score, "moves": ghost.moves, "foundation_count": ghost.foundation_count}


def test_the_ghost_comes_back_at_its_original_pace_and_names_only_cards_the_player_has_seen():
    alice, _ = player("alice")
    bob, bob_token = player("bob")
    ghost = recorded_game(alice, 6)
    client = client_for(bob_token)
    game_id = client.post("/api/games/", {"ghost": str(ghost.id)}, format="json").json()["id"]
    before = client.get(f"/api/games/{game_id}/ghost", {"at": "0"}).json()
    assert before["seq"] == 0 and before["next_at"] == 0.0  # the opening deal; its first move comes at once
    first = client.get(f"/api/games/{game_id}/ghost", {"at": "0.1"}).json()
    assert first["seq"] == 1 and first["next_at"] == 2.0
    mid = client.get(f"/api/games/{game_id}/ghost", {"at": "5.5"}).json()
    assert mid["seq"] == 3 and mid["next_at"] == 6.0 and mid["status"] == "live"
    engine = EngineGame.new(DEAL)
    for row in Move.objects.filter(game=ghost, seq__lte=3).order_by("seq"):
        engine.apply_json(row.action)
    truth = public_view(engine)
    mine = Game.objects.get(pk=game_id)
    # The ghost's board at 5.5 s is its public view after 3 events, with every card bob
    # has not had face up in his own game as "??".
    assert mid["view"] == redact_view(truth, mine.cards_seen)
    shown = [c for column in mid["view"]["tableau"] for c in column["up"]] + mid["view"]["waste"]["visible"]
    assert UNSEEN in shown  # the ghost has drawn cards bob has not seen
    for card in shown:
        assert card == UNSEEN or mine.cards_seen & card_mask([parse_card(card)])
    assert mid["view"]["stock"] == {"count": truth["stock"]["count"]}  # a count, never the cards
    end = client.get(f"/api/games/{game_id}/ghost", {"at": "60"}).json()
    assert end["seq"] == ghost.seq and end["status"] == "resigned" and end["next_at"] is None


def test_only_the_player_asks_and_only_finished_public_games_are_raced():
    stock_deals()
    alice, alice_token = player("alice")
    bob, bob_token = player("bob")
    ghost = recorded_game(alice, 2)
    game_id = client_for(bob_token).post("/api/games/", {"ghost": str(ghost.id)}, format="json").json()["id"]
    other = client_for(alice_token).get(f"/api/games/{game_id}/ghost", {"at": "1"})
    assert other.status_code == 403 and other.json()["error"] == "not_your_game"
    live = new_game(alice, DEAL)
    refused = client_for(bob_token).post("/api/games/", {"ghost": live}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "ghost_unavailable"
    race = races.start_race_now([alice, bob], draw=1, scoring="normal")
    racing = str(race.entries.get(user=alice).game_id)
    races.Race.objects.filter(pk=race.id).update(starts_at=race.created_at)
    submit(racing, alice, legal_moves(racing)[0], 1)
    races.resign_race(race.id, alice)
    carol, carol_token = player("carol")
    during = client_for(carol_token).post("/api/games/", {"ghost": racing}, format="json")
    assert during.status_code == 409 and during.json()["error"] == "ghost_unavailable"  # its race still runs
    not_ghost = client_for(bob_token).get(f"/api/games/{live}/ghost", {"at": "1"})
    assert not_ghost.status_code == 403


@pytest.mark.parametrize("body", [{"ghost": 5}, {"ghost": "nope"},
                                  {"ghost": "00000000-0000-4000-8000-000000000000", "code": DEAL}])
def test_bad_ghost_requests_are_refused(body):
    _, token = player("bob")
    response = client_for(token).post("/api/games/", body, format="json")
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert not Game.objects.exists()


@pytest.mark.parametrize("at", ["-1", "abc", "1e9", "90000", "", "nan", "inf", "1_0"])
def test_a_bad_moment_is_refused(at):
    alice, _ = player("alice")
    bob, bob_token = player("bob")
    ghost = recorded_game(alice, 2)
    game_id = client_for(bob_token).post("/api/games/", {"ghost": str(ghost.id)}, format="json").json()["id"]
    response = client_for(bob_token).get(f"/api/games/{game_id}/ghost", {"at": at})
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert APIClient().get(f"/api/games/{game_id}/ghost").status_code in (400, 403)
