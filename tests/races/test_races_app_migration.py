"""Races moved from the games app to their own (#28): a database made before the move,
with games, moves, races, entries, ratings and balances in it, migrates to the new
layout with every row where it was, and its games play on.

The database is made the way today's main makes it: the service writes real play at
the latest migration, the schema is taken back to the layout before the move (games
0007, leaderboards 0001) and a race is added there through that layout's own models;
then the migrations run forward again."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games import services
from games.models import Game, Move
from games.viewer_policy import Actor
from leaderboards.models import Rating, RatingChange, VegasBalance
from races import services as races
from races.models import Race, RaceEntry

BEFORE_THE_MOVE = [("games", "0007_fair_races"), ("leaderboards", "0001_initial")]
TABLES = ["games_game", "games_move", "games_race", "games_raceentry", "leaderboards_rating",
          "leaderboards_ratingchange", "leaderboards_vegasbalance", "leaderboards_balancechange"]


def rows(table: str, columns: list[str] | None = None) -> tuple[list[str], list[tuple]]:
    """The table's columns and rows (only ``columns``, when given: later migrations
    add columns of their own)."""
    with connection.cursor() as cursor:
        listed = ", ".join(f'"{name}"' for name in columns) if columns else "*"
        cursor.execute(f"SELECT {listed} FROM {table} ORDER BY 1")  # noqa: S608 - fixed table names
        return [column.name for column in cursor.description], cursor.fetchall()


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def play_a_rated_race(players: list[Any]) -> Race:
    race = races.create_race(players[0], scoring="vegas")
    races.join_race(race.id, players[1])
    for player in players:
        races.set_ready(race.id, player)
    Race.objects.filter(pk=race.id).update(starts_at=timezone.now() - dt.timedelta(seconds=1))
    races.play_in_race(race.id, players[0], {"type": "draw"}, 1)
    races.resign_race(race.id, players[1])
    assert races.finish_race(race.id, force=True)
    return race


def legal_move(game: Game) -> dict[str, Any]:
    return game.engine().legal_moves()[0].to_json()


@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_move_keeps_every_row_and_plays_on() -> None:
    ann, ben = (get_user_model().objects.create_user(name, password=None) for name in ("ann", "ben"))
    race = play_a_rated_race([ann, ben])
    casual_id = services.create_game(Actor(user_id=ann.pk)).id
    first = services.submit_move(casual_id, Actor(user_id=ann.pk), legal_move(Game.objects.get(pk=casual_id)), 1)
    assert first["seq"] == 1
    assert Rating.objects.count() == 2 and RatingChange.objects.count() == 2
    assert VegasBalance.objects.filter(user=ann).exists()

    old = migrate(BEFORE_THE_MOVE)
    try:
        # The layout before the move reads the same rows as its own...
        OldRace, OldEntry = old.get_model("games", "Race"), old.get_model("games", "RaceEntry")
        assert OldRace.objects.get(pk=race.id).status == "finished"
        assert OldEntry.objects.filter(race_id=race.id).count() == 2
        assert old.get_model("leaderboards", "RatingChange").objects.filter(race_id=race.id).count() == 2
        # ...and writes a race there, open, with its host in it.
        added = OldRace.objects.create(host_id=ben.pk, draw=3, code="")
        OldEntry.objects.create(race_id=added.pk, user_id=ben.pk)
        before = {table: rows(table) for table in TABLES}
    finally:
        migrate(latest())

    assert {table: rows(table, before[table][0]) for table in TABLES} == before
    assert Race.objects.get(pk=race.id).status == Race.Status.FINISHED
    assert Race.objects.get(pk=added.pk).draw == 3 and RaceEntry.objects.get(race_id=added.pk).user == ben
    assert {game.race_id for game in Game.objects.filter(race__isnull=False)} == {race.id}
    assert RatingChange.objects.filter(race=race).count() == 2
    # The games play on: the casual game takes its next move, and the race that was
    # open before the move fills and runs.
    game = Game.objects.get(pk=casual_id)
    second = services.submit_move(casual_id, Actor(user_id=ann.pk), legal_move(game), 2)
    assert second["seq"] == 2 and Move.objects.filter(game_id=casual_id).count() == 2
    game.refresh_from_db()
    assert game.seq == 2 and game.moves == 2
    races.join_race(added.pk, ann)
    assert RaceEntry.objects.filter(race_id=added.pk).count() == 2
