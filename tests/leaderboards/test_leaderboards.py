"""Per-deal boards, personal statistics, live boards over the WebSocket, the OpenAPI
schema, and the query plans of the boards (real PostgreSQL and Redis, no mocks)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
import time
from typing import Any

import pytest

from tests.realtime_helpers import origin as ws_origin
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from races import services as races
from games import daily_deals
from games import services as game_services
from engine import DealCode, Game as EngineGame, Scoring, to_bytes
from games.models import DailyDeal, Game
from races.models import Race
from leaderboards import services
from leaderboards.models import VegasBalance

User = get_user_model()
CODE = DealCode.parse("KL1-D1N-AAAAAAJ")
STATE = {}


# --- helpers -----------------------------------------------------------------------


def state_for(code: DealCode) -> bytes:
    key = str(code)
    if key not in STATE:
        STATE[key] = to_bytes(EngineGame.new(code, ranked=True), history=True)
    return STATE[key]


def make_game(owner: Any, code: DealCode = CODE, *, status: str = Game.Status.RESIGNED, score: int = 0,
              seconds: float | None = None, moves: int = 0, foundation_count: int = 0,
              kind: str = Game.Kind.CASUAL, daily: DailyDeal | None = None, race: Race | None = None,
              practice: bool = False, finished_at: dt.datetime | None = None, save: bool = True) -> Game:
    now = timezone.now()
    live = status == Game.Status.LIVE
    game = Game(
        owner=owner, code=str(code), deal_number=code.number, draw=code.draw, scoring=code.scoring.value,
        kind=kind, ranked_undo=kind == Game.Kind.RANKED and not practice, status=status, score=score,
        moves=moves, foundation_count=foundation_count, seconds=None if live else seconds, daily=daily,
        race=race, practice=practice, state=state_for(code), started_at=now,
        finished_at=None if live else (finished_at or now),
    )
    game.update_standing()
    if not live:  # as services.save_progress and races.finish_race set it
        finished_race = race is not None and race.status == Race.Status.FINISHED
        game.visible_from = (race.finished_at or now) if finished_race else game.result_visible_from(game.finished_at)
    if save:
        game.save(force_insert=True)
    return game


def names(body: dict[str, Any]) -> list[str]:
    return [row["player"] for row in body["results"]]


# --- per-deal board ----------------------------------------------------------------


@pytest.mark.django_db
def test_deal_board_best_finished_results_on_that_code(monkeypatch):
    u = {n: User.objects.create_user(n, password=None) for n in
         ["won_fast", "won_slow", "won_high", "resigned", "live", "other_draw", "vegas", "today_daily",
          "past_daily", "practice", "racing", "raced"]}
    today, yesterday = daily_deals.today(), daily_deals.today() - dt.timedelta(days=1)
    # On the board: finished games of accounts on exactly this code.
    make_game(u["won_fast"], status="won", score=600, seconds=100.0, moves=110, foundation_count=52)
    make_game(u["won_slow"], status="won", score=600, seconds=300.0, moves=90, foundation_count=52)
    make_game(u["won_high"], status="won", score=700, seconds=900.0, moves=200, foundation_count=52)
    make_game(u["resigned"], status="resigned", score=300, foundation_count=20)
    # Off the board: a live game, a guest's, the same number with another draw or scoring.
    make_game(u["live"], status="live", score=500, foundation_count=30)
    make_game(None, status="won", score=9999, seconds=1.0, moves=1, foundation_count=52)
    make_game(u["other_draw"], DealCode(CODE.number, 3), status="won", score=9999, seconds=1.0,
              foundation_count=52)
    make_game(u["vegas"], DealCode(CODE.number, 1, Scoring.VEGAS), status="won", score=208, seconds=1.0,
              foundation_count=52)
    # Daily attempts on this deal: today's are secret (even finished), a past day's count,
    # practice attempts never.
    today_daily = DailyDeal.objects.create(date=today, draw=1, deal_number=CODE.number, code=str(CODE))
    past_daily = DailyDeal.objects.create(date=yesterday, draw=1, deal_number=CODE.number, code=str(CODE))
    make_game(u["today_daily"], kind="ranked", daily=today_daily, status="won", score=9999, seconds=1.0,
              foundation_count=52)
    make_game(u["past_daily"], kind="ranked", daily=past_daily, status="resigned", score=250,
              foundation_count=20)
    make_game(u["practice"], kind="ranked", daily=past_daily, practice=True, status="won", score=9999,
              seconds=1.0, foundation_count=52)
    # Racers on this deal: a running race's finished game is secret, a finished race's is not.
    running = Race.objects.create(host=u["racing"], status=Race.Status.STARTED, code=str(CODE),
                                  starts_at=timezone.now() - dt.timedelta(minutes=1),
                                  ends_at=timezone.now() + dt.timedelta(minutes=9))
    finished = Race.objects.create(host=u["raced"], status=Race.Status.FINISHED, code=str(CODE))
    make_game(u["racing"], kind="ranked", race=running, status="won", score=9999, seconds=1.0,
              foundation_count=52)
    make_game(u["raced"], kind="ranked", race=finished, status="resigned", score=250, foundation_count=25)

    client = APIClient()
    body = client.get(f"/api/leaderboards/deals/{CODE}").json()
    assert body["code"] == str(CODE) and body["scoring"] == "normal"
    assert names(body) == ["won_high", "won_fast", "won_slow", "raced", "resigned", "past_daily"]
    assert body["count"] == 6
    assert [r["rank"] for r in body["results"]] == [1, 2, 3, 4, 5, 6]
    assert body["results"][1]["seconds"] == 100.0 and body["results"][1]["status"] == "won"
    # Case and white space do not matter; the answer names the canonical code.
    assert names(client.get(f"/api/leaderboards/deals/{str(CODE).lower()}").json()) == names(body)
    page = client.get(f"/api/leaderboards/deals/{CODE}?offset=2&limit=2").json()
    assert names(page) == ["won_slow", "raced"] and page["count"] == 6
    assert [r["rank"] for r in page["results"]] == [3, 4]
    # The Vegas code of the same number has its own board; a ranked random Vegas game
    # counts there once it is over.
    vegas = DealCode(CODE.number, 1, Scoring.VEGAS)
    make_game(u["won_fast"], vegas, kind="ranked", status="resigned", score=-27, foundation_count=5)
    make_game(u["won_slow"], vegas, kind="ranked", status="live", score=-17, foundation_count=7)
    vegas_board = client.get(f"/api/leaderboards/deals/{vegas}").json()
    assert names(vegas_board) == ["vegas", "won_fast"] and vegas_board["scoring"] == "vegas"
    # When the race finishes and the day ends, their results join the board.
    assert races.finish_race(running.pk, force=True)
    assert names(client.get(f"/api/leaderboards/deals/{CODE}").json())[0] == "racing"
    tomorrow = timezone.now() + dt.timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)
    body = client.get(f"/api/leaderboards/deals/{CODE}").json()
    assert set(names(body)[:2]) == {"racing", "today_daily"} and body["count"] == 8


@pytest.mark.django_db
@pytest.mark.parametrize("code,error", [
    ("KL2-D1N-AAAAAAJ", "bad_prefix"), ("KL1-D2N-AAAAAAJ", "bad_draw"), ("KL1-D1X-AAAAAAJ", "bad_scoring"),
    ("nonsense", "bad_format"),
])
def test_deal_board_bad_code(code, error):
    response = APIClient().get(f"/api/leaderboards/deals/{code}")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == error
    response = APIClient().get(f"/api/leaderboards/deals/{CODE}?limit=0")
    assert response.status_code == 400 and response.json()["error"] == "invalid"


# --- personal statistics -----------------------------------------------------------


@pytest.mark.django_db
def test_personal_statistics_per_mode():
    me, other = User.objects.create_user("Stat_Player", password=None), User.objects.create_user("other")
    start = timezone.now() - dt.timedelta(days=1)
    d1n = CODE
    d3n = DealCode(CODE.number, 3)
    d1v = DealCode(CODE.number, 1, Scoring.VEGAS)
    # Draw one, Normal, in the order they finished: W W W L W W  (current 2, best 3)
    sequence = [("won", 700, 300.0), ("won", 650, 200.0), ("won", 720, 250.0), ("resigned", 900, None),
                ("won", 600, 180.0), ("won", 640, 400.0)]
    for i, (status, score, seconds) in enumerate(sequence):
        make_game(me, d1n, status=status, score=score, seconds=seconds, moves=100, foundation_count=52 if
                  status == "won" else 10, finished_at=start + dt.timedelta(minutes=i))
    # Draw three, Normal: L, timed out (a loss), W  -> current 1, best 1.
    make_game(me, d3n, status="resigned", score=50, finished_at=start + dt.timedelta(minutes=10))
    make_game(me, d3n, status="timed_out", score=80, finished_at=start + dt.timedelta(minutes=11))
    make_game(me, d3n, status="won", score=500, seconds=600.0, foundation_count=52,
              finished_at=start + dt.timedelta(minutes=12))
    # Draw one, Vegas: two losses.
    make_game(me, d1v, kind="ranked", status="resigned", score=-37, finished_at=start + dt.timedelta(minutes=13))
    make_game(me, d1v, kind="ranked", status="resigned", score=-52, finished_at=start + dt.timedelta(minutes=14))
    # Not counted: a live game, and someone else's games. Counted apart: an abandoned
    # game, between the last two wins (not a loss: the streak goes on).
    make_game(me, d1n, status="live", score=5000)
    make_game(me, d1n, status="abandoned", score=30, finished_at=start + dt.timedelta(minutes=4, seconds=30))
    make_game(other, d1n, status="won", score=9999, seconds=1.0, foundation_count=52)

    response = APIClient().get("/api/players/stat_player/stats")  # any case
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["player"] == "Stat_Player"
    modes = {(m["draw"], m["scoring"]): m for m in body["modes"]}
    assert set(modes) == {(1, "normal"), (3, "normal"), (1, "vegas")}
    assert modes[(1, "normal")] == {"draw": 1, "scoring": "normal", "games": 6, "wins": 5,
                                    "win_rate": pytest.approx(5 / 6, abs=1e-4), "current_streak": 2,
                                    "best_streak": 3, "best_seconds": 180.0, "best_score": 900, "abandoned": 1}
    assert modes[(3, "normal")] == {"draw": 3, "scoring": "normal", "games": 3, "wins": 1,
                                    "win_rate": pytest.approx(1 / 3, abs=1e-4), "current_streak": 1,
                                    "best_streak": 1, "best_seconds": 600.0, "best_score": 500, "abandoned": 0}
    assert modes[(1, "vegas")] == {"draw": 1, "scoring": "vegas", "games": 2, "wins": 0, "win_rate": 0.0,
                                   "current_streak": 0, "best_streak": 0, "best_seconds": None,
                                   "best_score": -37, "abandoned": 0}
    assert [(m["draw"], m["scoring"]) for m in body["modes"]] == [(1, "normal"), (1, "vegas"), (3, "normal")]
    history = body["score_history"]
    assert len(history) == 11 and [h["score"] for h in history[:3]] == [700, 650, 720]
    assert history[-1] == {"at": history[-1]["at"], "score": -52, "draw": 1, "scoring": "vegas", "won": False}
    assert body["rating_history"] == [] and body["balance_history"] == []
    # A player without games, and one who does not exist.
    empty = APIClient().get("/api/players/other/stats").json()
    assert [m["games"] for m in empty["modes"]] == [1]
    assert User.objects.create_user("newbie") and APIClient().get("/api/players/newbie/stats").json()["modes"] == []
    missing = APIClient().get("/api/players/nobody_here/stats")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


@pytest.mark.django_db
def test_statistics_follow_real_games():
    user = User.objects.create_user("real_stats")
    client = APIClient()
    client.force_authenticate(user)
    for _ in range(2):
        game = client.post("/api/games/", json.dumps({"code": str(CODE)}), content_type="application/json").json()
        assert client.post(f"/api/games/{game['id']}/resign", "{}", content_type="application/json").status_code == 200
    body = client.get("/api/players/real_stats/stats").json()
    assert body["modes"] == [{"draw": 1, "scoring": "normal", "games": 2, "wins": 0, "win_rate": 0.0,
                              "current_streak": 0, "best_streak": 0, "best_seconds": None, "best_score": 0,
                              "abandoned": 0}]


# --- live boards -------------------------------------------------------------------




def communicator(path: str):
    from channels.testing import WebsocketCommunicator
    from config.asgi import application

    return WebsocketCommunicator(application, path, headers=[(b"origin", ws_origin()), (b"host", b"testserver")])


async def receive(comm, timeout: float) -> dict[str, Any]:
    """The next frame (a close raises); never cancels the consumer on a timeout."""
    output = await asyncio.wait_for(comm.output_queue.get(), timeout)
    if output["type"] == "websocket.close":
        raise ConnectionError(f"closed with {output.get('code')}")
    return json.loads(output["text"])


async def wait_for_board(comm, predicate, timeout: float = 3.0) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    seen = []
    while True:
        left = timeout - (time.monotonic() - started)
        if left <= 0:
            raise AssertionError(f"no matching board push within {timeout}s; got {seen}")
        try:
            message = await receive(comm, left)
        except asyncio.TimeoutError:
            continue
        seen.append(message)
        if message.get("type") == "board" and predicate(message):
            return message, time.monotonic() - started


@pytest.mark.django_db(transaction=True)
def test_vegas_board_pushed_when_a_balance_changes():
    player = User.objects.create_user(f"live_{random.randrange(10**9)}")

    async def scenario() -> float:
        comm = communicator("/ws/leaderboards/?board=vegas")
        connected, _ = await comm.connect(timeout=5)
        assert connected
        first = await receive(comm, 5)
        assert first["type"] == "board" and {"count", "results"} <= set(first)
        assert player.username not in names(first)
        await database_sync_to_async(game_services.create_game)(
            game_services.Actor(user_id=player.pk), scoring="vegas")
        message, waited = await wait_for_board(
            comm, lambda m: any(r["player"] == player.username and r["balance"] == -52 for r in m["results"]))
        row = next(r for r in message["results"] if r["player"] == player.username)
        assert row["games"] == 1 and message["count"] >= 1
        await comm.disconnect()
        return waited

    waited = asyncio.run(scenario())
    assert waited < 3.0


@pytest.mark.django_db(transaction=True)
def test_daily_board_pushed_when_a_ranked_attempt_starts():
    player = User.objects.create_user(f"day_{random.randrange(10**9)}")

    async def scenario() -> None:
        comm = communicator("/ws/leaderboards/?board=daily&draw=3")
        connected, _ = await comm.connect(timeout=5)
        assert connected
        first = await receive(comm, 5)
        assert first["type"] == "board" and first["date"] == daily_deals.today().isoformat()
        assert first["draw"] == 3 and first["code"] is None
        await database_sync_to_async(game_services.create_game)(
            game_services.Actor(user_id=player.pk), daily=True, draw=3)
        message, _ = await wait_for_board(comm, lambda m: player.username in names(m))
        assert message["code"] is None
        await comm.disconnect()

    asyncio.run(scenario())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("query", ["board=nonsense", "", "board=daily&draw=2", "board=daily&date=someday"])
def test_unknown_board_closes_4404(query):
    async def scenario() -> None:
        comm = communicator(f"/ws/leaderboards/?{query}")
        connected, _ = await comm.connect(timeout=5)
        if connected:
            error = await receive(comm, 5)
            assert error["type"] == "error" and error["error"] == "not_found"
            output = await asyncio.wait_for(comm.output_queue.get(), 5)
            assert output == {"type": "websocket.close", "code": 4404}
        else:
            assert _ == 4404
        await comm.disconnect()

    asyncio.run(scenario())


@pytest.mark.django_db(transaction=True)
def test_races_board_first_page():
    async def scenario() -> None:
        comm = communicator("/ws/leaderboards/?board=races")
        connected, _ = await comm.connect(timeout=5)
        assert connected
        first = await receive(comm, 5)
        assert first == {"type": "board", "count": 0, "results": []}
        await comm.disconnect()

    asyncio.run(scenario())


# --- the schema ----------------------------------------------------------------------


@pytest.mark.django_db
def test_endpoints_in_the_openapi_schema():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    paths = schema["paths"]
    expected = {
        "/api/daily": [],
        "/api/leaderboards/daily": ["date", "draw", "limit", "offset"],
        "/api/leaderboards/deals/{code}": ["code", "limit", "offset"],
        "/api/leaderboards/vegas": ["limit", "offset"],
        "/api/leaderboards/vegas/me": [],
        "/api/leaderboards/races": ["limit", "offset"],
        "/api/players/{username}/stats": ["username"],
    }
    for path, params in expected.items():
        assert path in paths, path
        operation = paths[path]["get"]
        assert sorted(p["name"] for p in operation.get("parameters", [])) == params, path
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert "$ref" in ok, (path, ok)
    for path in ("/api/leaderboards/daily", "/api/leaderboards/deals/{code}", "/api/leaderboards/vegas"):
        assert "400" in paths[path]["get"]["responses"]
    assert "401" in paths["/api/leaderboards/vegas/me"]["get"]["responses"]
    assert "404" in paths["/api/players/{username}/stats"]["get"]["responses"]
    components = schema["components"]["schemas"]
    assert {"rank", "player", "balance", "games"} <= set(components["Balance"]["properties"])
    assert {"date", "draw", "code", "count", "results"} <= set(components["DailyBoard"]["properties"])


# --- query plans -------------------------------------------------------------------


def plans_of(run) -> list[tuple[str, str]]:
    """(sql, EXPLAIN text) of every SELECT the call makes."""
    with CaptureQueriesContext(connection) as captured:
        run()
    out = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN " + sql)
            out.append((sql, "\n".join(row[0] for row in cursor.fetchall())))
    return out


def page_plan(plans: list[tuple[str, str]]) -> str:
    """The plan of the page query: the walk in board order to the page's keys (not
    the bounded count, nor the daily deal's lookup)."""
    pages = [plan for sql, plan in plans if " LIMIT " in sql.upper() and "COUNT(" not in sql.upper()
             and ("BOARD_WON" in sql.upper() or "BALANCE" in sql.upper())]
    assert pages, plans
    return pages[0]


@pytest.mark.django_db
def test_board_queries_use_their_indexes():
    rng = random.Random(7)
    users = User.objects.bulk_create([User(username=f"plan{i:05d}", password="!") for i in range(3000)])
    today = daily_deals.today()
    dailies = [DailyDeal.objects.create(date=today - dt.timedelta(days=d), draw=draw,
                                        deal_number=daily_deals.daily_deal_number(today - dt.timedelta(days=d), draw),
                                        code=str(DealCode(daily_deals.daily_deal_number(today - dt.timedelta(days=d),
                                                                                      draw), draw)))
               for d in range(5) for draw in (1, 3)]
    codes = [DealCode(n, 1) for n in rng.sample(range(10**7), 150)]
    games = []
    for i in range(4000):
        daily = dailies[i % len(dailies)]
        won = rng.random() < 0.3
        games.append(make_game(
            users[i % len(users)], DealCode(daily.deal_number, daily.draw), kind="ranked", daily=daily,
            practice=rng.random() < 0.1, status="won" if won else "resigned", score=rng.randrange(0, 800),
            seconds=rng.uniform(60, 900) if won else None, moves=rng.randrange(50, 300),
            foundation_count=52 if won else rng.randrange(0, 40), save=False))
    for i in range(3000):
        won = rng.random() < 0.3
        games.append(make_game(
            users[rng.randrange(len(users))], codes[i % len(codes)], status="won" if won else "resigned",
            score=rng.randrange(0, 800), seconds=rng.uniform(60, 900) if won else None,
            moves=rng.randrange(50, 300), foundation_count=52 if won else rng.randrange(0, 40), save=False))
    Game.objects.bulk_create(games, batch_size=1000)
    VegasBalance.objects.bulk_create([VegasBalance(user=u, balance=rng.randrange(-5000, 5000), games=5)
                                      for u in users])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game; ANALYZE games_dailydeal; ANALYZE leaderboards_vegasbalance; "
                       "ANALYZE accounts_user; ANALYZE games_race")

    daily = page_plan(plans_of(lambda: services.daily_board(today, 1)))
    assert "games_daily_board" in daily, daily
    deep = page_plan(plans_of(lambda: services.daily_board(today, 1, offset=300)))
    assert "Seq Scan on games_game" not in deep, deep  # a deep page may sort the day's rows instead
    deal = page_plan(plans_of(lambda: services.deal_board(codes[0])))
    assert "using games_deal_board" in deal, deal
    vegas = page_plan(plans_of(lambda: services.vegas_board()))
    assert "leaderboards_vegas_board" in vegas, vegas
    # The counts of the daily and per-deal boards read the index too, not the table.
    for plans in (plans_of(lambda: services.daily_board(today, 1)), plans_of(lambda: services.deal_board(codes[0]))):
        counts = [plan for sql, plan in plans if "COUNT(" in sql.upper()]
        assert counts and all("Index" in plan and "Seq Scan on games_game" not in plan for plan in counts), counts
    # My rank: counting the balances above mine is an index range scan.
    top = VegasBalance.objects.order_by("-balance").first()
    rank = plans_of(lambda: services.vegas_rank(top.user_id))
    counts = [plan for sql, plan in rank if "COUNT(" in sql.upper()]
    assert counts and "leaderboards_vegas_board" in counts[0], counts


# --- board sizes and when results join a board --------------------------------------


@pytest.mark.django_db
def test_large_boards_are_counted_in_full_at_most_once_a_minute(monkeypatch):
    from django.core.cache import cache

    players = [User.objects.create_user(f"count{i}", password=None) for i in range(6)]
    for player in players[:5]:
        make_game(player, status="resigned", foundation_count=3)
    key = f"board-count:deal:{CODE.number}:{CODE.draw}:{CODE.scoring.value}"
    cache.delete(key)
    assert services.deal_board(CODE)["count"] == 5  # small: exact, nothing cached
    assert cache.get(key) is None
    monkeypatch.setattr(services, "EXACT_COUNT_LIMIT", 3)
    assert services.deal_board(CODE)["count"] == 5  # large: counted in full and cached
    make_game(players[5], status="resigned", foundation_count=9)
    board = services.deal_board(CODE)
    assert board["count"] == 5 and names(board)[0] == "count5"  # the page is current, the size a minute old
    cache.delete(key)
    assert services.deal_board(CODE)["count"] == 6


@pytest.mark.django_db
def test_a_result_joins_its_deal_board_when_its_competition_is_over(settings):
    settings.DAILY_SECRET = "visible-from-test"
    player = User.objects.create_user("finisher", password=None)
    actor = game_services.Actor(user_id=player.pk)
    casual = game_services.create_game(actor, code=str(CODE))
    assert Game.objects.get(pk=casual.pk).visible_from is None  # live: on no board
    game_services.resign(casual.pk, actor)
    casual.refresh_from_db()
    assert casual.visible_from == casual.finished_at
    daily = game_services.create_game(actor, daily=True)
    game_services.resign(daily.pk, actor)
    daily.refresh_from_db()
    midnight = dt.datetime.combine(daily.daily.date + dt.timedelta(days=1), dt.time(), tzinfo=dt.timezone.utc)
    assert daily.visible_from == midnight > daily.finished_at
    assert names(services.deal_board(DealCode.parse(daily.code))) == []
