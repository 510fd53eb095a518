"""Quick match and challenges on the player's own socket (``/ws/me/``): in process,
and across two real Daphne processes sharing PostgreSQL and Redis (the queue is
shared by every process; a wave started in one reaches the players on the other)."""

from __future__ import annotations

import asyncio
import time

import pytest

from matchmaking.models import QueueTicket
from races.models import Race
from tests.matchmaking.helpers import client_for, player, stock_deals
from tests.realtime_helpers import WS, Client, Daphne, adb, run

pytestmark = pytest.mark.django_db(transaction=True)

MATCH_WITHIN_SECONDS = 2.0  # the promise for two compatible players


async def queued(ws, draw: int = 1, scoring: str = "normal") -> dict:
    await ws.send({"type": "queue", "draw": draw, "scoring": scoring, "id": "q"})
    answer, _ = await ws.recv_until(lambda m: m["type"] in ("queue", "error"))
    return answer


def test_two_players_queue_and_each_is_sent_into_the_same_race():
    stock_deals()
    (_, alice_token), (_, bob_token) = player("alice", 1500), player("bob", 1580)

    async def body():
        a = await WS.open("/ws/me/", alice_token)
        b = await WS.open("/ws/me/", bob_token)
        assert (await a.recv_type("me"))["queue"]["state"] == "idle"
        await b.recv_type("me")
        assert (await queued(a))["state"] == "waiting"
        started = time.monotonic()
        assert (await queued(b))["state"] == "waiting"
        found_a, _ = await a.recv_until(lambda m: m["type"] == "matched", timeout=MATCH_WITHIN_SECONDS + 1)
        found_b, _ = await b.recv_until(lambda m: m["type"] == "matched", timeout=MATCH_WITHIN_SECONDS + 1)
        return found_a["race"], found_b["race"], time.monotonic() - started

    race_a, race_b, waited = run(body)
    assert race_a == race_b and waited < MATCH_WITHIN_SECONDS + 1
    race = Race.objects.get(pk=race_a)
    assert race.status == Race.Status.STARTED and race.entries.count() == 2


def test_closing_the_socket_leaves_the_queue():
    stock_deals()
    _, alice_token = player("alice", 1500)

    async def body():
        a = await WS.open("/ws/me/", alice_token)
        await a.recv_type("me")
        await queued(a)
        assert await adb(QueueTicket.objects.count)() == 1
        await a.comm.disconnect()
        for _ in range(50):
            if not await adb(QueueTicket.objects.exists)():
                return True
            await asyncio.sleep(0.1)
        return False

    assert run(body)


def test_cancel_and_refusals_are_events_on_an_open_socket():
    stock_deals()
    alice, alice_token = player("alice", 1500)
    from races import services as races

    async def body():
        a = await WS.open("/ws/me/", alice_token)
        await a.recv_type("me")
        await queued(a)
        await a.send({"type": "cancel", "id": 2})
        cancelled, _ = await a.recv_until(lambda m: m["type"] == "queue")
        assert cancelled["state"] == "idle" and cancelled["id"] == 2
        await a.send({"type": "queue", "draw": 2, "scoring": "normal"})
        bad, _ = await a.recv_until(lambda m: m["type"] == "error")
        assert bad["error"] == "bad_field" and bad["field"] == "draw" and "1 or 3" in bad["detail"]
        await adb(races.create_race)(alice)
        refused = await queued(a)
        assert refused["type"] == "error" and refused["error"] == "already_racing" and refused["id"] == "q"
        await a.send({"type": "ping", "id": 9})
        assert (await a.recv_until(lambda m: m["type"] == "pong"))[0]["id"] == 9
        return await adb(QueueTicket.objects.count)()

    assert run(body) == 0


def test_a_guest_is_told_to_log_in():
    async def body():
        from tests.realtime_helpers import ws_headers

        guest = await WS.open("/ws/me/", headers=ws_headers())
        error = await guest.recv()
        closed = await guest.comm.receive_output(timeout=5)
        return error, closed

    error, closed = run(body)
    assert error["error"] == "not_authenticated" and closed == {"type": "websocket.close", "code": 4403}


def test_challenges_arrive_live_and_the_challenger_is_sent_into_the_race():
    stock_deals()
    (_, alice_token), (_, bob_token) = player("alice", 1500), player("bob", 1500)
    alice_rest, bob_rest = client_for(alice_token), client_for(bob_token)

    async def body():
        a = await WS.open("/ws/me/", alice_token)
        b = await WS.open("/ws/me/", bob_token)
        await a.recv_type("me")
        await b.recv_type("me")
        made = (await adb(alice_rest.post)("/api/challenges/", {"username": "bob"}, format="json")).json()
        received, _ = await b.recv_until(lambda m: m["type"] == "challenges")
        assert [c["id"] for c in received["received"]] == [made["id"]]
        accepted = (await adb(bob_rest.post)(f"/api/challenges/{made['id']}/accept")).json()
        news, _ = await a.recv_until(lambda m: m["type"] == "challenge_accepted")
        return news["race"], accepted["race"]

    told, started = run(body)
    assert told == started


# --- two server processes -------------------------------------------------------------


@pytest.fixture(scope="module")
def two_servers(daphne_pool: list[Daphne]) -> list[Daphne]:
    return daphne_pool


def test_players_on_two_server_processes_are_matched_within_two_seconds(two_servers):
    stock_deals()
    (_, alice_token), (_, bob_token), (_, carol_token) = (player("alice", 1500), player("bob", 1540),
                                                          player("carol", 2600))

    async def body():
        a = await Client(two_servers[0], "/ws/me/", alice_token, "alice").connect()
        b = await Client(two_servers[1], "/ws/me/", bob_token, "bob").connect()
        c = await Client(two_servers[1], "/ws/me/", carol_token, "carol").connect()
        for client in (a, b, c):
            await client.recv_until(lambda m: m["type"] == "me")
        await c.send({"type": "queue", "draw": 1, "scoring": "normal"})
        await a.send({"type": "queue", "draw": 1, "scoring": "normal"})
        await a.recv_until(lambda m: m["type"] == "queue")
        started = time.monotonic()
        await b.send({"type": "queue", "draw": 1, "scoring": "normal"})
        found_a = await a.recv_until(lambda m: m["type"] == "matched", timeout=5)
        found_b = await b.recv_until(lambda m: m["type"] == "matched", timeout=5)
        waited = time.monotonic() - started
        # carol (1,000 points away) keeps waiting; closing her socket on the other process leaves the queue
        assert await adb(QueueTicket.objects.filter(user__username="carol", race=None).exists)()
        await c.close()
        for _ in range(50):
            if not await adb(QueueTicket.objects.filter(user__username="carol").exists)():
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("carol's ticket stayed after her socket closed")
        for client in (a, b):
            await client.close()
        return found_a["race"], found_b["race"], waited

    race_a, race_b, waited = run(body)
    assert race_a == race_b
    assert waited < MATCH_WITHIN_SECONDS
    assert sorted(e.user.username for e in Race.objects.get(pk=race_a).entries.all()) == ["alice", "bob"]


def test_a_player_queued_on_two_processes_at_once_is_in_one_match(two_servers):
    stock_deals()
    (_, alice_token), (_, bob_token) = player("alice", 1500), player("bob", 1500)

    async def body():
        first = await Client(two_servers[0], "/ws/me/", alice_token, "alice-1").connect()
        second = await Client(two_servers[1], "/ws/me/", alice_token, "alice-2").connect()
        b = await Client(two_servers[0], "/ws/me/", bob_token, "bob").connect()
        for client in (first, second, b):
            await client.recv_until(lambda m: m["type"] == "me")
        await first.send({"type": "queue", "draw": 1, "scoring": "normal"})
        await first.recv_until(lambda m: m["type"] == "queue")
        await second.send({"type": "queue", "draw": 1, "scoring": "normal"})
        await second.recv_until(lambda m: m["type"] == "queue")
        # The first socket's ticket was replaced: it is told the player's state (waiting, on the other).
        gone = await first.recv_until(lambda m: m["type"] == "queue", timeout=5)
        tickets = await adb(QueueTicket.objects.count)()
        await b.send({"type": "queue", "draw": 1, "scoring": "normal"})
        found = await b.recv_until(lambda m: m["type"] == "matched", timeout=5)
        for client in (first, second, b):
            await client.close()
        return gone, tickets, found["race"]

    gone, tickets, race_id = run(body)
    assert gone["state"] == "waiting" and tickets == 1
    assert Race.objects.count() == 1 and Race.objects.get(pk=race_id).entries.count() == 2
