"""Real sockets against real Daphne processes sharing PostgreSQL (the test database)
and Redis: resuming after a reconnect, a race spread over two processes, and a
process killed with SIGKILL in the middle of a race (docs/realtime.md, "Scale-out").

The tests commit their data (``transaction=True``) so the Daphne subprocesses see it;
clients are ``websockets`` clients with the Origin and token headers a browser or an
API client would send.
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest

from races import services as races
from games.models import Game, Move
from tests.realtime_helpers import (
    Client, Closed, Daphne, adb, assert_ranks, legal_moves, make_user, new_game, pick,
)

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = ("p1", "p2")


@pytest.fixture
def servers(daphne_pool: list[Daphne], daphne_env: tuple[str, str]) -> list[Daphne]:
    """The two processes, a killed one replaced by a fresh one."""
    for index, server in enumerate(daphne_pool):
        if server.process.poll() is not None:
            server.stop()
            daphne_pool[index] = Daphne(*daphne_env)
            daphne_pool[index].wait_ready()
    return list(daphne_pool)


def run(body: Any) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 60))


async def rest_game(server: Daphne, game_id: str) -> dict[str, Any]:
    return await asyncio.to_thread(server.get_json, f"/api/games/{game_id}/")


def stream_of(messages: list[dict[str, Any]], game_id: str) -> list[tuple[str, int, Any]]:
    """One game's snapshots and events, in the order a client received them."""
    out = []
    for m in messages:
        if m["type"] == "snapshot" and m["game"]["id"] == game_id:
            out.append(("snapshot", m["seq"], m["game"]["view"]))
        elif m["type"] == "event" and m["game"] == game_id:
            out.append(("event", m["seq"], m.get("view")))
    return out


def check_stream(stream: list[tuple[str, int, Any]], *, strict: bool) -> tuple[int, Any]:
    """Every event once, in order, no gap. Strict: one snapshot first, then only
    events. Otherwise (a client that reconnected) a later snapshot may resynchronise,
    but never go back. Returns the last seq and the last board seen."""
    assert stream and stream[0][0] == "snapshot", stream[:3]
    last, view = stream[0][1], stream[0][2]
    for kind, seq, board in stream[1:]:
        if kind == "snapshot":
            assert not strict, f"unexpected snapshot at {seq} after {last}"
            assert seq >= last, f"a snapshot went back from {last} to {seq}"
        else:
            assert seq == last + 1, f"after event {last} came event {seq}"
        last = seq
        view = board if board is not None else view
    return last, view


async def wait_until(predicate: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


# --- (a) reconnect and resume ---------------------------------------------------------------


def test_a_spectator_reconnecting_with_since_gets_exactly_the_missed_events_then_live_ones(servers):
    d1, d2 = servers
    user, token = make_user("player")
    game_id = new_game(user)
    rng = random.Random(11)

    async def body():
        player = await Client(d1, f"/ws/games/{game_id}/", token, "player").connect()
        assert (await player.recv())["type"] == "snapshot"
        spectator = await Client(d2, f"/ws/games/{game_id}/", name="spectator").connect()
        assert (await spectator.recv_until(lambda m: m["type"] != "watchers"))["type"] == "snapshot"
        seq = 0

        async def move() -> None:
            nonlocal seq
            seq += 1
            await player.send({"type": "move", "move": pick(rng, await adb(legal_moves)(game_id)), "seq": seq,
                               "id": seq})
            ack = await player.recv_until(lambda m: m["type"] in ("ack", "error"))
            assert ack["type"] == "ack" and ack["seq"] == seq, ack
            assert (await player.recv_until(lambda m: m["type"] == "event"))["seq"] == seq

        for _ in range(3):
            await move()
        await wait_until(lambda: any(m.get("seq") == 3 for m in spectator.messages), 10, "event 3")
        await spectator.close()
        before = [m for m in spectator.messages if m["type"] in ("snapshot", "event")]
        assert [m["seq"] for m in before] == [0, 1, 2, 3]

        for _ in range(5):
            await move()
        # Back on the other process, from where it left off.
        again = await Client(d1, f"/ws/games/{game_id}/?since=3", name="spectator again").connect()
        await wait_until(lambda: any(m.get("seq") == 8 for m in again.messages), 10, "the missed events")
        rest = await rest_game(d2, game_id)
        missed = [m for m in again.messages if m["type"] in ("snapshot", "event")]
        assert [m["type"] for m in missed] == ["event"] * 5
        assert [m["seq"] for m in missed] == [4, 5, 6, 7, 8]
        assert missed[-1]["view"] == rest["view"] and missed[-1]["score"] == rest["score"]
        rows = await adb(lambda: list(Move.objects.filter(game_id=game_id, seq__gt=3).order_by("seq")))()
        assert [m["action"] for m in missed] == [r.action for r in rows]

        for _ in range(4):
            await move()
        await wait_until(lambda: any(m.get("seq") == 12 for m in again.messages), 10, "the live events")
        await asyncio.sleep(0.3)
        seen = [m for m in again.messages if m["type"] in ("snapshot", "event")]
        assert [m["seq"] for m in seen] == list(range(4, 13))
        assert seen[-1]["view"] == (await rest_game(d1, game_id))["view"]
        for client in (player, again):
            await client.close()

    run(body)


# --- (b), (c) a race over two processes ----------------------------------------------------------


class Racer:
    """A racer on a race socket: plays legal moves with seq numbers and retries the
    move in flight on another process if its connection dies."""

    def __init__(self, name: str, token: str, game_id: str, race_id: str) -> None:
        self.name, self.token, self.game_id, self.race_id = name, token, game_id, race_id
        self.client: Client | None = None
        self.messages: list[dict[str, Any]] = []  # every message of every connection, in order
        self.acks: list[dict[str, Any]] = []
        self.seq = 0
        self.reconnects = 0

    async def connect(self, server: Daphne) -> None:
        if self.client is not None:
            self.messages.extend(self.client.messages)
        self.client = await Client(server, f"/ws/races/{self.race_id}/", self.token, self.name).connect()

    def all_messages(self) -> list[dict[str, Any]]:
        return self.messages + (self.client.messages if self.client else [])

    async def play(self, count: int, rng: random.Random, *, fallback: Daphne, kill: Any = None) -> None:
        for _ in range(count):
            seq = self.seq + 1
            frame = {"type": "move", "move": pick(rng, await adb(legal_moves)(self.game_id)), "seq": seq,
                     "id": f"{self.name}-{seq}"}
            while True:
                try:
                    await self.client.send(frame)
                    if kill is not None and seq == kill[0]:
                        await kill[1]()  # the process dies with this move in flight
                    ack = await self.client.recv_until(lambda m: m.get("id") == frame["id"], timeout=15)
                    break
                except Closed:
                    # Same move, same seq, on the surviving process: applied once either way.
                    self.reconnects += 1
                    await self.connect(fallback)
            assert ack["type"] == "ack", ack
            assert ack["game"] == self.game_id and ack["seq"] == seq, ack
            self.acks.append(ack)
            self.seq = seq


async def start_race(servers: list[Daphne]) -> dict[str, Any]:
    """Two racers and two spectators (one logged in, one anonymous) on two processes;
    join and ready over the race sockets; returns everything once the race runs. Open
    boards: every client may compare every board with the stored one (what each may
    name in a fair race is tests/races/test_fair_races.py's)."""
    d1, d2 = servers
    users = {name: await adb(make_user)(name) for name in ("p1", "p2", "s1")}
    race = await adb(races.create_race)(users["p1"][0], max_players=2, rated=False, open_boards=True)
    race_id = str(race.id)
    path = f"/ws/races/{race_id}/"
    spectators = {
        "s1": await Client(d1, path, users["s1"][1], "s1").connect(),
        "s2": await Client(d2, path, None, "s2").connect(),
    }
    racers = {name: Racer(name, users[name][1], "", race_id) for name in RACERS}
    await racers["p1"].connect(d1)
    await racers["p2"].connect(d2)
    p1, p2 = racers["p1"].client, racers["p2"].client
    await p2.send({"type": "join", "id": "join"})
    assert (await p2.recv_until(lambda m: m.get("id") == "join"))["type"] == "ack"
    await p1.recv_until(lambda m: m["type"] == "race" and len(m["race"]["entries"]) == 2)
    for racer in (p1, p2):
        await racer.send({"type": "ready", "id": "ready"})
        assert (await racer.recv_until(lambda m: m.get("id") == "ready"))["type"] == "ack"
    clients = [p1, p2, *spectators.values()]
    for client in clients:
        countdown = await client.recv_until(lambda m: m["type"] == "race" and m["race"]["phase"] == "countdown",
                                            timeout=10)
    payload = countdown["race"]
    games = {e["player"]: e["game"] for e in payload["entries"]}
    for name, racer in racers.items():
        racer.game_id = games[name]
    await wait_until(lambda: all(sum(m["type"] == "snapshot" for m in c.messages) >= 2 for c in clients), 10,
                     "the snapshots of both boards")
    left = (parse_time(payload["starts_at"]) - parse_time(payload["server_time"])).total_seconds()
    await asyncio.sleep(max(0.0, left) + 0.2)
    return {"race_id": race_id, "games": games, "racers": racers, "spectators": spectators}


def test_a_race_over_two_processes_every_client_sees_every_event_in_order(servers):
    d1, d2 = servers
    rng = {name: random.Random(seed) for name, seed in (("p1", 1), ("p2", 2))}

    async def body():
        race = await start_race(servers)
        racers, spectators, games = race["racers"], race["spectators"], race["games"]
        await asyncio.gather(*(racers[name].play(30, rng[name], fallback=d1) for name in RACERS))

        def everyone() -> dict[str, list[dict[str, Any]]]:
            return {**{n: r.all_messages() for n, r in racers.items()},
                    **{n: c.messages for n, c in spectators.items()}}

        def caught_up() -> bool:
            return all(any(m["type"] == "event" and m["game"] == g and m["seq"] == 30 for m in messages)
                       for messages in everyone().values() for g in games.values())

        await wait_until(caught_up, 15, "every client to see event 30 of both games")
        await asyncio.sleep(0.3)  # anything extra (a duplicate) would arrive now
        boards = {g: (await rest_game(d2, g)) for g in games.values()}
        for name, messages in everyone().items():
            for player, game_id in games.items():
                stream = stream_of(messages, game_id)
                assert [s for _, s, _ in stream] == list(range(0, 31)), (name, player, stream)
                last, view = check_stream(stream, strict=True)
                assert last == boards[game_id]["seq"] == 30
                assert view == boards[game_id]["view"], (name, player)
        for name, racer in racers.items():
            assert [a["seq"] for a in racer.acks] == list(range(1, 31))
            rows = await adb(lambda g=racer.game_id: list(Move.objects.filter(game_id=g).order_by("seq")))()
            assert [r.seq for r in rows] == list(range(1, 31))
            assert [r.action for r in rows] == [a["move"] for a in racer.acks]

        # Both resign: the end reaches every client on both processes.
        for racer in racers.values():
            await racer.client.send({"type": "resign", "id": "bye"})
        for client in [r.client for r in racers.values()] + list(spectators.values()):
            finished = await client.recv_until(lambda m: m["type"] == "race" and m["race"]["phase"] == "finished",
                                               timeout=10)
            assert finished["race"]["code"]
            assert_ranks(finished["race"]["entries"])
        for client in [r.client for r in racers.values()] + list(spectators.values()):
            await client.close()

    run(body)


def test_a_process_killed_mid_race_its_clients_resume_on_the_other_and_nothing_is_lost(servers):
    d1, d2 = servers
    rng = {name: random.Random(seed) for name, seed in (("p1", 3), ("p2", 4))}

    async def body():
        race = await start_race(servers)
        racers, spectators, games = race["racers"], race["spectators"], race["games"]
        s2_before = spectators["s2"]
        resumed: dict[str, Client] = {}

        async def kill() -> None:
            await asyncio.to_thread(d2.kill)
            # The spectator that was on the dead process resumes each board on the
            # survivor from the last event it saw.
            await wait_until(lambda: s2_before.closed, 10, "s2 to notice")
            for player, game_id in games.items():
                last = stream_of(s2_before.messages, game_id)[-1][1]
                resumed[player] = await Client(d1, f"/ws/games/{game_id}/?since={last}", name=f"s2-{player}").connect()

        await asyncio.gather(racers["p1"].play(30, rng["p1"], fallback=d1),
                             racers["p2"].play(30, rng["p2"], fallback=d1, kill=(12, kill)))
        assert d2.process.poll() is not None and racers["p2"].reconnects == 1
        assert racers["p1"].reconnects == 0

        streams: dict[str, dict[str, list[tuple[str, int, Any]]]] = defaultdict(dict)
        for player, game_id in games.items():
            streams["p1"][player] = lambda g=game_id: stream_of(racers["p1"].all_messages(), g)
            streams["p2"][player] = lambda g=game_id: stream_of(racers["p2"].all_messages(), g)
            streams["s1"][player] = lambda g=game_id: stream_of(spectators["s1"].messages, g)
            streams["s2"][player] = lambda g=game_id, p=player: (stream_of(s2_before.messages, g)
                                                                 + stream_of(resumed[p].messages, g))

        await wait_until(lambda: all(f()[-1][1] == 30 for per in streams.values() for f in per.values()), 15,
                         "every client to reach event 30 of both games")
        await asyncio.sleep(0.3)

        for player, game_id in games.items():
            game = await adb(Game.objects.get)(pk=game_id)
            rows = await adb(lambda g=game_id: list(Move.objects.filter(game_id=g).order_by("seq")))()
            # seq numbers 1..N without gaps, and every acknowledged move there exactly once
            assert game.seq == 30 and [r.seq for r in rows] == list(range(1, 31))
            acks = racers[player].acks
            assert [a["seq"] for a in acks] == list(range(1, 31))
            assert [r.action for r in rows] == [a["move"] for a in acks]
            board = await rest_game(d1, game_id)
            for name, per in streams.items():
                # Clients of the surviving process never needed to resync.
                last, view = check_stream(per[player](), strict=name in ("p1", "s1"))
                assert last == 30 and view == board["view"], (name, player)
        for client in [r.client for r in racers.values()] + [spectators["s1"], *resumed.values()]:
            await client.close()

    run(body)
