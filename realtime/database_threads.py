"""The threads that run database calls for the WebSocket consumers.

Channels' ``database_sync_to_async`` runs every call of a process in one shared
thread, so one connection's move waits for every other connection's query, and a
move spends about half its time waiting on PostgreSQL. Consumers use ``db_async``
instead: the same connection clean-up around each call, in a small pool of threads,
each taking its connection from the process's pool for the call (database/pool.py). Writes stay correct because each service
call is one transaction that locks its game row; events may then be published out of
order across games, which streams already handle (sequence numbers, gap fill)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from channels.db import DatabaseSyncToAsync
from django.conf import settings

_pool: ThreadPoolExecutor | None = None


def pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="db")
    return _pool


def db_async(function: Callable[..., Any]) -> Callable[..., Any]:
    """Like ``database_sync_to_async``, but in the pool (as a decorator or a call)."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        return await DatabaseSyncToAsync(function, thread_sensitive=False, executor=pool())(*args, **kwargs)

    call.__name__ = getattr(function, "__name__", "db_call")
    call.__doc__ = function.__doc__
    return call
