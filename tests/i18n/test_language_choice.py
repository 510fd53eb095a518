"""Which language a person reads (accounts/languages.py): the browser's Accept-Language,
the switcher's choice kept in a cookie and on the account, brought along by a sign-in;
API error details in that language with the same codes; the JavaScript catalog."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from games.models import Move
from tests.realtime_helpers import DEAL

JSON = "application/json"
PASSWORD = "correct horse battery 9"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()


@pytest.fixture
def account():
    return get_user_model().objects.create_user("lucia", "lucia@example.com", PASSWORD)


def italian(english: str) -> str:
    with translation.override("it"):
        return translation.gettext(english)


def page_language(client: Client, **headers) -> str:
    response = client.get("/leaderboards/", **headers)
    assert response.status_code == 200
    assert response["Content-Language"] in ("en", "it", "es")
    html = response.content.decode()
    start = html.index('<html lang="') + len('<html lang="')
    assert html[start:start + 2] == response["Content-Language"]
    return response["Content-Language"]


def test_the_browser_language_decides_until_one_is_chosen():
    assert page_language(Client()) == "en"
    assert page_language(Client(), HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9,en;q=0.8") == "it"
    assert page_language(Client(), HTTP_ACCEPT_LANGUAGE="es-ES,es;q=0.9") == "es"
    assert page_language(Client(), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9") == "en"


def test_the_pages_are_written_in_it():
    html = Client().get("/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert italian("Leaderboards") in html and italian("Leaderboards") != "Leaderboards"
    assert ">Leaderboards<" not in html


def test_a_guest_choice_is_a_cookie_that_beats_accept_language():
    client = Client()
    response = client.post("/api/accounts/language", {"language": "es"}, content_type=JSON,
                           HTTP_ACCEPT_LANGUAGE="it")
    assert response.status_code == 200 and response.json() == {"language": "es"}
    assert response.cookies["language"].value == "es"
    assert response["Content-Language"] == "es"
    assert page_language(client, HTTP_ACCEPT_LANGUAGE="it") == "es"


def test_a_signed_in_choice_is_kept_on_the_account_and_brought_to_a_new_device(account):
    desk = Client()
    assert desk.post("/api/accounts/login", {"username": "lucia", "password": PASSWORD},
                     content_type=JSON).status_code == 200
    assert desk.post("/api/accounts/language", {"language": "it"}, content_type=JSON).status_code == 200
    account.refresh_from_db()
    assert account.language == "it"
    phone = Client()
    response = phone.post("/api/accounts/login", {"username": "lucia", "password": PASSWORD}, content_type=JSON,
                          HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200
    assert response.cookies["language"].value == "it"
    assert page_language(phone, HTTP_ACCEPT_LANGUAGE="es") == "it"


def test_a_new_account_keeps_the_language_it_signed_up_in():
    client = Client()
    response = client.post("/api/accounts/signup", {"username": "pablo", "password": PASSWORD}, content_type=JSON,
                           HTTP_ACCEPT_LANGUAGE="es-ES")
    assert response.status_code == 201, response.content
    assert get_user_model().objects.get(username="pablo").language == "es"


@pytest.mark.parametrize("body", [{"language": "de"}, {"language": ""}, {"language": 3}, {}, {"language": "it", "x": 1}])
def test_a_bad_choice_is_refused_and_changes_nothing(account, body):
    client = Client()
    client.force_login(account)
    response = client.post("/api/accounts/language", body, content_type=JSON)
    assert response.status_code == 400 and response.json()["error"] == "invalid", response.content
    assert "language" not in response.cookies
    account.refresh_from_db()
    assert account.language == ""


def test_the_switcher_form_works_without_javascript_and_goes_back(account):
    client = Client()
    client.force_login(account)
    response = client.post("/language/", {"language": "es", "next": "/leaderboards/?tab=vegas"})
    assert response.status_code == 302 and response["Location"] == "/leaderboards/?tab=vegas"
    assert response.cookies["language"].value == "es"
    account.refresh_from_db()
    assert account.language == "es"
    for elsewhere in ["https://evil.example/", "//evil.example/x"]:
        response = client.post("/language/", {"language": "it", "next": elsewhere})
        assert response["Location"] == "/"


def test_the_switcher_form_needs_its_csrf_token():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/language/", {"language": "es"})
    assert response.status_code == 403
    assert "language" not in response.cookies


def test_api_errors_keep_their_code_and_speak_the_language():
    missing = f"/api/games/{uuid.uuid4()}/"
    english = Client().get(missing).json()
    answer = Client().get(missing, HTTP_ACCEPT_LANGUAGE="it").json()
    assert answer["error"] == english["error"] == "not_found"
    assert answer["detail"] == italian(english["detail"]) != english["detail"]


def test_an_engine_refusal_is_translated_at_the_edge():
    """The engine cannot import Django: its refusal is a Text, rendered in the reader's language."""
    english = "the stock still has cards: draw them first"
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    game = client.post("/api/games/", {"code": DEAL}, content_type=JSON).json()
    refused = client.post(f"/api/games/{game['id']}/moves", {"seq": 1, "move": {"type": "recycle"}},
                          content_type=JSON)
    assert refused.status_code == 422, refused.content
    assert refused.json()["error"] == "stock_not_empty"
    with translation.override("es"):
        assert refused.json()["detail"] == translation.gettext(english) != english
    assert not Move.objects.filter(game_id=game["id"]).exists()


def test_the_javascript_catalog_is_per_language_and_cached_for_good():
    from frontend.i18n_urls import catalog_version

    response = Client().get(f"/i18n/catalog/it/{catalog_version()}.js")
    assert response.status_code == 200
    assert "immutable" in response["Cache-Control"]
    body = response.content.decode()
    assert "django.catalog" in body and "pluralidx" in body
    assert Client().get(f"/i18n/catalog/de/{catalog_version()}.js").status_code == 404
    stale = Client().get("/i18n/catalog/it/0000.js")
    assert stale.status_code == 200 and "immutable" not in stale.get("Cache-Control", "")


def test_an_account_without_a_choice_keeps_following_each_browser(account):
    client = Client()
    response = client.post("/api/accounts/login", {"username": "lucia", "password": PASSWORD}, content_type=JSON,
                           HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200 and "language" not in response.cookies
    account.refresh_from_db()
    assert account.language == ""
    assert page_language(client, HTTP_ACCEPT_LANGUAGE="it") == "it"
