"""WebSocket authentication: the session cookie (browsers), a personal access token in
the ``Authorization: Token …`` header, or, for clients that cannot set headers, a
one-time ticket in the URL (``?ticket=…``, from ``POST /api/accounts/socket-ticket``).
A token never goes in the URL, where proxies and logs would keep it.

What a token or ticket grants rides in the scope: ``token_scope`` (``read`` may watch
but not play; None for a session) and ``token_digest`` (its sockets close when it is
revoked, realtime.listeners); a token or ticket that fails is ``auth_refused``
(code, detail), and the consumer closes the socket with 4401 after saying why.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.middleware import BaseMiddleware
from django.utils.translation import gettext_lazy

from realtime.database_threads import db_async


@db_async
def _from_token(secret: str) -> dict[str, Any]:
    from accounts import tokens

    try:
        token = tokens.authenticate(secret)
    except tokens.TokenRefused as refused:
        return {"auth_refused": (refused.code, refused.detail)}
    return {"user": token.user, "token_scope": token.scope, "token_digest": token.digest}


@db_async
def _from_ticket(ticket: str) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts import tokens

    held = tokens.take_ticket(ticket)
    user = held and get_user_model().objects.filter(pk=held.user_id, is_active=True).first()
    if not user:
        # Lazy: no language is active here; the consumer says it in the socket's language.
        return {"auth_refused": ("ticket_invalid", gettext_lazy("the ticket is unknown, used or expired: ask for a new one"))}
    return {"user": user, "token_scope": held.scope, "token_digest": held.token_digest,
            "ticket_session": held.session_digest}


def _header_token(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key.strip():
                return key.strip()
    return None


def _ticket(scope: dict[str, Any]) -> str | None:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("ticket", [None])[0]


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        granted: dict[str, Any] = {"token_scope": None, "token_digest": None, "ticket_session": None,
                                   "auth_refused": None}
        if (secret := _header_token(scope)) is not None:
            granted |= await _from_token(secret)
        elif (ticket := _ticket(scope)) is not None:
            granted |= await _from_ticket(ticket)
        return await super().__call__({**scope, **granted}, receive, send)


def AuthStack(inner: Any) -> Any:
    """Session and cookie auth first, then a token or ticket may set the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
