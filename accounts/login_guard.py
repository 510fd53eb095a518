"""Log-in limits: a rate per client address, and a backoff per account.

Every log-in path (the REST API and the Django admin) asks ``check`` before it
checks a password; failures and successes are recorded from Django's
``user_login_failed`` / ``user_logged_in`` signals, whichever path sent them.

The backoff is kept per account *and* address: after ``FREE_FAILURES`` failed
passwords from one address, that address must wait 2, 4, 8 … seconds (at most
``MAX_BACKOFF_SECONDS``) between attempts for that account. An attacker therefore
slows only themselves: the owner, from any other address, is never locked out. An
account attacked from many addresses (``ATTACK_FAILURES`` failures in an hour)
gives addresses it has never been logged in from one free failure instead of five;
the addresses it was recently used from keep theirs. The first attempt from any
address is always allowed.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.utils.translation import ngettext
from rest_framework.throttling import SimpleRateThrottle

FREE_FAILURES = 5
ATTACK_FAILURES = 20            # failures of one account in an hour, from any addresses
ATTACK_WINDOW_SECONDS = 3600
MAX_BACKOFF_SECONDS = 900
PAIR_MEMORY_SECONDS = 86400     # how long an address's failures on an account are remembered
KNOWN_ADDRESS_SECONDS = 30 * 86400


class LoginRateThrottle(SimpleRateThrottle):
    """``THROTTLE_LOGIN`` per client address, for every log-in form (API and admin)."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


@dataclass(frozen=True)
class Refusal:
    code: str
    detail: str
    retry_after: int


def _name(username: Any) -> str:
    """The account's counter name: case-insensitive ("Alice" and "alice" are one
    account), counted whether or not the account exists (the answer reveals nothing),
    and hashed, so that any text makes a safe cache key."""
    folded = str(username or "").strip().lower()[:150]
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def counter_keys(username: Any, address: str) -> tuple[str, str, str]:
    """The cache keys of the address's failures on the account, the account's
    failures from anywhere, and the address being known to the account."""
    name = _name(username)
    return f"login:fail:{name}:{address}", f"login:attack:{name}", f"login:known:{name}:{address}"


def backoff_seconds(failures: int, free: int) -> int:
    """How long to wait after the ``failures``-th failure (0 while still free)."""
    if failures < free:
        return 0
    return min(MAX_BACKOFF_SECONDS, 2 ** min(failures - free + 1, 20))


def _free_failures(username: str, address: str) -> int:
    _pair_key, attack_key, known_key = counter_keys(username, address)
    if (cache.get(attack_key) or 0) >= ATTACK_FAILURES and not cache.get(known_key):
        return 1
    return FREE_FAILURES


def check(username: Any, address: str) -> Refusal | None:
    """Whether a log-in as ``username`` from ``address`` may be tried now."""
    pair_key = counter_keys(username, address)[0]
    failures, last = cache.get(pair_key) or (0, 0.0)
    wait = backoff_seconds(failures, _free_failures(username, address))
    remaining = last + wait - time.time()
    if remaining <= 0:
        return None
    seconds = math.ceil(remaining)
    detail = ngettext("too many failed log-ins for this account from your address: try again in %(seconds)s second",
                      "too many failed log-ins for this account from your address: try again in %(seconds)s seconds",
                      seconds) % {"seconds": seconds}
    return Refusal("login_backoff", detail, seconds)


def record_failure(username: Any, address: str) -> None:
    pair_key, attack_key, _ = counter_keys(username, address)
    failures, _ = cache.get(pair_key) or (0, 0.0)
    cache.set(pair_key, (failures + 1, time.time()), PAIR_MEMORY_SECONDS)
    if not cache.add(attack_key, 1, ATTACK_WINDOW_SECONDS):
        try:
            cache.incr(attack_key)
        except ValueError:  # expired between add and incr
            cache.add(attack_key, 1, ATTACK_WINDOW_SECONDS)


def record_success(username: Any, address: str) -> None:
    pair_key, _, known_key = counter_keys(username, address)
    cache.delete(pair_key)
    cache.set(known_key, True, KNOWN_ADDRESS_SECONDS)


def client_address(request: Any) -> str:
    """The client as config.client_address resolved it."""
    return request.META.get("REMOTE_ADDR", "") if request is not None else ""


@receiver(user_login_failed)
def _failed(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    if request is not None:
        record_failure(credentials.get("username"), client_address(request))


@receiver(user_logged_in)
def _succeeded(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if request is not None:
        record_success(user.get_username(), client_address(request))
