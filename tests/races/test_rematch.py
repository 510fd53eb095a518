"""Rematch (races.services.confirm_rematch): after a race, each racer asks with one
click; when all have, the same players race again on a new proven-winnable deal."""

from __future__ import annotations

import pytest

from races import services as races
from races.models import Race
from tests.matchmaking.helpers import client_for, player, stock_deals
from tests.realtime_helpers import WS, run

pytestmark = pytest.mark.django_db(transaction=True)


def finished_race(*users) -> Race:
    race = races.start_race_now(list(users), draw=1, scoring="normal", rated=False, time_limit=120)
    races.finish_race(race.id, force=True)  # the clock run out
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    return race


def test_the_same_players_race_again_when_each_has_confirmed():
    stock_deals()
    (alice, alice_token), (bob, bob_token) = player("alice"), player("bob")
    race = finished_race(alice, bob)
    first = client_for(alice_token).post(f"/api/races/{race.id}/rematch")
    assert first.status_code == 200
    body = first.json()
    assert body["rematch"] is None and [e["rematch"] for e in body["entries"]] == [True, False]
    second = client_for(bob_token).post(f"/api/races/{race.id}/rematch").json()
    again = Race.objects.get(pk=second["rematch"])
    assert again.status == Race.Status.STARTED and again.code != race.code
    assert sorted(e.user.username for e in again.entries.all()) == ["alice", "bob"]
    assert (again.draw, again.scoring, again.rated, again.time_limit) == (1, "normal", False, 120)
    # A late click finds the rematch made, not a third race.
    assert client_for(alice_token).post(f"/api/races/{race.id}/rematch").json()["rematch"] == str(again.id)
    assert Race.objects.count() == 2


def test_only_racers_of_a_finished_race_may_ask():
    stock_deals()
    (alice, alice_token), (bob, _), (_, carol_token) = player("alice"), player("bob"), player("carol")
    running = races.start_race_now([alice, bob], draw=1, scoring="normal")
    early = client_for(alice_token).post(f"/api/races/{running.id}/rematch")
    assert early.status_code == 409 and early.json()["error"] == "race_not_finished"
    races.finish_race(running.id, force=True)
    outsider = client_for(carol_token).post(f"/api/races/{running.id}/rematch")
    assert outsider.status_code == 409 and outsider.json()["error"] == "not_in_race"


def test_a_rematch_from_the_race_socket():
    stock_deals()
    (alice, alice_token), (bob, bob_token) = player("alice"), player("bob")
    race = finished_race(alice, bob)

    async def body():
        a = await WS.open(f"/ws/races/{race.id}/", alice_token)
        b = await WS.open(f"/ws/races/{race.id}/", bob_token)
        await a.send({"type": "rematch", "id": 1})
        assert (await a.recv_until(lambda m: m["type"] == "ack"))[0]["id"] == 1
        await b.send({"type": "rematch", "id": 2})
        shown, _ = await a.recv_until(lambda m: m["type"] == "race" and m["race"]["rematch"])
        return shown["race"]["rematch"]

    rematch = run(body)
    assert Race.objects.get(pk=rematch).status == Race.Status.STARTED
