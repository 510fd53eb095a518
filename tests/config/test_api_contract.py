"""The OpenAPI schema and the server agree, case by case: what the schema calls invalid
the server refuses (400), what it calls valid the server takes. Each case is checked on
both sides, the schema as the service serves it (validated with jsonschema_rs, the
validator schemathesis uses) and the server through the real stack and PostgreSQL.
The parsers of deal codes, cards and destinations take exactly the schema's patterns."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema_rs
import pytest
from django.core.cache import cache
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import User
from accounts.tokens import issue
from races import services as races
from engine import DealCode, DealCodeError, Move, MoveError, parse_card
from engine.cards import ASCII_SPACE, CARD_PATTERN
from engine.deal import DEAL_CODE_PATTERN
from engine.moves import DESTINATION_PATTERN

JSON = "application/json"
DEAL = "KL1-D1N-AAAAAAJ"
HTTP_METHODS = ("get", "post", "put", "patch", "delete", "trace")


# --- helpers -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def document(django_db_setup, django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture(autouse=True)
def clean_throttles():
    cache.clear()
    yield
    cache.clear()


def validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A validator of ``schema``, whose $refs point into the document's components."""
    return jsonschema_rs.Draft4Validator({"allOf": [schema], "components": document["components"]})


def body_schema(document: dict[str, Any], method: str, path: str) -> jsonschema_rs.Validator:
    operation = document["paths"][path][method]
    return validator(document, operation["requestBody"]["content"][JSON]["schema"])


def parameter_schema(document: dict[str, Any], method: str, path: str, name: str) -> jsonschema_rs.Validator:
    [parameter] = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
    return validator(document, parameter["schema"])


def post(client: APIClient, url: str, body: Any, method: str = "post"):
    return getattr(client, method)(url, json.dumps(body), content_type=JSON)


def assert_refused(response, code: str = "invalid", field: str | None = None) -> dict[str, Any]:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == code, body
    if field is not None:
        assert field in body["fields"], body
    return body


@pytest.fixture
def player(db) -> tuple[User, APIClient]:
    user = User.objects.create_user("Contract", "contract@example.com", "contract-password-7")
    client = APIClient()
    client.force_login(user)  # signed in: the account's own settings need the session
    return user, client


def new_game(client: APIClient, **body: Any) -> dict[str, Any]:
    response = post(client, "/api/games/", body)
    assert response.status_code == 201, response.content
    return response.json()


# --- the parsers take exactly the schema's patterns --------------------------------


def near_misses(pattern: str) -> st.SearchStrategy[str]:
    """Texts around the pattern: matches, matches with a character changed, added or
    dropped, any white space or Unicode around them, and arbitrary text."""
    match = st.from_regex(pattern, fullmatch=True)

    def mutate(data: tuple[str, int, str, int]) -> str:
        text, at, char, how = data
        at = at % (len(text) + 1)
        return [text[:at] + char + text[at:], text[:at] + char + text[at + 1:], text[:at] + text[at + 1:]][how]

    mutated = st.tuples(match, st.integers(0, 40), st.characters(), st.integers(0, 2)).map(mutate)
    spaced = st.tuples(st.sampled_from([" ", "\xa0", "\u2003", "\x1c", "\x85", "\ufeff", "\x00"]), match).map(
        lambda pair: pair[0] + pair[1] + pair[0])
    return match | mutated | spaced | st.text(max_size=20)


def accepts(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except (ValueError, MoveError):  # DealCodeError is a ValueError
        return False
    return True


def destination(text: str) -> Move:
    return Move.from_json({"type": "move", "card": "AS", "to": text})


@pytest.mark.parametrize("pattern, parse", [
    (DEAL_CODE_PATTERN, DealCode.parse), (CARD_PATTERN, parse_card), (DESTINATION_PATTERN, destination),
], ids=["deal code", "card", "destination"])
@settings(max_examples=300, derandomize=True, deadline=None)
@given(data=st.data())
def test_parsers_take_exactly_the_schema_patterns(pattern, parse, data):
    text = data.draw(near_misses(pattern))
    in_schema = jsonschema_rs.Draft4Validator({"type": "string", "pattern": pattern}).is_valid(text)
    assert accepts(parse, text) == in_schema == bool(re.fullmatch(pattern, text)), repr(text)


def test_the_white_space_the_patterns_allow_is_what_the_parsers_strip():
    assert set(ASCII_SPACE) == {chr(code) for code in range(128) if chr(code).isspace()}


def test_non_ascii_lookalikes_are_not_cards_or_destinations():
    """str.upper() turns the long s into S: 'Aſ' was the ace of spades."""
    for text in ("Aſ", "\xa0AS", "AS\u2003"):
        with pytest.raises(ValueError):
            parse_card(text)
    with pytest.raises(MoveError):
        destination("\xa0t1")
    with pytest.raises(DealCodeError):
        DealCode.parse("\xa0" + DEAL)


# --- bodies: the schema and the server say the same -------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("move", [None, 101, "draw", [], {}, {"type": "jump"}, {"type": "draw", "seq": 1},
                                  {"type": "move", "card": "AS"}, {"type": "move", "card": "Aſ", "to": "t1"},
                                  {"type": "move", "card": "AS", "to": "t8"}])
def test_a_move_that_is_not_the_wire_format_is_refused_by_both(document, player, move):
    _, client = player
    game = new_game(client, code=DEAL)
    body = {"move": move, "seq": 1}
    assert not body_schema(document, "post", "/api/games/{game_id}/moves").is_valid(body)
    response = post(client, f"/api/games/{game['id']}/moves", body)
    assert response.status_code == 400, response.content
    assert response.json()["error"] in ("invalid", "bad_move", "bad_card", "bad_destination")


@pytest.mark.django_db
@pytest.mark.parametrize("move", [{"type": "draw"}, {"type": "move", "card": " 7c", "to": "T7 "}])
def test_a_wire_move_is_taken_by_both(document, player, move):
    _, client = player
    game = new_game(client, code=DEAL)
    body = {"move": move, "seq": 1}
    assert body_schema(document, "post", "/api/games/{game_id}/moves").is_valid(body)
    assert post(client, f"/api/games/{game['id']}/moves", body).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("url, body, field", [
    ("/api/games/", {"public": 1}, "public"),
    ("/api/games/", {"daily": "true"}, "daily"),
    ("/api/games/", {"winnable": "yes"}, "winnable"),
    ("/api/games/", {"draw": "1"}, "draw"),
    ("/api/games/", {"draw": True}, "draw"),
    ("/api/games/", {"code": 5}, "code"),
    ("/api/races/", {"public": 0}, "public"),
    ("/api/races/", {"max_players": "2"}, "max_players"),
    ("/api/races/", {"time_limit": 600.5}, "time_limit"),
    ("/api/races/", {"scoring": ["normal"]}, "scoring"),
])
def test_values_of_another_json_type_are_refused_by_both(document, player, url, body, field):
    """DRF would take 1 for true, "2" for 2 and 5 for "5"; the schema says they are not."""
    _, client = player
    assert not body_schema(document, "post", url).is_valid(body)
    assert_refused(post(client, url, body), field=field)


@pytest.mark.django_db
def test_ready_takes_true_or_false_only(document, player):
    user, client = player
    race = races.create_race(user)
    url = f"/api/races/{race.pk}/ready"
    for ready in (1, "true", None):
        assert not body_schema(document, "post", "/api/races/{race_id}/ready").is_valid({"ready": ready})
        assert_refused(post(client, url, {"ready": ready}), field="ready")
    assert post(client, url, {"ready": True}).json()["entries"][0]["ready"] is True


@pytest.mark.django_db
def test_names_and_addresses_are_taken_as_sent(document):
    """A number is not a name, and " alice" is not "alice": the schema's pattern says so."""
    client = APIClient()
    for name in (12345678, " alice", "alice "):
        body = {"username": name, "password": "a long enough pass 7"}
        assert not body_schema(document, "post", "/api/accounts/signup").is_valid(body)
        assert_refused(post(client, "/api/accounts/signup", body), field="username")
    assert not User.objects.exists()


@pytest.mark.django_db
def test_an_address_longer_than_the_column_is_refused_not_a_server_error(document, player):
    _, client = player
    address = "a" * 60 + "@" + ".".join(["b" * 60] * 4) + ".org"  # valid in form, 309 characters
    body = {"email": address}
    assert not body_schema(document, "patch", "/api/accounts/me").is_valid(body)
    assert_refused(post(client, "/api/accounts/me", body, method="patch"), field="email")


@pytest.mark.django_db
def test_text_with_a_nul_character_is_refused_by_both(document):
    body = {"username": "someone", "password": "pass\x00word"}
    assert not body_schema(document, "post", "/api/accounts/login").is_valid(body)
    assert_refused(APIClient().post("/api/accounts/login", body, format="json"), field="password")


@pytest.mark.django_db
@pytest.mark.parametrize("method, url, body, field", [
    ("post", "/api/games/", {"pubic": False}, "pubic"),
    ("post", "/api/races/", {"players": 2}, "players"),
    ("post", "/api/accounts/signup", {"username": "newbie", "password": "a long enough pass 7", "admin": True},
     "admin"),
    ("post", "/api/accounts/login", {"username": "Contract", "password": "contract-password-7", "remember": 1},
     "remember"),
    ("patch", "/api/accounts/me", {"username": "renamed"}, "username"),
])
def test_unknown_fields_are_refused_by_both(document, player, method, url, body, field):
    """The schema says additionalProperties: false; a typo is an error, not a default."""
    _, client = player
    assert not body_schema(document, method, url).is_valid(body)
    assert_refused(post(client, url, body, method=method), field=field)


@pytest.mark.django_db
def test_every_request_body_refuses_unknown_fields(document):
    components = document["components"]["schemas"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                reference = operation["requestBody"]["content"][JSON]["schema"]["$ref"]
                component = components[reference.rsplit("/", 1)[1]]
                assert component["additionalProperties"] is False, f"{method} {path}"


@pytest.mark.django_db
@pytest.mark.parametrize("seq", ["2", 2.5, 0, True])
def test_complete_validates_seq_like_resign(document, player, seq):
    _, client = player
    game = new_game(client, code=DEAL)
    body = {"seq": seq}
    assert not body_schema(document, "post", "/api/games/{game_id}/complete").is_valid(body)
    assert_refused(post(client, f"/api/games/{game['id']}/complete", body), field="seq")
    assert_refused(post(client, f"/api/games/{game['id']}/complete", {"seq": 1, "x": 1}), field="x")


@pytest.mark.django_db
def test_a_solver_view_answers_a_bad_token_with_a_challenge(player):
    _, client = player
    game = new_game(client, code=DEAL)
    response = APIClient(HTTP_AUTHORIZATION="Token nope").get(f"/api/games/{game['id']}/hint")
    assert response.status_code == 401 and response.json()["error"] == "authentication_failed"
    assert response["WWW-Authenticate"] == "Token"


# --- deal codes: one pattern in the schema, the parser's --------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("code, accepted", [
    (DEAL, True), (" kl1-d3v-aaaaaaj\n", True), ("\x1c" + DEAL, True),
    ("KL1-D1N-AAAAAA1", False), (DEAL + "*", False), ("\xa0" + DEAL, False), ("", False), ("0", False),
])
def test_a_deal_code_is_taken_by_both_or_refused_by_both(document, player, code, accepted):
    _, client = player
    assert body_schema(document, "post", "/api/games/").is_valid({"code": code}) == accepted
    response = post(client, "/api/games/", {"code": code})
    assert response.status_code == (201 if accepted else 400), response.content
    board = parameter_schema(document, "get", "/api/leaderboards/deals/{code}", "code")
    assert board.is_valid(code) == accepted
    if code.strip(ASCII_SPACE) == code and code:  # a path segment as it would be typed
        assert client.get(f"/api/leaderboards/deals/{code}").status_code == (200 if accepted else 400)


@pytest.mark.django_db
@pytest.mark.parametrize("body", [
    {"code": "not a code", "daily": True}, {"code": DEAL, "daily": True}, {"code": DEAL, "winnable": True},
    {"daily": True, "winnable": True},
])
def test_code_daily_and_winnable_each_choose_the_deal_so_only_one_is_taken(document, player, body):
    """The daily deal used to win silently, and the code was not even parsed."""
    _, client = player
    assert not body_schema(document, "post", "/api/games/").is_valid(body)
    assert_refused(post(client, "/api/games/", body))


@pytest.mark.django_db
def test_a_code_with_daily_and_winnable_false_is_taken_by_both(document, player):
    _, client = player
    body = {"code": DEAL, "daily": False, "winnable": False}
    assert body_schema(document, "post", "/api/games/").is_valid(body)
    assert new_game(client, **body)["code"] == DEAL


# --- query parameters ---------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/games/", "/api/leaderboards/vegas", "/api/leaderboards/races",
                                  "/api/leaderboards/daily", "/api/leaderboards/deals/{code}"])
@pytest.mark.parametrize("query, accepted", [
    ("limit=0", False), ("limit=1", True), ("limit=100", True), ("limit=101", False), ("limit=-1", False),
    ("limit=", False), ("limit=%205", False), ("limit=%2B5", False), ("limit=5.0", False),
    ("offset=-1", False), ("offset=0", True), ("offset=10000000", True), ("offset=10000001", False),
    pytest.param("offset=" + "9" * 5000, False, id="offset=9...9 (5000 digits)"),
])
def test_limit_and_offset_are_what_the_schema_says(document, player, path, query, accepted):
    """limit=0 is refused (a page of nothing), as are limits over 100: the games list
    used to take them as its default (20) and its cap (100)."""
    _, client = player
    name, _, value = query.partition("=")
    value = value.replace("%20", " ").replace("%2B", "+")
    schema = parameter_schema(document, "get", path, name)
    as_number = int(value) if re.fullmatch(r"-?[0-9]{1,18}", value) else value
    assert schema.is_valid(as_number) == accepted
    response = client.get(path.replace("{code}", DEAL) + "?" + query)
    assert response.status_code == (200 if accepted else 400), response.content


@pytest.mark.django_db
@pytest.mark.parametrize("date, accepted", [
    ("2026-12-02", True), ("", True), ("20261202", False), ("2026-W48-3", False), ("2026-02-30", False),
    ("２０２６-12-02", False),
])
def test_a_board_date_is_a_yyyy_mm_dd_date(document, date, accepted):
    """fromisoformat() alone took 20261202 and 2026-W48-3; an empty date is today, and says so."""
    schema = parameter_schema(document, "get", "/api/leaderboards/daily", "date")
    if date != "2026-02-30":  # a calendar the pattern cannot know: the schema's date format does
        assert schema.is_valid(date) == accepted
    response = APIClient().get("/api/leaderboards/daily", {"date": date})
    assert response.status_code == (200 if accepted else 400), response.content


# --- 405 with Allow, everywhere ---------------------------------------------------------


@pytest.mark.django_db
def test_every_address_answers_an_undeclared_method_with_405_and_allow(document, player):
    user, client = player
    game = new_game(client, code=DEAL)
    race = races.create_race(user)
    values = {"game_id": game["id"], "race_id": str(race.pk), "code": DEAL, "username": user.username,
              "token_id": issue(user, name="test", scope="read", expires_in_days=1)[0].token_key,
              "session_id": "00000000-0000-0000-0000-000000000000",
              "challenge_id": "00000000-0000-0000-0000-000000000000"}
    for path, operations in document["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        declared = {method.upper() for method in operations if method in HTTP_METHODS}
        for method in HTTP_METHODS:
            if method.upper() in declared:
                continue
            response = getattr(client, method)(url)
            assert response.status_code == 405, (method, url, response.content)
            assert response.json()["error"] == "method_not_allowed"
            allowed = {name.strip() for name in response["Allow"].split(",")}
            assert allowed - {"HEAD", "OPTIONS"} == declared, (method, url, response["Allow"])
