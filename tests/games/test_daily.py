"""The daily deal and its leaderboard, against real PostgreSQL (no mocks).

One deal a day (UTC) per draw mode, Normal scoring, the same for everyone; its number
comes from a server secret and the date; its code stays secret until the day is over,
even for finished attempts. An account's first attempt is ranked, later ones are
practice. The board: winners by score (higher), time (shorter), moves (fewer), then the
rest by cards on foundations and score; any past day through ``?date=``; paginated."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
import secrets
import threading
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import override_settings
from django.utils import timezone
from accounts.tokens import issue
from rest_framework.test import APIClient

from games import daily_deals
from games import services as game_services
from engine import MAX_DEAL_NUMBER, DealCode, Game as EngineGame, to_bytes
from games.models import DailyDeal, Game, SolvedDeal
from leaderboards import services
from tests.realtime_helpers import origin
from tests.leaderboards.test_vegas_balance import find_path

pytestmark = pytest.mark.django_db

# --- helpers -----------------------------------------------------------------------


def account(name: str | None = None) -> tuple[Any, APIClient]:
    """A user and an API client authenticated with their token."""
    user = get_user_model().objects.create_user(name or f"u{secrets.token_hex(5)}", password=None)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue(user, name='test', scope='play', expires_in_days=1)[1]}")
    return user, client


def post(client: APIClient, url: str, body: Any = None):
    return client.post(url, json.dumps(body or {}), content_type="application/json")


def start_daily(client: APIClient, draw: int = 1) -> dict[str, Any]:
    response = post(client, "/api/games/", {"daily": True, "draw": draw})
    assert response.status_code == 201, response.content
    return response.json()


def get_json(client: APIClient, url: str, status: int = 200) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def assert_error(response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"].strip()
    return body


def yesterday() -> dt.date:
    return daily_deals.today() - dt.timedelta(days=1)


def end_the_day(daily: DailyDeal, days: int = 1) -> DailyDeal:
    """Simulate the end of the day: the deal's date moves into the past."""
    DailyDeal.objects.filter(pk=daily.pk).update(date=daily.date - dt.timedelta(days=days))
    daily.refresh_from_db()
    assert daily.is_over
    return daily


def standing(daily: DailyDeal, user: Any, *, status: str = Game.Status.RESIGNED, score: int = 0,
             seconds: float | None = None, moves: int = 0, foundation_count: int = 0,
             practice: bool = False) -> Game:
    """A finished (or live) attempt built through the ORM, with its standings keys set
    by Game.update_standing() exactly as a move would."""
    code = DealCode(daily.deal_number, daily.draw)
    now = timezone.now()
    game = Game(
        owner=user, daily=daily, practice=practice, code=str(code), deal_number=code.number, draw=code.draw,
        scoring="normal", kind=Game.Kind.RANKED, ranked_undo=not practice, status=status, score=score,
        moves=moves, foundation_count=foundation_count, seconds=seconds,
        state=to_bytes(EngineGame.new(code, ranked=True), history=True),
        started_at=now if status != Game.Status.LIVE or moves else None,
        finished_at=None if status == Game.Status.LIVE else now,
    )
    game.update_standing()
    game.save(force_insert=True)
    return game


def board(client: APIClient, query: str = "", status: int = 200) -> dict[str, Any]:
    return get_json(client, "/api/leaderboards/daily" + (f"?{query}" if query else ""), status)


def players(body: dict[str, Any]) -> list[str]:
    return [row["player"] for row in body["results"]]


# --- the deal of the day -----------------------------------------------------------


def test_same_deal_for_everyone_today():
    alice, alice_client = account("alice")
    bob, bob_client = account("bob")
    a = start_daily(alice_client, 1)
    b = start_daily(bob_client, 1)
    ga, gb = Game.objects.get(pk=a["id"]), Game.objects.get(pk=b["id"])
    assert ga.deal_number == gb.deal_number
    assert ga.code == gb.code
    assert ga.daily_id == gb.daily_id
    daily = ga.daily
    assert daily.date == daily_deals.today() == timezone.now().date()
    assert daily.draw == 1
    assert daily.deal_number == daily_deals.daily_deal_number(daily.date, 1)  # (no pool of solved deals here)
    assert daily.code == str(DealCode(daily.deal_number, 1)) == ga.code
    # Normal scoring, draw one, both attempts ranked.
    for body in (a, b):
        assert body["draw"] == 1 and body["scoring"] == "normal"
        assert body["daily"] == daily.date.isoformat()
        assert body["kind"] == "ranked"
        assert body["practice"] is False and body["ranked_undo"] is True
    # A guest gets the same deal too (as practice).
    guest = APIClient()
    g = start_daily(guest, 1)
    assert Game.objects.get(pk=g["id"]).deal_number == daily.deal_number
    # Only one DailyDeal row per day and draw.
    assert DailyDeal.objects.filter(date=daily.date, draw=1).count() == 1


def test_daily_endpoint_lists_both_draws():
    user, client = account()
    body = get_json(APIClient(), "/api/daily")
    assert body["date"] == daily_deals.today().isoformat()
    assert [d["draw"] for d in body["deals"]] == [1, 3]
    assert all(d["attempted"] is False and d["ranked_game"] is None for d in body["deals"])
    assert all("code" not in d and "deal_number" not in d for d in body["deals"])  # nothing to compute it from
    game = start_daily(client, 3)
    body = get_json(client, "/api/daily")
    by_draw = {d["draw"]: d for d in body["deals"]}
    assert by_draw[3]["attempted"] is True and by_draw[3]["ranked_game"] == game["id"]
    assert by_draw[1]["attempted"] is False and by_draw[1]["ranked_game"] is None
    start_daily(client, 3)  # a practice attempt does not replace the ranked one
    body = get_json(client, "/api/daily")
    assert {d["draw"]: d for d in body["deals"]}[3]["ranked_game"] == game["id"]


def test_differs_by_draw_and_by_date():
    day = daily_deals.today()
    one, three = daily_deals.daily_deal(day, 1), daily_deals.daily_deal(day, 3)
    assert one.deal_number != three.deal_number
    assert one.code.startswith("KL1-D1N-") and three.code.startswith("KL1-D3N-")
    numbers = {daily_deals.daily_deal_number(day - dt.timedelta(days=i), draw) for i in range(60) for draw in (1, 3)}
    assert len(numbers) == 120
    # Draw three through the API: Normal scoring, draw three, its own deal.
    _, client = account()
    body = start_daily(client, 3)
    game = Game.objects.get(pk=body["id"])
    assert (game.draw, game.scoring, game.deal_number) == (3, "normal", three.deal_number)


def test_number_needs_the_secret():
    day = dt.date(2030, 1, 2)
    with override_settings(DAILY_SECRET="first secret"):
        first = [daily_deals.daily_deal_number(day, draw) for draw in (1, 3)]
        again = [daily_deals.daily_deal_number(day, draw) for draw in (1, 3)]
    with override_settings(DAILY_SECRET="second secret"):
        second = [daily_deals.daily_deal_number(day, draw) for draw in (1, 3)]
    assert first == again  # deterministic under one secret
    assert first[0] != second[0] and first[1] != second[1]
    # Without DAILY_SECRET the SECRET_KEY is the secret: changing it changes the deal.
    with override_settings(DAILY_SECRET=None, SECRET_KEY="key one"):
        k1 = daily_deals.daily_deal_number(day, 1)
    with override_settings(DAILY_SECRET=None, SECRET_KEY="key two"):
        k2 = daily_deals.daily_deal_number(day, 1)
    assert k1 != k2
    # Every number is a valid deal number.
    for i in range(200):
        n = daily_deals.daily_deal_number(day + dt.timedelta(days=i), 1 + 2 * (i % 2))
        assert 0 <= n <= MAX_DEAL_NUMBER
        DealCode(n, 1)


def test_the_stored_deal_is_used_once_created():
    """The deal of a day is fixed when first created: a later secret rotation must not
    change the deal people are already playing."""
    day = daily_deals.today()
    with override_settings(DAILY_SECRET="before"):
        created = daily_deals.daily_deal(day, 1)
    with override_settings(DAILY_SECRET="after"):
        assert daily_deals.daily_deal(day, 1).deal_number == created.deal_number
        assert daily_deals.daily_deal_number(day, 1) != created.deal_number


# --- the code stays secret while the day lasts ----------------------------------


def test_code_withheld_while_the_day_lasts_then_revealed():
    user, client = account("carol")
    ranked = start_daily(client, 1)
    practice = start_daily(client, 1)
    assert ranked["code"] is None and practice["code"] is None
    # Finish both: still secret (the day is not over), replay refused.
    for body in (ranked, practice):
        response = post(client, f"/api/games/{body['id']}/resign")
        assert response.status_code == 200, response.content
        game = get_json(client, f"/api/games/{body['id']}/")
        assert game["status"] == "resigned"
        assert game["code"] is None, game
        # The view stays the public one: no stock order, no face-down cards.
        assert "cards" not in game["view"]["tableau"][0]
        assert isinstance(game["view"]["stock"], dict)
        assert_error(client.get(f"/api/games/{body['id']}/replay"), 409, "game_live")
        # An anonymous spectator may not look at it at all while the day lasts.
        assert_error(APIClient().get(f"/api/games/{body['id']}/"), 403, "daily_hidden")
    # The listing of my games withholds it too.
    listing = get_json(client, "/api/games/")
    rows = listing["results"] if isinstance(listing, dict) else listing
    assert rows and all(row["code"] is None for row in rows)
    today_board = board(client, "draw=1")
    assert today_board["code"] is None
    assert today_board["date"] == daily_deals.today().isoformat()
    # The day ends.
    daily = end_the_day(Game.objects.get(pk=ranked["id"]).daily)
    for body in (ranked, practice):
        game = get_json(client, f"/api/games/{body['id']}/")
        assert game["code"] == daily.code
        assert "cards" in game["view"]["tableau"][0]
        replay = get_json(client, f"/api/games/{body['id']}/replay")
        assert replay["code"] == daily.code
    past = board(client, f"draw=1&date={daily.date.isoformat()}")
    assert past["code"] == daily.code
    assert players(past) == ["carol"]


def test_live_attempt_of_a_past_day_keeps_its_code():
    """The day being over is not enough while the attempt itself is still live."""
    _, client = account()
    body = start_daily(client, 3)
    end_the_day(Game.objects.get(pk=body["id"]).daily)
    assert get_json(client, f"/api/games/{body['id']}/")["code"] is None
    assert_error(client.get(f"/api/games/{body['id']}/replay"), 409, "game_live")


# --- first attempt ranked, later ones practice -----------------------------------


def test_first_attempt_ranked_then_practice():
    user, client = account("dave")
    first = start_daily(client, 1)
    second = start_daily(client, 1)
    third = start_daily(client, 1)
    assert (first["practice"], first["ranked_undo"], first["kind"]) == (False, True, "ranked")
    for later in (second, third):
        assert (later["practice"], later["ranked_undo"]) == (True, False), later
        assert later["code"] is None  # practice or not, the code is the day's secret
    # The other draw has its own first attempt.
    other = start_daily(client, 3)
    assert (other["practice"], other["ranked_undo"]) == (False, True)
    # The ranked undo policy applies to the ranked attempt only: a draw reveals a card.
    response = post(client, f"/api/games/{first['id']}/moves", {"move": {"type": "draw"}, "seq": 1})
    assert response.status_code == 200, response.content
    assert_error(post(client, f"/api/games/{first['id']}/undo", {"seq": 2}), 422, "undo_refused_ranked")
    response = post(client, f"/api/games/{second['id']}/moves", {"move": {"type": "draw"}, "seq": 1})
    assert response.status_code == 200, response.content
    response = post(client, f"/api/games/{second['id']}/undo", {"seq": 2})
    assert response.status_code == 200, response.content
    # Only the ranked attempt is on the board.
    body = board(client, "draw=1")
    assert body["count"] == 1
    assert body["results"][0]["game"] == first["id"]


def test_first_attempt_ranked_even_after_finishing_it():
    _, client = account()
    first = start_daily(client, 1)
    assert post(client, f"/api/games/{first['id']}/resign").status_code == 200
    again = start_daily(client, 1)
    assert again["practice"] is True and again["ranked_undo"] is False


def test_guests_play_only_practice():
    guest = APIClient()
    first = start_daily(guest, 1)
    assert first["practice"] is True and first["ranked_undo"] is False and first["code"] is None
    assert first["owner"] is None
    assert board(APIClient(), "draw=1")["count"] == 0


def test_guest_practice_claimed_on_sign_up_is_the_accounts_attempt():
    """A guest's daily attempt joins the account on sign-up as practice: it stays off
    the board, and since the account has now seen the deal, its next attempt is
    practice as well (no ranked attempt after rehearsing as a guest)."""
    client = APIClient(REMOTE_ADDR=f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}")
    first = start_daily(client, 1)
    response = post(client, "/api/accounts/signup", {"username": f"g{secrets.token_hex(4)}",
                                                     "password": "a long enough pass 7"})
    assert response.status_code == 201, response.content
    assert response.json()["claimed_games"] == 1
    game = Game.objects.get(pk=first["id"])
    assert game.owner is not None and game.practice is True
    assert board(APIClient(), "draw=1")["count"] == 0
    again = start_daily(client, 1)  # the same browser, signed in now
    assert again["practice"] is True


# --- the board ----------------------------------------------------------------------


def test_daily_board_ordering():
    daily = daily_deals.daily_deal(daily_deals.today(), 1)
    u = {name: account(name)[0] for name in "abcdefghij"}
    # Winners: score first, then time, then moves.
    standing(daily, u["a"], status="won", score=700, seconds=300.0, moves=150, foundation_count=52)
    standing(daily, u["b"], status="won", score=650, seconds=100.0, moves=100, foundation_count=52)
    standing(daily, u["c"], status="won", score=700, seconds=200.0, moves=180, foundation_count=52)
    standing(daily, u["d"], status="won", score=700, seconds=200.0, moves=120, foundation_count=52)
    # The rest: cards on foundations, then score (status and time do not matter).
    standing(daily, u["e"], status="resigned", score=900, seconds=50.0, moves=90, foundation_count=30)
    standing(daily, u["f"], status="resigned", score=400, seconds=900.0, moves=300, foundation_count=40)
    standing(daily, u["g"], status="live", score=500, moves=40, foundation_count=30)
    standing(daily, u["h"], status="resigned", score=0, moves=0, foundation_count=0)
    standing(daily, u["i"], status="timed_out", score=45, moves=10, foundation_count=2)
    # Not on the board: a practice attempt, a guest's attempt, another draw, another day.
    standing(daily, u["j"], status="won", score=9999, seconds=1.0, moves=90, foundation_count=52, practice=True)
    guest = standing(daily, None, status="won", score=9999, seconds=1.0, moves=90, foundation_count=52,
                     practice=True)
    assert guest.owner_id is None
    standing(daily_deals.daily_deal(daily_deals.today(), 3), u["j"], status="won", score=9999, seconds=1.0,
             moves=90, foundation_count=52)
    standing(daily_deals.daily_deal(yesterday(), 1), u["j"], status="won", score=9999, seconds=1.0, moves=90,
             foundation_count=52)

    body = board(APIClient(), "draw=1")
    assert players(body) == ["d", "c", "a", "b", "f", "e", "g", "i", "h"]
    assert body["count"] == 9
    assert [row["rank"] for row in body["results"]] == list(range(1, 10))
    assert body["code"] is None and body["draw"] == 1 and body["date"] == daily_deals.today().isoformat()
    first = body["results"][0]
    assert first == {"rank": 1, "player": "d", "status": "won", "score": 700, "seconds": 200.0, "moves": 120,
                     "foundation_count": 52, "game": first["game"]}
    assert Game.objects.get(pk=first["game"]).owner.username == "d"
    # Default draw is 1; the service agrees with the API.
    assert players(board(APIClient())) == players(body)
    assert [r["player"] for r in services.daily_board(daily_deals.today(), 1)["results"]] == players(body)


def test_equal_standings_keep_the_earlier_attempt_first():
    daily = daily_deals.daily_deal(daily_deals.today(), 1)
    first = standing(daily, account("early")[0], status="won", score=500, seconds=100.0, moves=100,
                     foundation_count=52)
    second = standing(daily, account("late")[0], status="won", score=500, seconds=100.0, moves=100,
                      foundation_count=52)
    Game.objects.filter(pk=second.pk).update(created_at=first.created_at + dt.timedelta(seconds=1))
    assert players(board(APIClient(), "draw=1")) == ["early", "late"]
    Game.objects.filter(pk=second.pk).update(created_at=first.created_at - dt.timedelta(seconds=1))
    assert players(board(APIClient(), "draw=1")) == ["late", "early"]


def test_board_follows_real_moves():
    """Standings keys kept up to date by the move transaction itself."""
    user, client = account("mover")
    body = start_daily(client, 1)
    game_id = body["id"]
    rival = standing(daily_deals.daily_deal(daily_deals.today(), 1), account("rival")[0], status="live", score=0,
                     foundation_count=0)
    path = find_path(Game.objects.get(pk=game_id).engine(), lambda e: e.foundation_count >= 1)
    assert path is not None, "no foundation move reachable on today's deal"
    for seq, move in enumerate(path, start=1):
        response = post(client, f"/api/games/{game_id}/moves", {"move": move.to_json(), "seq": seq})
        assert response.status_code == 200, response.content
    game = Game.objects.get(pk=game_id)
    assert game.foundation_count >= 1
    expected = Game(status=game.status, score=game.score, seconds=game.seconds, moves=game.moves,
                    foundation_count=game.foundation_count)
    expected.update_standing()
    assert (game.board_won, game.board_primary, game.board_secondary, game.board_tertiary) == (
        expected.board_won, expected.board_primary, expected.board_secondary, expected.board_tertiary)
    result = board(client, "draw=1")
    assert players(result) == ["mover", "rival"]
    assert result["results"][0]["foundation_count"] == game.foundation_count
    assert result["results"][0]["score"] == game.score
    assert result["results"][0]["moves"] == game.moves
    # Resigning keeps the standing (cards on foundations count, not the status).
    assert post(client, f"/api/games/{game_id}/resign").status_code == 200
    assert players(board(client, "draw=1")) == ["mover", "rival"]
    assert rival.pk


def test_past_days_board():
    old_day = daily_deals.today() - dt.timedelta(days=3)
    old = daily_deals.daily_deal(old_day, 3)
    assert old.deal_number == daily_deals.daily_deal_number(old_day, 3)
    x, y = account("xavier")[0], account("yolanda")[0]
    standing(old, x, status="resigned", score=100, foundation_count=10)
    standing(old, y, status="won", score=600, seconds=500.0, moves=200, foundation_count=52)
    body = board(APIClient(), f"date={old_day.isoformat()}&draw=3")
    assert players(body) == ["yolanda", "xavier"]
    assert body["date"] == old_day.isoformat() and body["draw"] == 3
    assert body["code"] == old.code  # the day is over: its code is public
    assert body["count"] == 2
    # Not on today's board nor on the other draw's.
    assert board(APIClient(), "draw=3")["count"] == 0
    assert board(APIClient(), f"date={old_day.isoformat()}&draw=1")["count"] == 0
    # A day without a daily deal: an empty board, no code.
    empty = board(APIClient(), "date=2001-01-01&draw=1")
    assert empty == {"date": "2001-01-01", "draw": 1, "code": None, "count": 0, "results": []}
    # A future day: empty, and no deal is created for it (that would fix it early).
    future = (daily_deals.today() + dt.timedelta(days=5)).isoformat()
    assert board(APIClient(), f"date={future}&draw=1")["count"] == 0
    assert not DailyDeal.objects.filter(date=future).exists()


def test_board_pagination():
    daily = daily_deals.daily_deal(daily_deals.today(), 1)
    users = [account(f"p{i:02d}")[0] for i in range(25)]
    for i, user in enumerate(users):  # p00 best: most cards on foundations
        standing(daily, user, status="resigned", score=10, foundation_count=40 - i)
    client = APIClient()
    everyone = [f"p{i:02d}" for i in range(25)]
    first = board(client)
    assert first["count"] == 25 and players(first) == everyone[:20]  # default page: 20
    second = board(client, "offset=20")
    assert second["count"] == 25 and players(second) == everyone[20:]
    assert [r["rank"] for r in second["results"]] == [21, 22, 23, 24, 25]
    middle = board(client, "offset=5&limit=7")
    assert players(middle) == everyone[5:12]
    assert [r["rank"] for r in middle["results"]] == list(range(6, 13))
    assert players(board(client, "limit=100")) == everyone
    assert players(board(client, "offset=24&limit=1")) == ["p24"]
    beyond = board(client, "offset=1000")
    assert beyond["count"] == 25 and beyond["results"] == []
    # Pages put together are the whole board, once each.
    pages = [players(board(client, f"offset={o}&limit=4")) for o in range(0, 25, 4)]
    assert sum(pages, []) == everyone


@pytest.mark.parametrize("query", [
    "date=2024-13-01", "date=yesterday", "date=2024-02-30", "date=", "draw=2", "draw=0", "draw=three",
    "offset=-1", "limit=0", "limit=101", "offset=abc", "limit=1.5", "limit=", "offset=99999999999",
])
def test_bad_parameters_are_400_json(query):
    response = APIClient().get(f"/api/leaderboards/daily?{query}")
    if query == "date=":
        # An empty date means today, like no date at all.
        assert response.status_code == 200, response.content
        return
    assert_error(response, 400, "invalid")


# --- hidden information and races between requests --------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_attempts_give_one_ranked_attempt():
    """Two tabs pressing "play the daily" at once: still exactly one ranked attempt."""
    user = get_user_model().objects.create_user(f"twin{secrets.token_hex(3)}", password=None)
    daily_deals.daily_deal(daily_deals.today(), 1)  # the day's deal exists; only the attempts race
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def attempt() -> None:
        try:
            barrier.wait(timeout=30)
            game_services.create_game(game_services.Actor(user_id=user.pk), daily=True, draw=1)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    attempts = Game.objects.filter(owner=user, daily__date=daily_deals.today(), daily__draw=1)
    assert attempts.count() == 6
    ranked = attempts.filter(practice=False)
    assert ranked.count() == 1, (
        f"{ranked.count()} ranked attempts for one account at the same daily deal "
        f"(the first-attempt check is not serialised)")
    assert board(APIClient(), "draw=1")["count"] == 1


@pytest.mark.django_db(transaction=True)
def test_spectators_cannot_fetch_a_finished_daily_attempts_moves_while_the_day_lasts():
    """The replay of a daily attempt is refused until the day is over (409); the same
    move list must not be available to any spectator through the game's WebSocket
    catch-up (``/ws/games/<id>/?since=0``) either: with it, and the attempt's id from the
    daily board, anyone can follow the leader's winning line move for move."""
    from config.asgi import application  # built after pytest-django set ALLOWED_HOSTS

    user, client = account(f"leader{secrets.token_hex(3)}")
    body = start_daily(client, 1)
    game_id = body["id"]
    path = find_path(Game.objects.get(pk=game_id).engine(), lambda e: e.foundation_count >= 2)
    assert path
    for seq, move in enumerate(path, start=1):
        assert post(client, f"/api/games/{game_id}/moves", {"move": move.to_json(), "seq": seq}).status_code == 200
    assert post(client, f"/api/games/{game_id}/resign").status_code == 200
    assert board(APIClient(), "draw=1")["results"][0]["game"] == game_id  # how a spectator finds it
    # The viewer policy hides another player's attempt entirely while the day lasts.
    assert_error(APIClient().get(f"/api/games/{game_id}/replay"), 403, "daily_hidden")

    async def spectate() -> list[dict[str, Any]]:
        comm = WebsocketCommunicator(application, f"/ws/games/{game_id}/?since=0",
                                     headers=[(b"origin", origin()), (b"host", b"testserver")])
        connected, _ = await comm.connect(timeout=5)
        received: list[dict[str, Any]] = []
        if connected:
            while True:
                try:
                    output = await asyncio.wait_for(comm.output_queue.get(), 1.5)
                except asyncio.TimeoutError:
                    break
                if output["type"] == "websocket.close":
                    break
                received.append(json.loads(output["text"]))
        await comm.disconnect()
        return received

    received = asyncio.run(spectate())
    named = [m["action"]["card"] for m in received
             if m.get("type") == "event" and isinstance(m.get("action"), dict) and m["action"].get("card")]
    assert not named, (f"a spectator got {len(named)} of the leader's card moves in order while the day "
                       f"lasts: {named[:10]}")


def test_pool_deals_are_winnable_and_never_repeat():
    """With a pool of proven-winnable deals (``klondike pool``), the day's deal comes
    from it, but a pool deal must not come back on a later day: its code was revealed
    when its first day ended (and its board shows every line played on it), so a repeat
    would be a deal everyone can know in advance."""
    rng = random.Random(3)
    winnable = rng.sample(range(10**9), 400)
    SolvedDeal.objects.bulk_create(
        [SolvedDeal(draw=1, scoring="normal", deal_number=n, result="win") for n in winnable]
        + [SolvedDeal(draw=1, scoring="normal", deal_number=n, result="lose") for n in range(1000, 1400)]
        + [SolvedDeal(draw=3, scoring="normal", deal_number=n, result="win") for n in range(2000, 2400)])
    start = dt.date(2030, 1, 1)
    with override_settings(DAILY_SECRET="pool secret"):
        dailies = [daily_deals.daily_deal(start + dt.timedelta(days=i), 1) for i in range(60)]
    assert all(d.deal_number in set(winnable) for d in dailies)
    first_day: dict[int, dt.date] = {}
    repeats = []
    for daily in dailies:
        if daily.deal_number in first_day:
            repeats.append(f"{daily.date} repeats {first_day[daily.deal_number]} ({daily.code})")
        first_day.setdefault(daily.deal_number, daily.date)
    assert not repeats, f"{len(repeats)} of 60 days reuse an earlier day's deal from a pool of 400: {repeats[:5]}"
