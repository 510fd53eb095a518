"""A race played through the front door, as the web app plays it: each racer on its
game's socket, spectators on the race's socket, every client reconnecting through the
proxy when its connection ends (resuming from the last seq it saw) and sending the move
in flight again with the same seq (applied once either way)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from tests.stack_helpers import DoorClient, FrontDoor

RETRYABLE = {"database_unavailable", "database_busy", "service_unavailable"}


def stored_engine(door: FrontDoor, game_id: str) -> Any:
    """The game's engine, from its stored state in the stack's Postgres."""
    import psycopg

    from engine import DealCode, from_bytes

    deadline = time.monotonic() + 60
    while True:  # through a restart of the database: the player waits, as a person would
        try:
            with door.postgres.connect() as conn:
                state, code = conn.execute("SELECT state, code FROM games_game WHERE id = %s",
                                           (game_id,)).fetchone()
            break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    return from_bytes(bytes(state), code=DealCode.parse(code))


class Player:
    """One game's player on its socket: plays legal moves, one at a time, acked."""

    def __init__(self, door: FrontDoor, token: str, game_id: str, name: str, seed: int) -> None:
        self.door, self.token, self.game_id, self.name = door, token, game_id, name
        self.rng = random.Random(seed)
        self.client = DoorClient(door, f"/ws/games/{game_id}/", token, name)
        self.acks: list[dict[str, Any]] = []
        self.refusals: list[str] = []
        self.engine: Any = None  # the player's own board: it needs no server to choose a move
        self.reconnects = 0
        self.close_codes: list[int] = []

    async def connect(self) -> None:
        since = f"?since={len(self.acks)}" if self.acks else ""
        await self.client.connect(since)

    async def reconnect(self) -> None:
        self.close_codes.append(self.client.close_code or 1006)
        self.reconnects += 1
        deadline = time.monotonic() + 30
        while True:
            try:
                await self.connect()
                return
            except Exception:  # noqa: BLE001 - the door may refuse for a moment (a process restarting)
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def play(self, count: int, *, pause: float = 0.0) -> None:
        from engine import Move as EngineMove

        if self.engine is None:
            self.engine = await asyncio.to_thread(stored_engine, self.door, self.game_id)
        while len(self.acks) < count:
            seq = len(self.acks) + 1
            move = self.rng.choice([legal.to_json() for legal in self.engine.legal_moves()])
            frame = {"type": "move", "move": move, "seq": seq, "id": f"{self.name}-{seq}"}
            while True:
                if self.client.closed:
                    await self.reconnect()
                if not await self.client.send(frame):
                    continue
                answer = await self.client.recv_until(lambda m: m.get("id") == frame["id"], 30)
                if answer is None:
                    continue  # the connection ended with the move in flight: send it again
                if answer["type"] == "ack":
                    assert answer["seq"] == seq, answer
                    self.acks.append(answer)
                    self.engine.apply(EngineMove.from_json(answer["move"]))
                    break
                assert answer["error"] in RETRYABLE, answer  # nothing else may refuse a legal move
                self.refusals.append(answer["error"])
                await asyncio.sleep(min(3.0, float(answer.get("retry_after", 1))))
            if pause:
                await asyncio.sleep(pause)


class Spectator:
    """A race's spectator: reconnects when its socket ends; its boards are the last
    snapshot or event of each game."""

    def __init__(self, door: FrontDoor, race_id: str, name: str) -> None:
        self.client = DoorClient(door, f"/ws/races/{race_id}/", None, name)
        self.messages: list[dict[str, Any]] = []
        self.reconnects = 0
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        await self.client.connect()
        self.task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        while True:
            await asyncio.shield(self.client.reader)  # until this connection ends
            self.messages.extend(self.client.messages)
            self.client.messages = []
            self.reconnects += 1
            deadline = time.monotonic() + 30
            while True:
                try:
                    await self.client.connect()
                    break
                except Exception:  # noqa: BLE001 - the door may refuse for a moment
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.2)

    def board(self, game_id: str) -> tuple[int, Any]:
        """(seq, view) of the newest snapshot or event this spectator has of the game."""
        best: tuple[int, Any] = (-1, None)
        for message in [*self.messages, *self.client.messages]:
            if message.get("type") == "snapshot" and message.get("game", {}).get("id") == game_id:
                seq, view = message["seq"], message["game"]["view"]
            elif message.get("type") == "event" and message.get("game") == game_id and "view" in message:
                seq, view = message["seq"], message["view"]
            else:
                continue
            if seq >= best[0]:
                best = (seq, view)
        return best

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        await self.client.close()


async def start_race(door: FrontDoor, players: list[tuple[str, str]]) -> tuple[str, dict[str, str]]:
    """An unrated open-boards race of the (name, token) ``players``, started through
    the door: its id and each player's game by name."""
    sessions = [door.session(token) for _, token in players]
    made = await asyncio.to_thread(sessions[0].post, f"{door.http}/api/races/",
                                   json={"max_players": len(players), "open_boards": True, "rated": False}, timeout=10)
    assert made.status_code == 201, made.text
    race_id = made.json()["id"]
    for http in sessions[1:]:
        joined = await asyncio.to_thread(http.post, f"{door.http}/api/races/{race_id}/join", timeout=10)
        assert joined.status_code == 200, joined.text
    for http in sessions:
        ready = await asyncio.to_thread(http.post, f"{door.http}/api/races/{race_id}/ready", json={"ready": True},
                                        timeout=10)
        assert ready.status_code == 200, ready.text
    deadline = time.monotonic() + 30
    while True:
        race = (await asyncio.to_thread(sessions[0].get, f"{door.http}/api/races/{race_id}/", timeout=10)).json()
        if race["phase"] == "running":
            break
        assert time.monotonic() < deadline, race
        await asyncio.sleep(0.2)
    return race_id, {entry["player"]: entry["game"] for entry in race["entries"]}
