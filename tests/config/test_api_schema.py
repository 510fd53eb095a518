"""The OpenAPI document, the Swagger UI, and a schemathesis run against the schema.

The schemathesis run calls the WSGI application in-process (no server), against
real PostgreSQL, once as an anonymous client and once with a token whose account
owns a few games and races, whose ids stand in for the generated ones. It runs all of
schemathesis' default checks: every response documented (status, content type, body,
headers), schema-valid requests taken, schema-invalid ones refused, 405 with Allow for
undeclared methods, authentication enforced where declared. Refusals that depend on
more than a request's shape are listed below with their error codes.
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
from accounts.tokens import issue
from schemathesis.config import SchemathesisConfig

from config.wsgi import application
from games import services
from races import services as races
from games.services import Actor

UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Every run is the same run: derandomize (Hypothesis derives the seed from the test),
# schemathesis' coverage phase (Phase.explicit: boundary values, missing, unknown and
# wrong-typed fields, undeclared methods, every enum value), then 25 generated cases
# per operation, positive and negative. All of schemathesis' default checks. No
# shrinking: the run stays short and a failing response is reported as it was. With
# ~30 operations and two callers the module takes about a minute on an idle machine.
FUZZ = hypothesis_settings(phases=[Phase.explicit, Phase.generate], max_examples=25, deadline=None,
                           suppress_health_check=list(HealthCheck), derandomize=True)

# A schema says what a well-formed request is, not which account exists, which password
# is too common or which move the board allows. So a schema-valid request may get these
# refusals besides schemathesis' defaults for positive data (2xx, 3xx, 401, 403, 404,
# 409, 429, 5xx), and only with these error codes (None: any code; 422 is only ever a
# rule of the game refusing a well-formed move). Log-in answers 400 bad_credentials, as
# DRF's obtain_auth_token and OAuth 2's token endpoint (RFC 6749 5.2, invalid_grant) do:
# a 401 must carry a WWW-Authenticate challenge, and no HTTP authentication scheme
# applies to a name and password sent in a body.
SEMANTIC_REFUSALS: dict[str, dict[int, set[str] | None]] = {
    "POST /api/accounts/login": {400: {"bad_credentials"}},
    "POST /api/accounts/signup": {400: {"weak_password"}},
    # A well-formed link, code or password that is not the right one.
    "POST /api/accounts/email/verify": {400: {"bad_link", "link_expired"}},
    "POST /api/accounts/password-reset/confirm": {400: {"bad_reset_link", "weak_password"}},
    "POST /api/accounts/login/two-factor": {400: {"wrong_code"}},
    "POST /api/games/{game_id}/moves": {422: None},
    "POST /api/games/{game_id}/undo": {422: None},
}
# The documented 503s (with Retry-After): no winnable deal in stock (the tests keep the
# stock empty), every solver taken. Any other 5xx is a failure.
UNAVAILABLE: dict[str, set[str]] = {
    "POST /api/games/": {"no_winnable_deal"},
    "GET /api/games/{game_id}/hint": {"solver_busy"},
    "POST /api/games/{game_id}/complete": {"solver_busy"},
}
POSITIVE_DATA_STATUSES = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]


def operation_config(label: str) -> dict:
    checks: dict = {}
    if label in SEMANTIC_REFUSALS:
        extra = [str(status) for status in SEMANTIC_REFUSALS[label]]
        checks["positive_data_acceptance"] = {"expected-statuses": POSITIVE_DATA_STATUSES + extra}
    if label in UNAVAILABLE:
        checks["not_a_server_error"] = {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}
    return {"include-name": label, "checks": checks}


CONFIG = SchemathesisConfig.from_dict(
    {"operations": [operation_config(label) for label in {*SEMANTIC_REFUSALS, *UNAVAILABLE}]})

# The schema as the application serves it. One test per API operation and run.
# (schemathesis.pytest.from_fixture would load it lazily, but its subtests break on
# pytest 9.2: "'Function' object has no attribute '_nodeid'".)
schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=CONFIG)


def refused_as_documented(ctx, response, case) -> None:
    """The statuses allowed above come with their codes only: a schema-valid log-in is
    never 400 invalid, a 503 is never anything but the documented one."""
    error = response.json().get("error") if response.status_code >= 400 else None
    if response.status_code == 503:
        assert error in UNAVAILABLE.get(case.operation.label, set()), f"503 {error}"
    if case.meta is not None and case.meta.generation.mode.is_positive:
        codes = SEMANTIC_REFUSALS.get(case.operation.label, {}).get(response.status_code)
        assert codes is None or error in codes, f"a schema-valid request refused with {response.status_code} {error}"


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
    """An account with a token, a few games (live casual, live ranked, resigned) and two
    open races (its own, and another account's), shared by both runs.

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
        token = issue(user, name="test", scope="play", expires_in_days=1)[1]
        actor = Actor(user_id=user.pk)
        live = services.create_game(actor, code="KL1-D1N-AAAAAAG")
        ranked = services.create_game(actor, draw=3, scoring="vegas")
        over = services.create_game(actor, code="KL1-D3N-AAAAAAG")
        services.submit_move(over.pk, actor, {"type": "draw"}, 1)
        services.resign(over.pk, actor, 2)
        own_race = races.create_race(user, max_players=2)
        host = get_user_model().objects.create_user("host", "host@example.com", "host-password-1234")
        other_race = races.create_race(host)
        try:
            yield {"token": token, "ids": {"game_id": [str(live.pk), str(ranked.pk), str(over.pk)],
                                               "race_id": [str(own_race.pk), str(other_race.pk)]}}
        finally:
            call_command("flush", "--noinput", verbosity=0)


@pytest.fixture
def db(player):
    """Overrides pytest-django's ``db`` for this module: its name makes pytest-django
    create the test database even when only the fuzz tests are selected, while the
    runs themselves use the module's autocommit access (see ``player``)."""
    return player


def use_real_objects(case, ids: dict[str, list[str]]) -> None:
    """Generated game and race ids are random UUIDs (404): swap them for the fixture's
    real ones, so that bodies reach validation and the services. (Ids that are not
    UUIDs stay: they are the negative cases of the path.)"""
    path = case.path_parameters or {}
    for name, real in ids.items():
        if name in path and UUID_TEXT.fullmatch(str(path[name])):
            # Keyed on the whole request: the coverage phase sends one id with many bodies.
            path[name] = real[zlib.crc32(repr((case.method, path[name], case.query, case.body)).encode()) % len(real)]


@schema.parametrize()
@FUZZ
def test_api_conforms_to_its_schema_anonymous(case, db):
    # A guest without a session cookie: it reads the account's games and races; its
    # moves in them are refused (403), its races need an account (401).
    use_real_objects(case, db["ids"])
    case.call_and_validate(additional_checks=[refused_as_documented])


@schema.parametrize()
@FUZZ
def test_api_conforms_to_its_schema_with_a_token(case, db):
    use_real_objects(case, db["ids"])
    case.call_and_validate(headers={"Authorization": f"Token {db['token']}"},
                           additional_checks=[refused_as_documented])
