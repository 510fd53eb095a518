"""Redis carries news, Postgres holds it: when the channel layer's Redis comes back
after an outage, every socket of this process catches up from Postgres.

News published while Redis was down is lost, and no later event may come to reveal
the gap (a race's last moves, a game that ended), so a stream cannot wait for one.
One task per process pings the layer's Redis every second; when it answers again,
each consumer resyncs (twice: once the layer has had time to subscribe again, and a
while later for anything published before it had)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

CHECK_SECONDS = 1.0
RESYNC_AFTER_SECONDS = (1.5, 5.0)

_consumers: "weakref.WeakSet[Any]" = weakref.WeakSet()
_tasks: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task]" = weakref.WeakKeyDictionary()


def watch(consumer: Any) -> None:
    """Resync ``consumer`` (its ``resync_soon()``) after the next outage of the layer."""
    if not settings.REDIS_URL:
        return  # the in-memory layer has no outages
    _consumers.add(consumer)
    loop = asyncio.get_running_loop()
    if loop not in _tasks or _tasks[loop].done():
        # Its own context: it watches for every socket, not for the one that started it.
        _tasks[loop] = loop.create_task(_watch(settings.REDIS_URL), context=contextvars.Context())


async def _watch(url: str) -> None:
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(url, socket_timeout=CHECK_SECONDS, socket_connect_timeout=CHECK_SECONDS)
    healthy = True
    while True:
        await asyncio.sleep(CHECK_SECONDS)
        try:
            await client.ping()
            answered = True
        except Exception:  # noqa: BLE001 - any failure means the layer is down
            answered = False
        if answered and not healthy:
            logger.warning("the channel layer's Redis is back: %d sockets catch up from the database",
                           len(_consumers))
            for delay in RESYNC_AFTER_SECONDS:
                asyncio.get_running_loop().call_later(delay, _resync_all)
        elif healthy and not answered:
            logger.warning("the channel layer's Redis does not answer: sockets will catch up when it does")
        healthy = answered


def _resync_all() -> None:
    for consumer in list(_consumers):
        consumer.resync_soon()
