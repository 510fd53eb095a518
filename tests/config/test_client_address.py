"""The client's address comes from TRUSTED_PROXIES, not from the request
(config/client_address.py): the rules, then real Daphne processes with and without
proxies configured, over HTTP (the log-in throttle) and WebSockets (the scope's client,
seen in the access log)."""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from config.client_address import TrustedProxies, resolve_scope
from tests.realtime_helpers import Daphne, database_url

SPOOFED = ["203.0.113.%d" % i for i in range(1, 31)]


# --- the rules ------------------------------------------------------------------------


def test_without_trusted_proxies_the_peer_is_the_client_whatever_the_headers_say():
    proxies = TrustedProxies.parse("")
    assert not proxies.configured
    assert proxies.client("198.51.100.7", ["203.0.113.9"]) == "198.51.100.7"


def test_a_count_takes_the_address_the_first_of_our_proxies_was_given():
    one, two = TrustedProxies.parse("1"), TrustedProxies.parse("2")
    # The client forged the first entry; our one proxy appended the real peer.
    assert one.client("10.0.0.2", ["6.6.6.6", "198.51.100.7"]) == "198.51.100.7"
    assert two.client("10.0.0.2", ["6.6.6.6", "198.51.100.7", "10.0.0.1"]) == "198.51.100.7"
    # Fewer entries than proxies: a proxy did not forward; trust nothing.
    assert two.client("10.0.0.2", ["198.51.100.7"]) == "10.0.0.2"


def test_networks_take_the_rightmost_address_outside_them():
    proxies = TrustedProxies.parse("10.0.0.0/8, 127.0.0.1")
    assert proxies.client("127.0.0.1", ["6.6.6.6", "198.51.100.7", "10.1.2.3"]) == "198.51.100.7"
    # A peer outside the networks is not a proxy: its headers mean nothing.
    assert proxies.client("198.51.100.9", ["6.6.6.6"]) == "198.51.100.9"
    # Every hop ours: the leftmost is the client.
    assert proxies.client("127.0.0.1", ["10.9.9.9", "10.1.1.1"]) == "10.9.9.9"
    assert proxies.client("127.0.0.1", []) == "127.0.0.1"


def test_a_bad_setting_fails_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES"):
        TrustedProxies.parse("10.0.0.0/8, not-a-network")


def test_the_scope_gets_the_client_and_scheme_and_loses_the_forwarding_headers():
    scope = {"type": "websocket", "client": ("10.0.0.2", 5555), "scheme": "ws",
             "headers": [(b"x-forwarded-for", b"6.6.6.6, 198.51.100.7"), (b"x-forwarded-proto", b"https"),
                         (b"origin", b"https://example.com")]}
    resolved = resolve_scope(scope, TrustedProxies.parse("10.0.0.0/8"))
    assert resolved["client"][0] == "198.51.100.7"
    assert resolved["scheme"] == "wss"
    assert resolved["headers"] == [(b"origin", b"https://example.com")]
    untrusted = resolve_scope(scope, TrustedProxies.parse(""))
    assert untrusted["client"][0] == "10.0.0.2" and untrusted["scheme"] == "ws"
    assert all(name != b"x-forwarded-for" for name, _ in untrusted["headers"])


# --- real Daphne processes ------------------------------------------------------------


@pytest.fixture
def daphne_env(django_db_setup: Any) -> tuple[str, str]:
    from django.db import connection

    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "these tests need Redis: run them with make test (REDIS_URL)"
    cache.clear()
    yield database_url(connection.settings_dict), redis_url
    cache.clear()


def serve(env: tuple[str, str], **settings: str) -> Daphne:
    server = Daphne(*env, ACCESS_LOG="true", **settings)
    server.wait_ready()
    return server


def log_in(server: Daphne, forwarded_for: str, username: str = "nobody-here") -> int:
    request = urllib.request.Request(
        f"{server.http}/api/accounts/login", method="POST",
        data=json.dumps({"username": username, "password": "wrong-password-1"}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def attempts(server: Daphne) -> list[int]:
    # A different account each time: only the address's rate is in play.
    return [log_in(server, address, f"user{i}") for i, address in enumerate(SPOOFED)]


@pytest.mark.django_db(transaction=True)
def test_a_new_x_forwarded_for_on_each_request_does_not_escape_the_log_in_throttle(daphne_env):
    server = serve(daphne_env)
    try:
        statuses = attempts(server)
        # THROTTLE_LOGIN is 10/min per client: the other 20 are refused.
        assert statuses[:10] == [400] * 10 and statuses[10:] == [429] * 20, statuses
    finally:
        server.stop()


@pytest.mark.django_db(transaction=True)
def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_throttle(daphne_env):
    server = serve(daphne_env, TRUSTED_PROXIES="127.0.0.1/32")
    try:
        assert attempts(server) == [400] * 30  # thirty real clients behind one proxy
        same = [log_in(server, "198.51.100.7", f"other{i}") for i in range(11)]
        assert same == [400] * 10 + [429]
        # A forged entry on the left changes nothing: the proxy's appended one counts.
        assert log_in(server, "6.6.6.6, 198.51.100.7") == 429
    finally:
        server.stop()


async def websocket_with(server: Daphne, forwarded_for: str) -> None:
    from websockets.asyncio.client import connect

    headers = {"Origin": f"http://127.0.0.1:{server.port}", "X-Forwarded-For": forwarded_for}
    async with connect(f"{server.ws}/ws/lobby/?note=secret-looking", additional_headers=headers) as socket:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert message["type"] == "lobby"


def access_lines(server: Daphne, path: str) -> list[dict]:
    """Our access log's JSON lines for sockets on ``path``; a socket's line is written
    once the server has seen it close, a moment after the client has."""
    for _ in range(100):
        lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
        lines = [line for line in lines if line.get("kind") == "socket" and line.get("path") == path]
        if lines:
            return lines
        time.sleep(0.1)
    return []


@pytest.mark.django_db(transaction=True)
def test_the_socket_scope_and_the_access_log_see_the_configured_client(daphne_env):
    plain = serve(daphne_env)
    proxied = serve(daphne_env, TRUSTED_PROXIES="1")
    try:
        asyncio.run(websocket_with(plain, "203.0.113.50"))
        asyncio.run(websocket_with(proxied, "6.6.6.6, 203.0.113.51"))
        plain_lines, proxied_lines = access_lines(plain, "/ws/lobby/"), access_lines(proxied, "/ws/lobby/")
        assert plain_lines and proxied_lines, (plain.output(), proxied.output())
        # Daphne's own access log (the socket's peer) is off: --access-log /dev/null.
        assert plain_lines[-1]["client"] == "127.0.0.1" and "203.0.113.50" not in plain.output()
        assert proxied_lines[-1]["client"] == "203.0.113.51" and "6.6.6.6" not in proxied.output()
        # The query string (it may carry a socket ticket) never reaches the log.
        assert "secret-looking" not in plain.output() + proxied.output()
    finally:
        plain.stop()
        proxied.stop()
