"""Each request's id, log line and metric labels (config/request_telemetry.py): the id
a trusted proxy sends is kept and sent back, anything else is replaced; a label is a
URL pattern, never a username or an id, so the metrics stay small whatever is asked."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from config.request_telemetry import RequestTelemetry, route_of
from telemetry import logs
from telemetry.logs import JsonFormatter


@pytest.mark.parametrize("path, label", [
    ("/api/games/5c7e1c72-76b0-4e53-bd77-bfacb41a4683/moves", "/api/games/<uuid:game_id>/moves"),
    ("/players/alice/", "/players/<str:username>/"),
    ("/players/bob/", "/players/<str:username>/"),
    ("/static/frontend/js/socket.js", "/static"),
    ("/no/such/page", "unmatched"),
    ("/ws/games/5c7e1c72-76b0-4e53-bd77-bfacb41a4683/", "/ws/games/:id/"),
    ("/ws/whatever-a-client-sends/", "unmatched"),
    ("/" + "a" * 300, "unmatched"),
])
def test_metric_labels_are_url_patterns(path: str, label: str) -> None:
    assert route_of(path) == label


async def answered(app: Any, headers: list[tuple[bytes, bytes]]) -> dict[str, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/api/games/5c7e1c72-76b0-4e53-bd77-bfacb41a4683/",
             "headers": headers, "client": ("203.0.113.9", 1)}
    await app(scope, receive, send)
    return dict(sent[0]["headers"])


async def inner(scope: Any, receive: Any, send: Any) -> None:
    logging.getLogger("tests.telemetry").warning("inside the view")
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def test_the_request_id_of_a_trusted_proxy_is_kept_and_a_client_claim_is_not(caplog) -> None:
    offered = [(b"x-request-id", b"0123456789abcdef0123456789abcdef")]
    behind_proxy = asyncio.run(answered(RequestTelemetry(inner, trust_request_id=True), offered))
    assert behind_proxy[b"X-Request-ID"] == b"0123456789abcdef0123456789abcdef"
    direct = asyncio.run(answered(RequestTelemetry(inner, trust_request_id=False), offered))
    assert direct[b"X-Request-ID"] != b"0123456789abcdef0123456789abcdef" and len(direct[b"X-Request-ID"]) == 32
    forged = asyncio.run(answered(RequestTelemetry(inner, trust_request_id=True), [(b"x-request-id", b"a\nb")]))
    assert b"\n" not in forged[b"X-Request-ID"]


def test_a_line_logged_inside_a_request_carries_its_request_and_game_ids(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="tests.telemetry"):
        headers = asyncio.run(answered(RequestTelemetry(inner, trust_request_id=False), []))
    line = json.loads(JsonFormatter().format(caplog.records[-1]))
    assert line["message"] == "inside the view" and line["level"] == "warning"
    assert line["request_id"] == headers[b"X-Request-ID"].decode()
    assert line["game_id"] == "5c7e1c72-76b0-4e53-bd77-bfacb41a4683"
    assert logs.request_id.get() == ""  # asyncio.run's context: nothing leaks out
