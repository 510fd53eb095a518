"""Two-factor sign-in (accounts/two_factor.py): turned on with a code computed here from
the secret (RFC 6238, written out below rather than taken from django-otp), signing in
then needs a code, a recovery code works once, sensitive actions need the password and
a code, wrong codes are slowed down but never lock the owner out."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time

import pytest
from django.core.cache import cache
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import AccessToken
from tests.mail_helpers import mailbox  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

JSON = "application/json"
PASSWORD = "correct horse battery 9"


def totp(secret: str, at: float | None = None, step: int = 30, digits: int = 6) -> str:
    """RFC 6238 (SHA-1, 30 s, 6 digits), as authenticator apps compute it."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = struct.pack(">Q", int((time.time() if at is None else at) // step))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10 ** digits).zfill(digits)


def later_code(secret: str) -> str:
    """A code the server has not seen: as if the app's next 30 seconds had come (a used
    code is refused, so the device forgets the last one it took)."""
    TOTPDevice.objects.update(last_t=-1, throttling_failure_count=0, throttling_failure_timestamp=None)
    return totp(secret)


def post(client: Client, url: str, body: dict | None = None):
    return client.post(url, body or {}, content_type=JSON)


def error_of(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


@pytest.fixture
def secured(mailbox):
    """An account with two-factor sign-in on: (its session client, secret, recovery codes)."""
    client = Client()
    assert post(client, "/api/accounts/signup", {"username": "guarded", "password": PASSWORD,
                                                 "email": "guarded@example.com"}).status_code == 201
    assert client.get("/api/accounts/two-factor").json() == {"enabled": False, "recovery_codes_left": 0}
    assert error_of(post(client, "/api/accounts/two-factor/setup", {"password": "not the password"})) == (
        400, "wrong_password")
    setup = post(client, "/api/accounts/two-factor/setup", {"password": PASSWORD}).json()
    assert setup["otpauth_uri"].startswith("otpauth://totp/Klondike") and setup["qr"].startswith("data:image/svg+xml")
    # Not on until a code proves the app has the secret.
    assert error_of(post(client, "/api/accounts/two-factor/confirm", {"code": "000000"})) == (400, "wrong_code")
    assert client.get("/api/accounts/two-factor").json()["enabled"] is False
    codes = post(client, "/api/accounts/two-factor/confirm", {"code": later_code(setup["secret"])}).json()
    assert len(codes["recovery_codes"]) == 10
    assert client.get("/api/accounts/two-factor").json() == {"enabled": True, "recovery_codes_left": 10}
    mailbox.wait_for("guarded@example.com", "two-factor sign-in turned on")
    return client, setup["secret"], codes["recovery_codes"]


def log_in_first_step(client: Client) -> dict:
    response = post(client, "/api/accounts/login", {"username": "guarded", "password": PASSWORD})
    assert response.status_code == 200, response.content
    return response.json()


def test_signing_in_needs_a_code_after_the_password(secured):
    _, secret, _ = secured
    browser = Client()
    assert log_in_first_step(browser)["two_factor_required"] is True
    assert browser.get("/api/accounts/me").status_code in (401, 403)  # not signed in yet
    assert error_of(post(browser, "/api/accounts/login/two-factor", {"code": "123456"})) == (400, "wrong_code")
    signed_in = post(browser, "/api/accounts/login/two-factor", {"code": later_code(secret)})
    assert signed_in.json()["username"] == "guarded"
    assert browser.get("/api/accounts/me").json()["username"] == "guarded"
    # A code without the password first is no sign-in.
    assert error_of(post(Client(), "/api/accounts/login/two-factor", {"code": later_code(secret)})) == (
        409, "no_sign_in_pending")


def test_a_recovery_code_signs_in_once(secured):
    client, _, codes = secured
    first = Client()
    log_in_first_step(first)
    assert post(first, "/api/accounts/login/two-factor", {"code": codes[0]}).status_code == 200
    again = Client()
    log_in_first_step(again)
    assert error_of(post(again, "/api/accounts/login/two-factor", {"code": codes[0]})) == (400, "wrong_code")
    assert client.get("/api/accounts/two-factor").json()["recovery_codes_left"] == 9


def test_wrong_codes_are_slowed_down_not_locked_out(secured):
    _, secret, _ = secured
    browser = Client()
    log_in_first_step(browser)
    answers = [post(browser, "/api/accounts/login/two-factor", {"code": "000000"}) for _ in range(4)]
    assert [a.status_code for a in answers][:1] == [400] and answers[-1].status_code == 429
    assert answers[-1].json()["error"] == "code_throttled" and int(answers[-1]["Retry-After"]) >= 1
    # Once the wait is over the owner's right code works: the lock is never for good.
    device = TOTPDevice.objects.get()
    assert device.throttling_failure_count < 10
    assert post(browser, "/api/accounts/login/two-factor", {"code": later_code(secret)}).status_code == 200


def test_sensitive_actions_need_the_password_and_a_fresh_code(secured, mailbox):
    client, secret, _ = secured
    made = {"name": "bot", "scope": "play", "expires_in_days": 7}
    assert error_of(post(client, "/api/accounts/tokens", made)) == (403, "password_required")
    assert error_of(post(client, "/api/accounts/tokens", {**made, "password": PASSWORD})) == (
        403, "two_factor_required")
    assert error_of(post(client, "/api/accounts/tokens", {**made, "password": "wrong one here",
                                                           "code": later_code(secret)})) == (400, "wrong_password")
    ok = post(client, "/api/accounts/tokens", {**made, "password": PASSWORD, "code": later_code(secret)})
    assert ok.status_code == 201 and AccessToken.objects.count() == 1
    moved = client.patch("/api/accounts/me", {"email": "elsewhere@example.com", "password": PASSWORD},
                         content_type=JSON)
    assert error_of(moved) == (403, "two_factor_required")
    moved = client.patch("/api/accounts/me", {"email": "elsewhere@example.com", "password": PASSWORD,
                                              "code": later_code(secret)}, content_type=JSON)
    assert moved.json()["email"] == "elsewhere@example.com"
    assert error_of(post(client, "/api/accounts/two-factor/disable", {"password": PASSWORD, "code": "000000"})) == (
        400, "wrong_code")
    off = post(client, "/api/accounts/two-factor/disable", {"password": PASSWORD, "code": later_code(secret)})
    assert off.status_code == 204
    assert client.get("/api/accounts/two-factor").json() == {"enabled": False, "recovery_codes_left": 0}
    mailbox.wait_for("elsewhere@example.com", "two-factor sign-in turned off")
    log_in_first_step(Client())  # the password alone signs in again
    assert "two_factor_required" not in post(Client(), "/api/accounts/login",
                                             {"username": "guarded", "password": PASSWORD}).json()


def test_a_token_cannot_touch_two_factor(secured):
    client, secret, _ = secured
    secret_token = post(client, "/api/accounts/tokens", {"name": "t", "scope": "play", "expires_in_days": 1,
                                                          "password": PASSWORD, "code": later_code(secret)}).json()
    api = Client(HTTP_AUTHORIZATION=f"Token {secret_token['token']}")
    for url in ("/api/accounts/two-factor/setup", "/api/accounts/two-factor/disable"):
        assert error_of(post(api, url, {"password": PASSWORD, "code": later_code(secret)})) == (
            403, "session_required")


def test_the_admins_log_in_form_cannot_skip_the_code(secured):
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="guarded").update(is_staff=True, is_superuser=True)
    admin = Client()
    refused = admin.post("/admin/login/", {"username": "guarded", "password": PASSWORD, "next": "/admin/"})
    assert refused.status_code == 403 and b"two-factor" in refused.content
    assert admin.get("/admin/").status_code == 302  # still not signed in: back to the log-in form
