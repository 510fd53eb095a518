"""Accounts over the REST API, against real PostgreSQL and Redis (the throttle cache).

Sign-up, log-in (any case of the name), log-out, tokens, profiles, Argon2 hashes,
the log-in throttle, the Django admin, and guest games claimed on sign-up / log-in.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.test import Client

from accounts.models import AccessToken
from games.models import Game
from tests.account_helpers import api_token

User = get_user_model()
PASSWORD = "correct-horse-battery-7"
JSON = "application/json"


@pytest.fixture(autouse=True)
def clean_throttles():
    """The throttles count in the Django cache (Redis under `make test`): start and end empty."""
    cache.clear()
    yield
    cache.clear()


def post(client: Client, url: str, data: object = None):
    return client.post(url, data if data is not None else {}, content_type=JSON)


def signup(client: Client, username: str, password: str = PASSWORD, **extra):
    return post(client, "/api/accounts/signup", {"username": username, "password": password, **extra})


def login(client: Client, username: str, password: str = PASSWORD):
    return post(client, "/api/accounts/login", {"username": username, "password": password})


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    return body


# --- sign up -----------------------------------------------------------------


@pytest.mark.django_db
def test_signup_creates_the_account_and_logs_the_session_in_without_a_token(client):
    response = signup(client, "Alice", email="alice@example.com")
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"username", "claimed_games"}
    assert body["username"] == "Alice" and body["claimed_games"] == 0
    user = User.objects.get(username="Alice")
    assert user.email == "alice@example.com"
    assert not AccessToken.objects.filter(user=user).exists()
    # The browser's session is logged in: no token needed.
    assert str(client.session["_auth_user_id"]) == str(user.pk)
    me = client.get("/api/accounts/me")
    assert me.status_code == 200
    assert me.json()["username"] == "Alice"


@pytest.mark.django_db
def test_usernames_are_unique_regardless_of_case(client):
    assert signup(client, "Bob").status_code == 201
    for other in ("bob", "BOB", "bOb"):
        assert_error(signup(Client(), other), 409, "username_taken")
    assert User.objects.filter(username__iexact="bob").count() == 1


@pytest.mark.django_db
def test_the_database_refuses_a_case_variant_username_too():
    User.objects.create_user("Carol", "", PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("carol", "", PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="CAROL")
    assert User.objects.filter(username__iexact="carol").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_concurrent_case_variant_signup_gets_409_not_a_server_error():
    """Two sign-ups for the same name at once: the loser must get 409 username_taken.

    Another connection inserts "Racer" and keeps its transaction open, so the
    sign-up's existence check cannot see it yet; the sign-up's INSERT then waits on
    the unique index until the other transaction commits, and hits the constraint.
    """
    inserted = threading.Event()
    release = threading.Event()
    failures: list[BaseException] = []

    def rival() -> None:
        try:
            with transaction.atomic():
                User.objects.create_user("Racer", "", PASSWORD)
                inserted.set()
                release.wait(10)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)
            inserted.set()
        finally:
            connection.close()

    thread = threading.Thread(target=rival)
    thread.start()
    try:
        assert inserted.wait(10) and not failures
        # Commit the rival shortly after the sign-up has passed its existence check
        # and is blocked on the unique index.
        threading.Timer(1.5, release.set).start()
        response = signup(Client(raise_request_exception=False), "racer")
    finally:
        release.set()
        thread.join(15)
    assert not failures, failures
    assert_error(response, 409, "username_taken")
    assert User.objects.filter(username__iexact="racer").count() == 1


@pytest.mark.django_db
def test_weak_password_is_refused_with_weak_password(client):
    assert_error(signup(client, "dave", "password"), 400, "weak_password")  # too common
    assert_error(signup(client, "dave", "12345678"), 400, "weak_password")  # common, numeric
    assert_error(signup(client, "davedavedave", "davedavedave"), 400, "weak_password")  # like the name
    assert not User.objects.filter(username__iexact="dave").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["ab", "a b", "x" * 31, "ünï", "bob!", ""])
def test_invalid_username_is_refused_with_invalid(client, username):
    body = assert_error(signup(client, username), 400, "invalid")
    assert "username" in body["fields"]
    assert not User.objects.exists()


@pytest.mark.django_db
def test_signup_body_must_be_a_json_object(client):
    assert_error(post(client, "/api/accounts/signup", ["Alice", PASSWORD]), 400, "invalid")
    assert_error(post(client, "/api/accounts/signup", {"username": "Alice"}), 400, "invalid")


@pytest.mark.django_db
def test_passwords_are_hashed_with_argon2(client):
    assert signup(client, "erin").status_code == 201
    user = User.objects.get(username="erin")
    assert user.password.startswith("argon2")
    assert PASSWORD not in user.password
    assert user.check_password(PASSWORD)


# --- log in / log out --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["Frank", "frank", "FRANK", "fRaNk"])
def test_log_in_with_any_case_of_the_username(typed):
    User.objects.create_user("Frank", "", PASSWORD)
    client = Client()
    response = login(client, typed)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["username"] == "Frank"  # the account's own spelling
    assert body["claimed_games"] == 0 and "token" not in body
    assert client.get("/api/accounts/me").json()["username"] == "Frank"


@pytest.mark.django_db
def test_log_in_and_sign_up_make_no_token(client):
    signup(client, "gina")
    body = login(Client(), "GINA").json()
    assert set(body) == {"username", "claimed_games"}
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_bad_credentials_are_refused_with_bad_credentials():
    User.objects.create_user("harry", "", PASSWORD)
    client = Client()
    assert_error(login(client, "harry", "wrong-password-1"), 400, "bad_credentials")
    assert_error(login(client, "nobody", PASSWORD), 400, "bad_credentials")
    assert "_auth_user_id" not in client.session
    assert_error(post(client, "/api/accounts/login", {"username": "harry"}), 400, "invalid")


@pytest.mark.django_db
def test_an_inactive_account_cannot_log_in():
    User.objects.create_user("ivan", "", PASSWORD, is_active=False)
    assert_error(login(Client(), "ivan"), 400, "bad_credentials")


SPACED = "  pass phrase  "  # spaces around, as typed


@pytest.mark.django_db
def test_passwords_are_taken_exactly_as_typed(client):
    assert signup(client, "jules", SPACED).status_code == 201
    assert User.objects.get(username="jules").check_password(SPACED)
    assert_error(login(Client(), "jules", SPACED.strip()), 400, "bad_credentials")
    assert login(Client(), "jules", SPACED).status_code == 200
    # And the other way round: spaces typed around a password that has none do not match.
    User.objects.create_user("kim", "", SPACED.strip())
    assert_error(login(Client(), "kim", SPACED), 400, "bad_credentials")
    assert login(Client(), "kim", SPACED.strip()).status_code == 200


@pytest.mark.django_db
def test_log_out_ends_the_session(client):
    assert signup(client, "judy").status_code == 201
    assert client.get("/api/accounts/me").status_code == 200
    response = post(client, "/api/accounts/logout")
    assert response.status_code == 204
    assert "_auth_user_id" not in client.session
    after = client.get("/api/accounts/me")
    assert after.status_code in (401, 403)
    assert after.json()["error"] in ("not_authenticated", "permission_denied")


@pytest.mark.django_db
def test_log_out_without_a_session_is_harmless(client):
    assert post(client, "/api/accounts/logout").status_code == 204


@pytest.mark.django_db
def test_session_authenticated_writes_need_the_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    assert signup(browser, "kate").status_code == 201  # anonymous, no session cookie yet
    refused = post(browser, "/api/games/", {"draw": 1})
    assert refused.status_code == 403
    body = refused.json()
    assert set(body) >= {"error", "detail"} and "CSRF" in body["detail"]
    assert not Game.objects.exists()
    csrf = browser.get("/api/accounts/csrf").json()["csrf_token"]
    accepted = browser.post("/api/games/", {"draw": 1}, content_type=JSON, HTTP_X_CSRFTOKEN=csrf)
    assert accepted.status_code == 201 and accepted.json()["owner"] == "kate"


# --- tokens and profiles ---------------------------------------------------------


@pytest.mark.django_db
def test_token_authentication_reaches_me(client):
    signup(client, "Liam", email="liam@example.com")
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token(client, password=PASSWORD, scope='read')}")
    response = api.get("/api/accounts/me")
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "Liam" and body["email"] == "liam@example.com"
    assert set(body) == {"username", "email", "email_verified", "date_joined", "games", "finished", "wins", "abandoned"}


@pytest.mark.django_db
def test_anonymous_and_bad_token_requests_to_me_are_refused_with_json():
    anonymous = Client().get("/api/accounts/me")
    assert anonymous.status_code in (401, 403)
    assert anonymous.json()["error"] == "not_authenticated"
    bad = Client(HTTP_AUTHORIZATION="Token not-a-real-token").get("/api/accounts/me")
    assert_error(bad, 401, "authentication_failed")


@pytest.mark.django_db
def test_profile_get_and_patch_email(client):
    signup(client, "mona")
    api = client  # changing the account needs the session (tests/accounts/test_access_tokens.py)
    assert api.get("/api/accounts/me").json()["email"] == ""
    changed = api.patch("/api/accounts/me", {"email": "mona@example.org", "password": PASSWORD}, content_type=JSON)
    assert changed.status_code == 200
    assert changed.json()["email"] == "mona@example.org"
    assert User.objects.get(username="mona").email == "mona@example.org"
    assert_error(api.patch("/api/accounts/me", {"email": "not an address"}, content_type=JSON), 400, "invalid")
    assert User.objects.get(username="mona").email == "mona@example.org"
    cleared = api.patch("/api/accounts/me", {"email": "", "password": PASSWORD}, content_type=JSON)
    assert cleared.status_code == 200 and cleared.json()["email"] == ""
    # Only the email can change: another field is refused (a typo is not silently dropped), the name stays.
    refused = assert_error(api.patch("/api/accounts/me", {"username": "someone-else"}, content_type=JSON),
                           400, "invalid")
    assert "username" in refused["fields"]
    assert api.get("/api/accounts/me").json()["username"] == "mona"


@pytest.mark.django_db
def test_public_profile_is_case_insensitive_and_hides_the_email(client):
    signup(client, "Nina", email="nina@example.com")
    post(client, "/api/games/", {"draw": 1})
    for spelling in ("Nina", "nina", "NINA"):
        response = Client().get(f"/api/players/{spelling}")
        assert response.status_code == 200
        body = response.json()
        assert body["username"] == "Nina"
        assert body["games"] == 1 and body["wins"] == 0
        assert "email" not in body and "nina@example.com" not in response.content.decode()


@pytest.mark.django_db
def test_public_profile_of_an_unknown_player_is_a_json_404(client):
    assert_error(client.get("/api/players/nobody-here"), 404, "not_found")


# --- throttling ------------------------------------------------------------------


@pytest.mark.django_db
def test_log_in_is_throttled_after_ten_attempts_a_minute():
    User.objects.create_user("oscar", "", PASSWORD)
    client = Client()
    for attempt in range(10):
        # Other names: the per-account backoff (test_login_backoff.py) stays out of it.
        response = login(client, f"someone-{attempt}", "wrong-password")
        assert_error(response, 400, "bad_credentials")
    throttled = login(client, "oscar")  # even the right password
    body = assert_error(throttled, 429, "throttled")
    assert "Retry-After" in throttled
    assert "_auth_user_id" not in client.session
    # Another endpoint is not affected.
    assert Client().get("/api/players/oscar").status_code == 200


# --- admin -------------------------------------------------------------------------


@pytest.mark.django_db
def test_staff_superuser_can_open_the_admin_and_the_changelists(client):
    admin = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    player = Client()
    signup(player, "paula")
    post(player, "/api/games/", {"draw": 3, "scoring": "vegas"})
    game = Game.objects.get()
    client.force_login(admin)
    for url in ("/admin/", "/admin/games/game/", "/admin/accounts/user/",
                f"/admin/games/game/{game.pk}/change/", f"/admin/accounts/user/{admin.pk}/change/"):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    changelist = client.get("/admin/accounts/user/").content.decode()
    assert "paula" in changelist and "root" in changelist


@pytest.mark.django_db
def test_admin_add_user_form_refuses_a_case_variant(client):
    admin = User.objects.create_superuser("Root", "root@example.com", PASSWORD)
    client.force_login(admin)
    response = client.post("/admin/accounts/user/add/", {
        "username": "root", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true",
    })
    assert response.status_code == 200  # the form again, with an error; not a 500
    assert User.objects.filter(username__iexact="root").count() == 1


@pytest.mark.django_db
def test_the_admin_takes_passwords_exactly_as_typed():
    User.objects.create_superuser("rooty", "rooty@example.com", SPACED)
    refused = Client().post("/admin/login/?next=/admin/", {"username": "rooty", "password": SPACED.strip()})
    assert refused.status_code == 200  # the form again
    admin = Client()
    assert admin.post("/admin/login/?next=/admin/", {"username": "rooty", "password": SPACED}).status_code == 302
    admin.post("/admin/accounts/user/add/", {
        "username": "lena", "password1": SPACED, "password2": SPACED, "usable_password": "true",
    })
    assert User.objects.get(username="lena").check_password(SPACED)


def test_admin_requires_staff(client, django_user_model, db):
    user = django_user_model.objects.create_user("quinn", "", PASSWORD)
    client.force_login(user)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


# --- guest games -----------------------------------------------------------------


@pytest.mark.django_db
def test_guest_games_are_claimed_on_signup(client):
    created = post(client, "/api/games/", {"draw": 1})
    assert created.status_code == 201
    game_id = created.json()["id"]
    assert created.json()["owner"] is None and created.json()["yours"] is True
    assert [g["id"] for g in client.get("/api/games/").json()["results"]] == [game_id]

    response = signup(client, "rita")
    assert response.status_code == 201
    assert response.json()["claimed_games"] == 1
    listed = client.get("/api/games/").json()
    assert [g["id"] for g in listed["results"]] == [game_id]
    assert listed["results"][0]["owner"] == "rita" and listed["results"][0]["yours"] is True
    game = Game.objects.get(pk=game_id)
    assert game.owner.username == "rita" and game.guest_key == ""
    # The token client sees the same game.
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token(client, password=PASSWORD)}")
    assert [g["id"] for g in api.get("/api/games/").json()["results"]] == [game_id]


@pytest.mark.django_db
def test_guest_games_are_claimed_on_login():
    User.objects.create_user("Sam", "", PASSWORD)
    browser = Client()
    ids = {post(browser, "/api/games/", {"draw": d}).json()["id"] for d in (1, 3)}
    someone_else = Client()
    other = post(someone_else, "/api/games/", {"draw": 1}).json()["id"]

    response = login(browser, "sam")
    assert response.status_code == 200
    assert response.json()["claimed_games"] == 2
    assert {g["id"] for g in browser.get("/api/games/").json()["results"]} == ids
    # Another browser's guest game stays with that guest.
    assert Game.objects.get(pk=other).owner_id is None
    assert [g["id"] for g in someone_else.get("/api/games/").json()["results"]] == [other]
    # Logging in again claims nothing more.
    assert login(browser, "SAM").json()["claimed_games"] == 0
