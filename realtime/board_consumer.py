"""``/ws/leaderboards/?board=vegas|races|daily[&draw=1&date=YYYY-MM-DD]``: the first
page of a board, pushed again whenever its standings change (at most once a second)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any
from urllib.parse import parse_qs

from django.utils.translation import gettext as _

from realtime.database_threads import db_async

from realtime.consumers import CLOSE_NOT_FOUND, ProtocolConsumer
from realtime import publishing
from realtime.socket_protocol import LEADERBOARD_FRAMES
from games import daily_deals
from leaderboards import services


def board_spec(query: dict[str, list[str]]) -> tuple[str, Any] | None:
    """The board's group name and a function computing its first page."""
    board = query.get("board", [""])[0]
    if board == "vegas":
        return "vegas", services.vegas_board
    if board == "races":
        return "races", services.race_board
    if board == "daily":
        draw = query.get("draw", ["1"])[0]
        try:
            date = dt.date.fromisoformat(query["date"][0]) if "date" in query else daily_deals.today()
        except ValueError:
            return None
        if draw not in ("1", "3"):
            return None
        return f"daily.{date.isoformat()}.{draw}", lambda: services.daily_board(date, int(draw))
    return None


class BoardConsumer(ProtocolConsumer):
    REFRESH_SECONDS = 1.0
    frames = LEADERBOARD_FRAMES

    async def connect(self) -> None:
        self.pending: asyncio.Future | None = None
        self.group = None
        await self.accept()
        spec = board_spec(parse_qs(self.scope.get("query_string", b"").decode("latin-1")))
        if spec is None:
            await self.send_json({"type": "error", "error": "not_found",
                                  # Translators: vegas, races, daily, draw and date are values and names of the URL's query: keep them.
                                  "detail": _("board must be vegas, races or daily (with draw 1 or 3, date YYYY-MM-DD)")})
            return await self.close(code=CLOSE_NOT_FOUND)
        name, self.compute = spec
        self.group = publishing.board_group(name)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.push()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.pending:
            self.pending.cancel()

    async def push(self) -> None:
        await self.send_json({"type": "board", **await db_async(self.compute)()})

    async def board_changed(self, message: dict[str, Any]) -> None:
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self.push_soon())

    async def resync(self) -> None:
        await self.board_changed({"type": "board.changed"})

    async def push_soon(self) -> None:
        await asyncio.sleep(self.REFRESH_SECONDS)
        await self.push()

    async def on_refresh(self, data: dict[str, Any]) -> None:
        await self.push()
