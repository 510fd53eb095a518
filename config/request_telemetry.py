"""One JSON log line and the metrics of every HTTP request and every socket session.

ASGI middleware inside ClientAddressMiddleware (so it sees the real client). Each
request or socket gets a request id: the proxy's ``X-Request-ID`` when the proxy is
trusted (TRUSTED_PROXIES), else a new one; it is sent back as ``X-Request-ID`` and
carried by every log line logged for the request (telemetry.logs). The path is logged,
never the query string (it may carry a ticket)."""

from __future__ import annotations

import functools
import logging
import re
import time
from typing import Any

from django.urls import Resolver404, resolve

from telemetry import logs, metrics

access_log = logging.getLogger("klondike.access")

REQUEST_ID_HEADER = b"x-request-id"
# A socket path's id taken out: /ws/games/<uuid>/ → /ws/games/:id/ (realtime/routing.py).
_ID_SEGMENT = re.compile(r"/[0-9a-fA-F-]{32,36}(?=/|$)")
SOCKET_ROUTES = {"/ws/games/:id/", "/ws/races/:id/", "/ws/lobby/", "/ws/leaderboards/"}
LONGEST_PATH = 200
KNOWN_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


@functools.lru_cache(maxsize=4096)
def route_of(path: str) -> str:
    """A metric label with few values: the URL pattern a path resolves to
    (``/api/games/<uuid:game_id>/moves``), ``/static``, a socket path without its ids,
    or ``unmatched``; never a username or an id."""
    if path.startswith("/static/"):
        return "/static"
    if len(path) > LONGEST_PATH:
        return "unmatched"
    if path.startswith("/ws/"):
        route = _ID_SEGMENT.sub("/:id", path)
        return route if route in SOCKET_ROUTES else "unmatched"
    try:
        return "/" + resolve(path).route
    except Resolver404:
        return "unmatched"


class RequestTelemetry:
    def __init__(self, app: Any, trust_request_id: bool = False) -> None:
        self.app = app
        self.trust_request_id = trust_request_id

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        offered = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER) if self.trust_request_id else None
        request_id = logs.new_request_id(offered.decode("latin-1") if offered else None)
        path = scope["path"]
        logs.request_id.set(request_id)
        logs.game_id.set(logs.game_of(path))
        route = route_of(path)
        started, outcome = time.monotonic(), {"status": None, "close_code": None}
        if kind == "websocket":
            return await self._socket(scope, receive, send, route, started, outcome, request_id)
        return await self._request(scope, receive, send, route, started, outcome, request_id)

    async def _request(self, scope: dict[str, Any], receive: Any, send: Any, route: str, started: float,
                       outcome: dict[str, Any], request_id: str) -> Any:
        async def noting_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                outcome["status"] = message["status"]
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"X-Request-ID", request_id.encode())]}
            await send(message)

        try:
            return await self.app(scope, receive, noting_send)
        finally:
            seconds = time.monotonic() - started
            status = outcome["status"] or 0
            method = scope.get("method", "") if scope.get("method") in KNOWN_METHODS else "other"
            metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
            metrics.HTTP_SECONDS.labels(method, route).observe(seconds)
            access_log.info("%s %s %s %.1fms", scope.get("method"), scope["path"], status, seconds * 1000,
                            extra={"kind": "http", "client": scope["client"][0], "method": scope.get("method"),
                                   "path": scope["path"], "status": status, "ms": round(seconds * 1000, 1)})

    async def _socket(self, scope: dict[str, Any], receive: Any, send: Any, route: str, started: float,
                      outcome: dict[str, Any], request_id: str) -> Any:
        opened = False

        async def noting_send(message: dict[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "websocket.accept":
                outcome["status"] = 101
                opened = True
                metrics.SOCKETS_OPEN.labels(route).inc()
            elif message["type"] == "websocket.close":
                outcome["close_code"] = outcome["close_code"] or message.get("code", 1000)
                if outcome["status"] is None:
                    outcome["status"] = 403
            await send(message)

        async def noting_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                outcome["close_code"] = outcome["close_code"] or message.get("code", 1005)
            return message

        try:
            return await self.app(scope, noting_receive, noting_send)
        finally:
            seconds = time.monotonic() - started
            if opened:
                metrics.SOCKETS_OPEN.labels(route).dec()
            code = outcome["close_code"] or 1006
            metrics.SOCKET_SESSIONS.labels(route, str(code)).inc()
            access_log.info("WS %s %s closed %s after %.1fs", scope["path"], outcome["status"], code, seconds,
                            extra={"kind": "socket", "client": scope["client"][0], "path": scope["path"],
                                   "status": outcome["status"], "close_code": code, "seconds": round(seconds, 3)})
