"""Complete, hint and winnable-only deals through the API, and the pool command."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games import winnable_pool
from engine import Game as EngineGame
from engine import Move
from games.models import Game, Move as MoveRow, SolvedDeal
from games import daily_deals

WINNABLE = "KL1-D1N-AAAAAAG"  # the solver wins it in well under a second


def player() -> APIClient:
    client = APIClient()
    client.post("/api/accounts/csrf")
    return client


def new_game(client: APIClient, **body) -> dict:
    response = client.post("/api/games/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.django_db(transaction=True)
def test_complete_plays_a_casual_game_to_a_win_move_by_move():
    client = player()
    game = new_game(client, code=WINNABLE)
    assert game["complete_offered"] and game["complete_reason"] == ""
    client.post(f"/api/games/{game['id']}/moves", {"move": {"type": "draw"}, "seq": 1}, format="json")
    response = client.post(f"/api/games/{game['id']}/complete", {"seq": 2}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    row = Game.objects.get(pk=game["id"])
    assert row.status == Game.Status.WON and body["result"]["status"] == "won"
    assert body["moves_played"] == row.seq - 1
    # Every move is an event of its own, scored and counted like the player's own.
    seqs = list(MoveRow.objects.filter(game=row).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, row.seq + 1))
    assert row.moves == row.seq and row.score >= 625 - 100 * row.engine().passes
    assert client.get(f"/api/games/{game['id']}/").json()["complete_offered"] is False


@pytest.mark.django_db(transaction=True)
def test_complete_with_a_stale_seq_is_a_conflict_and_plays_nothing():
    client = player()
    game = new_game(client, code=WINNABLE)
    response = client.post(f"/api/games/{game['id']}/complete", {"seq": 5}, format="json")
    assert response.status_code == 409 and response.json() == {**response.json(), "error": "seq_conflict", "seq": 0}
    assert Game.objects.get(pk=game["id"]).seq == 0


@pytest.mark.django_db(transaction=True)
def test_complete_is_not_offered_in_a_ranked_game_and_says_why():
    client = player()
    game = new_game(client, draw=1, scoring="vegas")
    assert game["kind"] == "ranked" and game["complete_offered"] is False
    assert "face up" in game["complete_reason"]
    response = client.post(f"/api/games/{game['id']}/complete", {}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "complete_not_offered"
    assert "face up" in response.json()["detail"]
    hint = client.get(f"/api/games/{game['id']}/hint")
    assert hint.status_code == 409 and hint.json()["error"] == "hint_not_offered"


@pytest.mark.django_db(transaction=True)
def test_a_hint_is_the_next_move_of_a_winning_line():
    client = player()
    game = new_game(client, code=WINNABLE)
    response = client.get(f"/api/games/{game['id']}/hint")
    assert response.status_code == 200, response.content
    hint = response.json()
    assert hint["seq"] == 0 and hint["remaining"] > 0
    engine = EngineGame.new(WINNABLE)
    assert Move.from_json(hint["move"]) in engine.legal_moves()
    played = client.post(f"/api/games/{game['id']}/moves", {"move": hint["move"], "seq": 1}, format="json")
    assert played.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_only_the_player_gets_hints_and_completes():
    owner = player()
    game = new_game(owner, code=WINNABLE)
    stranger = player()
    assert stranger.get(f"/api/games/{game['id']}/hint").status_code == 403
    response = stranger.post(f"/api/games/{game['id']}/complete", {}, format="json")
    assert response.status_code == 403 and response.json()["error"] == "not_your_game"
    assert owner.get("/api/games/00000000-0000-0000-0000-000000000000/hint").status_code == 404
    assert owner.post(f"/api/games/{game['id']}/hint").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_a_winnable_only_game_is_dealt_from_proven_wins():
    """The operator's pool command stocks winnable deals (tests/games/test_winnable_pool.py
    has the stock and its top-ups)."""
    wanted = winnable_pool.DAILY_RESERVE + 1
    call_command("klondike", "pool", "--mode", "D1N", "--count", str(wanted), "--budget-seconds", "5",
                 stdout=StringIO())
    client = player()
    game = new_game(client, winnable=True, draw=1)
    number = Game.objects.get(pk=game["id"]).deal_number
    dealt = SolvedDeal.objects.get(draw=1, scoring="normal", deal_number=number)
    assert dealt.result == "win" and dealt.handed_out_at is not None


@pytest.mark.django_db(transaction=True)
def test_the_pool_command_grows_the_pool_and_resumes():
    out = StringIO()
    call_command("klondike", "pool", "--mode", "D1N", "--count", "2", "--budget-seconds", "5", stdout=out)
    wins = SolvedDeal.objects.filter(draw=1, scoring="normal", result="win")
    assert wins.count() >= 2 and "proven-winnable" in out.getvalue()
    examined = SolvedDeal.objects.count()
    call_command("klondike", "pool", "--mode", "D1N", "--count", "2", stdout=StringIO())
    assert SolvedDeal.objects.count() == examined, "a finished pool is not solved again"
    # The daily deal is then drawn from the pool.
    daily = daily_deals.daily_deal(daily_deals.today(), 1)
    assert wins.filter(deal_number=daily.deal_number).exists()


@pytest.mark.django_db
def test_the_solve_command_prints_the_contract_json():
    out = StringIO()
    call_command("klondike", "solve", WINNABLE, "--json", "--budget-seconds", "10", stdout=out)
    data = json.loads(out.getvalue())
    assert set(data) == {"result", "moves", "nodes", "seconds"} and data["result"] == "win"
    engine = EngineGame.new(WINNABLE)
    for move in data["moves"]:
        engine.apply(Move.from_json(move))
    assert engine.won


def test_solver_workers_bound_the_table_memory_they_keep():
    """Each solver process keeps table memory between solves (solver/_core.c,
    "Table memory") up to SOLVER_TABLE_CACHE_MB, set as the process starts."""
    from django.conf import settings

    from games import solver_jobs

    limit, kept = solver_jobs.solver_pool().submit(solver_jobs.worker_table_memory).result(timeout=60)
    assert limit == settings.SOLVER_TABLE_CACHE_MB << 20 == 1536 << 20
    assert 0 <= kept <= limit
