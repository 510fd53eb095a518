"""Who is watching: spectator counts per game, shared by every server process.

With Redis each connection is a member of a sorted set scored by its last
heartbeat, so the connections of a killed process fall out after ``STALE_SECONDS``.
Without Redis (the embedded default) one process is all there is: a dict will do."""

from __future__ import annotations

import time
from collections import defaultdict

import redis
import redis.asyncio as aioredis
from django.conf import settings

STALE_SECONDS = 60
HEARTBEAT_SECONDS = 20


class MemoryPresence:
    def __init__(self) -> None:
        self._members: dict[str, set[str]] = defaultdict(set)

    async def join(self, key: str, member: str) -> int:
        self._members[key].add(member)
        return len(self._members[key])

    async def heartbeat(self, key: str, member: str) -> None:
        self._members[key].add(member)

    async def leave(self, key: str, member: str) -> int:
        self._members[key].discard(member)
        return len(self._members[key])

    async def count(self, key: str) -> int:
        return len(self._members[key])

    def counts_now(self, keys: list[str]) -> dict[str, int]:
        return {key: len(self._members.get(key, ())) for key in keys}


class RedisPresence:
    def __init__(self, url: str) -> None:
        self._url = url
        self._clients: dict[int, aioredis.Redis] = {}
        self._sync: redis.Redis | None = None

    def _redis(self) -> aioredis.Redis:
        # One client per event loop: a client may not cross loops.
        import asyncio

        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            client = self._clients[loop_id] = aioredis.from_url(self._url)
        return client

    async def join(self, key: str, member: str) -> int:
        await self._redis().zadd(self._key(key), {member: time.time()})
        return await self.count(key)

    async def heartbeat(self, key: str, member: str) -> None:
        await self._redis().zadd(self._key(key), {member: time.time()})

    async def leave(self, key: str, member: str) -> int:
        await self._redis().zrem(self._key(key), member)
        return await self.count(key)

    async def count(self, key: str) -> int:
        client = self._redis()
        name = self._key(key)
        await client.zremrangebyscore(name, "-inf", time.time() - STALE_SECONDS)
        return await client.zcard(name)

    def counts_now(self, keys: list[str]) -> dict[str, int]:
        """Watchers of each key, from any thread (the lobby's snapshot), in one round trip."""
        if not keys:
            return {}
        if self._sync is None:
            self._sync = redis.Redis.from_url(self._url, socket_timeout=2)
        since = time.time() - STALE_SECONDS
        pipe = self._sync.pipeline(transaction=False)
        for key in keys:
            pipe.zcount(self._key(key), since, "+inf")
        return dict(zip(keys, pipe.execute()))

    @staticmethod
    def _key(key: str) -> str:
        return f"klondike:watchers:{key}"


_presence: MemoryPresence | RedisPresence | None = None


def presence() -> MemoryPresence | RedisPresence:
    global _presence
    if _presence is None:
        url = getattr(settings, "REDIS_URL", None)
        _presence = RedisPresence(url) if url else MemoryPresence()
    return _presence
