"""Where an account is signed in (accounts/sessions.py): each browser session listed
with its device and times, the current one marked; any other signed out, or all of
them, their open sockets closed on every server process. Real PostgreSQL, Redis and
Daphne processes."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone

from accounts.models import UserSession
from tests.account_helpers import api_token
from tests.realtime_helpers import Client as SocketClient
from tests.realtime_helpers import Closed, adb, new_game

JSON = "application/json"
PASSWORD = "correct horse battery 9"
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/18.1 Mobile/15E148 Safari/604.1")


def browser(user_agent: str, username: str = "wanderer") -> Client:
    client = Client(HTTP_USER_AGENT=user_agent)
    response = client.post("/api/accounts/login", {"username": username, "password": PASSWORD}, content_type=JSON)
    assert response.status_code == 200, response.content
    return client


@pytest.fixture(autouse=True)
def fresh_log_in_limits():
    cache.clear()  # each test logs in several browsers from one address


@pytest.fixture
def account(db):
    return get_user_model().objects.create_user("wanderer", "wanderer@example.com", PASSWORD)


def test_each_signed_in_browser_is_listed_with_its_device_and_the_current_one_first(account):
    desk, phone = browser(FIREFOX), browser(SAFARI)
    listed = phone.get("/api/accounts/sessions").json()
    assert [(s["device"], s["current"]) for s in listed] == [("Safari on iPhone", True), ("Firefox on Windows", False)]
    assert all(s["ip"] == "127.0.0.1" and s["signed_in_at"] and s["last_seen_at"] for s in listed)
    keys = set(UserSession.objects.values_list("session_key", flat=True))
    assert len(keys) == 2 and not any(s["id"] in keys for s in listed)  # the key never leaves the server
    assert [s["current"] for s in desk.get("/api/accounts/sessions").json()] == [True, False]


def test_signing_out_another_session_ends_it_and_the_current_one_goes_on(account):
    desk, phone = browser(FIREFOX), browser(SAFARI)
    other = next(s for s in phone.get("/api/accounts/sessions").json() if not s["current"])
    current = next(s for s in phone.get("/api/accounts/sessions").json() if s["current"])
    refused = phone.delete(f"/api/accounts/sessions/{current['id']}")
    assert (refused.status_code, refused.json()["error"]) == (409, "current_session")
    assert phone.delete("/api/accounts/sessions/00000000-0000-0000-0000-000000000000").status_code == 404
    assert phone.delete("/api/accounts/sessions/not-an-id").status_code == 404
    assert phone.delete(f"/api/accounts/sessions/{other['id']}").status_code == 204
    assert desk.get("/api/accounts/me").status_code in (401, 403)
    assert phone.get("/api/accounts/me").json()["username"] == "wanderer"
    assert [s["device"] for s in phone.get("/api/accounts/sessions").json()] == ["Safari on iPhone"]


def test_signing_out_everywhere_else_leaves_this_session_and_the_tokens(account):
    others = [browser(FIREFOX) for _ in range(3)]
    here = browser(SAFARI)
    secret = api_token(here, password=PASSWORD)
    answer = here.post("/api/accounts/sessions/sign-out-others", content_type=JSON)
    assert answer.json() == {"signed_out": 3}
    assert all(client.get("/api/accounts/me").status_code in (401, 403) for client in others)
    assert here.get("/api/accounts/me").status_code == 200
    assert Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/accounts/me").status_code == 200
    assert UserSession.objects.count() == 1


def test_logging_out_leaves_the_list_and_a_token_cannot_see_it(account):
    desk = browser(FIREFOX)
    token = Client(HTTP_AUTHORIZATION=f"Token {api_token(desk, password=PASSWORD)}")
    response = token.get("/api/accounts/sessions")
    assert (response.status_code, response.json()["error"]) == (403, "session_required")
    assert token.post("/api/accounts/sessions/sign-out-others", content_type=JSON).status_code == 403
    desk.post("/api/accounts/logout", content_type=JSON)
    assert not UserSession.objects.exists()


@override_settings(SESSION_SEEN_EVERY=300)
def test_the_last_seen_time_is_written_at_most_every_few_minutes(account):
    desk = browser(FIREFOX)
    signed_in = UserSession.objects.get().last_seen_at
    for _ in range(3):
        desk.get("/api/accounts/me")
    assert UserSession.objects.get().last_seen_at == signed_in
    session = desk.session
    session["_seen_at"] = (timezone.now() - dt.timedelta(seconds=301)).timestamp()
    session.save()
    desk.get("/api/accounts/me")
    assert UserSession.objects.get().last_seen_at > signed_in


@pytest.mark.django_db(transaction=True)
def test_a_signed_out_sessions_sockets_close_on_every_process(daphne_pool):
    user = get_user_model().objects.create_user("wanderer", "", PASSWORD)
    game_id = new_game(user)
    desk, phone = browser(FIREFOX), browser(SAFARI)
    cookie = f"sessionid={desk.cookies['sessionid'].value}"

    async def body() -> None:
        sockets = [await SocketClient(server, f"/ws/games/{game_id}/", cookie=cookie).connect()
                   for server in daphne_pool]
        for socket in sockets:
            snapshot = await socket.recv()
            assert snapshot["type"] == "snapshot" and snapshot["game"]["yours"] is True
        await adb(phone.post)("/api/accounts/sessions/sign-out-others", content_type=JSON)  # connection back after
        for socket in sockets:
            assert (await socket.recv_until(lambda m: m["type"] == "error"))["error"] == "signed_out"
            with pytest.raises(Closed) as closed:
                await socket.recv()
            assert closed.value.code == 4401

    asyncio.run(asyncio.wait_for(body(), 60))
