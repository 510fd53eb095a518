"""The move's prepared statements (games.hotsql) write and read exactly what the ORM
would, on real PostgreSQL, and the lock is a real row lock."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.db.utils import OperationalError
from django.utils import timezone

from games import hotsql, services
from games.engine import replay, to_bytes
from games.models import Game, Move
from games.services import Actor
from tests.realtime_helpers import legal_moves

DEAL = "KL1-D1N-AAAAAAJ"


def field_values(instance) -> dict:
    values = {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}
    values = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in values.items()}
    return values


@pytest.fixture
def game(db) -> Game:
    user = get_user_model().objects.create_user("hot")
    return services.create_game(Actor(user_id=user.pk), code=DEAL)


def test_select_for_update_reads_what_the_orm_reads(game):
    with transaction.atomic():
        hot = hotsql.select_for_update(Game, game.pk)
    assert type(hot) is Game and not hot._state.adding
    assert field_values(hot) == field_values(Game.objects.get(pk=game.pk))


def test_select_for_update_of_a_missing_row_is_none(db):
    with transaction.atomic():
        assert hotsql.select_for_update(Game, uuid.uuid4()) is None


@pytest.mark.parametrize("returning", [True, False])
def test_insert_writes_what_the_orm_reads_back(game, returning):
    now = timezone.now()
    row = Move(game=game, seq=7, submitted={"type": "move", "card": "6S", "to": "tableau"},
               action={"type": "move", "card": "6S", "to": "t3"},
               flipped="QH", score=-15, moves=3, created_at=now)
    hotsql.insert(row, services.MOVE_FIELDS, returning=returning)
    stored = Move.objects.get(game=game, seq=7)
    assert (row.pk == stored.pk) if returning else row.pk is None
    expected = {**field_values(row), "id": stored.pk}
    assert field_values(stored) == expected


def test_update_writes_only_the_named_fields(game):
    game.score, game.moves, game.seq, game.state = 42, 9, 3, b"\x01\x02\x03"
    game.public = False  # not named: stays as stored
    hotsql.update(game, ("score", "moves", "seq", "state"))
    stored = Game.objects.get(pk=game.pk)
    assert (stored.score, stored.moves, stored.seq, bytes(stored.state)) == (42, 9, 3, b"\x01\x02\x03")
    assert stored.public is True


def test_insert_then_update_writes_both_rows(game):
    row = Move(game=game, seq=1, submitted={"type": "draw"}, action={"type": "draw"}, flipped="", score=0,
               moves=1, created_at=timezone.now())
    game.seq, game.moves, game.state = 1, 1, b"\x07\x08"
    hotsql.insert_then_update(row, services.MOVE_FIELDS, game, ("seq", "moves", "state"))
    stored = Move.objects.get(game=game, seq=1)
    assert field_values(stored) == {**field_values(row), "id": stored.pk}
    assert Game.objects.filter(pk=game.pk, seq=1, moves=1).exists()
    assert bytes(Game.objects.get(pk=game.pk).state) == b"\x07\x08"


def test_a_game_played_through_the_service_matches_the_engine(game):
    actor = Actor(user_id=game.owner_id)
    card_move = next(m for m in legal_moves(str(game.pk)) if m["type"] == "move")
    line = [card_move, {"type": "draw"}, {"type": "undo"}, {"type": "draw"}, {"type": "draw"}]
    for seq, move in enumerate(line, start=1):
        services.submit_move(game.pk, actor, move, seq)
    stored = Game.objects.get(pk=game.pk)
    actions = list(Move.objects.filter(game=game).order_by("seq").values_list("action", flat=True))
    engine = replay(DEAL, actions)
    assert stored.seq == len(line) == len(actions)
    assert (stored.score, stored.moves, stored.foundation_count) == (engine.score, engine.moves,
                                                                      engine.foundation_count)
    assert bytes(stored.state) == to_bytes(engine, history=True)
    assert [m.seq for m in Move.objects.filter(game=game).order_by("seq")] == [1, 2, 3, 4, 5]


@pytest.mark.django_db(transaction=True)
def test_select_for_update_holds_the_row_lock_until_commit():
    user = get_user_model().objects.create_user("locker")
    game = services.create_game(Actor(user_id=user.pk), code=DEAL)
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                hotsql.select_for_update(Game, game.pk)
                locked.set()
                release.wait(20)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(20)
        with pytest.raises(OperationalError, match="could not obtain lock"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE NOWAIT", [game.pk])
    finally:
        release.set()
        holder.join(20)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE NOWAIT", [game.pk])
        assert cursor.fetchone()[0] == game.pk
