"""The OpenAPI document, the Swagger UI, and a schemathesis run against the schema.

The schemathesis run calls the WSGI application in-process (no server), against
real PostgreSQL, once as an anonymous client and once with a token whose account
owns a few games, so that the game endpoints see real game ids as well as random
ones (404). Every response must be documented: status code, content type and body.
"""

from __future__ import annotations

import re
import zlib
from io import StringIO

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client, override_settings
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance, response_schema_conformance, status_code_conformance,
)

from config.wsgi import application
from games import services
from games.services import Actor

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# 20 random cases per operation and run: with ~30 operations (two runs) the module stays
# around a minute on an idle machine.
COMMON = dict(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
# With a token: schemathesis' coverage phase (Phase.explicit: boundary values, missing
# and wrong-typed fields, every enum value) plus the random cases, against real games
# of the account. Anonymous: the random cases. No shrinking: the run stays short and
# the first failing response is reported as it was.
FUZZ_WITH_TOKEN = hypothesis_settings(phases=[Phase.explicit, Phase.generate], **COMMON)
FUZZ_ANONYMOUS = hypothesis_settings(phases=[Phase.generate], **COMMON)

# The schema as the application serves it. One test per API operation and run.
# (schemathesis.pytest.from_fixture would load it lazily, but its subtests break on
# pytest 9.2: "'Function' object has no attribute '_nodeid'".)
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@pytest.fixture(autouse=True)
def clean_throttles():
    """Throttle counters live in the Django cache (Redis under `make test`)."""
    cache.clear()
    yield
    cache.clear()


# --- the document and the Swagger UI ---------------------------------------------


def test_schema_generation_validates_without_warnings():
    out, err = StringIO(), StringIO()
    try:
        call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json",
                     stdout=out, stderr=err)
    except BaseException as exc:  # SchemaGenerationError, or SystemExit from the command
        pytest.fail(f"manage.py spectacular --validate --fail-on-warn failed: {exc!r}\n{err.getvalue()}")
    assert '"openapi": "3.' in out.getvalue()


def test_api_schema_endpoint_serves_an_openapi_3_document(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] in ("application/json", "application/vnd.oai.openapi+json")
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert document["info"]["title"] == "Klondike API"
    for path in ("/api/games/", "/api/games/{game_id}/", "/api/games/{game_id}/moves",
                 "/api/games/{game_id}/undo", "/api/games/{game_id}/resign", "/api/games/{game_id}/replay",
                 "/api/accounts/csrf", "/api/accounts/signup", "/api/accounts/login", "/api/accounts/logout",
                 "/api/accounts/me", "/api/players/{username}"):
        assert path in document["paths"], path
    # The YAML form is served too (the default for browsers).
    assert client.get("/api/schema/").status_code == 200


def test_swagger_ui_is_served_with_local_assets(client, tmp_path, settings):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "swagger" in page.lower()
    assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page)
    assert not [a for a in assets if a.startswith(("http://", "https://", "//"))], f"CDN assets: {assets}"
    scripts = [a for a in assets if a.startswith(settings.STATIC_URL if settings.STATIC_URL.startswith("/")
                                                 else "/" + settings.STATIC_URL) and a.endswith(".js")]
    assert any("swagger-ui" in a for a in scripts), f"no local Swagger UI script in {assets}"

    # Served the way production serves it: collectstatic (as in the Dockerfile), then WhiteNoise.
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", "--noinput", verbosity=0)
    browser = Client()  # a new handler, so WhiteNoise scans the new STATIC_ROOT
    for url in scripts:
        asset = browser.get(url)
        assert asset.status_code == 200, url
        body = b"".join(asset.streaming_content) if asset.streaming else asset.content
        assert len(body) > 1000, url
        assert asset["Content-Type"].split(";")[0] in ("application/javascript", "text/javascript"), url


# --- schemathesis -------------------------------------------------------------------


@pytest.fixture(scope="module")
def player(django_db_setup, django_db_blocker):
    """An account with a token and a few games (live casual, live ranked, resigned),
    shared by both runs.

    The runs call the application as a deployed server would: autocommit, no test
    transaction around them (on_commit hooks fire; a failed statement cannot poison
    the following requests), so a per-test TransactionTestCase flush is not needed.
    Everything is flushed once, at the end of the module."""
    from django.db import connection

    # Argon2 is tested in test_accounts.py; here it would only slow every sign-up and log-in.
    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        name = connection.settings_dict["NAME"]
        assert name.startswith("test_"), f"refusing to fuzz a non-test database {name!r}"
        call_command("flush", "--noinput", verbosity=0)
        user = get_user_model().objects.create_user("fuzzer", "fuzz@example.com", "fuzz-password-1234")
        token = Token.objects.create(user=user)
        actor = Actor(user_id=user.pk)
        live = services.create_game(actor, code="KL1-D1N-AAAAAAG")
        ranked = services.create_game(actor, draw=3, scoring="vegas")
        over = services.create_game(actor, code="KL1-D3N-AAAAAAG")
        services.submit_move(over.pk, actor, {"type": "draw"}, 1)
        services.resign(over.pk, actor, 2)
        try:
            yield {"token": token.key, "games": [str(live.pk), str(ranked.pk), str(over.pk)]}
        finally:
            call_command("flush", "--noinput", verbosity=0)


@pytest.fixture
def db(player):
    """Overrides pytest-django's ``db`` for this module: its name makes pytest-django
    create the test database even when only the fuzz tests are selected, while the
    runs themselves use the module's autocommit access (see ``player``)."""
    return player


def use_real_games(case, games: list[str]) -> None:
    """Most generated game ids are random UUIDs (404); swap three in five for real ones."""
    path = case.path_parameters or {}
    if "game_id" in path:
        pick = zlib.crc32(str(path["game_id"]).encode()) % 5
        if pick < len(games):
            path["game_id"] = games[pick]


@schema.parametrize()
@FUZZ_ANONYMOUS
def test_api_conforms_to_its_schema_anonymous(case, db):
    # A guest without a session cookie: reads work, writes to games are refused (403).
    use_real_games(case, db["games"])
    case.call_and_validate(checks=CHECKS)


@schema.parametrize()
@FUZZ_WITH_TOKEN
def test_api_conforms_to_its_schema_with_a_token(case, db):
    use_real_games(case, db["games"])
    case.call_and_validate(checks=CHECKS, headers={"Authorization": f"Token {db['token']}"})
