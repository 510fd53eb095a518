"""How news reaches the channel layer: the groups' names, and the sends of request
threads (handed to the event loop) and of database threads (collected for the
consumer to make).

Redis only carries news: every event of a game carries the game's sequence number,
a consumer that sees a gap fetches the missing events from Postgres, and a
reconnecting client sends the last number it saw. What is sent when is decided by
realtime.listeners, from the domain events of the rooms below.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

from telemetry import logs, metrics

LOBBY_GROUP = "lobby"

logger = logging.getLogger(__name__)


def game_group(game_id: Any) -> str:
    return f"game.{game_id}"


def race_group(race_id: Any) -> str:
    return f"race.{race_id}"


def board_group(board: str) -> str:
    return f"board.{board}"


def player_group(user_id: Any) -> str:
    """Every socket of one player's own channel (/ws/me/): matches, challenges."""
    return f"player.{user_id}"


def token_group(digest: str) -> str:
    """The sockets opened with one access token (closed when it is revoked)."""
    return f"token.{digest[:64]}"


def session_group(digest: str) -> str:
    """The sockets of one signed-in session (closed when it is signed out)."""
    return f"session.{digest}"


_outbox = threading.local()


def send_group(group: str, message: dict[str, Any]) -> None:
    """Send to a channel group; inside ``collecting_sends`` only note it, for the
    caller to send from the event loop."""
    pending = getattr(_outbox, "messages", None)
    if pending is not None:
        pending.append((group, message))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    loop = serving_event_loop()
    if loop is None:
        async_to_sync(send_or_count)(group, message, time.monotonic())
        return
    # A request's thread under Daphne: hand the send to the event loop and go on. The
    # response does not wait for Redis, and the thread is not held while it answers.
    LoopPublisher.of(loop).put(group, message)


async def send_or_count(group: str, message: dict[str, Any], committed: float, request_id: str | None = None
                        ) -> bool:
    """Send news of a commit; a failure (Redis down) is logged and counted, never
    raised: the commit stands and its sender is told so, and every viewer catches up
    from Postgres by sequence number. ``committed`` is when the news was made
    (``time.monotonic()``), for the move-to-publish latency."""
    layer = get_channel_layer()
    try:
        await layer.group_send(group, message)
    except Exception as exc:  # noqa: BLE001 - any layer failure: the database has the event
        metrics.CHANNEL_SEND_FAILURES.inc()
        noted = logs.request_id.set(request_id) if request_id else None  # the move's request, on its line
        try:
            logger.warning("channel layer send to %s failed: %r", group, exc)
        finally:
            if noted is not None:
                logs.request_id.reset(noted)
        return False
    if message.get("type") == "game.event":
        metrics.MOVE_PUBLISH_SECONDS.observe(time.monotonic() - committed)
    return True


def serving_event_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the server this thread works for (asgiref's ``sync_to_async``
    notes it in its threads), if it runs."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


class LoopPublisher:
    """The group sends of a process's request threads, made by one task on the event
    loop in the order they were handed over (a game's events in seq order), with a
    bounded backlog should Redis stall."""

    BACKLOG = 10_000
    _by_loop: dict[asyncio.AbstractEventLoop, "LoopPublisher"] = {}
    _lock = threading.Lock()

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> "LoopPublisher":
        with cls._lock:
            if loop not in cls._by_loop:
                cls._by_loop = {known: p for known, p in cls._by_loop.items() if not known.is_closed()}
                cls._by_loop[loop] = cls(loop)
            return cls._by_loop[loop]

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue | None = None

    def put(self, group: str, message: dict[str, Any]) -> None:
        """From any thread."""
        self.loop.call_soon_threadsafe(self._enqueue, group, message, time.monotonic(), logs.request_id.get())

    def _enqueue(self, group: str, message: dict[str, Any], committed: float, request_id: str) -> None:
        if self.queue is None:
            self.queue = asyncio.Queue(self.BACKLOG)
            # Its own context: it sends for every request, not for the first one.
            self.loop.create_task(self._send_in_order(), context=contextvars.Context())
        try:
            self.queue.put_nowait((group, message, committed, request_id))
        except asyncio.QueueFull:
            # The move is in the database: clients see it on their next gap check or reconnect.
            metrics.CHANNEL_SEND_FAILURES.inc()
            logger.warning("channel layer backlog full: a send to %s dropped", group)

    async def _send_in_order(self) -> None:
        assert self.queue is not None
        while True:
            group, message, committed, request_id = await self.queue.get()
            await send_or_count(group, message, committed, request_id)


def collecting_sends(function: Callable[..., Any]) -> Callable[..., tuple[Any, BaseException | None, list]]:
    """Wrap a sync service call so that the group sends of its after-commit hooks
    are returned instead of made: ``(result, error, sends)``.

    Consumers run services in a database thread (``realtime.database_threads``); sending from
    there would block that thread on Redis for every event (``async_to_sync``), so
    the consumer sends them itself from the event loop (``send_collected``), in
    order, after the call returns. The error is
    returned, not raised, because a failed call may still have sends (a race that
    ended is finished after the refused move is rolled back)."""

    def call(*args: Any, **kwargs: Any) -> tuple[Any, BaseException | None, list]:
        _outbox.messages = Outbox()
        try:
            return function(*args, **kwargs), None, _outbox.messages
        except Exception as exc:  # noqa: BLE001 - handed back to the async caller
            return None, exc, _outbox.messages
        finally:
            _outbox.messages = None

    return call


class Outbox(list):
    """A service call's sends, and when the first was made (its commit)."""

    def append(self, item: tuple[str, dict[str, Any]]) -> None:
        if not self:
            self.committed = time.monotonic()
        super().append(item)


async def send_collected(sends: list[tuple[str, dict[str, Any]]]) -> None:
    """Make a service call's sends; failures are counted, not raised (send_or_count)."""
    if get_channel_layer() is None:
        return
    committed = getattr(sends, "committed", time.monotonic())
    for group, message in sends:
        await send_or_count(group, message, committed)
