"""Personal access tokens and socket tickets.

A token is made by its owner from a signed-in session (never by another token),
named, with a scope and an expiry; only its SHA-512 digest is stored (django-rest-knox's
hashing and its custom token model, ``accounts.models.AccessToken``), and the secret is
shown once. A socket ticket is what a client that cannot set headers puts in the
socket's URL instead: random, good for one handshake within SOCKET_TICKET_SECONDS,
kept in the cache (Redis) under its digest, so a logged URL holds nothing reusable.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from hmac import compare_digest
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from knox.crypto import hash_token
from knox.settings import CONSTANTS

from accounts import mail
from accounts.domain_events import TokenRevoked
from accounts.models import AccessToken
from api.errors import ServiceError
from games import domain_events

MAX_TOKENS = 50  # per account
MAX_EXPIRY_DAYS = 365
SECRET_MAX_LENGTH = 200  # longer is not a token: refused before any hashing
TICKET_PREFIX = "socket-ticket:"


class TokenRefused(Exception):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


def issue(user: Any, *, name: str, scope: str, expires_in_days: int) -> tuple[AccessToken, str]:
    """A new token and its secret (shown to the owner once, stored nowhere)."""
    if not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
        # Translators: %(name)s is the request's field (kept as it is).
        raise ServiceError("invalid", _("%(name)s must be 1 to %(max)s") % {"name": "expires_in_days",
                                                                            "max": MAX_EXPIRY_DAYS})
    with transaction.atomic():
        # Lock the account's row: two creations at once cannot both pass the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if AccessToken.objects.filter(user=user).count() >= MAX_TOKENS:
            detail = ngettext("an account may hold %(count)s token: revoke one first",
                              "an account may hold %(count)s tokens: revoke one first",
                              MAX_TOKENS) % {"count": MAX_TOKENS}
            raise ServiceError("too_many_tokens", detail, 409)
        made = AccessToken.objects.create(user, expiry=timedelta(days=expires_in_days), name=name.strip(),
                                          scope=scope)
        mail.token_created(user, name.strip(), scope)
        return made


def revoke_all(user: Any) -> int:
    """Revoke every token of the account (a password change or reset); how many."""
    with transaction.atomic():
        digests = list(AccessToken.objects.filter(user=user).values_list("digest", flat=True))
        AccessToken.objects.filter(digest__in=digests).delete()
        for digest in digests:
            domain_events.emit(TokenRevoked(user.pk, digest))
    return len(digests)


def owned(user: Any) -> list[AccessToken]:
    return list(AccessToken.objects.filter(user=user).order_by("-created"))


def revoke(user: Any, token_id: str) -> None:
    """Revoke one of the account's tokens (named by its ``token_key``); its open
    sockets are closed once the revocation commits (realtime.listeners)."""
    with transaction.atomic():
        token = AccessToken.objects.filter(user=user, token_key=token_id).first()
        if token is None:
            raise ServiceError("not_found", _("you have no token with this id"), 404)
        digest = token.digest  # the delete clears the primary key
        token.delete()
        domain_events.emit(TokenRevoked(user.pk, digest))


def authenticate(secret: str) -> AccessToken:
    """The live token this secret opens, with its user; ``TokenRefused`` otherwise.
    Its detail is lazy: a socket's handshake checks the token before the socket's
    language is known, and the consumer renders the detail in it."""
    if not secret or len(secret) > SECRET_MAX_LENGTH or not secret.isascii():
        raise TokenRefused("authentication_failed", gettext_lazy("the token is not valid"))
    digest = hash_token(secret)
    for token in AccessToken.objects.filter(token_key=secret[:CONSTANTS.TOKEN_KEY_LENGTH]).select_related("user"):
        if not compare_digest(digest, token.digest):
            continue
        if token.expiry is not None and token.expiry <= timezone.now():
            raise TokenRefused("token_expired", gettext_lazy("the token has expired: make a new one on your account page"))
        if not token.user.is_active:
            raise TokenRefused("authentication_failed", gettext_lazy("the token is not valid"))
        note_use(token)
        return token
    raise TokenRefused("authentication_failed", gettext_lazy("the token is not valid"))


def note_use(token: AccessToken) -> None:
    """Record the token's last use, at most every TOKEN_LAST_USED_EVERY seconds."""
    now = timezone.now()
    every = timedelta(seconds=settings.TOKEN_LAST_USED_EVERY)
    if token.last_used_at is None or now - token.last_used_at >= every:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


# -- socket tickets ---------------------------------------------------------------


@dataclass(frozen=True)
class Ticket:
    """Who a socket ticket was made for, and by what: a token (its scope and digest) or
    a signed-in session (its digest), so that the socket closes when that ends."""

    user_id: int
    scope: str | None  # a token's scope, or None for a signed-in session
    token_digest: str | None
    session_digest: str | None


def ticket_for(user_id: int, token: AccessToken | None, session_digest: str | None) -> str:
    ticket = "st_" + secrets.token_urlsafe(24)
    value = {"user": user_id, "scope": token.scope if token else None, "token": token.digest if token else None,
             "session": None if token else session_digest}
    cache.set(_ticket_key(ticket), value, settings.SOCKET_TICKET_SECONDS)
    return ticket


def take_ticket(ticket: str) -> Ticket | None:
    """The ticket's holder, once: a second handshake with it gets nothing; nor does one
    whose token has been revoked since."""
    if not ticket or len(ticket) > 64:
        return None
    value = _get_and_delete(_ticket_key(ticket))
    if not value:
        return None
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    if value["token"] and not AccessToken.objects.filter(live, digest=value["token"]).exists():
        return None
    return Ticket(value["user"], value["scope"], value["token"], value.get("session"))


def _ticket_key(ticket: str) -> str:
    return TICKET_PREFIX + hashlib.sha256(ticket.encode()).hexdigest()


def _get_and_delete(key: str) -> Any:
    client = getattr(cache, "_cache", None)
    if hasattr(client, "get_client"):  # Redis: GETDEL, so two handshakes cannot both take it
        redis = client.get_client(key, write=True)
        raw = redis.getdel(cache.make_and_validate_key(key))
        return None if raw is None else client._serializer.loads(raw)
    value = cache.get(key)
    cache.delete(key)
    return value
