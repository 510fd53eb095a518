"""Security headers on every kind of answer: a page, an API answer, an API error and the
WebSocket handshake (a real Daphne process, raw handshake); the cookies' Secure and
HttpOnly flags and HSTS with TLS in front; the socket's origin check still refuses a
foreign page."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.realtime_helpers import Daphne, database_url

JSON = "application/json"
POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
# What HTTPS=true sets (tests/config/test_deploy_settings.py reads them from a real environment).
TLS_IN_FRONT = {"SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SECURE_SSL_REDIRECT": True,
                "SECURE_HSTS_SECONDS": 31536000, "SECURE_HSTS_INCLUDE_SUBDOMAINS": True}


def directives(header: str) -> dict[str, str]:
    parts = (part.strip().split(" ", 1) for part in header.split(";") if part.strip())
    return {name: value for name, value in parts}


def assert_security_headers(headers: Any, connect_src: str | None) -> None:
    """``headers``: any case-insensitive mapping (Django's response, websockets' Headers)."""
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    policy = directives(headers["Content-Security-Policy"])
    assert {name: policy.get(name) for name in POLICY} == POLICY
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    if connect_src is not None:
        assert policy["connect-src"] == connect_src


@pytest.mark.django_db
@pytest.mark.parametrize("method, url, status", [
    ("get", "/", 200), ("get", "/api/lobby", 200), ("get", "/api/nothing-here", 404),
    ("put", "/api/games/", 405),
    ("post", "/api/schema/", 405),  # an error rewritten into JSON (api/error_middleware.py)
])
def test_pages_api_answers_and_api_errors_carry_the_security_headers(method, url, status):
    response = getattr(Client(), method)(url)
    assert response.status_code == status
    assert_security_headers(response, "'self' ws://testserver")


@pytest.mark.django_db
def test_over_tls_the_policy_names_the_wss_origin_and_hsts_is_sent():
    with override_settings(**TLS_IN_FRONT):
        response = Client().get("/", secure=True)
    assert_security_headers(response, "'self' wss://testserver")
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


@pytest.mark.django_db
def test_with_tls_in_front_cookies_are_secure_and_the_session_is_httponly():
    with override_settings(**TLS_IN_FRONT):
        browser = Client()
        assert browser.get("/", secure=True).cookies["csrftoken"]["secure"]
        response = browser.post("/api/accounts/signup", {"username": "tls_user", "password": "  a pass phrase  "},
                                content_type=JSON, secure=True)
        assert response.status_code == 201, response.content
        session = response.cookies["sessionid"]
        assert session["secure"] and session["httponly"]
        # The web app reads the CSRF token from its cookie: that one stays readable by scripts.
        assert not browser.cookies["csrftoken"]["httponly"]


def test_without_tls_in_front_the_session_cookie_is_still_httponly():
    from django.conf import settings

    assert settings.SESSION_COOKIE_HTTPONLY is True
    assert not settings.SESSION_COOKIE_SECURE and not settings.SECURE_SSL_REDIRECT


def test_the_handshake_headers_include_hsts_only_over_wss():
    from config.security_headers import handshake_headers

    with override_settings(**TLS_IN_FRONT):
        secure = dict(handshake_headers({"type": "websocket", "scheme": "wss"}))
        plain = dict(handshake_headers({"type": "websocket", "scheme": "ws"}))
    assert secure[b"strict-transport-security"] == b"max-age=31536000; includeSubDomains"
    assert b"strict-transport-security" not in plain
    assert plain[b"x-content-type-options"] == b"nosniff"


# --- the socket handshake on a real Daphne ------------------------------------------


@pytest.fixture
def daphne(transactional_db: Any) -> Any:
    from django.db import connection

    server = Daphne(database_url(connection.settings_dict), os.environ.get("REDIS_URL", ""))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def test_the_websocket_handshake_carries_the_security_headers(daphne):
    from websockets.asyncio.client import connect

    async def handshake() -> Any:
        async with connect(f"{daphne.ws}/ws/lobby/", additional_headers={"Origin": daphne.http},
                           open_timeout=10) as socket:
            assert (await socket.recv())  # the lobby's first message: the socket is live
            return socket.response

    response = asyncio.run(handshake())
    assert response.status_code == 101
    assert_security_headers(response.headers, None)


def test_a_foreign_origin_is_still_refused_at_the_handshake(daphne):
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async def handshake() -> None:
        async with connect(f"{daphne.ws}/ws/lobby/", additional_headers={"Origin": "http://evil.example.com"},
                           open_timeout=10):
            pass

    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(handshake())
    assert refused.value.response.status_code == 403
