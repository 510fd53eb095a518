"""The front door as users reach it: nginx with TLS on one port in front of three web
processes (deploy/stack.py, as `make stack` runs it), with real processes: forwarded
address and scheme trusted, request ids end to end, metrics kept inside, static files
cached, least connections, a dead process out of rotation, sockets kept alive by the
app's heartbeat, and a web process that drains on SIGTERM."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Iterator

import pytest
import requests

from deploy.stack import FAIL_TIMEOUT_SECONDS
from tests.realtime_helpers import DEAL
from tests.stack_helpers import DoorClient, FrontDoor, front_door_fixture

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

IDLE_SECONDS = 3  # nginx's socket idle timeout in this stack (75 s as deployed)


@pytest.fixture(scope="module")
def door(django_db_setup: object) -> Iterator[FrontDoor]:
    yield from front_door_fixture(web=3, workers=0, socket_idle_seconds=IDLE_SECONDS)


def web_metrics(door: FrontDoor, index: int) -> str:
    port = door.config.web_ports[index]
    return requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text


def sockets_open(door: FrontDoor, index: int) -> float:
    found = re.findall(r'^klondike_sockets_open\{route="/ws/lobby/"\} ([0-9.]+)$', web_metrics(door, index), re.M)
    return float(found[0]) if found else 0.0


def test_one_tls_port_serves_pages_and_the_api_with_the_scheme_and_client_trusted(door: FrontDoor) -> None:
    http = door.session()
    page = http.get(f"{door.http}/", headers={"X-Forwarded-For": "6.6.6.6"}, timeout=10)
    # HTTPS=true redirects plain http: a 200 means the proxy's X-Forwarded-Proto was trusted.
    assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
    assert "max-age" in page.headers["Strict-Transport-Security"]
    request_id = page.headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    lobby = http.get(f"{door.http}/api/lobby", timeout=10)
    assert lobby.status_code == 200, lobby.text
    time.sleep(0.5)
    proxy_line = next(line for line in door.log("nginx-access") if line["request_id"] == request_id)
    served_by = door.config.web_ports.index(int(proxy_line["upstream"].rsplit(":", 1)[1]))
    web_line = next(line for line in door.log(f"web{served_by + 1}")
                    if line.get("request_id") == request_id and line.get("kind") == "http")
    # The web process saw the real client (the address nginx appended), not the claim.
    assert web_line["client"] == "127.0.0.1" and web_line["path"] == "/" and web_line["status"] == 200
    assert not any("6.6.6.6" in str(line) for index in range(3) for line in door.log(f"web{index + 1}"))


def test_plain_http_is_not_served_on_the_tls_port(door: FrontDoor) -> None:
    answer = requests.get(f"http://localhost:{door.config.port}/", timeout=10)
    assert answer.status_code == 400  # nginx: "The plain HTTP request was sent to HTTPS port"


def test_metrics_stay_inside_and_each_process_serves_its_own(door: FrontDoor) -> None:
    assert door.session().get(f"{door.http}/metrics", timeout=10).status_code == 404
    text = web_metrics(door, 0)
    for name in ("klondike_http_requests_total", "klondike_http_request_seconds_bucket", "klondike_moves_total",
                 "klondike_channel_send_failures_total", "klondike_solver_queue_depth",
                 "klondike_move_publish_seconds_bucket", "klondike_draining"):
        assert name in text, name


def test_static_files_are_cached_by_the_proxy(door: FrontDoor) -> None:
    http = door.session()
    url = f"{door.http}/static/frontend/js/socket.js"
    first, second = http.get(url, timeout=10), http.get(url, timeout=10)
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert second.headers["X-Cache-Status"] == "HIT"


def test_readyz_through_the_door_checks_postgres_and_redis(door: FrontDoor) -> None:
    answer = door.session().get(f"{door.http}/readyz", timeout=10)
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "checks": {"database": "ok", "redis": "ok"}}


def test_sockets_are_spread_by_least_connections(door: FrontDoor) -> None:
    async def body() -> None:
        clients = [await DoorClient(door, "/ws/lobby/", name=f"c{i}").connect() for i in range(6)]
        for client in clients:
            assert await client.recv_until(lambda m: m["type"] == "lobby") is not None
        counts = [await asyncio.to_thread(sockets_open, door, index) for index in range(3)]
        assert counts == [2.0, 2.0, 2.0], counts
        for client in clients:
            await client.close()

    asyncio.run(body())


def test_the_heartbeat_keeps_an_idle_socket_open_through_the_proxy(door: FrontDoor) -> None:
    async def body() -> None:
        silent = await DoorClient(door, "/ws/lobby/", name="silent").connect()
        pinging = await DoorClient(door, "/ws/lobby/", name="pinging").connect()
        for _ in range(IDLE_SECONDS * 3):
            assert await pinging.send({"type": "ping"})
            assert await pinging.recv_until(lambda m: m["type"] == "pong", 5) is not None
            await asyncio.sleep(1)
        # The silent one was closed by the proxy; the one with the heartbeat lives.
        assert silent.closed and not pinging.closed
        for client in (silent, pinging):
            await client.close()

    asyncio.run(body())


def test_a_killed_process_leaves_rotation_and_no_request_fails(door: FrontDoor) -> None:
    http = door.session()
    door.stack.stop_web(1, kill=True)
    try:
        answers = [http.get(f"{door.http}/api/lobby", timeout=10) for _ in range(30)]
        assert [a.status_code for a in answers] == [200] * 30
        time.sleep(0.5)
        dead = f"127.0.0.1:{door.config.web_ports[1]}"
        tail = door.log("nginx-access")[-20:]
        # After its first failed connection nginx stops trying it (fail_timeout 3 s).
        assert sum(dead in line["upstream"] for line in tail) <= 1, tail
    finally:
        door.stack.start_web(1)
        door.stack.wait_web_ready(1)
        time.sleep(FAIL_TIMEOUT_SECONDS + 1)  # nginx takes it back after its fail_timeout


def test_sigterm_drains_sockets_with_reconnect_and_they_resume_through_the_door(door: FrontDoor) -> None:
    token = door.players(1)[0]
    http = door.session(token)
    game = http.post(f"{door.http}/api/games/", json={"code": DEAL}, timeout=10)
    assert game.status_code == 201, game.text
    game_id = game.json()["id"]

    async def body() -> None:
        clients = [await DoorClient(door, f"/ws/games/{game_id}/", token, f"s{i}").connect() for i in range(6)]
        for client in clients:
            assert await client.recv_until(lambda m: m["type"] == "snapshot") is not None
        counts = [await asyncio.to_thread(sockets_open_on_games, door, index) for index in range(3)]
        assert all(count >= 1 for count in counts), counts
        started = time.monotonic()
        await asyncio.to_thread(door.stack.stop_web, 0)
        assert time.monotonic() - started < 10 and door.stack.webs[0].returncode == 0
        moved = [c for c in clients if c.closed]
        assert moved and all(c.close_code == 4012 for c in moved), [c.close_code for c in clients]
        for client in moved:  # as the web app does: reconnect at once, from the last seq
            await client.connect("?since=0")
            assert await client.send({"type": "ping"})
            assert await client.recv_until(lambda m: m["type"] == "pong") is not None, client.close_code
        for client in clients:
            await client.close()

    try:
        asyncio.run(body())
    finally:
        door.stack.start_web(0)
        door.stack.wait_web_ready(0)
    drained = [line for line in door.log("web1") if line["logger"] == "klondike.serve"]
    assert any("told to reconnect" in line["message"] for line in drained)
    assert any(line["message"] == "drained: stopping" for line in drained)


def sockets_open_on_games(door: FrontDoor, index: int) -> float:
    found = re.findall(r'^klondike_sockets_open\{route="/ws/games/:id/"\} ([0-9.]+)$', web_metrics(door, index),
                       re.M)
    return float(found[0]) if found else 0.0
