"""Glicko-2 race ratings: the pure functions against Glickman's worked example, and
ratings after real races (service functions, real PostgreSQL, no mocks)."""

from __future__ import annotations

import datetime as dt
import math
import secrets
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from races import services as races
from games.models import Game
from races.models import Race, RaceEntry
from leaderboards import glicko2, services
from leaderboards.glicko2 import Player
from leaderboards.models import Rating, RatingChange
from tests.leaderboards.test_vegas_balance import find_path


# --- the pure functions --------------------------------------------------------------


def test_glickman_worked_example():
    """Glickman, "Example of the Glicko-2 system" (2013): a 1500/200/0.06 player beats
    1400/30 and loses to 1550/100 and 1700/300, with tau 0.5."""
    player = Player(1500, 200, 0.06)
    results = [(Player(1400, 30), 1.0), (Player(1550, 100), 0.0), (Player(1700, 300), 0.0)]
    new = glicko2.update(player, results, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)  # the paper truncates 0.0599960
    assert glicko2.TAU == 0.5  # the default is the paper's
    assert glicko2.update(player, results) == new


def test_no_games_only_widens_the_deviation():
    player = Player(1500, 200, 0.06)
    new = glicko2.update(player, [])
    assert new.rating == 1500 and new.volatility == 0.06
    phi = 200 / glicko2.SCALE
    assert new.rd == pytest.approx(math.sqrt(phi * phi + 0.06 * 0.06) * glicko2.SCALE)
    assert 200 < new.rd < 201
    assert glicko2.update(Player(1500, 350, 0.06), []).rd == 350  # never above the initial deviation


def test_update_directions():
    a = Player()
    won = glicko2.update(a, [(Player(), 1.0)])
    lost = glicko2.update(a, [(Player(), 0.0)])
    drew = glicko2.update(a, [(Player(), 0.5)])
    assert won.rating > 1500 > lost.rating
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)
    assert drew.rating == pytest.approx(1500)
    assert won.rd < 350 and drew.rd < 350
    # Beating a stronger player is worth more than beating a weaker one.
    strong = glicko2.update(a, [(Player(1800, 50), 1.0)])
    weak = glicko2.update(a, [(Player(1200, 50), 1.0)])
    assert strong.rating > weak.rating > 1500


def test_race_results_pairwise():
    assert glicko2.race_results([1, 2, 3]) == [
        [(1, 1.0), (2, 1.0)],
        [(0, 0.0), (2, 1.0)],
        [(0, 0.0), (1, 0.0)],
    ]
    # Ties are draws; order of the racers does not matter, only their ranks.
    assert glicko2.race_results([2, 1, 2]) == [
        [(1, 0.0), (2, 0.5)],
        [(0, 1.0), (2, 1.0)],
        [(0, 0.5), (1, 0.0)],
    ]
    assert glicko2.race_results([1, 1]) == [[(1, 0.5)], [(0, 0.5)]]
    assert glicko2.race_results([1]) == [[]]
    # Every pair's scores add up to one.
    ranks = [3, 1, 2, 2, 5, 1]
    table = glicko2.race_results(ranks)
    for i, row in enumerate(table):
        assert [j for j, _ in row] == [j for j in range(len(ranks)) if j != i]
        for j, score in row:
            assert score + dict(table[j])[i] == 1.0


# --- races ---------------------------------------------------------------------------


def user(name: str) -> Any:
    return get_user_model().objects.create_user(name, password=None)


def started_race(players: list[Any], **options: Any) -> Race:
    race = races.create_race(players[0], **options)
    for other in players[1:]:
        races.join_race(race.id, other)
    for player in players:
        races.set_ready(race.id, player)
    # Skip the countdown: the race began a second ago.
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now() - dt.timedelta(seconds=1))
    race.refresh_from_db()
    assert race.status == Race.Status.STARTED
    return race


def game_of(race: Race, player: Any) -> Game:
    return RaceEntry.objects.select_related("game").get(race=race, user=player).game


def make_progress(race: Race, player: Any) -> None:
    """Put a card on a foundation (or at least score) with real moves."""
    engine = game_of(race, player).engine()
    path = find_path(engine, lambda e: e.foundation_count >= 1) or find_path(engine, lambda e: e.score > 0)
    assert path, "no progress possible on this deal"
    for seq, move in enumerate(path, start=1):
        races.play_in_race(race.id, player, move.to_json(), seq)


def expected_ratings(order: list[list[Any]], before: dict[Any, Player]) -> dict[Any, Player]:
    """Glicko-2 of a race from first principles: ``order`` lists the racers from first
    to last, racers in one inner list tie. Each played every other racer once."""
    place = {p: i for i, group in enumerate(order) for p in group}
    racers = list(place)
    out = {}
    for p in racers:
        results = [(before[q], 1.0 if place[p] < place[q] else 0.5 if place[p] == place[q] else 0.0)
                   for q in racers if q is not p]
        out[p] = glicko2.update(before[p], results)
    return out


@pytest.mark.django_db
def test_ratings_after_a_race():
    a, b, c = user("ann"), user("ben"), user("cat")
    race = started_race([a, b, c])
    make_progress(race, a)  # cards on a foundation: first
    races.play_in_race(race.id, b, {"type": "draw"}, 1)  # one more move than cat: last
    races.resign_race(race.id, b)
    races.resign_race(race.id, c)
    assert races.finish_race(race.id, force=True) is True
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    ranks = dict(RaceEntry.objects.filter(race=race).values_list("user__username", "rank"))
    assert ranks == {"ann": 1, "cat": 2, "ben": 3}
    assert game_of(race, a).status == Game.Status.TIMED_OUT  # still live when forced

    fresh = Player()
    expected = expected_ratings([[a], [c], [b]], {a: fresh, b: fresh, c: fresh})
    for player in (a, b, c):
        row = Rating.objects.get(user=player)
        assert row.rating == pytest.approx(expected[player].rating)
        assert row.rd == pytest.approx(expected[player].rd)
        assert row.volatility == pytest.approx(expected[player].volatility)
        assert row.races == 1
        change = RatingChange.objects.get(user=player, race=race)
        assert change.rating_before == 1500.0
        assert change.rating == pytest.approx(row.rating) and change.rd == pytest.approx(row.rd)
        assert change.rank == ranks[player.username]
    assert Rating.objects.get(user=a).rating > 1500
    assert Rating.objects.get(user=c).rating == pytest.approx(1500)  # one win, one loss, equal opponents
    assert Rating.objects.get(user=b).rating < 1500

    # Finishing again, or rating again, changes nothing.
    assert races.finish_race(race.id, force=True) is False
    services.rate_race(race)
    assert RatingChange.objects.filter(race=race).count() == 3
    assert Rating.objects.get(user=a).races == 1

    # The race board and the rating history.
    client = APIClient()
    board = client.get("/api/leaderboards/races").json()
    assert board["count"] == 3
    assert [r["player"] for r in board["results"]] == ["ann", "cat", "ben"]
    assert [r["rank"] for r in board["results"]] == [1, 2, 3]
    top = board["results"][0]
    assert top["rating"] == round(expected[a].rating, 1) and top["rd"] == round(expected[a].rd, 1)
    assert top["races"] == 1
    assert [r["player"] for r in client.get("/api/leaderboards/races?offset=1&limit=1").json()["results"]] == ["cat"]
    assert client.get("/api/leaderboards/races?limit=500").status_code == 400
    history = client.get("/api/players/ann/stats").json()["rating_history"]
    assert [h["rating"] for h in history] == [round(expected[a].rating, 1)]

    # A second race starts from the stored ratings.
    second = started_race([b, a])
    make_progress(second, b)
    races.resign_race(second.id, a)
    assert races.finish_race(second.id, force=True) is True
    before = {p: Player(expected[p].rating, expected[p].rd, expected[p].volatility) for p in (a, b)}
    again = expected_ratings([[b], [a]], before)
    for player in (a, b):
        row = Rating.objects.get(user=player)
        assert row.rating == pytest.approx(again[player].rating)
        assert row.races == 2
        assert RatingChange.objects.get(user=player, race=second).rating_before == pytest.approx(before[player].rating)
    history = client.get("/api/players/ben/stats").json()["rating_history"]
    assert [h["rating"] for h in history] == [round(expected[b].rating, 1), round(again[b].rating, 1)]
    # Only racers with a rated race are on the board.
    user("nobody")
    assert client.get("/api/leaderboards/races").json()["count"] == 3


@pytest.mark.django_db
def test_equal_results_are_draws():
    """Two racers who resign with nothing done have the same result: between them the
    race is a draw, so their ratings must end up equal (the pairwise results of a race
    count a tie as a draw: glicko2.race_results)."""
    a, b, c = user("first"), user("tied_one"), user("tied_two")
    race = started_race([a, b, c])
    make_progress(race, a)
    races.resign_race(race.id, b)
    races.resign_race(race.id, c)
    assert races.finish_race(race.id, force=True) is True
    fresh = Player()
    expected = expected_ratings([[a], [b, c]], {a: fresh, b: fresh, c: fresh})
    rb, rc = Rating.objects.get(user=b), Rating.objects.get(user=c)
    assert rb.rating == pytest.approx(rc.rating), (
        f"identical results rated differently: {rb.rating:.2f} vs {rc.rating:.2f}; ranks "
        f"{dict(RaceEntry.objects.filter(race=race).values_list('user__username', 'rank'))}")
    assert rb.rating == pytest.approx(expected[b].rating)
    assert Rating.objects.get(user=a).rating == pytest.approx(expected[a].rating)


@pytest.mark.django_db(transaction=True)
def test_race_rated_when_the_last_racer_resigns():
    """No forcing: the race ends (after the last resignation commits) and is rated."""
    a, b = user(f"r{secrets.token_hex(3)}"), user(f"r{secrets.token_hex(3)}")
    race = started_race([a, b])
    make_progress(race, b)
    races.resign_race(race.id, a)
    assert not RatingChange.objects.filter(race=race).exists()
    races.resign_race(race.id, b)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert RatingChange.objects.filter(race=race).count() == 2
    assert Rating.objects.get(user=b).rating > 1500 > Rating.objects.get(user=a).rating
    assert RaceEntry.objects.get(race=race, user=b).rank == 1
