"""Each server process's share of quick matching: while any of its sockets waits in
the queue, it runs a matchmaking wave every ``WAVE_SECONDS`` (a Postgres advisory lock
lets one process's wave run at a time, so more processes cost nothing but a skipped
lock), renews its sockets' tickets, and tells each socket what became of its ticket
from the database: a match whose news the channel layer dropped still arrives."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync
from django.conf import settings

from matchmaking import services as matchmaking

logger = logging.getLogger(__name__)

_matchmakers: dict[int, "Matchmaker"] = {}
# The waves run in a thread of their own, not in the consumers' database threads
# (realtime.database_threads): a burst of players queueing must not hold up the wave
# that matches them.
_wave_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="matchmaking")


def in_wave_thread(function: Any) -> Any:
    return DatabaseSyncToAsync(function, thread_sensitive=False, executor=_wave_thread)


def matchmaker() -> "Matchmaker":
    """This event loop's matchmaker (one per process; the tests run several loops)."""
    loop = asyncio.get_running_loop()
    found = _matchmakers.get(id(loop))
    if found is None or found.loop is not loop:
        found = _matchmakers[id(loop)] = Matchmaker(loop)
    return found


class Matchmaker:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiting: dict[str, Any] = {}  # ticket id -> the consumer waiting on it
        self.task: asyncio.Task | None = None
        self.touched = 0.0

    def add(self, ticket_id: str, consumer: Any) -> None:
        self.waiting[ticket_id] = consumer
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self.run())

    def remove(self, ticket_id: str | None) -> None:
        self.waiting.pop(ticket_id, None)

    async def run(self) -> None:
        while self.waiting:
            await asyncio.sleep(settings.MATCH_WAVE_SECONDS)
            try:
                await self.wave()
            except Exception:
                # The database is down or busy: the sockets wait; the next wave tries again.
                logger.warning("matchmaking wave failed", exc_info=True)

    async def wave(self) -> None:
        await in_wave_thread(matchmaking.match_waiting)()
        if not self.waiting:
            return
        renew = time.monotonic() - self.touched >= matchmaking.TOUCH_SECONDS
        outcome = await in_wave_thread(matchmaking.touch if renew else matchmaking.outcomes)(list(self.waiting))
        if renew:
            self.touched = time.monotonic()
        for ticket_id in list(self.waiting):
            race = outcome.get(ticket_id, "gone")
            if race is None:
                continue
            consumer = self.waiting.pop(ticket_id)
            message = {"type": "match.found", "race": race} if race != "gone" else {"type": "queue.gone"}
            asyncio.ensure_future(consumer.dispatch(message))
