"""WebSocket authentication: the session cookie (browsers) or an API token, sent as
``Authorization: Token …`` or, for clients that cannot set headers, ``?token=…``."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from realtime.database_threads import db_async
from channels.middleware import BaseMiddleware


@db_async
def _user_for_token(key: str) -> Any:
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else None


def _token_from(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key:
                return key.strip()
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return query.get("token", [None])[0]


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = _token_from(scope)
        if key:
            user = await _user_for_token(key[:64])
            if user is not None:
                scope = {**scope, "user": user}
        return await super().__call__(scope, receive, send)


def AuthStack(inner: Any) -> Any:
    """Session and cookie auth first, then a token may set the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
