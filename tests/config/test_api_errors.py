"""Every answer under /api/ is JSON {"error": code, "detail": sentence}: unknown URLs
(with DEBUG too: no debug page), 405 with Allow (the async hint/complete views too), 429
with Retry-After, 500 from a view, an async view or a middleware, and no slash
redirects. This module is also the URL conf of the 500 tests (views that raise)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from django.http import HttpRequest, JsonResponse
from django.test import AsyncClient, Client
from django.urls import path
from rest_framework.views import APIView

from config.urls import handler400, handler403, handler404, handler500, urlpatterns as project_urlpatterns  # noqa: F401

JSON = "application/json"
GAME = f"/api/games/{uuid.uuid4()}"


def boom(request: HttpRequest) -> JsonResponse:
    raise RuntimeError("a bug in a view")


async def async_boom(request: HttpRequest) -> JsonResponse:
    raise RuntimeError("a bug in an async view")


class BoomAPIView(APIView):
    def get(self, request: Any) -> None:
        raise RuntimeError("a bug in a DRF view")


class FailingMiddleware:
    """Raises on one address, after the view: a failure outside any view."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        response = self.get_response(request)
        if request.path.endswith("/middleware-boom"):
            raise RuntimeError("a bug in a middleware")
        return response


urlpatterns = [
    path("api/test/boom", boom),
    path("api/test/async-boom", async_boom),
    path("api/test/drf-boom", BoomAPIView.as_view()),
    path("test/boom", boom),
    *project_urlpatterns,
]


@pytest.fixture(params=[False, True], ids=["production", "debug"])
def debug(request: pytest.FixtureRequest, settings: Any) -> bool:
    """Each test runs as in production and again with DEBUG=true (Django's debug pages)."""
    settings.DEBUG = request.param
    return request.param


@pytest.fixture
def raising_urls(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == JSON or response["Content-Type"].startswith(f"{JSON};"), response["Content-Type"]
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"], body
    if response.has_header("Content-Length"):
        assert int(response["Content-Length"]) == len(response.content)
    return body


# --- 404 ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/", "/api/nothing-here", "/api/games/not-a-uuid/", f"{GAME}/nope",
                                 "/api/accounts/login/"])
def test_unknown_addresses_under_api_are_json_404(debug, url):
    client = Client()
    for response in (client.get(url), client.post(url, {}, content_type=JSON), client.delete(url)):
        body = assert_error(response, 404, "not_found")
        assert body["detail"] == "there is nothing at this address"


@pytest.mark.django_db
def test_outside_api_a_404_is_still_a_page(debug):
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "put", "delete"])
def test_no_slash_redirect_under_api_the_404_names_the_address_with_the_slash(debug, method):
    """A redirect would drop a POST's body (under DEBUG, CommonMiddleware raises instead)."""
    response = getattr(Client(raise_request_exception=False), method)("/api/games", {}, content_type=JSON)
    body = assert_error(response, 404, "not_found")
    assert "/api/games/ (with the slash) exists" in body["detail"]
    assert not response.has_header("Location")


@pytest.mark.django_db
def test_pages_outside_api_still_get_the_slash_redirect():
    response = Client().get("/leaderboards")
    assert response.status_code == 301 and response["Location"] == "/leaderboards/"


# --- 405 -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("method, url, allowed", [
    ("put", "/api/games/", "GET, POST, HEAD, OPTIONS"),     # a DRF view
    ("post", "/api/schema/", "GET, HEAD, OPTIONS"),         # DRF, but it renders OpenAPI, not JSON
    ("post", "/api/docs/", "GET, HEAD, OPTIONS"),           # DRF, rendering an HTML template
    ("post", f"{GAME}/hint", "GET"),                        # the async solver views
    ("put", f"{GAME}/hint", "GET"),
    ("get", f"{GAME}/complete", "POST"),
    ("delete", f"{GAME}/complete", "POST"),
])
def test_405_is_json_with_an_allow_header(debug, method, url, allowed):
    response = getattr(Client(), method)(url, {}, content_type=JSON)
    assert_error(response, 405, "method_not_allowed")
    assert response["Allow"] == allowed


# --- 429 -----------------------------------------------------------------------


@pytest.mark.django_db
def test_429_is_json_with_retry_after(debug):
    cache.clear()
    try:
        client = Client()
        for _ in range(10):
            client.post("/api/accounts/login", {"username": "nobody", "password": "x" * 8}, content_type=JSON)
        response = client.post("/api/accounts/login", {"username": "nobody", "password": "x" * 8}, content_type=JSON)
        assert_error(response, 429, "throttled")
        assert int(response["Retry-After"]) > 0
    finally:
        cache.clear()


# --- 400 -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_refused_host_is_json_400_under_api(debug):
    assert_error(Client().get("/api/lobby", HTTP_HOST="evil.example"), 400, "bad_request")


# --- 500 -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/test/boom", "/api/test/async-boom", "/api/test/drf-boom"])
def test_a_view_that_raises_answers_json_500(debug, raising_urls, url):
    body = assert_error(Client(raise_request_exception=False).get(url), 500, "server_error")
    assert body == {"error": "server_error", "detail": "something went wrong on our side"}


@pytest.mark.django_db
def test_an_async_view_that_raises_answers_json_500_through_the_asgi_handler(debug, raising_urls):
    response = asyncio.run(AsyncClient(raise_request_exception=False).get("/api/test/async-boom"))
    assert_error(response, 500, "server_error")


@pytest.mark.django_db
def test_a_middleware_that_raises_answers_json_500(debug, raising_urls, settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.FailingMiddleware"]
    client = Client(raise_request_exception=False)
    assert_error(client.get("/api/lobby/middleware-boom"), 500, "server_error")
    assert_error(client.post("/api/games/middleware-boom", {}, content_type=JSON), 500, "server_error")


@pytest.mark.django_db
def test_outside_api_a_500_is_a_page(raising_urls, settings):
    settings.DEBUG = False
    response = Client(raise_request_exception=False).get("/test/boom")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")
