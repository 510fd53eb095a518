"""Security headers beyond Django's own middleware: the Content-Security-Policy
(django-csp, naming this host's WebSocket origin too) and the same headers on the
WebSocket handshake, which no Django middleware sees (an ASGI middleware adds them)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from csp.middleware import CSPMiddleware, PolicyParts
from csp.utils import build_policy
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]


def websocket_origin(request: HttpRequest) -> str | None:
    """``ws://host:port`` (``wss://`` over TLS) of this request's host. CSP's 'self'
    covers it only in browsers since Chrome 71 and Safari 16; naming it keeps older
    ones on the live boards."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None  # refused with 400 already
    return f"{'wss' if request.is_secure() else 'ws'}://{host}"


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware with this host's WebSocket origin added to connect-src."""

    def get_policy_parts(self, request: HttpRequest, response: HttpResponseBase,
                         report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        origin = websocket_origin(request)
        if origin and not report_only:
            parts.update = {**(parts.update or {}), "connect-src": [origin]}
        return parts


def page_headers(secure: bool) -> dict[str, str]:
    """The headers Django's SecurityMiddleware, XFrameOptionsMiddleware and the CSP
    middleware put on a page (read from the settings at each call), for answers made
    outside the middleware: a socket's 101, a request refused before its turn."""
    headers: dict[str, str] = {}
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers["X-Content-Type-Options"] = "nosniff"
    if settings.SECURE_REFERRER_POLICY:
        policy = settings.SECURE_REFERRER_POLICY
        headers["Referrer-Policy"] = policy if isinstance(policy, str) else ",".join(policy)
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers["Cross-Origin-Opener-Policy"] = settings.SECURE_CROSS_ORIGIN_OPENER_POLICY
    if settings.X_FRAME_OPTIONS:
        headers["X-Frame-Options"] = settings.X_FRAME_OPTIONS
    if csp := build_policy():
        headers["Content-Security-Policy"] = csp
    if settings.SECURE_HSTS_SECONDS and secure:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers["Strict-Transport-Security"] = hsts
    return headers


def handshake_headers(scope: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    """:func:`page_headers` for a socket's 101 answer."""
    headers = page_headers(secure=scope.get("scheme") == "wss")
    return [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers.items()]


class WebSocketSecurityHeaders:
    """ASGI middleware: adds :func:`handshake_headers` to the ``websocket.accept`` message."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Message]], send: Send) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        extra = handshake_headers(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "websocket.accept":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def forward_accept_headers_in_daphne() -> None:
    """Daphne 4 drops the ``headers`` of ``websocket.accept`` (django/daphne#326).
    Autobahn, under it, sends the headers handed over with the accepted subprotocol
    (``succeedHandshake`` takes ``(subprotocol, headers)``): hand them over. Idempotent;
    tests/config/test_security_headers.py checks the headers on a real Daphne handshake."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # another ASGI server: it reads the headers itself
        return
    if getattr(WebSocketProtocol, "forwards_accept_headers", False):
        return
    original = WebSocketProtocol.handle_reply

    def handle_reply(self: Any, message: Message) -> None:
        if message.get("type") == "websocket.accept" and message.get("headers"):
            headers: dict[str, list[str]] = {}
            for name, value in message["headers"]:
                headers.setdefault(name.decode("latin1"), []).append(value.decode("latin1"))
            self.serverAccept((message.get("subprotocol"), headers))
            return
        original(self, message)

    WebSocketProtocol.handle_reply = handle_reply
    WebSocketProtocol.forwards_accept_headers = True
