"""Guests own games through their session cookie, so their writes need CSRF too."""

import pytest
from django.test import Client


@pytest.mark.django_db
def test_a_guest_write_without_csrf_token_is_refused_and_changes_nothing():
    browser = Client(enforce_csrf_checks=True)
    game = browser.post("/api/games/", {"draw": 1}, content_type="application/json").json()
    url = f"/api/games/{game['id']}/moves"
    refused = browser.post(url, {"move": {"type": "draw"}, "seq": 1}, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"
    assert browser.get(f"/api/games/{game['id']}/").json()["seq"] == 0
    token = browser.get("/api/accounts/csrf").json()["csrf_token"]
    accepted = browser.post(url, {"move": {"type": "draw"}, "seq": 1}, content_type="application/json",
                            HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200 and accepted.json()["seq"] == 1


@pytest.mark.django_db
def test_token_clients_need_no_csrf_token():
    client = Client(enforce_csrf_checks=True)
    client.post("/api/accounts/signup", {"username": "tokenuser", "password": "a long enough pass 7"},
                content_type="application/json")
    # The owner makes the token from the signed-in session: that write needs CSRF.
    made = {"name": "bot", "scope": "play", "expires_in_days": 7, "password": "a long enough pass 7"}
    refused = client.post("/api/accounts/tokens", made, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"
    csrf = client.get("/api/accounts/csrf").json()["csrf_token"]
    token = client.post("/api/accounts/tokens", made, content_type="application/json",
                        HTTP_X_CSRFTOKEN=csrf).json()["token"]
    api = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {token}")
    created = api.post("/api/games/", {"draw": 3}, content_type="application/json")
    assert created.status_code == 201 and created.json()["owner"] == "tokenuser"
