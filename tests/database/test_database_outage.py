"""The database pool under load and through an outage, against a real Daphne and a
PostgreSQL of the test's own (tests/private_postgres.py) that is stopped and started
in the middle of play: 64 clients within the pool's bound, 503s with Retry-After
while the database is down or busy, socket error events and refused handshakes, and
recovery without restarting Daphne, every acknowledged move stored exactly once."""

from __future__ import annotations

import asyncio
from collections import Counter
import random
import threading
import time
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import pytest
import requests

from tests.private_postgres import POOL_MAX, Stack, stack  # noqa: F401 (fixture)
from tests.realtime_helpers import DEAL, Client, Closed, Daphne, pick

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

PLAYERS = 64


@pytest.fixture
def server(stack: Stack) -> Iterator[Daphne]:
    daphne = stack.daphne()
    yield daphne
    daphne.stop()


class Player:
    """One REST client playing legal moves of a game it created; the moves the
    server acknowledged, in order."""

    def __init__(self, server: Daphne, token: str, seed: int) -> None:
        self.server, self.http = server, requests.Session()
        self.http.headers["Authorization"] = f"Token {token}"
        self.rng = random.Random(seed)
        self.actions: list[dict[str, Any]] = []
        self.acked: list[int] = []
        self.game = self.call("POST", "/api/games/", {"code": DEAL}).json()["id"]

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return self.http.request(method, f"{self.server.http}{path}", json=body, timeout=60)

    def next_move(self) -> dict[str, Any]:
        from engine import replay

        moves = [m.to_json() for m in replay(DEAL, self.actions, ranked=False).legal_moves()]
        return pick(self.rng, moves)

    def play(self, move: dict[str, Any] | None = None) -> requests.Response:
        """Send the next move (or ``move`` again) with the next seq; keep it if acked."""
        move = move or self.next_move()
        seq = len(self.acked) + 1
        response = self.call("POST", f"/api/games/{self.game}/moves", {"move": move, "seq": seq})
        if response.status_code == 200:
            assert response.json()["seq"] == seq
            self.acked.append(seq)
            self.actions.append(response.json()["move"])
        return response



def watch_backends(stack: Stack, stop: threading.Event, peaks: list[int]) -> None:
    with stack.postgres.connect() as conn:
        while not stop.is_set():
            peaks.append(stack.postgres.backends(conn))
            time.sleep(0.05)


def test_64_clients_at_once_all_succeed_within_the_pool_bound(stack: Stack, server: Daphne) -> None:
    tokens = stack.players(PLAYERS)
    with ThreadPoolExecutor(PLAYERS) as threads:
        players = list(threads.map(lambda i: Player(server, tokens[i], i), range(PLAYERS)))
        stop, peaks = threading.Event(), []
        watcher = threading.Thread(target=watch_backends, args=(stack, stop, peaks))
        watcher.start()

        def session(player: Player) -> list[int]:
            codes = []
            for _ in range(6):
                codes.append(player.play().status_code)
                codes.append(player.call("GET", f"/api/games/{player.game}/").status_code)
                codes.append(player.call("GET", "/api/leaderboards/vegas").status_code)
            return codes

        try:
            codes = [code for result in threads.map(session, players) for code in result]
        finally:
            stop.set()
            watcher.join()
    assert codes == [200] * len(codes), (Counter(codes), [line for line in log_of(server).splitlines() if "refused" in line][:5])
    assert 0 < max(peaks) <= POOL_MAX, peaks
    for player in players[:8]:
        assert stack.postgres.stored_moves(player.game) == player.acked


def log_of(server: Daphne) -> str:
    return Path(server.log.name).read_text(errors="replace")


def refusals_in(server: Daphne) -> list[str]:
    return [line for line in log_of(server).splitlines() if ": refused " in line]


def test_an_outage_is_told_clearly_and_play_resumes_when_the_database_returns(stack: Stack) -> None:
    # A long pool timeout: "unavailable" must come at once, not after it.
    server = stack.daphne(DB_POOL_TIMEOUT="30")
    try:
        refused = asyncio.run(outage_and_recovery(stack, server))
        log = log_of(server)
        assert "Traceback" not in log, log[-3000:]
        assert "Internal Server Error" not in log and "Service Unavailable" not in log
        # One line per refused request or socket action.
        assert len(refusals_in(server)) == refused, refusals_in(server)
    finally:
        server.stop()


async def outage_and_recovery(stack: Stack, server: Daphne) -> int:
    """Play through an outage; how many requests and actions were refused."""
    rest_token, socket_token = stack.players(2)
    rest = Player(server, rest_token, 1)
    for _ in range(3):
        assert rest.play().status_code == 200
    player = Player(server, socket_token, 2)
    socket = await Client(server, f"/ws/games/{player.game}/", token=socket_token).connect()
    assert (await socket.recv_until(lambda m: m["type"] == "snapshot"))["seq"] == 0
    assert (await socket_move(socket, player, player.next_move(), "first"))["type"] == "ack"
    rest_move, socket_move_again = rest.next_move(), player.next_move()

    stack.postgres.stop()
    try:
        # REST: 503 database_unavailable with Retry-After, at once.
        started = time.monotonic()
        refused = await asyncio.to_thread(rest.play, rest_move)
        assert time.monotonic() - started < 10
        assert refused.status_code == 503
        assert refused.json()["error"] == "database_unavailable"
        assert int(refused.headers["Retry-After"]) >= 1
        read = await asyncio.to_thread(rest.call, "GET", f"/api/games/{rest.game}/")
        assert (read.status_code, read.json()["error"]) == (503, "database_unavailable")
        # An HTML page that reads the session: a plain 503 page.
        page = await asyncio.to_thread(requests.get, f"{server.http}/admin/", timeout=30,
                                       cookies={"sessionid": "x" * 32})
        assert page.status_code == 503 and "text/html" in page.headers["Content-Type"]
        assert "Back in a moment" in page.text and int(page.headers["Retry-After"]) >= 1
        # A socket action: an error event with the code and the action's id.
        error = await socket_move(socket, player, socket_move_again, "during-outage")
        assert error["type"] == "error" and error["error"] == "database_unavailable"
        assert error["retry_after"] >= 1
        assert not socket.closed
        # A new socket: refused with "try again later" (4503) and the reason.
        late = await Client(server, f"/ws/games/{player.game}/", token=socket_token).connect()
        assert (await late.recv())["error"] == "database_unavailable"
        with pytest.raises(Closed):
            await late.recv()
        assert late.close_code == 4503
    finally:
        stack.postgres.start()

    # The same clients succeed again without restarting Daphne, each sending the
    # refused action again with the same seq.
    deadline, refused_after = time.monotonic() + 30, 0
    while (again := await asyncio.to_thread(rest.play, rest_move)).status_code == 503:
        assert time.monotonic() < deadline, again.text
        refused_after += 1
        await asyncio.sleep(int(again.headers["Retry-After"]))
    assert again.status_code == 200, again.text
    assert (await socket_move(socket, player, socket_move_again, "retry"))["type"] == "ack"
    resumed = await Client(server, f"/ws/games/{player.game}/?since=0", token=socket_token).connect()
    events = [await resumed.recv_until(lambda m: m["type"] == "event") for _ in range(2)]
    assert [event["seq"] for event in events] == [1, 2]
    for client in (socket, resumed):
        await client.close()
    assert stack.postgres.stored_moves(rest.game) == rest.acked == [1, 2, 3, 4]
    assert stack.postgres.stored_moves(player.game) == player.acked == [1, 2]
    return 5 + refused_after


async def socket_move(socket: Client, player: Player, move: dict[str, Any], frame_id: str) -> dict[str, Any]:
    """Send ``move`` as the next event over the socket; the ack (kept) or the error."""
    seq = len(player.acked) + 1
    await socket.send({"type": "move", "move": move, "seq": seq, "id": frame_id})
    answer = await socket.recv_until(lambda m: m["type"] in ("ack", "error") and m.get("id") == frame_id, 15)
    if answer["type"] == "ack":
        assert answer["seq"] == seq
        player.acked.append(seq)
        player.actions.append(answer["move"])
    return answer


def test_a_restart_between_requests_fails_no_request(stack: Stack, server: Daphne) -> None:
    """Pooled connections left stale by a restart are replaced before use."""
    player = Player(server, stack.players(1)[0], 3)
    for _ in range(POOL_MAX):
        assert player.play().status_code == 200
    stack.postgres.stop()
    stack.postgres.start()
    codes = [player.play().status_code for _ in range(POOL_MAX + 2)]
    assert codes == [200] * len(codes), (Counter(codes), [line for line in log_of(server).splitlines() if "refused" in line][:5])
    assert stack.postgres.stored_moves(player.game) == player.acked


def test_a_request_waiting_too_long_for_its_turn_answers_database_busy(stack: Stack) -> None:
    """HTTP_THREADS requests run at once (config/http_handler.py); the next waits for its
    turn up to DB_POOL_TIMEOUT, then gets 503. A solver request takes no turn."""
    server = stack.daphne(HTTP_THREADS="1", DB_POOL_TIMEOUT="1")
    tokens = stack.players(2)
    try:
        holder, other = Player(server, tokens[0], 0), Player(server, tokens[1], 1)
        blocker = stack.postgres.connect()
        blocker.autocommit = False
        # The holder's move waits for this lock and keeps the process's only turn.
        blocker.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", (holder.game,))
        with ThreadPoolExecutor(1) as threads:
            waiting = threads.submit(holder.play)
            time.sleep(0.5)
            refused = other.call("GET", "/api/accounts/me")
            page = requests.get(f"{server.http}/", timeout=30)
            hint = other.call("GET", f"/api/games/{other.game}/hint")
            blocker.rollback()
            blocker.close()
            assert waiting.result().status_code == 200
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
        assert refused.json()["error"] == "database_busy"
        assert page.status_code == 503 and page.headers["Content-Type"].startswith("text/html")
        assert hint.status_code == 200 and "move" in hint.json(), hint.text
        assert other.play().status_code == 200
        assert len([line for line in refusals_in(server) if "database_busy" in line]) == 2
    finally:
        server.stop()


def test_a_pool_in_use_answers_database_busy_after_the_pool_timeout(stack: Stack) -> None:
    server = stack.daphne(DB_POOL_MAX_SIZE="2", DB_POOL_MIN_SIZE="1", DB_POOL_TIMEOUT="1")
    tokens = stack.players(3)
    try:
        holders = [Player(server, token, i) for i, token in enumerate(tokens[:2])]
        blocker = stack.postgres.connect()
        blocker.autocommit = False
        # Lock both games' rows: a move on each holds a pooled connection while it waits.
        games = tuple(holder.game for holder in holders)
        blocker.execute("SELECT id FROM games_game WHERE id IN (%s, %s) FOR UPDATE", games)
        with ThreadPoolExecutor(2) as threads:
            waiting = [threads.submit(holder.play) for holder in holders]
            time.sleep(0.5)
            other = requests.get(f"{server.http}/api/accounts/me", timeout=30,
                                 headers={"Authorization": f"Token {tokens[2]}"})
            blocker.rollback()
            blocker.close()
            assert [future.result().status_code for future in waiting] == [200, 200]
        assert other.status_code == 503
        assert other.json()["error"] == "database_busy" and other.headers["Retry-After"] == "1"
        assert [line for line in refusals_in(server) if "database_busy" in line]
    finally:
        server.stop()
