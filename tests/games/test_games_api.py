"""The games REST API end to end, against real PostgreSQL (no mocks).

Every request goes through Django's URL routing, DRF, the service layer and the
database. Moves are checked against a mirror engine (``engine.Game``) fed the
same actions, so the API must report exactly what the rules say."""

from __future__ import annotations

import json
import re
import secrets
from datetime import datetime
from functools import lru_cache
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from engine import DealCode, Game as EngineGame, Move as EngineMove, deal_json, full_view, public_view, replay
from engine.cards import CARD_NAMES
from engine.moves import FOUNDATION, MOVE, RECYCLE
from games.models import Game, Move
from tests.account_helpers import api_token

pytestmark = pytest.mark.django_db

#: Draw one, Normal. Opening: t1 7C | t2 ## 2S | t3 ## ## 7H | t4 … 4H | t5 … AC (AD under it)
#: | t6 … 6S (QH under it) | t7 … 8D; the stock's first card is 9D.
#: Legal at the start: AC→foundation, 6S→t3, 7C→t7.
DEAL = "KL1-D1N-AAAAAAJ"
PASSWORD = "a long enough pass 7"
CODE_RE = re.compile(r"^KL1-D([13])([NV])-[A-Z2-7]{7}$")


# --- helpers -----------------------------------------------------------------------


def post(client: APIClient, url: str, body: Any = None, *, raw: str | None = None, **extra: Any):
    data = raw if raw is not None else ("" if body is None else json.dumps(body))
    return client.post(url, data, content_type="application/json", **extra)


def game_url(game_id: str) -> str:
    return f"/api/games/{game_id}/"


def create(client: APIClient, **body: Any) -> dict[str, Any]:
    response = post(client, "/api/games/", body)
    assert response.status_code == 201, response.content
    return response.json()


def play(client: APIClient, game_id: str, move: dict[str, Any], seq: int, status: int = 200):
    response = post(client, game_url(game_id) + "moves", {"move": move, "seq": seq})
    assert response.status_code == status, response.content
    return response.json()


def card_move(card: str, to: str) -> dict[str, str]:
    return {"type": "move", "card": card, "to": to}


def assert_error(response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert isinstance(body, dict)
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"].strip(), body
    return body


def state_of(client: APIClient, game_id: str) -> tuple[dict[str, Any], bytes, list[tuple]]:
    """What a refused request must not change: the API's view of the game (minus the
    running clock), the stored engine bytes and the move log."""
    response = client.get(game_url(game_id))
    assert response.status_code == 200
    body = response.json()
    body.pop("seconds")
    row = Game.objects.get(pk=game_id)
    log = list(Move.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "submitted", "action"))
    return body, bytes(row.state), log


def signup(client: APIClient, username: str | None = None) -> dict[str, Any]:
    """Sign up from a unique address, so the sign-up throttle (per IP, kept in Redis
    across runs) never gets in the way."""
    username = username or "p" + secrets.token_hex(6)
    address = "10.%d.%d.%d" % tuple(secrets.randbelow(250) + 1 for _ in range(3))
    response = post(client, "/api/accounts/signup", {"username": username, "password": PASSWORD},
                    REMOTE_ADDR=address)
    assert response.status_code == 201, response.content
    return response.json()


def token_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def mirror_result(outcome, engine: EngineGame) -> dict[str, Any]:
    return {
        "move": outcome.move.to_json(),
        "flipped": None if outcome.flipped is None else CARD_NAMES[outcome.flipped],
        "score": outcome.score,
        "moves": outcome.moves,
        "view": public_view(engine),
    }


def assert_matches_mirror(result: dict[str, Any], outcome, engine: EngineGame) -> None:
    expected = mirror_result(outcome, engine)
    for key, value in expected.items():
        assert result[key] == value, (key, result[key], value)


def all_cards_of_full_view(view: dict[str, Any]) -> list[str]:
    """Every card a full view shows: columns, stock, waste, and the foundations below
    each top card."""
    cards = [c for column in view["tableau"] for c in column["cards"]] + view["stock"] + view["waste"]
    for suit, top in view["foundations"].items():
        if top is not None:
            rank = "A23456789TJQK".index(top[0]) + 1
            cards += ["A23456789TJQK"[r] + suit for r in range(rank)]
    return cards


# --- a winnable deal, found by a small depth-first search --------------------------


def _position_key(game: EngineGame) -> tuple:
    return (tuple(map(tuple, game.columns)), tuple(game.down), tuple(game.stock), tuple(game.waste),
            tuple(game.foundations))


def _candidate_moves(game: EngineGame) -> list[EngineMove]:
    """Legal moves, foundation moves first; leaves out take-backs, Kings moved from
    the bottom of a column and column moves that uncover nothing."""
    foundation, uncovering, from_waste, emptying, stock = [], [], [], [], []
    for move in game.legal_moves():
        if move.kind != MOVE:
            stock.append(move)
            continue
        card = move.card
        if game.foundations[card // 13] == card % 13 + 1:
            continue  # a take-back
        if move.to == FOUNDATION:
            foundation.append(move)
        elif game.waste and game.waste[-1] == card:
            from_waste.append(move)
        else:
            index = next(i for i, col in enumerate(game.columns) if card in col)
            position, down = game.columns[index].index(card), game.down[index]
            if position != down or (position == 0 and card % 13 == 12):
                continue
            (uncovering if down else emptying).append(move)
    return foundation + uncovering + from_waste + emptying + stock


def solve(code: str, node_limit: int) -> list[EngineMove] | None:
    start = EngineGame.new(code)
    seen = {_position_key(start)}
    stack: list[tuple[EngineGame, tuple[EngineMove, ...]]] = [(start, ())]
    nodes = 0
    while stack:
        game, line = stack.pop()
        nodes += 1
        if nodes > node_limit:
            return None
        children = []
        for move in _candidate_moves(game):
            child = game.copy()
            child.apply(move)
            if child.won:
                return list(line + (move,))
            key = _position_key(child)
            if key not in seen:
                seen.add(key)
                children.append((child, line + (move,)))
        stack.extend(reversed(children))
    return None


@lru_cache(maxsize=1)
def winnable_deal() -> tuple[str, list[EngineMove]]:
    for number in range(51):
        code = str(DealCode(number, 1))
        line = solve(code, node_limit=5_000)
        if line is not None:
            return code, line
    raise AssertionError("no deal in 0..50 won by the search")


# --- creating and reading games ----------------------------------------------------


@pytest.mark.parametrize("draw_count", [1, 3])
def test_create_a_random_normal_deal(draw_count):
    client = APIClient()
    game = create(client, draw=draw_count, scoring="normal")
    match = CODE_RE.match(game["code"])
    assert match and match.groups() == (str(draw_count), "N")
    assert game["draw"] == draw_count and game["scoring"] == "normal"
    assert game["kind"] == "casual" and game["ranked_undo"] is False
    assert game["status"] == "live" and game["seq"] == 0 and game["score"] == 0 and game["moves"] == 0
    assert game["owner"] is None and game["yours"] is True
    assert game["started_at"] is None and game["finished_at"] is None and game["seconds"] is None
    assert game["view"] == public_view(EngineGame.new(game["code"]))
    row = Game.objects.get(pk=game["id"])
    assert row.code == game["code"] and row.deal_number == DealCode.parse(game["code"]).number


def test_create_by_code_takes_draw_and_scoring_from_the_code():
    client = APIClient()
    game = create(client, code="  kl1-d3v-aaaaaag ", draw=1, scoring="normal")
    assert game["code"] == "KL1-D3V-AAAAAAG"
    assert (game["draw"], game["scoring"]) == (3, "vegas")
    assert game["kind"] == "casual" and game["ranked_undo"] is False  # a chosen deal is practice
    assert game["score"] == -52
    assert game["view"] == public_view(EngineGame.new("KL1-D3V-AAAAAAG"))
    assert Game.objects.get(pk=game["id"]).deal_number == 6


@pytest.mark.parametrize("body, code", [
    ({"code": "KL2-D1N-AAAAAAA"}, "bad_prefix"),
    ({"code": "KL1-D2N-AAAAAAA"}, "bad_draw"),
    ({"code": "KL1-D1X-AAAAAAA"}, "bad_scoring"),
    ({"code": "KL1-D1N-AAAAAA1"}, "bad_number"),
    ({"code": "nonsense"}, "bad_format"),
    ({"draw": 2}, "invalid"),
    ({"scoring": "chicago"}, "invalid"),
    ({"public": "maybe"}, "invalid"),
])
def test_create_refuses_bad_input(body, code):
    client = APIClient()
    assert_error(post(client, "/api/games/", body), 400, code)
    assert Game.objects.count() == 0


def test_random_vegas_is_ranked_and_its_code_is_revealed_only_once_resigned():
    client = APIClient()
    game = create(client, draw=1, scoring="vegas")
    assert game["kind"] == "ranked" and game["ranked_undo"] is True
    assert game["code"] is None and game["score"] == -52
    assert game["view"]["ranked"] is True
    row = Game.objects.get(pk=game["id"])
    assert CODE_RE.match(row.code).groups() == ("1", "V")
    assert client.get(game_url(game["id"])).json()["code"] is None
    assert client.get("/api/games/").json()["results"][0]["code"] is None
    assert APIClient().get(game_url(game["id"])).json()["code"] is None
    assert_error(client.get(game_url(game["id"]) + "replay"), 409, "game_live")

    resigned = post(client, game_url(game["id"]) + "resign", {"seq": 1})
    assert resigned.status_code == 200 and resigned.json()["status"] == "resigned"
    after = client.get(game_url(game["id"])).json()
    assert after["code"] == row.code and after["status"] == "resigned"
    assert client.get("/api/games/").json()["results"][0]["code"] == row.code
    assert client.get(game_url(game["id"]) + "replay").json()["code"] == row.code


def test_read_a_game():
    client = APIClient()
    game = create(client, code=DEAL)
    read = client.get(game_url(game["id"]))
    assert read.status_code == 200
    assert read.json() == game
    # The public view of a live game: face-down counts, one face-up card per column.
    view = read.json()["view"]
    assert [column["down"] for column in view["tableau"]] == list(range(7))
    assert [column["up"] for column in view["tableau"]] == [["7C"], ["2S"], ["7H"], ["4H"], ["AC"], ["6S"], ["8D"]]
    assert view["stock"] == {"count": 24} and view["waste"] == {"count": 0, "visible": []}


# --- playing -----------------------------------------------------------------------


def test_play_moves_with_sequence_numbers():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    mirror = EngineGame.new(DEAL)
    steps = [
        (card_move("AC", "foundation"), {"type": "move", "card": "AC", "to": "foundation"}, "AD", 15),
        (card_move("ad", "Foundation"), {"type": "move", "card": "AD", "to": "foundation"}, "JC", 30),
        (card_move("6S", "t3"), {"type": "move", "card": "6S", "to": "t3"}, "QH", 35),
        (card_move("7C", "tableau"), {"type": "move", "card": "7C", "to": "t7"}, None, 35),
        ({"type": "draw"}, {"type": "draw"}, None, 35),
    ]
    for seq, (move, canonical, flipped, score) in enumerate(steps, start=1):
        result = play(client, gid, move, seq)
        outcome = mirror.apply(EngineMove.from_json(move))
        assert result["game"] == gid and result["seq"] == seq and result["status"] == "live"
        assert result["move"] == canonical and result["flipped"] == flipped and result["score"] == score
        assert result["moves"] == seq
        datetime.fromisoformat(result["at"])
        assert_matches_mirror(result, outcome, mirror)
    assert result["view"]["waste"] == {"count": 1, "visible": ["9D"]}
    assert result["view"]["tableau"][0] == {"down": 0, "up": []}

    read = client.get(game_url(gid)).json()
    assert (read["seq"], read["score"], read["moves"], read["foundation_count"]) == (5, 35, 5, 2)
    assert read["started_at"] is not None and read["finished_at"] is None and read["seconds"] >= 0
    assert read["view"] == public_view(mirror)
    rows = list(Move.objects.filter(game_id=gid).order_by("seq"))
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5]
    assert [r.action for r in rows] == [s[1] for s in steps]
    assert [r.flipped for r in rows] == ["AD", "JC", "QH", "", ""]
    # The stored state is what the move log replays to.
    assert Game.objects.get(pk=gid).engine().snapshot() == replay(DEAL, [r.action for r in rows]).snapshot()


def test_draw_three_shows_the_fan():
    client = APIClient()
    game = create(client, code="KL1-D3N-AAAAAAJ")
    result = play(client, game["id"], {"type": "draw"}, 1)
    # The stock's first three cards are 9D QS JH: the last one drawn is on top.
    assert result["view"]["stock"] == {"count": 21}
    assert result["view"]["waste"] == {"count": 3, "visible": ["9D", "QS", "JH"]}
    mirror = EngineGame.new("KL1-D3N-AAAAAAJ")
    mirror.apply(EngineMove.from_json({"type": "draw"}))
    assert result["view"] == public_view(mirror)


def test_undo_endpoint():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    play(client, gid, card_move("AC", "foundation"), 1)
    undone = post(client, game_url(gid) + "undo", {"seq": 2})
    assert undone.status_code == 200, undone.content
    body = undone.json()
    assert body["seq"] == 2 and body["move"] == {"type": "undo"} and body["flipped"] is None
    assert body["score"] == 0 and body["moves"] == 2  # undo counts as a move
    opening = public_view(EngineGame.new(DEAL))
    assert {k: v for k, v in body["view"].items() if k != "moves"} == \
        {k: v for k, v in opening.items() if k not in ("moves",)}
    assert body["view"]["can_undo"] is False
    before = state_of(client, gid)
    assert_error(post(client, game_url(gid) + "undo", {"seq": 3}), 422, "nothing_to_undo")
    assert state_of(client, gid) == before
    assert_error(post(client, game_url(gid) + "undo", {}), 400, "invalid")
    assert_error(post(client, game_url(gid) + "undo", {"seq": 0}), 400, "invalid")
    assert state_of(client, gid) == before
    # The undo is an event of the log like any other.
    assert list(Move.objects.filter(game_id=gid).values_list("seq", "action")) == \
        [(1, card_move("AC", "foundation")), (2, {"type": "undo"})]


def test_ranked_undo_refuses_to_take_back_a_draw():
    client = APIClient()
    game = create(client, draw=1, scoring="vegas")
    play(client, game["id"], {"type": "draw"}, 1)
    before = state_of(client, game["id"])
    assert_error(post(client, game_url(game["id"]) + "undo", {"seq": 2}), 422, "undo_refused_ranked")
    assert state_of(client, game["id"]) == before


def test_resign():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    play(client, gid, card_move("AC", "foundation"), 1)
    resigned = post(client, game_url(gid) + "resign", {"seq": 2})
    assert resigned.status_code == 200, resigned.content
    body = resigned.json()
    assert body["seq"] == 2 and body["move"] == {"type": "resign"} and body["status"] == "resigned"
    assert body["score"] == 15

    read = client.get(game_url(gid)).json()
    assert read["status"] == "resigned" and read["finished_at"] is not None and read["seq"] == 2
    # Over: the full view, every card listed.
    view = read["view"]
    assert all("cards" in column and "up" not in column for column in view["tableau"])
    assert isinstance(view["stock"], list) and isinstance(view["waste"], list)
    cards = all_cards_of_full_view(view)
    assert sorted(cards) == sorted(CARD_NAMES)
    assert view["stock"] == deal_json(EngineGame.new(DEAL))["stock"]

    before = state_of(client, gid)
    assert_error(post(client, game_url(gid) + "resign", {}), 409, "game_over")
    assert_error(post(client, game_url(gid) + "resign", {"seq": 3}), 409, "game_over")
    conflict = assert_error(post(client, game_url(gid) + "moves", {"move": {"type": "draw"}, "seq": 3}),
                            409, "game_over")
    assert conflict["seq"] == 2
    assert_error(post(client, game_url(gid) + "undo", {"seq": 3}), 409, "game_over")
    assert state_of(client, gid) == before


def test_resign_without_a_body():
    client = APIClient()
    game = create(client, code=DEAL)
    response = client.post(game_url(game["id"]) + "resign")
    assert response.status_code == 200, response.content
    assert response.json()["seq"] == 1 and response.json()["status"] == "resigned"


def test_a_retried_resignation_gets_the_first_result():
    """The resignation is an event with a seq "for safe retries": a retry whose
    response was lost must get the same answer, not an error."""
    client = APIClient()
    game = create(client, code=DEAL)
    url = game_url(game["id"]) + "resign"
    first = post(client, url, {"seq": 1})
    assert first.status_code == 200
    again = post(client, url, {"seq": 1})
    assert again.status_code == 200, again.content
    assert again.json() == first.json()
    assert Move.objects.filter(game_id=game["id"]).count() == 1


# --- listing -----------------------------------------------------------------------


def test_list_my_games_with_pagination_and_status_filter():
    client = APIClient()
    ids = [create(client, code=DEAL)["id"] for _ in range(5)]
    for gid in ids[:2]:
        assert post(client, game_url(gid) + "resign", {}).status_code == 200
    other = APIClient()
    create(other, code=DEAL)  # someone else's game is never listed

    listing = client.get("/api/games/").json()
    assert listing["count"] == 5
    assert [g["id"] for g in listing["results"]] == ids[::-1]  # newest first
    assert all(g["yours"] for g in listing["results"])

    first = client.get("/api/games/?limit=2").json()
    assert [g["id"] for g in first["results"]] == ids[::-1][:2]
    assert first["previous"] is None and first["next"] is not None
    second = client.get(first["next"]).json()
    assert [g["id"] for g in second["results"]] == ids[::-1][2:4]
    last = client.get("/api/games/?limit=2&offset=4").json()
    assert [g["id"] for g in last["results"]] == [ids[0]] and last["next"] is None

    resigned = client.get("/api/games/?status=resigned").json()
    assert resigned["count"] == 2 and {g["id"] for g in resigned["results"]} == set(ids[:2])
    assert all(g["status"] == "resigned" for g in resigned["results"])
    live = client.get("/api/games/?status=live").json()
    assert live["count"] == 3 and {g["id"] for g in live["results"]} == set(ids[2:])
    assert client.get("/api/games/?status=won").json()["count"] == 0
    assert_error(client.get("/api/games/?status=finished"), 400, "invalid")

    assert APIClient().get("/api/games/").json()["count"] == 0  # no session, no games


# --- replay ------------------------------------------------------------------------


def test_replay_of_a_finished_game():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    moves = [card_move("AC", "foundation"), card_move("6S", "t3"), {"type": "draw"}]
    for seq, move in enumerate(moves, start=1):
        play(client, gid, move, seq)
    assert_error(client.get(game_url(gid) + "replay"), 409, "game_live")
    post(client, game_url(gid) + "resign", {"seq": 4})

    response = APIClient().get(game_url(gid) + "replay")  # anyone may watch it
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == gid and body["code"] == DEAL and body["status"] == "resigned"
    assert body["deal"] == deal_json(EngineGame.new(DEAL))
    assert [m["seq"] for m in body["moves"]] == [1, 2, 3, 4]
    assert [m["move"] for m in body["moves"]] == moves + [{"type": "resign"}]
    assert [m["flipped"] for m in body["moves"]] == ["AD", "QH", None, None]
    assert [m["score"] for m in body["moves"]] == [15, 20, 20, 20]
    assert [m["moves"] for m in body["moves"]] == [1, 2, 3, 3]
    times = [datetime.fromisoformat(m["at"].replace("Z", "+00:00")) for m in body["moves"]]
    assert times == sorted(times)


def test_replay_of_an_unknown_game():
    assert_error(APIClient().get(game_url("00000000-0000-4000-8000-000000000000") + "replay"), 404, "not_found")


# --- guests, accounts and tokens ---------------------------------------------------


def test_a_guest_plays_and_others_may_only_look():
    guest = APIClient()
    game = create(guest, code=DEAL)
    gid = game["id"]
    play(guest, gid, card_move("AC", "foundation"), 1)

    no_session = APIClient()
    other_guest = APIClient()
    create(other_guest, code=DEAL)  # a guest session of its own, with a game of its own
    for other in (no_session, other_guest):
        before = state_of(guest, gid)
        assert_error(post(other, game_url(gid) + "moves", {"move": {"type": "draw"}, "seq": 2}), 403, "not_your_game")
        assert_error(post(other, game_url(gid) + "undo", {"seq": 2}), 403, "not_your_game")
        assert_error(post(other, game_url(gid) + "resign", {"seq": 2}), 403, "not_your_game")
        assert_error(post(other, game_url(gid) + "resign", {}), 403, "not_your_game")
        assert state_of(guest, gid) == before

        seen = other.get(game_url(gid))
        assert seen.status_code == 200
        public = seen.json()
        assert public["yours"] is False and public["owner"] is None and public["seq"] == 1
        assert public["view"] == guest.get(game_url(gid)).json()["view"]
        assert all("cards" not in column for column in public["view"]["tableau"])
        assert public["view"]["stock"] == {"count": 24}
        assert gid not in [g["id"] for g in other.get("/api/games/").json()["results"]]
    play(guest, gid, {"type": "draw"}, 2)  # the owner still can


def test_a_guest_who_signs_up_keeps_their_games():
    browser = APIClient()
    first = create(browser, code=DEAL)
    second = create(browser, draw=3)
    play(browser, first["id"], card_move("AC", "foundation"), 1)

    session = signup(browser, "keeper")
    assert session["claimed_games"] == 2
    listing = browser.get("/api/games/").json()
    assert {g["id"] for g in listing["results"]} == {first["id"], second["id"]}
    assert all(g["owner"] == "keeper" and g["yours"] for g in listing["results"])
    # They go on playing, in the browser and with the token.
    play(browser, first["id"], {"type": "draw"}, 2)
    api = token_client(api_token(browser, password=PASSWORD))
    assert {g["id"] for g in api.get("/api/games/").json()["results"]} == {first["id"], second["id"]}
    play(api, first["id"], {"type": "draw"}, 3)
    assert Game.objects.filter(owner__username="keeper").count() == 2


def test_token_authentication():
    browser = APIClient()
    session = signup(browser)
    api = token_client(api_token(browser, password=PASSWORD))
    game = create(api, code=DEAL)
    assert game["owner"] == session["username"] and game["yours"] is True
    result = play(api, game["id"], card_move("AC", "foundation"), 1)
    assert result["seq"] == 1
    assert post(api, game_url(game["id"]) + "undo", {"seq": 2}).status_code == 200
    assert [g["id"] for g in api.get("/api/games/").json()["results"]] == [game["id"]]
    # A guest cannot play it; a bad token is refused.
    assert_error(post(APIClient(), game_url(game["id"]) + "moves", {"move": {"type": "draw"}, "seq": 3}),
                 403, "not_your_game")
    bad = token_client("0" * 40)
    assert_error(post(bad, game_url(game["id"]) + "moves", {"move": {"type": "draw"}, "seq": 3}),
                 401, "authentication_failed")
    assert Game.objects.get(pk=game["id"]).seq == 2


# --- refusals: every one is {"error", "detail"} and changes nothing -----------------


BAD_REQUESTS = [
    # (raw body, status, error)
    pytest.param("{not json", 400, "parse_error", id="malformed-json"),
    pytest.param('{"move": {"type": "draw"}, "seq": 2', 400, "parse_error", id="truncated-json"),
    pytest.param("[1]", 400, "invalid", id="body-array"),
    pytest.param("[]", 400, "invalid", id="body-empty-array"),
    pytest.param('"draw"', 400, "invalid", id="body-string"),
    pytest.param("42", 400, "invalid", id="body-number"),
    pytest.param("null", 400, "invalid", id="body-null"),
    pytest.param('{"move": {"type": "draw"}}', 400, "invalid", id="missing-seq"),
    pytest.param('{"seq": 2}', 400, "invalid", id="missing-move"),
    pytest.param('{"move": {"type": "draw"}, "seq": 0}', 400, "invalid", id="seq-0"),
    pytest.param('{"move": {"type": "draw"}, "seq": -1}', 400, "invalid", id="seq-negative"),
    pytest.param('{"move": {"type": "draw"}, "seq": "x"}', 400, "invalid", id="seq-string"),
    pytest.param('{"move": {"type": "draw"}, "seq": "2"}', 400, "invalid", id="seq-numeric-string"),
    pytest.param('{"move": {"type": "draw"}, "seq": true}', 400, "invalid", id="seq-true"),
    pytest.param('{"move": {"type": "draw"}, "seq": false}', 400, "invalid", id="seq-false"),
    pytest.param('{"move": {"type": "draw"}, "seq": 1.5}', 400, "invalid", id="seq-fraction"),
    pytest.param('{"move": {"type": "draw"}, "seq": null}', 400, "invalid", id="seq-null"),
    pytest.param('{"move": {"type": "draw"}, "seq": 2147483648}', 400, "invalid", id="seq-huge"),
    pytest.param('{"move": {"type": "draw"}, "seq": 1e300}', 400, "invalid", id="seq-float-huge"),
    pytest.param('{"move": {"type": "draw"}, "seq": 100000000000000000000000000000000}', 400, "invalid",
                 id="seq-bignum"),
    pytest.param('{"move": "draw", "seq": 2}', 400, "bad_move", id="move-string"),
    pytest.param('{"move": ["draw"], "seq": 2}', 400, "bad_move", id="move-array"),
    pytest.param('{"move": 7, "seq": 2}', 400, "bad_move", id="move-number"),
    pytest.param('{"move": null, "seq": 2}', 400, "invalid", id="move-null"),
    pytest.param('{"move": {}, "seq": 2}', 400, "bad_move", id="move-empty"),
    pytest.param('{"move": {"type": "jump"}, "seq": 2}', 400, "bad_move", id="unknown-type"),
    pytest.param('{"move": {"type": "draw", "card": "AS"}, "seq": 2}', 400, "bad_move", id="draw-extra-field"),
    pytest.param('{"move": {"type": "move", "card": "2S"}, "seq": 2}', 400, "bad_move", id="move-without-to"),
    pytest.param('{"move": {"type": "move", "card": "ZZ", "to": "t1"}, "seq": 2}', 400, "bad_card", id="bad-card"),
    pytest.param('{"move": {"type": "move", "card": "1S", "to": "t1"}, "seq": 2}', 400, "bad_card", id="bad-rank"),
    pytest.param('{"move": {"type": "move", "card": 12, "to": "t1"}, "seq": 2}', 400, "bad_card", id="card-number"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "t8"}, "seq": 2}', 400, "bad_destination",
                 id="dest-t8"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "waste"}, "seq": 2}', 400, "bad_destination",
                 id="dest-waste"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": 3}, "seq": 2}', 400, "bad_destination",
                 id="dest-number"),
    # Illegal moves: the engine's code, 422.
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "t3"}, "seq": 2}', 422, "does_not_fit",
                 id="does-not-fit"),
    pytest.param('{"move": {"type": "recycle"}, "seq": 2}', 422, "stock_not_empty", id="stock-not-empty"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "t2"}, "seq": 2}', 422, "same_column",
                 id="same-column"),
    pytest.param('{"move": {"type": "move", "card": "8C", "to": "t1"}, "seq": 2}', 422, "card_not_available",
                 id="face-down-card"),
    pytest.param('{"move": {"type": "move", "card": "5S", "to": "t1"}, "seq": 2}', 422, "card_not_available",
                 id="stock-card"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "foundation"}, "seq": 2}', 422,
                 "foundation_mismatch", id="foundation-mismatch"),
    pytest.param('{"move": {"type": "move", "card": "AC", "to": "t3"}, "seq": 2}', 422, "does_not_fit",
                 id="take-back-does-not-fit"),
    pytest.param('{"move": {"type": "move", "card": "2S", "to": "tableau"}, "seq": 2}', 422, "no_destination",
                 id="no-destination"),
    pytest.param('{"move": {"type": "move", "card": "AC", "to": "foundation"}, "seq": 2}', 422,
                 "already_on_foundation", id="already-on-foundation"),
    # Stale or future sequence numbers.
    pytest.param('{"move": {"type": "draw"}, "seq": 1}', 409, "seq_conflict", id="stale-seq"),
    pytest.param('{"move": {"type": "draw"}, "seq": 3}', 409, "seq_conflict", id="future-seq"),
    pytest.param('{"move": {"type": "draw"}, "seq": 2147483647}', 409, "seq_conflict", id="far-future-seq"),
]


@pytest.mark.parametrize("raw, status, code", BAD_REQUESTS)
def test_refused_moves_change_nothing(raw, status, code):
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    play(client, gid, card_move("AC", "foundation"), 1)  # event 1: AD turned up in t5
    before = state_of(client, gid)
    body = assert_error(post(client, game_url(gid) + "moves", raw=raw), status, code)
    if status == 409:
        assert body["seq"] == 1
    assert state_of(client, gid) == before


@pytest.mark.parametrize("raw, status, code", [
    pytest.param("{oops", 400, "parse_error", id="malformed-json"),
    pytest.param("[1]", 400, "invalid", id="body-array"),
    pytest.param("[]", 400, "invalid", id="body-empty-array"),
    pytest.param("null", 400, "invalid", id="body-null"),
    pytest.param("0", 400, "invalid", id="body-zero"),
    pytest.param('"x"', 400, "invalid", id="body-string"),
    pytest.param('{"seq": 0}', 400, "invalid", id="seq-0"),
    pytest.param('{"seq": true}', 400, "invalid", id="seq-true"),
    pytest.param('{"seq": "x"}', 400, "invalid", id="seq-string"),
    pytest.param('{"seq": 2147483648}', 400, "invalid", id="seq-huge"),
    pytest.param('{"seq": 1}', 409, "seq_conflict", id="stale-seq"),
])
@pytest.mark.parametrize("endpoint", ["undo", "resign"])
def test_refused_undo_and_resign_change_nothing(endpoint, raw, status, code):
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    play(client, gid, card_move("AC", "foundation"), 1)
    before = state_of(client, gid)
    body = assert_error(post(client, game_url(gid) + endpoint, raw=raw), status, code)
    if status == 409:
        assert body["seq"] == 1
    assert state_of(client, gid) == before


def test_moves_after_the_game_is_over_are_refused():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    post(client, game_url(gid) + "resign", {"seq": 1})
    before = state_of(client, gid)
    body = assert_error(post(client, game_url(gid) + "moves", {"move": {"type": "draw"}, "seq": 2}), 409, "game_over")
    assert body["seq"] == 1
    assert state_of(client, gid) == before


@pytest.mark.parametrize("method, path", [
    ("post", "moves"), ("post", "undo"), ("post", "resign"), ("get", ""), ("get", "replay"),
])
def test_unknown_game_is_404(method, path):
    client = APIClient()
    url = game_url("6f1d2c3b-0000-4000-8000-000000000000") + path
    body = {"move": {"type": "draw"}, "seq": 1} if path == "moves" else {"seq": 1}
    response = post(client, url, body) if method == "post" else client.get(url)
    assert_error(response, 404, "not_found")


@pytest.mark.parametrize("url", [
    "/api/games/not-a-uuid/", "/api/games/123/moves", "/api/games/6f1d2c3b/undo",
    "/api/games/zzzzzzzz-0000-4000-8000-000000000000/resign", "/api/games/%20/replay", "/api/nothing-here",
])
def test_non_uuid_ids_get_json_404(url):
    assert settings.DEBUG is False
    client = APIClient()
    for response in (client.get(url), post(client, url, {"move": {"type": "draw"}, "seq": 1})):
        assert_error(response, 404, "not_found")


@pytest.mark.parametrize("method, path", [
    ("get", "moves"), ("put", "moves"), ("patch", "moves"), ("delete", "moves"),
    ("get", "undo"), ("get", "resign"), ("put", "resign"), ("post", "replay"), ("post", ""),
    ("delete", ""), ("put", ""),
])
def test_wrong_method_is_405_json(method, path):
    client = APIClient()
    game = create(client, code=DEAL)
    before = state_of(client, game["id"])
    url = game_url(game["id"]) + path
    if method == "get":
        response = client.get(url)
    else:
        response = getattr(client, method)(url, json.dumps({"seq": 1}), content_type="application/json")
    assert_error(response, 405, "method_not_allowed")
    assert state_of(client, game["id"]) == before


def test_wrong_method_on_the_list_is_405_json():
    assert_error(APIClient().delete("/api/games/"), 405, "method_not_allowed")


# --- idempotent retries --------------------------------------------------------------


def test_a_retry_gets_the_identical_first_result_and_no_second_row():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    url = game_url(gid) + "moves"
    first = post(client, url, {"move": card_move("AC", "foundation"), "seq": 1})
    assert first.status_code == 200
    for retry in (card_move("AC", "foundation"), card_move("ac", "FOUNDATION"), card_move(" AC ", "foundation")):
        again = post(client, url, {"move": retry, "seq": 1})
        assert again.status_code == 200, again.content
        assert again.json() == first.json()
    assert Move.objects.filter(game_id=gid).count() == 1
    assert client.get(game_url(gid)).json()["seq"] == 1

    # The same seq with a different move is a conflict, and changes nothing.
    before = state_of(client, gid)
    for different in ({"type": "draw"}, card_move("6S", "t3"), card_move("AC", "tableau")):
        body = assert_error(post(client, url, {"move": different, "seq": 1}), 409, "seq_conflict")
        assert body["seq"] == 1
    assert state_of(client, gid) == before


def test_a_retry_of_an_undo_is_idempotent_too():
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    play(client, gid, {"type": "draw"}, 1)
    first = post(client, game_url(gid) + "undo", {"seq": 2})
    again = post(client, game_url(gid) + "undo", {"seq": 2})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert Move.objects.filter(game_id=gid).count() == 2


def test_a_retry_after_later_moves_still_gets_the_first_result():
    """A retried (seq, move) gets "the first result": the same body, whatever
    happened since, not the event number of then with the board of now."""
    client = APIClient()
    game = create(client, code=DEAL)
    gid = game["id"]
    first = play(client, gid, card_move("AC", "foundation"), 1)
    play(client, gid, {"type": "draw"}, 2)
    again = play(client, gid, card_move("AC", "foundation"), 1)
    assert again == first
    assert again["view"]["score"] == again["score"]


# --- a whole game, won through the API -----------------------------------------------


def test_a_full_win_through_the_api():
    code, line = winnable_deal()
    client = APIClient()
    game = create(client, code=code)
    gid = game["id"]
    mirror = EngineGame.new(code)
    forms = {"foundation": 0, "tableau": 0, "column": 0}
    expected_score = recycles = waste_to_column = 0
    for seq, move in enumerate(line, start=1):
        wire = move.to_json()
        if move.kind == MOVE and move.to != FOUNDATION:
            # A double tap when the engine's choice is this column, else the column.
            trial = mirror.copy()
            if trial.apply(EngineMove.from_json({**wire, "to": "tableau"})).move == move:
                wire, forms["tableau"] = {**wire, "to": "tableau"}, forms["tableau"] + 1
            else:
                forms["column"] += 1
        elif move.kind == MOVE:
            forms["foundation"] += 1
        from_waste = move.kind == MOVE and bool(mirror.waste) and mirror.waste[-1] == move.card
        outcome = mirror.apply(move)
        result = play(client, gid, wire, seq)
        assert result["seq"] == seq
        if seq < len(line):
            assert_matches_mirror(result, outcome, mirror)
        else:  # the winning move: the game is over, every card may be shown
            assert result["view"] == full_view(mirror)
        # Normal scoring, recomputed from the rule book's table.
        if move.kind == RECYCLE:
            expected_score, recycles = max(0, expected_score - 100), recycles + 1
        elif move.kind == MOVE:
            expected_score += 10 if move.to == FOUNDATION else (5 if from_waste else 0)
            waste_to_column += from_waste and move.to != FOUNDATION
            expected_score += 5 if result["flipped"] else 0
        assert result["score"] == expected_score
        assert result["status"] == ("won" if seq == len(line) else "live")
    assert all(forms.values()), forms

    assert mirror.won
    read = client.get(game_url(gid)).json()
    assert read["status"] == "won" and read["finished_at"] is not None
    assert read["seconds"] is not None and read["seconds"] >= 0
    assert read["score"] == expected_score == result["score"]
    assert read["foundation_count"] == 52 and read["seq"] == read["moves"] == len(line)
    if recycles == 0:
        assert read["score"] == 625 + 5 * waste_to_column
    view = read["view"]
    assert all(column == {"down": 0, "cards": []} for column in view["tableau"])
    assert view["stock"] == [] and view["waste"] == []
    assert view["foundations"] == {"S": "KS", "H": "KH", "D": "KD", "C": "KC"}
    assert sorted(all_cards_of_full_view(view)) == sorted(CARD_NAMES)
    assert view["won"] is True

    # Over: nothing more to play; the replay shows it all.
    assert_error(post(client, game_url(gid) + "moves", {"move": {"type": "draw"}, "seq": len(line) + 1}),
                 409, "game_over")
    assert_error(post(client, game_url(gid) + "resign", {}), 409, "game_over")
    replayed = client.get(game_url(gid) + "replay").json()
    assert replayed["status"] == "won" and replayed["deal"] == deal_json(EngineGame.new(code))
    assert [m["seq"] for m in replayed["moves"]] == list(range(1, len(line) + 1))
    assert replay(code, [m["move"] for m in replayed["moves"]]).won
    assert client.get("/api/games/?status=won").json()["count"] == 1
