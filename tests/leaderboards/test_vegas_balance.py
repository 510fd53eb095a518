"""Vegas cumulative balance, against real PostgreSQL (no mocks).

Every counted Vegas game (ranked: a random Vegas deal or a race; owned by an account)
adds its current score to its owner's balance: −$52 the moment it starts, +$5 for each
new foundation card, in the same transaction as the move. A Vegas game on a chosen
code is casual practice and does not count; a guest's counted games join the balance
when the guest signs up or logs in."""

from __future__ import annotations

import json
import random
import secrets
import threading
from typing import Any, Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.db.models import Sum
from accounts.tokens import issue
from rest_framework.test import APIClient

from games import services as game_services
from races import services as races
from engine import DealCode, Game as EngineGame, Move as EngineMove, Scoring
from engine.cards import card_name
from engine.moves import FOUNDATION, MOVE
from api.errors import ServiceError
from games.models import Game, Move
from leaderboards import services
from leaderboards.models import BalanceChange, VegasBalance

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough pass 7"


# --- helpers (find_path is also used by test_daily and test_glicko2) ---------------


def foundation_top(engine: EngineGame, card: int) -> bool:
    """Whether ``card`` is the top card of its foundation."""
    suit, rank = divmod(card, 13)
    return engine.foundations[suit] == rank + 1


def _priority(engine: EngineGame, move: EngineMove) -> int | None:
    """Search order: foundation moves, moves that turn a card face up, waste to column,
    draw, recycle, other column moves. Taking a card off a foundation is left out."""
    if move.kind != MOVE:
        return 3 if move.kind == "draw" else 4
    if foundation_top(engine, move.card):
        return None
    if move.to == FOUNDATION:
        return 0
    if engine.waste and engine.waste[-1] == move.card:
        return 2
    for index, col in enumerate(engine.columns):
        if move.card in col:
            return 1 if col.index(move.card) == engine.down[index] and engine.down[index] else 5
    return 5


def find_path(engine: EngineGame, goal: Callable[[EngineGame], bool], budget: int = 20000,
              max_depth: int = 120) -> list[EngineMove] | None:
    """Legal moves from ``engine``'s position to one where ``goal`` holds (depth first,
    promising moves first), or None within ``budget`` positions."""
    start = engine.copy()
    if goal(start):
        return []
    seen = {start.snapshot()}
    stack: list[tuple[EngineGame, list[EngineMove]]] = [(start, [])]
    nodes = 0
    while stack and nodes < budget:
        state, path = stack.pop()
        nodes += 1
        if len(path) >= max_depth:
            continue
        ranked = sorted((p, i, m) for i, m in enumerate(state.legal_moves())
                        if (p := _priority(state, m)) is not None)
        for _, _, move in reversed(ranked):
            nxt = state.copy()
            nxt.apply(move)
            key = nxt.snapshot()
            if key in seen:
                continue
            seen.add(key)
            if goal(nxt):
                return path + [move]
            stack.append((nxt, path + [move]))
    return None


def can_take_back(engine: EngineGame) -> bool:
    """A card on a foundation may go back to a column."""
    return any(m.kind == MOVE and m.to != FOUNDATION and foundation_top(engine, m.card) for m in engine.legal_moves())


def account(name: str | None = None, password: str | None = None) -> tuple[Any, APIClient]:
    user = get_user_model().objects.create_user(name or f"v{secrets.token_hex(5)}", password=password)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue(user, name='test', scope='play', expires_in_days=1)[1]}")
    return user, client


def guest_client() -> APIClient:
    """A browser of its own (its own address, so sign-up throttling stays per test)."""
    return APIClient(REMOTE_ADDR="10.{}.{}.{}".format(*(secrets.randbelow(250) + 1 for _ in range(3))))


def post(client: APIClient, url: str, body: Any = None):
    return client.post(url, json.dumps(body or {}), content_type="application/json")


def create(client: APIClient, **body: Any) -> dict[str, Any]:
    response = post(client, "/api/games/", body)
    assert response.status_code == 201, response.content
    return response.json()


def play(client: APIClient, game_id: str, move: dict[str, Any], seq: int) -> dict[str, Any]:
    response = post(client, f"/api/games/{game_id}/moves", {"move": move, "seq": seq})
    assert response.status_code == 200, response.content
    return response.json()


def balance_of(user: Any) -> int:
    return VegasBalance.objects.get(user=user).balance


def counted_sum(user: Any) -> tuple[int, int]:
    games = [g for g in Game.objects.filter(owner=user) if g.counts_for_balance]
    return sum(g.score for g in games), len(games)


def vegas_code_with_early_ace() -> str:
    """A Vegas draw-one code whose opening has an Ace on a column's top."""
    for number in range(1000):
        engine = EngineGame.new(DealCode(number, 1, Scoring.VEGAS))
        if any(m.kind == MOVE and m.to == FOUNDATION for m in engine.legal_moves()):
            return str(DealCode(number, 1, Scoring.VEGAS))
    raise AssertionError("no deal with an early Ace")


# --- start and moves ------------------------------------------------------------------


def test_start_debits_52():
    user, client = account()
    first = create(client, scoring="vegas")
    assert (first["kind"], first["ranked_undo"], first["code"], first["score"]) == ("ranked", True, None, -52)
    assert first["view"]["score_text"] == "-$52"
    row = VegasBalance.objects.get(user=user)
    assert (row.balance, row.games) == (-52, 1)
    second = create(client, scoring="vegas", draw=3)
    assert second["draw"] == 3 and second["kind"] == "ranked"
    row.refresh_from_db()
    assert (row.balance, row.games) == (-104, 2)
    starts = list(BalanceChange.objects.filter(user=user).order_by("at", "id"))
    assert [(c.reason, c.balance, str(c.game_id)) for c in starts] == [
        ("start", -52, first["id"]), ("start", -104, second["id"])]
    assert counted_sum(user) == (-104, 2)


def test_foundation_cards_earn_5_once():
    """+$5 per new foundation card through real moves; undoing a scoring move takes
    the $5 back; taking a card back and re-founding it earns nothing."""
    for _ in range(15):
        user, client = account()
        body = create(client, scoring="vegas")
        game = Game.objects.get(pk=body["id"])
        path = find_path(game.engine(), can_take_back)
        if path is not None:
            break
    else:
        pytest.fail("no random Vegas deal with a take-back within reach in 15 tries")
    game_id = body["id"]
    mirror = game.engine()
    seq, earned, undone = 0, set(), False
    for move in path:
        before = balance_of(user)
        seq += 1
        result = play(client, game_id, move.to_json(), seq)
        mirror.apply(move)
        new_card = move.kind == MOVE and move.to == FOUNDATION and move.card not in earned
        if new_card:
            earned.add(move.card)
        assert result["score"] == mirror.score == -52 + 5 * len(earned)
        assert balance_of(user) == before + (5 if new_card else 0) == result["score"]
        if new_card and not undone and result["flipped"] is None:
            # Undo the scoring move: the $5 goes back, in the same transaction.
            seq += 1
            response = post(client, f"/api/games/{game_id}/undo", {"seq": seq})
            assert response.status_code == 200, response.content
            assert response.json()["score"] == before == balance_of(user)
            seq += 1
            play(client, game_id, move.to_json(), seq)  # and again: +$5
            assert balance_of(user) == before + 5
            undone = True
    assert earned, "the path put no card on a foundation"
    settled = balance_of(user)
    # Take a card back to a column: nothing changes; put it back: nothing earned.
    back = next(m for m in mirror.legal_moves()
                if m.kind == MOVE and m.to != FOUNDATION and foundation_top(mirror, m.card))
    seq += 1
    result = play(client, game_id, back.to_json(), seq)
    mirror.apply(back)
    assert result["score"] == settled == balance_of(user)
    seq += 1
    again = {"type": "move", "card": card_name(back.card), "to": "foundation"}
    result = play(client, game_id, again, seq)
    mirror.apply(EngineMove.from_json(again))
    assert result["score"] == settled == balance_of(user)
    assert Game.objects.get(pk=game_id).foundation_count == mirror.foundation_count
    assert counted_sum(user) == (settled, 1)
    # The move log agrees with the balance.
    assert Move.objects.filter(game_id=game_id).order_by("-seq").first().score == settled


def test_balance_history_start_and_end():
    user, client = account("hist")
    one = create(client, scoring="vegas")
    two = create(client, scoring="vegas")
    assert post(client, f"/api/games/{one['id']}/resign").status_code == 200
    me = client.get("/api/leaderboards/vegas/me")
    assert me.status_code == 200, me.content
    body = me.json()
    assert body["balance"] == -104 and body["games"] == 2 and body["rank"] == 1
    assert [p["balance"] for p in body["history"]] == [-52, -104, -104]
    times = [p["at"] for p in body["history"]]
    assert times == sorted(times)
    reasons = list(BalanceChange.objects.filter(user=user).order_by("at", "id").values_list("reason", "game_id"))
    assert [(r, str(g)) for r, g in reasons] == [("start", one["id"]), ("start", two["id"]), ("end", one["id"])]
    # The statistics carry the same history.
    stats = client.get("/api/players/hist/stats").json()
    assert [p["balance"] for p in stats["balance_history"]] == [-52, -104, -104]


def test_casual_chosen_code_and_normal_games_do_not_count():
    user, client = account()
    code = vegas_code_with_early_ace()
    body = create(client, code=code)
    assert (body["kind"], body["code"], body["ranked_undo"], body["score"]) == ("casual", code, False, -52)
    ace = next(m for m in Game.objects.get(pk=body["id"]).engine().legal_moves()
               if m.kind == MOVE and m.to == FOUNDATION)
    assert play(client, body["id"], ace.to_json(), 1)["score"] == -47
    assert post(client, f"/api/games/{body['id']}/resign").status_code == 200
    normal = create(client, scoring="normal")
    assert normal["kind"] == "casual"
    assert not VegasBalance.objects.filter(user=user).exists()
    assert not BalanceChange.objects.filter(user=user).exists()
    me = client.get("/api/leaderboards/vegas/me").json()
    assert me == {"rank": None, "balance": 0, "games": 0, "history": []}
    assert services.vegas_board()["count"] == 0
    # A ranked game by the same account does count, alone.
    create(client, scoring="vegas")
    assert balance_of(user) == -52


def test_race_vegas_games_count():
    a, _ = account("racer_a")
    b, _ = account("racer_b")
    race = races.create_race(a, scoring="vegas")
    races.join_race(race.id, b)
    races.set_ready(race.id, a)
    races.set_ready(race.id, b)
    race.refresh_from_db()
    assert race.status == "started"
    for user in (a, b):
        assert VegasBalance.objects.get(user=user).balance == -52
        change = BalanceChange.objects.get(user=user)
        assert change.reason == "start" and change.game.race_id == race.id
    # A Normal race changes no balance.
    c, _ = account()
    d, _ = account()
    normal = races.create_race(c)
    races.join_race(normal.id, d)
    races.set_ready(normal.id, c)
    races.set_ready(normal.id, d)
    assert not VegasBalance.objects.filter(user__in=[c, d]).exists()


# --- claim ----------------------------------------------------------------------------


def test_claim_on_sign_up_adds_guest_vegas_games():
    client = guest_client()
    ranked = create(client, scoring="vegas")
    finished = create(client, scoring="vegas")
    assert post(client, f"/api/games/{finished['id']}/resign").status_code == 200
    casual = create(client, code=vegas_code_with_early_ace())
    assert (ranked["kind"], casual["kind"]) == ("ranked", "casual")
    assert not VegasBalance.objects.exists()  # guests have no balance
    response = post(client, "/api/accounts/signup", {"username": "claimer", "password": PASSWORD})
    assert response.status_code == 201, response.content
    assert response.json()["claimed_games"] == 3
    user = get_user_model().objects.get(username="claimer")
    row = VegasBalance.objects.get(user=user)
    assert (row.balance, row.games) == (-104, 2)
    assert counted_sum(user) == (-104, 2)
    claims = BalanceChange.objects.filter(user=user)
    assert sorted(claims.values_list("reason", flat=True)) == ["claim", "claim"]
    assert {str(g) for g in claims.values_list("game_id", flat=True)} == {ranked["id"], finished["id"]}
    # The claimed live game now moves the account's balance: resigning records its end.
    assert post(client, f"/api/games/{ranked['id']}/resign").status_code == 200  # signed in now
    assert BalanceChange.objects.filter(user=user, reason="end", game_id=ranked["id"]).count() == 1
    assert services.vegas_rank(user.pk)["rank"] == 1


def test_claim_on_log_in_adds_to_an_existing_balance():
    user, client = account("returning", PASSWORD)
    create(client, scoring="vegas")
    assert balance_of(user) == -52
    browser = guest_client()
    guest_game = create(browser, scoring="vegas")
    response = post(browser, "/api/accounts/login", {"username": "returning", "password": PASSWORD})
    assert response.status_code == 200, response.content
    assert response.json()["claimed_games"] == 1
    row = VegasBalance.objects.get(user=user)
    assert (row.balance, row.games) == (-104, 2)
    assert Game.objects.get(pk=guest_game["id"]).owner_id == user.pk
    assert counted_sum(user) == (-104, 2)


# --- the board and my rank ----------------------------------------------------------


def make_balances(values: list[int]) -> list[Any]:
    users = []
    for i, value in enumerate(values):
        user = get_user_model().objects.create_user(f"b{i:02d}", password=None)
        VegasBalance.objects.create(user=user, balance=value, games=i + 1)
        users.append(user)
    return users


def test_vegas_board_ordering_and_pagination():
    values = [10, -52, 300, 300, 0, -500, 57, 1000, -52, 5]
    users = make_balances(values)
    expected = sorted(range(len(values)), key=lambda i: (-values[i], users[i].pk))
    client = APIClient()
    body = client.get("/api/leaderboards/vegas").json()
    assert body["count"] == 10
    assert [r["player"] for r in body["results"]] == [f"b{i:02d}" for i in expected]
    assert [r["balance"] for r in body["results"]] == sorted(values, reverse=True)
    assert [r["rank"] for r in body["results"]] == list(range(1, 11))
    assert body["results"][0] == {"rank": 1, "player": "b07", "balance": 1000, "games": 8}
    page = client.get("/api/leaderboards/vegas?offset=3&limit=4").json()
    assert page["count"] == 10
    assert [r["player"] for r in page["results"]] == [f"b{i:02d}" for i in expected[3:7]]
    assert [r["rank"] for r in page["results"]] == [4, 5, 6, 7]
    assert client.get("/api/leaderboards/vegas?offset=10").json()["results"] == []
    for query in ("offset=-1", "limit=0", "limit=101", "offset=x"):
        response = client.get(f"/api/leaderboards/vegas?{query}")
        assert response.status_code == 400 and response.json()["error"] == "invalid", query


def test_vegas_me_rank():
    users = make_balances([10, 300, -52, 1000, 0])
    client = APIClient()
    assert client.get("/api/leaderboards/vegas/me").status_code == 401
    for user, rank in zip(users, [3, 2, 5, 1, 4]):
        client.force_authenticate(user)
        body = client.get("/api/leaderboards/vegas/me").json()
        assert body["rank"] == rank, (user.username, body)
        assert body["balance"] == VegasBalance.objects.get(user=user).balance
        # The rank points at the account's own row on the board.
        row = client.get(f"/api/leaderboards/vegas?offset={rank - 1}&limit=1").json()["results"][0]
        assert row["player"] == user.username


# --- consistency under concurrency --------------------------------------------------


ACCEPTABLE = {"seq_conflict", "game_over", "undo_refused_ranked", "nothing_to_undo", "undo_limit"}


@pytest.mark.django_db(transaction=True)
def test_concurrent_balances_equal_the_sum_of_scores():
    """8 threads, each with its own database connection, play random legal moves on a
    shared pool of Vegas games of three accounts (plus casual games that must not
    count). Afterwards every balance is exactly the sum of its counted games' scores."""
    owners = [get_user_model().objects.create_user(f"shared{i}", password=None) for i in range(3)]
    lock = threading.Lock()
    pool: list[str] = []
    stats = {"moves": 0, "created": 0, "refused": 0, "earned": 0}
    failures: list[BaseException] = []
    barrier = threading.Barrier(8)

    def new_game(rng: random.Random) -> None:
        owner = rng.choice(owners)
        actor = game_services.Actor(user_id=owner.pk)
        if rng.random() < 0.2:
            game = game_services.create_game(actor, code=str(DealCode(rng.randrange(10**6), 1, Scoring.VEGAS)))
        else:
            game = game_services.create_game(actor, scoring="vegas", draw=rng.choice([1, 3]))
        with lock:
            pool.append(str(game.id))
            stats["created"] += 1

    def step(rng: random.Random) -> None:
        with lock:
            choices = list(pool)
        if not choices or rng.random() < 0.06:
            return new_game(rng)
        game_id = rng.choice(choices)
        game = Game.objects.get(pk=game_id)
        if not game.is_live:
            with lock:
                if game_id in pool:
                    pool.remove(game_id)
            return new_game(rng)
        actor = game_services.Actor(user_id=game.owner_id)
        legal = game.engine().legal_moves()
        roll = rng.random()
        try:
            if not legal or roll < 0.02:
                game_services.resign(game_id, actor, game.seq + 1)
            elif roll < 0.12:
                game_services.submit_move(game_id, actor, {"type": "undo"}, game.seq + 1)
            else:
                foundation = [m for m in legal if m.kind == MOVE and m.to == FOUNDATION]
                move = rng.choice(foundation) if foundation and rng.random() < 0.7 else rng.choice(legal)
                before = game.score
                result = game_services.submit_move(game_id, actor, move.to_json(), game.seq + 1)
                with lock:
                    stats["earned"] += result["score"] > before
        except ServiceError as exc:
            # Another thread moved this game first: a stale seq, or a move no longer legal.
            if exc.code not in ACCEPTABLE and exc.status != 422:
                raise
            with lock:
                stats["refused"] += 1
            return
        with lock:
            stats["moves"] += 1

    def worker(index: int) -> None:
        rng = random.Random(1000 + index)
        try:
            barrier.wait(timeout=30)
            for _ in range(70):
                step(rng)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert not failures, failures
    assert stats["moves"] > 200 and stats["created"] > 10, stats
    assert stats["earned"] > 5, stats

    counted_total = 0
    for owner in owners:
        games = [g for g in Game.objects.filter(owner=owner) if g.counts_for_balance]
        row = VegasBalance.objects.get(user=owner)
        assert row.balance == sum(g.score for g in games), (owner.username, row.balance)
        assert row.games == len(games)
        counted_total += len(games)
        # Each game's score is its last logged score; each counted game started once,
        # and each finished one ended once, in the balance history.
        for game in games:
            last = Move.objects.filter(game=game).order_by("-seq").first()
            assert game.score == (last.score if last else -52)
            assert BalanceChange.objects.filter(game=game, reason="start").count() == 1
            assert BalanceChange.objects.filter(game=game, reason="end").count() == (0 if game.is_live else 1)
    assert counted_total > 0
    casual = Game.objects.filter(kind=Game.Kind.CASUAL, scoring="vegas")
    assert not BalanceChange.objects.filter(game__in=casual).exists()
    total = VegasBalance.objects.aggregate(total=Sum("balance"))["total"]
    assert total == sum(g.score for g in Game.objects.filter(kind=Game.Kind.RANKED, scoring="vegas"))


@pytest.mark.django_db
def test_my_rank_breaks_ties_as_the_board_does():
    from django.contrib.auth import get_user_model

    from leaderboards.models import VegasBalance
    from leaderboards.services import vegas_board, vegas_rank

    users = [get_user_model().objects.create_user(f"tie{i}", password="x" * 12) for i in range(3)]
    for user in users:
        VegasBalance.objects.create(user=user, balance=-52, games=1)
    board = {row["player"]: row["rank"] for row in vegas_board()["results"]}
    for user in users:
        assert vegas_rank(user.pk)["rank"] == board[user.username]
