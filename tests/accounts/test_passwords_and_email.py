"""Password change and reset, email verification and the notices (accounts/passwords.py,
accounts/email_addresses.py, accounts/mail.py): the mail goes over SMTP to a real local
server (tests/mail_helpers.py), and the links in it are followed."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from accounts.models import AccessToken, UserSession
from tests.account_helpers import api_token
from tests.mail_helpers import body_of, link_in, mailbox  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

JSON = "application/json"
PASSWORD = "correct horse battery 9"
NEW_PASSWORD = "a brand new passphrase 4"


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


def post(client: Client, url: str, body: dict | None = None):
    return client.post(url, body or {}, content_type=JSON)


def logged_in(username: str = "keeper", password: str = PASSWORD) -> Client:
    client = Client()
    response = post(client, "/api/accounts/login", {"username": username, "password": password})
    assert response.status_code == 200, response.content
    return client


def verified_account(mailbox, username: str = "keeper", address: str = "keeper@example.com") -> Client:
    """Signed up with an address and verified through the link mailed to it."""
    client = Client()
    assert post(client, "/api/accounts/signup", {"username": username, "password": PASSWORD,
                                                 "email": address}).status_code == 201
    token = secrets_of(link_in(mailbox.wait_for(address, "verify your email")))["token"]
    assert post(Client(), "/api/accounts/email/verify", {"token": token}).status_code == 200
    assert client.get("/api/accounts/me").json()["email_verified"] is True
    return client


def secrets_of(link: str) -> dict[str, str]:
    """The link's secrets, in its fragment (never sent to the server)."""
    parts = urlsplit(link)
    return {key: values[0] for key, values in parse_qs(parts.fragment).items()}


def error_of(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


# -- change --------------------------------------------------------------------------


def test_changing_the_password_needs_the_current_one_and_signs_out_the_rest(mailbox):
    here = verified_account(mailbox)
    elsewhere = logged_in()
    secret = api_token(here, password=PASSWORD)
    wrong = post(here, "/api/accounts/password", {"current_password": "not it at all", "new_password": NEW_PASSWORD})
    assert error_of(wrong) == (400, "wrong_password")
    weak = post(here, "/api/accounts/password", {"current_password": PASSWORD, "new_password": "password"})
    assert error_of(weak)[0] == 400
    changed = post(here, "/api/accounts/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.json() == {"signed_out": 1, "revoked_tokens": 1}
    assert here.get("/api/accounts/me").status_code == 200  # this session stays
    assert elsewhere.get("/api/accounts/me").status_code in (401, 403)
    assert Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/accounts/me").status_code == 401
    notice = mailbox.wait_for("keeper@example.com", "your password was changed")
    assert "changed from a signed-in session" in body_of(notice)
    assert logged_in(password=NEW_PASSWORD).get("/api/accounts/me").status_code == 200


def test_the_owner_may_keep_the_tokens(mailbox):
    here = verified_account(mailbox)
    elsewhere = logged_in()
    secret = api_token(here, password=PASSWORD)
    kept = post(here, "/api/accounts/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD,
                                                 "keep_tokens": True})
    assert kept.json() == {"signed_out": 1, "revoked_tokens": 0}
    assert Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/accounts/me").status_code == 200
    assert UserSession.objects.count() == 1
    assert elsewhere.get("/api/accounts/me").status_code in (401, 403)


def test_a_token_cannot_change_the_password(mailbox):
    here = verified_account(mailbox)
    token = Client(HTTP_AUTHORIZATION=f"Token {api_token(here, password=PASSWORD)}")
    refused = post(token, "/api/accounts/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert error_of(refused) == (403, "session_required")


# -- reset ---------------------------------------------------------------------------


def test_a_reset_link_works_once_and_signs_out_every_session(mailbox):
    here = verified_account(mailbox)
    secret = api_token(here, password=PASSWORD)
    answer = post(Client(), "/api/accounts/password-reset", {"email": "KEEPER@example.com"})
    assert answer.status_code == 202
    link = link_in(mailbox.wait_for("keeper@example.com", "reset your password"))
    assert urlsplit(link).path == "/reset/" and not urlsplit(link).query
    reset = {**secrets_of(link), "new_password": NEW_PASSWORD}
    assert post(Client(), "/api/accounts/password-reset/confirm", reset).status_code == 200
    assert here.get("/api/accounts/me").status_code in (401, 403)
    assert not UserSession.objects.exists() and not AccessToken.objects.exists()
    assert Client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/accounts/me").status_code == 401
    again = post(Client(), "/api/accounts/password-reset/confirm", {**reset, "new_password": "yet another pass 55"})
    assert error_of(again) == (400, "bad_reset_link")
    assert logged_in(password=NEW_PASSWORD).get("/api/accounts/me").status_code == 200
    assert "reset with a link" in body_of(mailbox.wait_for("keeper@example.com", "your password was changed"))


def test_a_reset_answers_the_same_for_any_address_and_mails_only_verified_ones(mailbox):
    verified_account(mailbox)
    get_user_model().objects.create_user("unverified", "loose@example.com", PASSWORD)
    answers = [post(Client(), "/api/accounts/password-reset", {"email": address}).json()
               for address in ("keeper@example.com", "loose@example.com", "nobody@example.com")]
    assert answers[0] == answers[1] == answers[2]
    mailbox.wait_for("keeper@example.com", "reset your password")
    assert not mailbox.to("loose@example.com") and not mailbox.to("nobody@example.com")


def test_an_account_gets_few_reset_mails_from_one_asker_and_the_owner_still_gets_one(mailbox):
    verified_account(mailbox)
    asker = Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(5):
        assert post(asker, "/api/accounts/password-reset", {"email": "keeper@example.com"}).status_code == 202
    mailbox.wait_for("keeper@example.com", "reset your password")
    assert len([m for m in mailbox.to("keeper@example.com") if "reset" in m["Subject"]]) == 3
    # The owner, elsewhere, is not starved by that asker.
    assert post(Client(REMOTE_ADDR="203.0.113.9"), "/api/accounts/password-reset",
                {"email": "keeper@example.com"}).status_code == 202
    assert len([m for m in mailbox.to("keeper@example.com") if "reset" in m["Subject"]]) == 4


def test_bad_reset_links_are_refused_and_change_nothing(mailbox):
    verified_account(mailbox)
    for uid, token in (("MQ", "nope-nope"), ("!!!", "x"), ("OTk5OTk", "abc-def")):
        refused = post(Client(), "/api/accounts/password-reset/confirm",
                       {"uid": uid, "token": token, "new_password": NEW_PASSWORD})
        assert error_of(refused) == (400, "bad_reset_link")
    assert logged_in().get("/api/accounts/me").status_code == 200


# -- email addresses -----------------------------------------------------------------


def test_a_changed_address_is_unverified_until_its_link_and_the_old_one_is_told(mailbox):
    here = verified_account(mailbox)
    bare = here.patch("/api/accounts/me", {"email": "new@example.com"}, content_type=JSON)
    assert error_of(bare) == (403, "password_required")  # a stolen session alone cannot move the address
    changed = here.patch("/api/accounts/me", {"email": "new@example.com", "password": PASSWORD},
                         content_type=JSON).json()
    assert (changed["email"], changed["email_verified"]) == ("new@example.com", False)
    told = mailbox.wait_for("keeper@example.com", "your email address was changed")
    assert "new@example.com" in body_of(told)
    token = secrets_of(link_in(mailbox.wait_for("new@example.com", "verify your email")))["token"]
    # Unverified: no reset mail goes to it yet.
    post(Client(), "/api/accounts/password-reset", {"email": "new@example.com"})
    assert post(Client(), "/api/accounts/email/verify", {"token": token}).status_code == 200
    assert here.get("/api/accounts/me").json()["email_verified"] is True
    assert not [m for m in mailbox.to("new@example.com") if "reset" in m["Subject"]]


def test_a_link_for_an_address_the_account_no_longer_has_is_refused(mailbox):
    here = Client()
    post(here, "/api/accounts/signup", {"username": "mover", "password": PASSWORD, "email": "first@example.com"})
    token = secrets_of(link_in(mailbox.wait_for("first@example.com", "verify your email")))["token"]
    here.patch("/api/accounts/me", {"email": "second@example.com", "password": PASSWORD}, content_type=JSON)
    assert error_of(post(Client(), "/api/accounts/email/verify", {"token": token})) == (400, "bad_link")
    assert error_of(post(Client(), "/api/accounts/email/verify", {"token": "forged"})) == (400, "bad_link")
    assert here.get("/api/accounts/me").json()["email_verified"] is False
    resent = post(here, "/api/accounts/email/verification")
    assert resent.status_code == 202
    assert len([m for m in mailbox.to("second@example.com") if "verify" in m["Subject"]]) == 2


def test_making_a_token_mails_a_notice(mailbox):
    here = verified_account(mailbox)
    api_token(here, password=PASSWORD, name="night bot")
    assert 'named "night bot"' in body_of(mailbox.wait_for("keeper@example.com", "a new access token"))
