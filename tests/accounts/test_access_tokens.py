"""Personal access tokens (accounts/tokens.py): made, listed and revoked from a signed-in
session, stored hashed, scoped, expiring, and refused on REST and on sockets once
revoked or expired; socket tickets for clients that cannot set headers. Against real
PostgreSQL, Redis and Daphne processes."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone

from accounts.models import AccessToken
from tests.account_helpers import api_token
from tests.realtime_helpers import Client as SocketClient
from tests.realtime_helpers import Closed, Daphne, adb, new_game

JSON = "application/json"
PASSWORD = "correct horse battery 9"


def signed_in(username: str = "owner") -> tuple[Any, Client]:
    user = get_user_model().objects.create_user(username, f"{username}@example.com", PASSWORD)
    client = Client()
    client.force_login(user)
    return user, client


def error_of(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


def with_token(secret: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {secret}")


# -- made, listed, revoked ------------------------------------------------------------


@pytest.mark.django_db
def test_a_token_is_shown_once_listed_without_its_secret_and_stored_only_as_a_digest():
    user, browser = signed_in()
    bare = browser.post("/api/accounts/tokens", {"name": "my bot", "scope": "play", "expires_in_days": 7},
                        content_type=JSON)
    assert error_of(bare) == (403, "password_required")  # a stolen session alone makes no token
    made = browser.post("/api/accounts/tokens", {"name": "my bot", "scope": "play", "expires_in_days": 7,
                                                 "password": PASSWORD}, content_type=JSON)
    assert made.status_code == 201, made.content
    body = made.json()
    secret = body["token"]
    assert secret.startswith("kl_") and len(secret) == 67 and body["id"] == secret[:15]
    assert (body["name"], body["scope"], body["legacy"], body["last_used_at"]) == ("my bot", "play", False, None)
    expires = dt.datetime.fromisoformat(body["expires_at"])
    assert dt.timedelta(days=6, hours=23) < expires - timezone.now() <= dt.timedelta(days=7)
    listed = browser.get("/api/accounts/tokens").json()
    assert [token["id"] for token in listed] == [body["id"]] and "token" not in listed[0]
    # Nothing in the database holds the secret: its SHA-512 digest only.
    row = AccessToken.objects.get(user=user)
    assert row.digest == hashlib.sha512(secret.encode()).hexdigest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_accesstoken")
        assert not any(secret in str(value) for value in cursor.fetchone())
    assert with_token(secret).get("/api/accounts/me").json()["username"] == "owner"


@pytest.mark.django_db
def test_a_revoked_token_is_refused_and_only_its_owner_can_revoke_it():
    user, browser = signed_in()
    secret = api_token(browser, password=PASSWORD)
    token_id = secret[:15]
    _, stranger = signed_in("stranger")
    assert error_of(stranger.delete(f"/api/accounts/tokens/{token_id}")) == (404, "not_found")
    assert with_token(secret).get("/api/accounts/me").status_code == 200
    assert browser.delete(f"/api/accounts/tokens/{token_id}").status_code == 204
    assert error_of(with_token(secret).get("/api/accounts/me")) == (401, "authentication_failed")
    assert browser.get("/api/accounts/tokens").json() == []


@pytest.mark.django_db
def test_an_expired_token_is_refused_with_its_own_code():
    _, browser = signed_in()
    secret = api_token(browser, password=PASSWORD, days=1)
    AccessToken.objects.update(expiry=timezone.now() - dt.timedelta(seconds=1))
    assert error_of(with_token(secret).get("/api/games/")) == (401, "token_expired")


@pytest.mark.django_db
def test_a_token_never_manages_the_account():
    _, browser = signed_in()
    api = with_token(api_token(browser, password=PASSWORD))
    made = {"name": "another", "scope": "play", "expires_in_days": 7}
    for response in (api.post("/api/accounts/tokens", made, content_type=JSON),
                     api.get("/api/accounts/tokens"),
                     api.delete("/api/accounts/tokens/kl_whatever"),
                     api.patch("/api/accounts/me", {"email": "thief@example.com"}, content_type=JSON)):
        assert error_of(response) == (403, "session_required")
    assert AccessToken.objects.count() == 1
    assert get_user_model().objects.get(username="owner").email == "owner@example.com"
    assert error_of(Client().get("/api/accounts/tokens"))[0] in (401, 403)


@pytest.mark.django_db
def test_a_read_token_reads_its_owners_data_and_cannot_play():
    user, browser = signed_in()
    game_id = new_game(user)
    reader = with_token(api_token(browser, password=PASSWORD, scope="read"))
    assert reader.get("/api/accounts/me").json()["username"] == "owner"
    assert reader.get(f"/api/games/{game_id}/").json()["yours"] is True
    refused = reader.post(f"/api/games/{game_id}/moves", {"move": {"type": "draw"}, "seq": 1}, content_type=JSON)
    assert error_of(refused) == (403, "token_scope")
    assert error_of(reader.post("/api/games/", {"draw": 1}, content_type=JSON)) == (403, "token_scope")
    player = with_token(api_token(browser, password=PASSWORD, scope="play"))
    assert player.post(f"/api/games/{game_id}/moves", {"move": {"type": "draw"}, "seq": 1},
                       content_type=JSON).status_code == 200


@pytest.mark.django_db
def test_a_token_request_is_refused_when_its_body_is_bad_and_nothing_is_made():
    _, browser = signed_in()
    for body, field in (({"name": "", "scope": "play"}, "name"), ({"name": "x", "scope": "admin"}, "scope"),
                        ({"name": "x", "scope": "play", "expires_in_days": 0}, "expires_in_days"),
                        ({"name": "x", "scope": "play", "expires_in_days": 366}, "expires_in_days"),
                        ({"name": "x" * 61, "scope": "play"}, "name"),
                        ({"name": "x", "scope": "play", "owner": "someone"}, "owner")):
        response = browser.post("/api/accounts/tokens", body, content_type=JSON)
        assert error_of(response) == (400, "invalid") and field in response.json()["fields"], (body, response.json())
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
@override_settings(TOKEN_LAST_USED_EVERY=300)
def test_the_last_use_is_written_at_most_every_few_minutes():
    _, browser = signed_in()
    api = with_token(api_token(browser, password=PASSWORD))
    with_writes = []
    for _ in range(3):
        before = AccessToken.objects.get().last_used_at
        assert api.get("/api/accounts/me").status_code == 200
        with_writes.append(AccessToken.objects.get().last_used_at != before)
    assert with_writes == [True, False, False]
    AccessToken.objects.update(last_used_at=timezone.now() - dt.timedelta(seconds=301))
    api.get("/api/accounts/me")
    assert timezone.now() - AccessToken.objects.get().last_used_at < dt.timedelta(seconds=5)


# -- sockets ---------------------------------------------------------------------------


def post_json(server: Daphne, path: str, token: str) -> tuple[int, Any]:
    request = urllib.request.Request(f"{server.http}{path}", data=b"", method="POST",
                                     headers={"Authorization": f"Token {token}", "Content-Type": JSON})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


async def refused_at_handshake(server: Daphne, path: str, token: str | None = None) -> tuple[str, int | None]:
    socket = await SocketClient(server, path, token=token).connect()
    error = await socket.recv()
    with pytest.raises(Closed) as closed:
        await socket.recv()
    return error["error"], closed.value.code


@pytest.mark.django_db(transaction=True)
def test_a_revoked_token_closes_its_open_sockets_on_every_process_and_is_refused_at_the_handshake(daphne_pool):
    daphnes = daphne_pool
    user, browser = signed_in()
    game_id = new_game(user)
    secret = api_token(browser, password=PASSWORD)

    async def body() -> None:
        sockets = [await SocketClient(server, f"/ws/games/{game_id}/", token=secret).connect() for server in daphnes]
        for socket in sockets:
            assert (await socket.recv())["type"] == "snapshot"
        await adb(browser.delete)(f"/api/accounts/tokens/{secret[:15]}")  # its connection back to the pool after
        for socket in sockets:
            assert (await socket.recv_until(lambda m: m["type"] == "error"))["error"] == "token_revoked"
            with pytest.raises(Closed) as closed:
                await socket.recv()
            assert closed.value.code == 4401
        assert await refused_at_handshake(daphnes[0], f"/ws/games/{game_id}/", secret) == (
            "authentication_failed", 4401)

    asyncio.run(asyncio.wait_for(body(), 60))


@pytest.mark.django_db(transaction=True)
def test_an_expired_token_is_refused_at_the_handshake_and_a_read_token_may_watch_but_not_play(daphne_pool):
    daphnes = daphne_pool
    user, browser = signed_in()
    game_id = new_game(user)
    reader, expired = api_token(browser, password=PASSWORD, scope="read"), api_token(browser, password=PASSWORD, name="old")
    AccessToken.objects.filter(name="old").update(expiry=timezone.now() - dt.timedelta(seconds=1))

    async def body() -> None:
        assert await refused_at_handshake(daphnes[1], f"/ws/games/{game_id}/", expired) == ("token_expired", 4401)
        socket = await SocketClient(daphnes[1], f"/ws/games/{game_id}/", token=reader).connect()
        assert (await socket.recv())["type"] == "snapshot"
        await socket.send({"type": "move", "id": 1, "seq": 1, "move": {"type": "draw"}})
        refusal = await socket.recv_until(lambda m: m["type"] == "error")
        assert (refusal["error"], refusal["id"]) == ("token_scope", 1)
        await socket.conn.close()

    asyncio.run(asyncio.wait_for(body(), 60))
    assert new_game_seq(game_id) == 0


def new_game_seq(game_id: str) -> int:
    from games.models import Game

    return Game.objects.get(pk=game_id).seq


@pytest.mark.django_db(transaction=True)
def test_a_socket_ticket_opens_one_handshake_and_a_token_in_the_url_opens_none(daphne_pool):
    daphnes = daphne_pool
    user, browser = signed_in()
    game_id = new_game(user)
    secret = api_token(browser, password=PASSWORD)
    status, answer = post_json(daphnes[0], "/api/accounts/socket-ticket", secret)
    assert status == 201 and answer["expires_in"] == 30 and answer["ticket"].startswith("st_")
    ticket = answer["ticket"]

    async def body() -> None:
        # Redeemed on the other process: tickets live in Redis, not in one process.
        socket = await SocketClient(daphnes[1], f"/ws/games/{game_id}/?ticket={ticket}").connect()
        snapshot = await socket.recv()
        assert snapshot["type"] == "snapshot" and snapshot["game"]["yours"] is True
        await socket.send({"type": "move", "id": 1, "seq": 1, "move": {"type": "draw"}})
        assert (await socket.recv_until(lambda m: m["type"] == "ack"))["seq"] == 1
        await socket.conn.close()
        assert await refused_at_handshake(daphnes[0], f"/ws/games/{game_id}/?ticket={ticket}") == (
            "ticket_invalid", 4401)
        # A token in the URL is not read: the socket is a stranger's, which may only watch.
        stranger = await SocketClient(daphnes[0], f"/ws/games/{game_id}/?token={secret}").connect()
        assert (await stranger.recv())["game"]["yours"] is False
        await stranger.conn.close()

    asyncio.run(asyncio.wait_for(body(), 60))
    for server in daphnes:
        assert secret not in server.output() and ticket not in server.output()
    # A ticket whose token is revoked before the handshake opens nothing.
    _, late = post_json(daphnes[0], "/api/accounts/socket-ticket", secret)
    browser.delete(f"/api/accounts/tokens/{secret[:15]}")
    assert asyncio.run(refused_at_handshake(daphnes[1], f"/ws/games/{game_id}/?ticket={late['ticket']}")) == (
        "ticket_invalid", 4401)


@pytest.mark.django_db(transaction=True)
def test_a_read_token_gets_a_ticket_and_a_sessions_ticket_closes_with_the_session(daphne_pool):
    user, browser = signed_in()
    game_id = new_game(user)
    reader = api_token(browser, password=PASSWORD, scope="read")
    status, answer = post_json(daphne_pool[0], "/api/accounts/socket-ticket", reader)
    assert status == 201  # asking for a ticket changes nothing: a read token may
    ticket = browser.post("/api/accounts/socket-ticket", content_type=JSON).json()["ticket"]  # the session's

    async def body() -> None:
        socket = await SocketClient(daphne_pool[1], f"/ws/games/{game_id}/?ticket={ticket}").connect()
        assert (await socket.recv())["type"] == "snapshot"
        await adb(browser.post)("/api/accounts/logout", content_type=JSON)
        assert (await socket.recv_until(lambda m: m["type"] == "error"))["error"] == "signed_out"
        with pytest.raises(Closed) as closed:
            await socket.recv()
        assert closed.value.code == 4401

    asyncio.run(asyncio.wait_for(body(), 60))


@pytest.mark.django_db
def test_making_tokens_is_limited_per_account_and_a_refusal_changes_nothing(monkeypatch):
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "tokens", "3/hour")
    cache.clear()
    _, browser = signed_in()
    made = {"name": "bot", "scope": "read", "expires_in_days": 1, "password": PASSWORD}
    answers = [browser.post("/api/accounts/tokens", made, content_type=JSON) for _ in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert answers[-1].json()["error"] == "throttled" and int(answers[-1]["Retry-After"]) > 0
    assert AccessToken.objects.count() == 3
    # Listing is not limited by it.
    assert browser.get("/api/accounts/tokens").status_code == 200
    cache.clear()
