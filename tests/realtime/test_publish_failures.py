"""A committed move is always acknowledged: with Redis down (the channel layer and the
cache), a move over REST answers 200 and one over a socket its ack with the frame's id; the
failed publish is logged and counted (klondike_channel_send_failures), and once Redis
is back a viewer catches up from Postgres by sequence number. Real Daphne, a Redis of
the test's own (tests/private_redis.py) killed and started again."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from tests.private_redis import PrivateRedis, private_redis  # noqa: F401 (fixture)
from tests.realtime_helpers import DEAL, Client, Daphne, pick

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def daphne(daphne_env: tuple[str, str], private_redis: PrivateRedis) -> Iterator[Daphne]:
    db_url, _ = daphne_env
    # The channel layer and the cache on the private Redis.
    server = Daphne(db_url, private_redis.url, REDIS_CACHE_URL=private_redis.url.replace("/0", "/1"))
    server.wait_ready()
    yield server
    server.stop()


def make_player(name: str) -> str:
    from accounts.tokens import issue
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(name)
    return issue(user, name="test", scope="play", expires_in_days=1)[1]


class Player:
    def __init__(self, server: Daphne, token: str) -> None:
        self.server, self.http = server, requests.Session()
        self.http.headers["Authorization"] = f"Token {token}"
        self.actions: list[dict[str, Any]] = []
        self.game = self.http.post(f"{server.http}/api/games/", json={"code": DEAL}, timeout=30).json()["id"]

    def next_move(self) -> dict[str, Any]:
        import random

        from engine import replay

        moves = [m.to_json() for m in replay(DEAL, self.actions, ranked=False).legal_moves()]
        return pick(random.Random(len(self.actions)), moves)

    def rest_move(self) -> requests.Response:
        seq = len(self.actions) + 1
        response = self.http.post(f"{self.server.http}/api/games/{self.game}/moves",
                                  json={"move": self.next_move(), "seq": seq}, timeout=30)
        if response.status_code == 200:
            self.actions.append(response.json()["move"])
        return response


def send_failures(server: Daphne) -> float:
    text = requests.get(f"{server.http}/metrics", timeout=10).text
    found = re.search(r"^klondike_channel_send_failures_total ([0-9.e+]+)$", text, re.M)
    assert found, text[:2000]
    return float(found.group(1))


def stored_seqs(game_id: str) -> list[int]:
    from games.models import Move

    return list(Move.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))


def test_moves_committed_while_redis_is_down_are_acknowledged(daphne: Daphne, private_redis: PrivateRedis) -> None:
    rest = Player(daphne, make_player("rest-player"))
    socket_player_token = make_player("socket-player")
    socket_player = Player(daphne, socket_player_token)

    async def body() -> None:
        socket = await Client(daphne, f"/ws/games/{socket_player.game}/", token=socket_player_token).connect()
        await socket.recv_until(lambda m: m["type"] == "snapshot")
        failures_before = await asyncio.to_thread(send_failures, daphne)

        private_redis.stop()
        try:
            for _ in range(3):
                answer = await asyncio.to_thread(rest.rest_move)
                assert answer.status_code == 200, answer.text
            for number in range(3):
                seq = len(socket_player.actions) + 1
                await socket.send({"type": "move", "move": socket_player.next_move(), "seq": seq,
                                   "id": f"down-{number}"})
                ack = await socket.recv_until(lambda m: m["type"] in ("ack", "error"), 15)
                assert ack["type"] == "ack" and ack["id"] == f"down-{number}" and ack["seq"] == seq, ack
                socket_player.actions.append(ack["move"])
            assert not socket.closed
            assert await asyncio.to_thread(send_failures, daphne) >= failures_before + 6
            # What needs Redis itself (a hint's rate limit is counted there) is refused
            # with a clear, retryable error, never a 500.
            hint = await asyncio.to_thread(rest.http.get, f"{daphne.http}/api/games/{rest.game}/hint", timeout=30)
            assert hint.status_code == 503 and hint.json()["error"] == "service_unavailable", hint.text
            assert int(hint.headers["Retry-After"]) >= 1
            # The readiness probe says what is missing; the liveness probe is still fine.
            ready = await asyncio.to_thread(requests.get, f"{daphne.http}/readyz", timeout=10)
            assert ready.status_code == 503 and ready.json()["checks"]["database"] == "ok"
            assert ready.json()["checks"]["redis"].startswith("failed")
            assert (await asyncio.to_thread(requests.get, f"{daphne.http}/healthz", timeout=10)).status_code == 200
        finally:
            private_redis.start()

        # Redis back: play goes on, and a viewer that resumes from 0 gets every event.
        assert (await asyncio.to_thread(rest.rest_move)).status_code == 200
        viewer = await Client(daphne, f"/ws/games/{rest.game}/?since=0").connect()
        seqs = [(await viewer.recv_until(lambda m: m["type"] == "event", 10))["seq"] for _ in range(4)]
        assert seqs == [1, 2, 3, 4]
        for client in (socket, viewer):
            await client.close()

    asyncio.run(body())
    assert stored_seqs(rest.game) == [1, 2, 3, 4]
    assert stored_seqs(socket_player.game) == [1, 2, 3]
    lines = [json.loads(line) for line in Path(daphne.log.name).read_text().splitlines() if line.startswith("{")]
    # channels_redis logs its own lost subscription (and reconnects); nothing of ours failed.
    errors = [line for line in lines if line["level"] in ("error", "critical")
              and not line["logger"].startswith("channels_redis")]
    assert not errors, errors
    failed = [line for line in lines if line["logger"] == "realtime.publishing"]
    assert failed and all(line["level"] == "warning" and "failed" in line["message"] for line in failed)
    # Each names the request that made the move.
    assert all(line.get("request_id") for line in failed)
