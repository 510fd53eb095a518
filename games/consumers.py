"""WebSocket consumers: play and watch a game, and the lobby.

Protocol: docs/realtime.md. Each connection keeps the last sequence number it sent
for its game; events from the channel layer at or below it are duplicates and are
dropped, and one above the next expected number means the layer lost something, so
the gap is fetched from Postgres before going on.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games import events, services
from games.models import Game, Move
from games.presence import HEARTBEAT_SECONDS, presence
from games.services import Actor, ServiceError

MAX_FRAME_BYTES = 4096
RATE_PER_SECOND = 10.0
RATE_BURST = 20.0
MAX_VIOLATIONS = 50
CATCH_UP_LIMIT = 200  # beyond this many missed events a client gets a full resync

# Close codes (docs/realtime.md).
CLOSE_NOT_FOUND = 4404
CLOSE_ABUSE = 4429


class ProtocolConsumer(AsyncWebsocketConsumer):
    """JSON frames with a size limit, a per-connection token bucket and error events
    that never end the connection, except for sustained abuse."""

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.tokens = RATE_BURST
        self.refilled = time.monotonic()
        self.violations = 0
        await super().websocket_connect(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            return await self.refuse("bad_frame", "frames are JSON text, not binary")
        if len(text_data) > MAX_FRAME_BYTES:
            return await self.refuse("frame_too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
        if not self.take_token():
            return await self.refuse("rate_limited", f"at most {RATE_PER_SECOND:g} messages a second")
        try:
            data = json.loads(text_data)
        except ValueError:
            return await self.refuse("bad_json", "the frame is not valid JSON")
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return await self.refuse("bad_message", 'a message is a JSON object with a "type"')
        handler = getattr(self, "on_" + data["type"], None) if data["type"].isidentifier() else None
        if handler is None:
            return await self.refuse("unknown_type", f"unknown message type {data['type'][:40]!r}", data)
        await handler(data)

    async def on_ping(self, data: dict[str, Any]) -> None:
        await self.send_json({"type": "pong", "id": data.get("id")})

    def take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.refilled) * RATE_PER_SECOND)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def refuse(self, code: str, detail: str, data: dict[str, Any] | None = None, **extra: Any) -> None:
        if code in {"bad_frame", "frame_too_large", "rate_limited", "bad_json", "bad_message"}:
            self.violations += 1
        message = {"type": "error", "error": code, "detail": detail, **extra}
        if data is not None and "id" in data:
            message["id"] = data["id"]
        await self.send_json(message)
        if self.violations >= MAX_VIOLATIONS:
            await self.close(code=CLOSE_ABUSE)

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content, default=str))

    def actor(self) -> Actor:
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            return Actor(user_id=user.pk)
        session = self.scope.get("session")
        return Actor(guest_key=session.get("guest_key", "") if session is not None else "")

    def query_int(self, name: str) -> int | None:
        values = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get(name)
        if not values:
            return None
        try:
            return int(values[0])
        except ValueError:
            return None


@database_sync_to_async
def load_game(game_id: str) -> Game | None:
    return Game.objects.select_related("owner").filter(pk=game_id).first()


@database_sync_to_async
def catch_up(game_id: str, since: int | None) -> list[dict[str, Any]]:
    """The events after ``since`` from Postgres, ending with the current board; or a
    snapshot when the client has nothing or too much to catch up."""
    from games.api import game_payload

    game = Game.objects.select_related("owner").get(pk=game_id)
    if since is None or since < 0 or since > game.seq or game.seq - since > CATCH_UP_LIMIT:
        return [{"type": "snapshot", "seq": game.seq, "game": game_payload(game, Actor())}]
    rows = list(Move.objects.filter(game=game, seq__gt=since).order_by("seq"))
    if not rows:
        return []
    engine = game.engine()
    hidden = hidden_card_names(engine) if not game.reveals_everything else set()
    messages = [events.event_of(game, row, None) for row in rows]
    for message in messages:
        card = message["action"].get("card")
        if card in hidden:
            # An undo may have turned this card face down again since: don't name it.
            message["action"] = {**message["action"], "card": None}
    messages[-1] = events.event_of(game, rows[-1], events.view_of(game, engine))
    return messages


def hidden_card_names(engine: Any) -> set[str]:
    from games.engine import card_name

    hidden = {card_name(c) for c in engine.stock}
    for column, down in zip(engine.columns, engine.down):
        hidden.update(card_name(c) for c in column[:down])
    return hidden


class GameConsumer(ProtocolConsumer):
    """``/ws/games/<id>/?since=N``: the player plays here; anyone with the link
    watches. A snapshot (or the missed events) first, then every event live."""

    async def connect(self) -> None:
        self.game_id = str(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = events.game_group(self.game_id)
        self.last_seq = -1
        self.watching = False
        game = await load_game(self.game_id)
        await self.accept()
        if game is None:
            await self.send_json({"type": "error", "error": "not_found", "detail": "there is no such game"})
            return await self.close(code=CLOSE_NOT_FOUND)
        self.player = self.actor().owns(game)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.sync(self.query_int("since"))
        if not self.player:
            self.watching = True
            count = await presence().join(self.game_id, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "game.watchers", "count": count})
            self.heartbeat = asyncio.ensure_future(self.keep_alive())
        else:
            await self.send_json({"type": "watchers", "count": await presence().count(self.game_id)})

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "watching", False):
            self.heartbeat.cancel()
            count = await presence().leave(self.game_id, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "game.watchers", "count": count})

    async def keep_alive(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            await presence().heartbeat(self.game_id, self.channel_name)

    async def sync(self, since: int | None) -> None:
        for message in await catch_up(self.game_id, since):
            await self.send_json(message)
            self.last_seq = message["seq"]

    async def on_sync(self, data: dict[str, Any]) -> None:
        since = data.get("since")
        await self.sync(since if isinstance(since, int) and not isinstance(since, bool) else None)

    async def on_move(self, data: dict[str, Any]) -> None:
        if not self.player:
            return await self.refuse("not_your_game", "only the game's player can play it", data)
        await self.play(data, data.get("move"))

    async def on_undo(self, data: dict[str, Any]) -> None:
        await self.on_move({**data, "move": {"type": "undo"}})

    async def on_resign(self, data: dict[str, Any]) -> None:
        if not self.player:
            return await self.refuse("not_your_game", "only the game's player can play it", data)
        try:
            result = await database_sync_to_async(services.resign)(self.game_id, self.actor(), data.get("seq"))
        except ServiceError as exc:
            return await self.refuse(exc.code, exc.detail, data, **exc.extra)
        await self.acknowledge(data, result)

    async def play(self, data: dict[str, Any], move: Any) -> None:
        try:
            result = await database_sync_to_async(services.submit_move)(
                self.game_id, self.actor(), move, data.get("seq"))
        except ServiceError as exc:
            return await self.refuse(exc.code, exc.detail, data, **exc.extra)
        await self.acknowledge(data, result)

    async def acknowledge(self, data: dict[str, Any], result: dict[str, Any]) -> None:
        await self.send_json({"type": "ack", "id": data.get("id"), "seq": result["seq"], "move": result["move"],
                              "flipped": result["flipped"]})
        if result["seq"] > self.last_seq:
            # Don't wait for the layer: the mover sees its event at once, in order.
            await self.sync(self.last_seq)

    async def game_event(self, message: dict[str, Any]) -> None:
        event = message["event"]
        if event["seq"] <= self.last_seq:
            return
        if event["seq"] > self.last_seq + 1:
            return await self.sync(self.last_seq)
        await self.send_json(event)
        self.last_seq = event["seq"]

    async def game_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "count": message["count"]})


@database_sync_to_async
def lobby_listing() -> dict[str, Any]:
    from games.lobby import lobby

    return lobby()


class LobbyConsumer(ProtocolConsumer):
    """``/ws/lobby/``: live public games and open races, refreshed when they change
    (at most once a second, however busy the site is)."""

    REFRESH_SECONDS = 1.0

    async def connect(self) -> None:
        self.pending: asyncio.Future | None = None
        await self.accept()
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        await self.send_json({"type": "lobby", **await lobby_listing()})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)
        if self.pending:
            self.pending.cancel()

    async def lobby_changed(self, message: dict[str, Any]) -> None:
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self.refresh_soon())

    async def refresh_soon(self) -> None:
        await asyncio.sleep(self.REFRESH_SECONDS)
        await self.send_json({"type": "lobby", **await lobby_listing()})

    async def on_refresh(self, data: dict[str, Any]) -> None:
        await self.send_json({"type": "lobby", **await lobby_listing()})


class NotFoundConsumer(ProtocolConsumer):
    """Any other WebSocket path: an error event and a close, not a server error."""

    async def connect(self) -> None:
        await self.accept()
        await self.send_json({"type": "error", "error": "not_found", "detail": "there is no such endpoint"})
        await self.close(code=CLOSE_NOT_FOUND)
