"""Challenges (matchmaking.challenges) over REST: a named player or a link, accepted,
declined, cancelled or expired; the race starts the moment one is accepted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from matchmaking.models import Challenge, QueueTicket
from races.models import Race
from tests.matchmaking.helpers import client_for, player, stock_deals

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def players():
    stock_deals()
    return {name: client_for(player(name, 1500)[1]) for name in ("alice", "bob", "carol")}


def challenge(client, **body):
    return client.post("/api/challenges/", body, format="json")


def test_a_named_challenge_accepted_starts_a_race_of_the_two(players):
    made = challenge(players["alice"], username="bob", draw=3, scoring="vegas", rated=False, time_limit=300)
    assert made.status_code == 201
    body = made.json()
    assert body["challenger"] == "alice" and body["challenged"] == "bob" and body["status"] == "pending"
    assert players["bob"].get("/api/challenges/").json()["received"][0]["id"] == body["id"]
    assert players["alice"].get("/api/challenges/").json()["sent"][0]["id"] == body["id"]
    stock_deals(draw=3, scoring="vegas", first=9600)
    accepted = players["bob"].post(f"/api/challenges/{body['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    race = Race.objects.get(pk=accepted.json()["race"])
    assert race.status == Race.Status.STARTED and not race.rated and race.time_limit == 300
    assert (race.draw, race.scoring) == (3, "vegas")
    assert sorted(e.user.username for e in race.entries.all()) == ["alice", "bob"]
    assert players["bob"].get("/api/challenges/").json() == {"received": [], "sent": []}


def test_only_the_named_player_may_accept(players):
    body = challenge(players["alice"], username="bob").json()
    refused = players["carol"].post(f"/api/challenges/{body['id']}/accept")
    assert refused.status_code == 403 and refused.json()["error"] == "not_challenged"
    own = players["alice"].post(f"/api/challenges/{body['id']}/accept")
    assert own.status_code == 409 and own.json()["error"] == "own_challenge"
    assert Race.objects.count() == 0


def test_a_link_challenge_is_accepted_by_whoever_opens_it_first(players):
    body = challenge(players["alice"]).json()
    assert body["challenged"] is None
    assert APIClient().get(f"/api/challenges/{body['id']}/").json()["challenger"] == "alice"
    accepted = players["carol"].post(f"/api/challenges/{body['id']}/accept").json()
    assert accepted["challenged"] == "carol" and accepted["race"]
    late = players["bob"].post(f"/api/challenges/{body['id']}/accept")
    assert late.status_code == 409 and late.json()["error"] == "challenge_accepted"
    assert late.json()["race"] == accepted["race"]


def test_declined_and_cancelled_challenges_cannot_be_accepted(players):
    declined = challenge(players["alice"], username="bob").json()
    assert players["alice"].post(f"/api/challenges/{declined['id']}/decline").status_code == 403
    assert players["bob"].post(f"/api/challenges/{declined['id']}/decline").json()["status"] == "declined"
    again = players["bob"].post(f"/api/challenges/{declined['id']}/accept")
    assert again.status_code == 409 and again.json()["error"] == "challenge_declined"
    cancelled = challenge(players["alice"], username="bob").json()
    assert players["bob"].post(f"/api/challenges/{cancelled['id']}/cancel").status_code == 403
    assert players["alice"].post(f"/api/challenges/{cancelled['id']}/cancel").json()["status"] == "cancelled"
    assert players["bob"].post(f"/api/challenges/{cancelled['id']}/accept").json()["error"] == "challenge_cancelled"
    assert Race.objects.count() == 0


def test_a_challenge_expires(players):
    body = challenge(players["alice"], username="bob").json()
    Challenge.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    refused = players["bob"].post(f"/api/challenges/{body['id']}/accept")
    assert refused.status_code == 409 and refused.json()["error"] == "challenge_expired"
    assert players["alice"].get(f"/api/challenges/{body['id']}/").json()["status"] == "expired"
    assert players["bob"].get("/api/challenges/").json()["received"] == []


def test_accepting_takes_both_players_out_of_the_quick_match_queue(players):
    body = challenge(players["alice"], username="bob").json()
    players["bob"].post("/api/matchmaking/", {}, format="json")
    assert QueueTicket.objects.count() == 1
    players["bob"].post(f"/api/challenges/{body['id']}/accept")
    assert not QueueTicket.objects.exists()


def test_a_racing_player_cannot_accept_or_challenge(players):
    first = challenge(players["alice"], username="bob").json()
    players["bob"].post(f"/api/challenges/{first['id']}/accept")
    busy = challenge(players["alice"], username="carol")
    assert busy.status_code == 409 and busy.json()["error"] == "already_racing"
    link = challenge(players["carol"]).json()
    refused = players["bob"].post(f"/api/challenges/{link['id']}/accept")
    assert refused.status_code == 409 and refused.json()["error"] == "already_racing"
    assert Race.objects.count() == 1


@pytest.mark.parametrize("body, status, code", [
    ({"username": "nobody"}, 404, "not_found"),
    ({"username": "alice"}, 409, "own_challenge"),
    ({"username": 5}, 400, "invalid"),
    ({"draw": 2}, 400, "invalid"),
    ({"time_limit": 10}, 400, "invalid"),
])
def test_bad_challenges_are_refused(players, body, status, code):
    response = challenge(players["alice"], **body)
    assert response.status_code == status and response.json()["error"] == code
    assert not Challenge.objects.exists()


def test_an_unknown_challenge_is_404(players):
    response = players["alice"].post("/api/challenges/00000000-0000-0000-0000-000000000000/accept")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
