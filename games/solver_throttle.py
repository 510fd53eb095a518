"""Rate limits for hints and Complete: per player (account or guest key) and per client
address, counted in the Django cache (Redis in production), so every server process
shares them. Fixed windows with an atomic increment: no read-modify-write race."""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import ngettext

from api.errors import ServiceError

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``20/min`` → (20, 60): the count, and the window in seconds."""
    count, _slash, period = rate.partition("/")
    return int(count), PERIODS[period[0]]


def player_key(user_id: int | None, guest_key: str) -> str | None:
    if user_id is not None:
        return f"user:{user_id}"
    if guest_key:
        # The guest key is a session secret: the cache gets a digest of it.
        return "guest:" + hashlib.sha256(guest_key.encode()).hexdigest()[:24]
    return None


def wait_after_hit(key: str, rate: str, now: float) -> int:
    """Count one request against ``key``; 0 if it is within ``rate``, else the whole
    seconds until the window ends."""
    limit, period = parse_rate(rate)
    window = int(now // period)
    counter = f"solver-throttle:{key}:{window}"
    cache.add(counter, 0, timeout=period + 1)
    try:
        count = cache.incr(counter)
    except ValueError:  # expired between add and incr: this request opens the next window
        cache.add(counter, 1, timeout=period + 1)
        count = 1
    if count <= limit:
        return 0
    return max(1, math.ceil((window + 1) * period - now))


def check(user_id: int | None, guest_key: str, address: str) -> None:
    """Raise ``429 throttled`` once the player or the address is over its rate. Every
    request counts against both: a player is held from any number of addresses, and
    an address however many guest sessions (free to make) it uses."""
    now = time.time()
    waits = [wait_after_hit(f"addr:{address}", settings.THROTTLE_SOLVER_ADDRESS, now)]
    player = player_key(user_id, guest_key)
    if player is not None:
        waits.append(wait_after_hit(player, settings.THROTTLE_SOLVER, now))
    wait = max(waits)
    if wait:
        # Translators: Complete is the button that plays the game to a win.
        detail = ngettext("too many hints and Completes: try again in %(seconds)s second",
                          "too many hints and Completes: try again in %(seconds)s seconds", wait) % {"seconds": wait}
        raise ServiceError("throttled", detail, 429, retry_after=wait)
