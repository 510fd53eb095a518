"""A rolling restart of every web process, one at a time, while 50 games are played
through the front door: 40 on sockets, 10 over REST. Each process drains on SIGTERM
(config/serve.py): its sockets close with 4012 "reconnect", the clients reconnect
through the proxy at once and resume from their last seq, and moves in flight are
answered first. Nothing acknowledged is lost or applied twice, no request fails, and
every socket client resumes."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any, Iterator

import pytest

from tests.deploy.race_through_the_door import Player, stored_engine
from tests.realtime_helpers import DEAL
from tests.stack_helpers import FrontDoor, front_door_fixture

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

SOCKET_GAMES = 40
REST_GAMES = 10
MOVES_AFTER_RESTART = 3


@pytest.fixture(scope="module")
def door(django_db_setup: object) -> Iterator[FrontDoor]:
    yield from front_door_fixture(web=3, workers=0)


class RestPlayer:
    """One game played over REST through the door, each move sent until answered."""

    def __init__(self, door: FrontDoor, token: str, game_id: str, seed: int) -> None:
        self.door, self.game_id = door, game_id
        self.http = door.session(token)
        self.rng = random.Random(seed)
        self.acks: list[dict[str, Any]] = []
        self.failures: list[Any] = []
        self.engine = stored_engine(door, game_id)

    def play_until(self, stop: threading.Event, pause: float) -> None:
        from engine import Move as EngineMove

        while not stop.is_set():
            seq = len(self.acks) + 1
            move = self.rng.choice([legal.to_json() for legal in self.engine.legal_moves()])
            answer = self.http.post(f"{self.door.http}/api/games/{self.game_id}/moves",
                                    json={"move": move, "seq": seq}, timeout=30)
            if answer.status_code != 200:
                self.failures.append((answer.status_code, answer.text[:200]))
                time.sleep(0.5)
                continue  # the same move, the same seq: applied once either way
            assert answer.json()["seq"] == seq
            self.acks.append(answer.json())
            self.engine.apply(EngineMove.from_json(answer.json()["move"]))
            time.sleep(pause)


def test_a_rolling_restart_loses_and_doubles_nothing_and_every_client_resumes(door: FrontDoor) -> None:
    token = door.players(1)[0]
    http = door.session(token)
    games = [http.post(f"{door.http}/api/games/", json={"code": DEAL}, timeout=10).json()["id"]
             for _ in range(SOCKET_GAMES + REST_GAMES)]
    sockets = [Player(door, token, game_id, f"g{i}", i) for i, game_id in enumerate(games[:SOCKET_GAMES])]
    rests = [RestPlayer(door, token, game_id, 1000 + i) for i, game_id in enumerate(games[SOCKET_GAMES:])]
    old_pids = [process.pid for process in door.stack.webs.values()]
    exit_codes: list[int | None] = []
    stop_rest = threading.Event()

    async def body() -> None:
        for player in sockets:
            await player.connect()
        restarted = asyncio.Event()
        moves_at_restart: dict[str, int] = {}

        async def play(player: Player) -> None:
            while not (restarted.is_set() and len(player.acks) >= moves_at_restart[player.name]
                       + MOVES_AFTER_RESTART):
                await player.play(len(player.acks) + 1, pause=0.1)

        async def roll() -> None:
            await asyncio.sleep(2)  # play is under way on every process
            exit_codes.extend(await asyncio.to_thread(door.stack.rolling_restart))
            moves_at_restart.update({player.name: len(player.acks) for player in sockets})
            restarted.set()

        # Threads of their own: the event loop's default pool is too small to hold them all.
        rest_threads = [threading.Thread(target=player.play_until, args=(stop_rest, 0.1)) for player in rests]
        for thread in rest_threads:
            thread.start()
        await asyncio.gather(roll(), *(play(player) for player in sockets))
        stop_rest.set()
        for thread in rest_threads:
            await asyncio.to_thread(thread.join, 60)
        for player in sockets:
            await player.client.close()

    try:
        asyncio.run(body())
    finally:
        stop_rest.set()

    new_pids = [process.pid for process in door.stack.webs.values()]
    assert not set(old_pids) & set(new_pids) and exit_codes == [0, 0, 0], exit_codes  # each drained and exited
    for player in [*sockets, *rests]:
        played = len(player.acks)
        assert played > MOVES_AFTER_RESTART
        assert [ack["seq"] for ack in player.acks] == list(range(1, played + 1))
        assert door.stored_moves(player.game_id) == list(range(1, played + 1)), player.game_id
        with door.postgres.connect() as conn:
            actions = [row[0] for row in conn.execute(
                "SELECT action FROM games_move WHERE game_id = %s ORDER BY seq", (player.game_id,))]
        assert actions == [ack["move"] for ack in player.acks]
    # Every socket was told to reconnect, and only that: no connection was cut.
    assert all(player.reconnects >= 1 for player in sockets)
    assert {code for player in sockets for code in player.close_codes} == {4012}
    assert not any(player.refusals for player in sockets), [p.refusals for p in sockets if p.refusals]
    # No REST request failed through the restart.
    assert not any(player.failures for player in rests), [p.failures for p in rests if p.failures]
