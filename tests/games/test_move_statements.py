"""The move's prepared statements (games.move_statements) write and read exactly what the ORM
would, on real PostgreSQL, and the lock is a real row lock."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.db.utils import OperationalError
from django.utils import timezone

from games import move_statements, services
from engine import replay, to_bytes
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
        hot = move_statements.select_for_update(Game, game.pk)
    assert type(hot) is Game and not hot._state.adding
    assert field_values(hot) == field_values(Game.objects.get(pk=game.pk))


def test_select_for_update_of_a_missing_row_is_none(db):
    with transaction.atomic():
        assert move_statements.select_for_update(Game, uuid.uuid4()) is None


@pytest.mark.parametrize("returning", [True, False])
def test_insert_writes_what_the_orm_reads_back(game, returning):
    now = timezone.now()
    row = Move(game=game, seq=7, submitted={"type": "move", "card": "6S", "to": "tableau"},
               action={"type": "move", "card": "6S", "to": "t3"},
               flipped="QH", score=-15, moves=3, created_at=now)
    move_statements.insert(row, services.MOVE_FIELDS, returning=returning)
    stored = Move.objects.get(game=game, seq=7)
    assert (row.pk == stored.pk) if returning else row.pk is None
    expected = {**field_values(row), "id": stored.pk}
    assert field_values(stored) == expected


def test_update_writes_only_the_named_fields(game):
    game.score, game.moves, game.seq, game.state = 42, 9, 3, b"\x01\x02\x03"
    game.public = False  # not named: stays as stored
    move_statements.update(game, ("score", "moves", "seq", "state"))
    stored = Game.objects.get(pk=game.pk)
    assert (stored.score, stored.moves, stored.seq, bytes(stored.state)) == (42, 9, 3, b"\x01\x02\x03")
    assert stored.public is True


def test_insert_then_update_writes_both_rows(game):
    row = Move(game=game, seq=1, submitted={"type": "draw"}, action={"type": "draw"}, flipped="", score=0,
               moves=1, created_at=timezone.now())
    game.seq, game.moves, game.state = 1, 1, b"\x07\x08"
    move_statements.insert_then_update(row, services.MOVE_FIELDS, game, ("seq", "moves", "state"))
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
                move_statements.select_for_update(Game, game.pk)
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


def round_trips(trace: str) -> int:
    """Round trips in a libpq trace: each ends with the server's ReadyForQuery."""
    return sum(1 for line in trace.splitlines() if line.split("\t")[::2][:2] == ["B", "ReadyForQuery"])


def traced(call):
    """Run ``call`` with libpq's protocol trace on this thread's connection."""
    import tempfile

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile("w+") as log:
        pgconn.trace(log.fileno())
        pgconn.set_trace_flags(__import__("psycopg").pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            result = call()
        finally:
            pgconn.untrace()
        log.seek(0)
        return result, log.read()


@pytest.mark.django_db(transaction=True)
def test_a_move_is_two_round_trips_begin_with_the_lock_and_commit_with_the_write():
    user = get_user_model().objects.create_user("trips")
    game = services.create_game(Actor(user_id=user.pk), code=DEAL)
    result, trace = traced(lambda: services.submit_move(game.pk, Actor(user_id=user.pk), {"type": "draw"}, 1))
    queries = [line for line in trace.splitlines() if line.startswith("F\t") and "\tQuery\t" in line]
    assert round_trips(trace) == 2, trace
    assert len(queries) == 2
    assert '"BEGIN; SELECT' in queries[0] and queries[0].endswith('FOR UPDATE"')
    assert queries[1].endswith('; COMMIT"')
    assert result["seq"] == 1
    # Committed for everyone (another connection sees it), and Django is back in autocommit.
    assert transaction.get_autocommit() and connection.connection.pgconn.transaction_status == 0
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT seq FROM games_game WHERE id = %s", [game.pk])
            assert cursor.fetchone()[0] == 1
            cursor.execute("SELECT count(*) FROM games_move WHERE game_id = %s", [game.pk])
            assert cursor.fetchone()[0] == 1
    finally:
        other.close()


@pytest.mark.django_db(transaction=True)
def test_after_commit_callbacks_run_once_the_fused_commit_is_done():
    from games import domain_events

    user = get_user_model().objects.create_user("published")
    game = services.create_game(Actor(user_id=user.pk), code=DEAL)
    seen = []

    def record(event):
        seen.append((event.move.seq, Game.objects.get(pk=game.pk).seq))

    for phase in (domain_events.PUBLISH, domain_events.AFTER_COMMIT):
        domain_events.subscribe(domain_events.MoveApplied, record, when=phase)
    try:
        services.submit_move(game.pk, Actor(user_id=user.pk), {"type": "draw"}, 1)
        services.submit_move(game.pk, Actor(user_id=user.pk), {"type": "draw"}, 2)
    finally:
        for phase in (domain_events.PUBLISH, domain_events.AFTER_COMMIT):
            domain_events.unsubscribe(domain_events.MoveApplied, record, when=phase)
    # Each event's news went out after its move was visible in the database.
    assert seen == [(1, 1), (1, 1), (2, 2), (2, 2)]


@pytest.mark.django_db(transaction=True)
def test_a_refused_move_after_the_fused_begin_rolls_back_and_the_connection_carries_on():
    from api.errors import ServiceError

    user = get_user_model().objects.create_user("refused")
    actor = Actor(user_id=user.pk)
    game = services.create_game(actor, code=DEAL)
    with pytest.raises(ServiceError) as refused:
        services.submit_move(game.pk, actor, {"type": "move", "card": "KS", "to": "foundation"}, 1)
    assert refused.value.status in (409, 422)
    assert connection.connection.pgconn.transaction_status == 0 and transaction.get_autocommit()
    assert services.submit_move(game.pk, actor, {"type": "draw"}, 1)["seq"] == 1
    assert Game.objects.get(pk=game.pk).seq == 1


@pytest.mark.django_db(transaction=True)
def test_a_failed_fused_write_rolls_back_everything():
    user = get_user_model().objects.create_user("clash")
    actor = Actor(user_id=user.pk)
    game = services.create_game(actor, code=DEAL)
    # A Move row that should not exist: the insert of event 1 then violates (game, seq).
    Move.objects.create(game=game, seq=1, submitted={"type": "draw"}, action={"type": "draw"}, flipped="",
                        score=0, moves=0, created_at=timezone.now())
    with pytest.raises(Exception, match="duplicate key"):
        services.submit_move(game.pk, actor, {"type": "draw"}, 1)
    assert connection.connection.pgconn.transaction_status == 0 and transaction.get_autocommit()
    assert Game.objects.get(pk=game.pk).seq == 0
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.django_db(transaction=True)
def test_inside_an_enclosing_transaction_nothing_commits_early():
    user = get_user_model().objects.create_user("nested")
    actor = Actor(user_id=user.pk)
    game = services.create_game(actor, code=DEAL)

    class Undo(Exception):
        pass

    with pytest.raises(Undo):
        with transaction.atomic():
            services.submit_move(game.pk, actor, {"type": "draw"}, 1)
            raise Undo
    assert Game.objects.get(pk=game.pk).seq == 0
    assert not Move.objects.filter(game=game).exists()
