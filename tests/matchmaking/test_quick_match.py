"""Quick match over REST and the service (matchmaking.services): the shared queue in
PostgreSQL, waves that pair by Glicko-2 rating, races that start at once on a
proven-winnable deal, one match at a time per player."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine import DealCode
from games.models import SolvedDeal
from matchmaking import services as matchmaking
from matchmaking.models import QueueTicket
from races import services as races
from races.models import Race
from tests.matchmaking.helpers import client_for, player, stock_deals

pytestmark = pytest.mark.django_db(transaction=True)


def queue(client, **body):
    return client.post("/api/matchmaking/", body, format="json")


def test_two_waiting_players_are_matched_into_a_started_rated_race_on_a_winnable_deal():
    numbers = stock_deals()
    alice, alice_token = player("alice", 1500)
    bob, bob_token = player("bob", 1550)
    a, b = client_for(alice_token), client_for(bob_token)
    first = queue(a, draw=1, scoring="normal")
    assert first.status_code == 200 and first.json()["state"] == "waiting"
    assert first.json()["rating"] == 1500 and first.json()["range"] >= 150
    second = queue(b, draw=1, scoring="normal").json()
    assert second["state"] == "matched"
    race = Race.objects.get(pk=second["race"])
    assert a.get("/api/matchmaking/").json() == {**a.get("/api/matchmaking/").json(), "state": "matched",
                                                  "race": str(race.id)}
    assert race.status == Race.Status.STARTED and race.rated and race.draw == 1 and race.scoring == "normal"
    assert sorted(e.user.username for e in race.entries.all()) == ["alice", "bob"]
    deal = DealCode.parse(race.code)
    assert deal.number in numbers
    assert SolvedDeal.objects.get(draw=1, scoring="normal", deal_number=deal.number).handed_out_at is not None
    assert len({e.game.code for e in race.entries.all()}) == 1


def test_players_of_different_modes_are_not_matched():
    stock_deals()
    stock_deals(draw=3, first=9500)
    _, alice_token = player("alice", 1500)
    _, bob_token = player("bob", 1500)
    assert queue(client_for(alice_token), draw=1, scoring="normal").json()["state"] == "waiting"
    assert queue(client_for(bob_token), draw=3, scoring="normal").json()["state"] == "waiting"
    assert Race.objects.count() == 0


def test_far_ratings_wait_until_the_range_has_widened():
    stock_deals()
    alice, alice_token = player("alice", 1200)
    _, bob_token = player("bob", 1700)
    queue(client_for(alice_token))
    assert queue(client_for(bob_token)).json()["state"] == "waiting"
    # 500 points apart: each must have waited (500 - 150) / 40 = 8.75 s.
    QueueTicket.objects.update(queued_at=timezone.now() - timedelta(seconds=8))
    assert matchmaking.match_waiting() == []
    QueueTicket.objects.update(queued_at=timezone.now() - timedelta(seconds=9))
    started = matchmaking.match_waiting()
    assert len(started) == 1 and client_for(alice_token).get("/api/matchmaking/").json()["race"] == started[0]


def test_players_who_queue_within_one_wave_race_together():
    stock_deals()
    for i in range(3):
        matchmaking.enqueue(player(f"p{i}", 1500 + 20 * i)[0], 1, "normal")
    started = matchmaking.match_waiting()
    assert len(started) == 1
    assert Race.objects.get(pk=started[0]).entries.count() == 3


def test_a_player_in_a_race_cannot_queue_and_a_matched_player_is_in_one_race_only():
    stock_deals()
    alice, alice_token = player("alice", 1500)
    _, bob_token = player("bob", 1500)
    _, carol_token = player("carol", 1500)
    a = client_for(alice_token)
    queue(a)
    race_id = queue(client_for(bob_token)).json()["race"]
    refused = queue(a)
    assert refused.status_code == 409 and refused.json()["error"] == "already_racing"
    assert refused.json()["race"] == race_id
    assert queue(client_for(carol_token)).json()["state"] == "waiting"
    assert matchmaking.match_waiting() == []  # alice and bob are racing: carol waits
    assert Race.objects.count() == 1


def test_an_open_race_counts_as_racing():
    alice, alice_token = player("alice", 1500)
    races.create_race(alice)
    refused = queue(client_for(alice_token))
    assert refused.status_code == 409 and refused.json()["error"] == "already_racing"
    assert not QueueTicket.objects.exists()


def test_cancelling_leaves_the_queue():
    stock_deals()
    _, alice_token = player("alice", 1500)
    _, bob_token = player("bob", 1500)
    a = client_for(alice_token)
    queue(a)
    cancelled = a.delete("/api/matchmaking/")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "idle"
    assert queue(client_for(bob_token)).json()["state"] == "waiting"
    assert Race.objects.count() == 0


def test_a_ticket_nobody_renews_is_dropped():
    stock_deals()
    _, alice_token = player("alice", 1500)
    _, bob_token = player("bob", 1500)
    queue(client_for(alice_token))
    QueueTicket.objects.update(seen_at=timezone.now() - timedelta(seconds=matchmaking.STALE_SECONDS + 1))
    assert queue(client_for(bob_token)).json()["state"] == "waiting"
    assert list(QueueTicket.objects.values_list("user__username", flat=True)) == ["bob"]


def test_no_winnable_deal_keeps_players_waiting_with_a_top_up_requested():
    _, alice_token = player("alice", 1500)
    _, bob_token = player("bob", 1500)
    queue(client_for(alice_token))
    assert queue(client_for(bob_token)).json()["state"] == "waiting"
    stock_deals()
    assert len(matchmaking.match_waiting()) == 1


@pytest.mark.parametrize("body, field", [
    ({"draw": 2}, "draw"), ({"scoring": "chess"}, "scoring"), ({"draw": "1"}, "draw"), ({"extra": 1}, "extra"),
])
def test_bad_queue_requests_are_refused_and_change_nothing(body, field):
    _, token = player("alice", 1500)
    response = queue(client_for(token), **body)
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert field in response.json()["detail"] or field in str(response.json().get("fields", ""))
    assert not QueueTicket.objects.exists()


def test_guests_cannot_queue():
    from rest_framework.test import APIClient

    response = APIClient().post("/api/matchmaking/", {}, format="json")
    assert response.status_code in (401, 403) and "error" in response.json()
