"""The socket protocol's client frames (realtime/socket_protocol.py, docs/realtime.md):
every frame is checked by type against its endpoint's schema before a handler runs;
a bad frame gets a documented error event, counts toward the violation limit, and
never raises in a handler or logs a traceback. Real consumers behind
``config.asgi.application`` with Redis and PostgreSQL, and one real Daphne process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import services
from realtime import consumers, socket_protocol
from races import services as races
from api.errors import ServiceError
from games.models import Game
from races.models import Race
from realtime.board_consumer import BoardConsumer
from tests.realtime_helpers import (
    WS, Client, Closed, adb, database_url, game_row, make_user, move_rows, new_game, run, start_daphnes,
)

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOCUMENTED_TEXT = "".join((DOCS / name).read_text() for name in ("realtime.md", "api.md", "engine.md"))
SERVER_FRAME_TYPES = {"snapshot", "event", "ack", "error", "watchers", "race", "lobby", "board", "pong"}
DEEP_TEXTS = ("[" * 2000, '{"a":' * 800, "[" * 40 + "]" * 40,
              '{"type": "move", "seq": 1, "move": ' + '{"a": ' * 100 + "1" + "}" * 101)


@pytest.fixture
def alice():
    return make_user("alice")


@pytest.fixture
def bob():
    return make_user("bob")


def game_path(game_id: str) -> str:
    return f"/ws/games/{game_id}/"


def race_path(race_id: Any) -> str:
    return f"/ws/races/{race_id}/"


def error_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def documented(code: str) -> bool:
    return f"`{code}`" in DOCUMENTED_TEXT


async def pong_after(ws: WS, ping_id: str = "after") -> dict[str, Any]:
    """The socket still answers: a ping gets its pong (other traffic skipped)."""
    await ws.send({"type": "ping", "id": ping_id})
    pong, _ = await ws.recv_until(lambda m: m["type"] == "pong")
    assert pong == {"type": "pong", "id": ping_id}
    return pong


async def refused(ws: WS, frame: Any, *, raw: bool = False) -> dict[str, Any]:
    """Send a frame; its reply must be an error event (a race socket's race and
    snapshot messages, which come on their own, are skipped)."""
    await (ws.send_text(frame) if raw else ws.send(frame))
    error = await ws.recv_type("error", ignore=("watchers", "race", "snapshot"))
    assert isinstance(error["detail"], str) and error["detail"], error
    return error


def started_race(monkeypatch: pytest.MonkeyPatch, host: Any, other: Any) -> Race:
    """A race of two, running at once (no countdown)."""
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 0)
    race = races.create_race(host, max_players=2)
    races.join_race(race.id, other)
    races.set_ready(race.id, host)
    races.set_ready(race.id, other)
    return Race.objects.get(pk=race.id)


def racer_game(race: Race, user: Any) -> str:
    return str(race.entries.get(user=user).game_id)


# --- the schema itself ----------------------------------------------------------------------


def test_every_frame_type_of_every_socket_has_its_handler():
    for consumer in (consumers.GameConsumer, consumers.RaceConsumer, consumers.LobbyConsumer,
                     consumers.NotFoundConsumer, BoardConsumer):
        for frame_type in consumer.frames:
            assert callable(getattr(consumer, "on_" + frame_type, None)), (consumer.__name__, frame_type)


def test_every_error_code_of_the_protocol_is_documented():
    for code in ("bad_frame", "frame_too_large", "bad_json", "bad_message", "unknown_type", "unknown_field",
                 "missing_field", "bad_field", "rate_limited"):
        assert documented(code), code
    realtime = (DOCS / "realtime.md").read_text()
    assert f"{socket_protocol.MAX_FRAME_DEPTH} levels" in realtime
    assert f"{socket_protocol.MAX_FRAME_BYTES} bytes" in realtime


JSON_LEAVES = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats()
               | st.text(max_size=12))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=JSON_VALUES, depth=st.integers(0, 3000))
def test_reading_any_text_gives_validated_data_or_a_frame_error(value, depth):
    """No input raises anything but FrameError, at any depth (json.loads recurses)."""
    for text in (json.dumps(value), "[" * depth + json.dumps(value), '{"type": "move", "move": ' * depth):
        for frames in (socket_protocol.GAME_FRAMES, socket_protocol.RACE_FRAMES):
            try:
                socket_protocol.read_frame(text, frames)
            except socket_protocol.FrameError as error:
                assert documented(error.code), error.code


# --- the service layer refuses a seq that is not a positive integer --------------------------


NOT_SEQS = ("2", True, False, 1.0, 1.5, [1], {"seq": 1}, 0, -3)


def test_services_refuse_a_seq_that_is_not_a_positive_integer_with_bad_seq(monkeypatch, alice, bob):
    """REST, sockets and scripts reach these; a string seq used to raise TypeError."""
    user, _ = alice
    game_id = new_game(user)
    actor = services.Actor(user_id=user.pk)
    race = started_race(monkeypatch, user, bob[0])
    for seq in NOT_SEQS:
        for call in (lambda: services.resign(game_id, actor, seq),
                     lambda: services.submit_move(game_id, actor, {"type": "draw"}, seq),
                     lambda: races.play_in_race(race.id, user, {"type": "draw"}, seq),
                     lambda: races.resign_race(race.id, user, seq)):
            with pytest.raises(ServiceError) as refusal:
                call()
            assert refusal.value.code == "bad_seq", seq
    for game in (game_row(game_id), game_row(racer_game(race, user))):
        assert game.status == Game.Status.LIVE and game.seq == 0
    # A right seq still resigns, and a race resign takes one too.
    assert races.resign_race(race.id, user, 1)["move"] == {"type": "resign"}
    assert services.resign(game_id, actor, 1)["seq"] == 1


# --- the game socket ---------------------------------------------------------------------------


def test_a_resign_frame_with_a_seq_that_is_not_an_integer_gets_an_error_and_changes_nothing(alice, caplog):
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        for index, seq in enumerate(("1", True, 1.0, None, [1], {"n": 1}, 0, 2**31)):
            error = await refused(ws, {"type": "resign", "seq": seq, "id": index})
            assert error["error"] == "bad_field" and error["field"] == "seq" and error["id"] == index, (seq, error)
            assert "'seq'" in error["detail"]
            await pong_after(ws, f"after-{index}")
        assert await ws.quiet() == []
        row = await adb(game_row)(game_id)
        assert row.status == Game.Status.LIVE and row.seq == 0
        assert await adb(move_rows)(game_id) == []
        # The socket plays on.
        await ws.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "ok"})
        assert (await ws.recv_type("ack"))["id"] == "ok"

    run(body)
    assert error_records(caplog) == []


def test_booleans_for_integers_and_strings_for_numbers_are_refused_on_move_undo_and_sync(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        draw = {"type": "draw"}
        for frame, name in (
            ({"type": "move", "move": draw, "seq": True}, "seq"),
            ({"type": "move", "move": draw, "seq": "1"}, "seq"),
            ({"type": "move", "move": draw, "seq": 1.0}, "seq"),
            ({"type": "move", "move": "draw", "seq": 1}, "move"),
            ({"type": "move", "move": [draw], "seq": 1}, "move"),
            ({"type": "undo", "seq": False}, "seq"),
            ({"type": "undo", "seq": "2"}, "seq"),
            ({"type": "sync", "since": "3"}, "since"),
            ({"type": "sync", "since": True}, "since"),
            ({"type": "sync", "since": None}, "since"),
            ({"type": "ping", "id": True}, "id"),
            ({"type": "ping", "id": 1.5}, "id"),
            ({"type": "ping", "id": "x" * 65}, "id"),
            ({"type": "ping", "id": 2**53}, "id"),
        ):
            error = await refused(ws, frame)
            assert error["error"] == "bad_field" and error["field"] == name, (frame, error)
            assert f"'{name}'" in error["detail"], error
            assert "id" not in error, error  # a bad id is not echoed, a missing one neither
        await pong_after(ws)
        assert await adb(move_rows)(game_id) == []
        await ws.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": 2**53 - 1})
        assert (await ws.recv_type("ack"))["id"] == 2**53 - 1
        await ws.send({"type": "sync", "since": 0, "id": "s"})
        assert (await ws.recv_type("event"))["seq"] == 1

    run(body)


def test_unknown_and_missing_fields_are_refused_with_the_field_named(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        for frame, code, name in (
            ({"type": "move", "seq": 1, "id": "a"}, "missing_field", "move"),
            ({"type": "move", "move": {"type": "draw"}, "id": "b"}, "missing_field", "seq"),
            ({"type": "undo", "id": "c"}, "missing_field", "seq"),
            ({"type": "move", "move": {"type": "draw"}, "seq": 1, "t": 0.5, "id": "d"}, "unknown_field", "t"),
            ({"type": "ping", "extra": 1, "id": "e"}, "unknown_field", "extra"),
            ({"type": "resign", "reason": "bored", "id": "f"}, "unknown_field", "reason"),
            ({"type": "sync", "since": 0, "seq": 1, "id": "g"}, "unknown_field", "seq"),
        ):
            error = await refused(ws, frame)
            assert (error["error"], error["field"], error["id"]) == (code, name, frame["id"]), (frame, error)
            assert f"'{name}'" in error["detail"], error
        await pong_after(ws)
        row = await adb(game_row)(game_id)
        assert row.status == Game.Status.LIVE and row.seq == 0

    run(body)


def test_deeply_nested_json_gets_bad_json_and_nothing_is_logged(alice, caplog):
    """json.loads used to recurse into '[' * 2000 and raise RecursionError: a logged
    traceback and a server_error for every such frame."""
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        for text in DEEP_TEXTS:
            error = await refused(ws, text, raw=True)
            assert error["error"] == "bad_json" and "nested too deep" in error["detail"], error
            await pong_after(ws)
        # Within the depth bound a frame is parsed: this move gets the engine's answer.
        nested = '{"type": "move", "seq": 1, "move": ' + '{"a": ' * 20 + "1" + "}" * 21
        assert (await refused(ws, nested, raw=True))["error"] == "bad_move"
        assert await adb(move_rows)(game_id) == []

    run(body)
    assert error_records(caplog) == []


def test_fifty_bad_frames_of_mixed_kinds_close_the_socket_with_4429_and_refused_moves_do_not_count(
        monkeypatch, alice):
    monkeypatch.setattr(consumers, "RATE_BURST", 1000.0)  # the count here, not the rate
    user, token = alice
    game_id = new_game(user)
    bad_frames = [
        (b'{"type": "ping"}', "bad_frame"),
        ('{"type": "ping", "pad": "' + "x" * 5000 + '"}', "frame_too_large"),
        ('{"type": "ping",', "bad_json"),
        ("[" * 2000, "bad_json"),
        ("[1]", "bad_message"),
        ({"type": "nope"}, "unknown_type"),
        ({"type": "ping", "extra": 1}, "unknown_field"),
        ({"type": "undo"}, "missing_field"),
        ({"type": "resign", "seq": "1"}, "bad_field"),
    ]
    refused_moves = [
        ({"type": "move", "move": {"type": "recycle"}, "seq": 1}, "stock_not_empty"),
        ({"type": "undo", "seq": 5}, "seq_conflict"),
        ({"type": "move", "move": {"type": "fly"}, "seq": 1}, "bad_move"),
    ]

    async def send(ws: WS, frame: Any) -> None:
        if isinstance(frame, bytes):
            await ws.send_bytes(frame)
        elif isinstance(frame, str):
            await ws.send_text(frame)
        else:
            await ws.send(frame)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        for index in range(consumers.MAX_VIOLATIONS - 1):
            frame, code = bad_frames[index % len(bad_frames)]
            await send(ws, frame)
            assert (await ws.recv_type("error"))["error"] == code, frame
            if index % 5 == 0:
                move, move_code = refused_moves[index % len(refused_moves)]
                await send(ws, move)
                assert (await ws.recv_type("error"))["error"] == move_code, move
        await pong_after(ws)  # 49 violations and some refused moves: still open
        await ws.send({"type": "resign", "seq": True})
        assert (await ws.recv_type("error"))["error"] == "bad_field"
        with pytest.raises(Closed) as closed:
            await ws.recv()
        assert closed.value.code == consumers.CLOSE_ABUSE == 4429
        assert await adb(move_rows)(game_id) == []

    run(body)


# --- the race, lobby and leaderboard sockets ---------------------------------------------------


def test_race_frames_are_checked_too(monkeypatch, alice, bob, caplog):
    user, token = alice
    race = started_race(monkeypatch, user, bob[0])
    game_id = racer_game(race, user)

    async def body():
        ws = await WS.open(race_path(race.id), token)
        for frame, code, name in (
            ({"type": "ready", "ready": "yes", "id": 1}, "bad_field", "ready"),
            ({"type": "ready", "ready": 1, "id": 2}, "bad_field", "ready"),
            ({"type": "ready", "ready": None, "id": 3}, "bad_field", "ready"),
            ({"type": "move", "move": {"type": "draw"}, "seq": "1", "id": 4}, "bad_field", "seq"),
            ({"type": "move", "move": {"type": "draw"}, "seq": False, "id": 5}, "bad_field", "seq"),
            ({"type": "resign", "seq": "1", "id": 6}, "bad_field", "seq"),
            ({"type": "resign", "seq": None, "id": 7}, "bad_field", "seq"),
            ({"type": "join", "now": True, "id": 8}, "unknown_field", "now"),
            ({"type": "move", "seq": 1, "id": 9}, "missing_field", "move"),
            ({"type": "sync", "id": 10}, "unknown_type", None),
        ):
            error = await refused(ws, frame)
            assert (error["error"], error.get("field"), error["id"]) == (code, name, frame["id"]), (frame, error)
        assert (await refused(ws, "[" * 2000, raw=True))["error"] == "bad_json"
        await pong_after(ws)
        row = await adb(game_row)(game_id)
        assert row.status == Game.Status.LIVE and row.seq == 0
        # A valid move and a resign with its seq are played.
        await ws.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "m"})
        ack, _ = await ws.recv_until(lambda m: m["type"] in ("ack", "error"))
        assert ack["type"] == "ack" and ack["seq"] == 1, ack
        await ws.send({"type": "resign", "seq": 2, "id": "r"})
        ack, _ = await ws.recv_until(lambda m: m["type"] in ("ack", "error"))
        assert ack["type"] == "ack" and ack["move"] == {"type": "resign"}, ack

    run(body)
    assert error_records(caplog) == []


def test_lobby_and_leaderboard_frames_are_checked_too(alice):
    async def body():
        for path, first in (("/ws/lobby/", "lobby"), ("/ws/leaderboards/?board=vegas", "board")):
            ws = await WS.open(path)
            await ws.recv_type(first)
            for frame, code in (({"type": "refresh", "all": True, "id": "a"}, "unknown_field"),
                                ({"type": "move", "id": "b"}, "unknown_type"),
                                ({"type": "ping", "id": None}, "bad_field")):
                error = await refused(ws, frame)
                assert error["error"] == code, (path, frame, error)
            await ws.send({"type": "refresh", "id": "ok"})
            await ws.recv_type(first)
            await pong_after(ws)

    run(body)


# --- any frame at all --------------------------------------------------------------------------


MOVES = st.sampled_from([{"type": "draw"}, {"type": "recycle"}, {"type": "undo"}, {"type": "resign"},
                         {"type": "move", "card": "9D", "to": "tableau"}, {"type": "move", "card": "AS"}])
CORRELATION_IDS = st.text(max_size=8) | st.integers(-3, 3)
# A valid frame of each type, before the mutations below.
TEMPLATES = st.one_of(
    st.fixed_dictionaries({"type": st.just("move"), "move": MOVES, "seq": st.integers(1, 4)}),
    st.fixed_dictionaries({"type": st.just("undo"), "seq": st.integers(1, 4)}),
    st.fixed_dictionaries({"type": st.just("resign")}, optional={"seq": st.integers(1, 4)}),
    st.fixed_dictionaries({"type": st.just("sync")}, optional={"since": st.integers(0, 5)}),
    st.fixed_dictionaries({"type": st.just("ready")}, optional={"ready": st.booleans()}),
    st.fixed_dictionaries({"type": st.sampled_from(["ping", "join", "leave", "refresh"])}),
)
FIELD_NAMES = st.sampled_from(["type", "seq", "move", "since", "ready", "id"]) | st.text(max_size=8)
# Values a careless client sends: numbers as strings, booleans, fractions, nulls, out of range.
WRONG_VALUES = st.sampled_from(["1", "true", "", True, False, 1.0, 2.5, None, 0, -1, 2**31, 2**64, [], {}])
FIELD_VALUES = WRONG_VALUES | st.integers(-2, 6) | MOVES | JSON_VALUES
MUTATIONS = st.lists(st.tuples(st.sampled_from(["drop", "set", "set"]), FIELD_NAMES, FIELD_VALUES), max_size=2)


def mutated(frame: dict[str, Any], frame_id: Any, mutations: list[tuple[str, str, Any]]) -> dict[str, Any]:
    frame = {**frame, "id": frame_id}
    for action, name, value in mutations:
        if action == "drop":
            frame.pop(name, None)
        else:
            frame[name] = value
    return frame


NEAR_VALID = st.builds(mutated, TEMPLATES, CORRELATION_IDS, MUTATIONS)
NESTED = st.builds(lambda opener, depth, tail: opener * depth + tail,  # json.loads recursed past ~1000 levels
                   st.sampled_from(["[", '[{"a": ', '{"type": "move", "seq": 1, "move": ', '"[']),
                   st.sampled_from([1, 16, 31, 32, 33, 100, 1000, 2000, 4000]) | st.integers(1, 4000),
                   st.sampled_from(["", "1", "]]]", "}"]))
FRAMES = st.one_of(  # frames that get past the parser are the more interesting: three branches of them
    NEAR_VALID.map(lambda frame: ("text", json.dumps(frame))),
    NEAR_VALID.map(lambda frame: ("text", json.dumps(frame))),
    NEAR_VALID.map(lambda frame: ("text", json.dumps(frame))),
    JSON_VALUES.map(lambda value: ("text", json.dumps(value))),
    NESTED.map(lambda text: ("text", text)),
    NESTED.map(lambda text: ("text", text)),
    st.text(max_size=30).map(lambda text: ("text", text)),
    st.binary(max_size=30).map(lambda data: ("bytes", data)),
)
ANY_FRAMES = settings(max_examples=40, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


async def throw(ws: WS, frames: list[tuple[str, Any]]) -> None:
    """Send every frame, then a ping; every reply up to its pong must be a documented
    frame, and the socket may close only for abuse."""
    for kind, payload in frames:
        await (ws.send_bytes(payload) if kind == "bytes" else ws.send_text(payload))
    marker = f"end-{uuid.uuid4()}"
    await ws.send({"type": "ping", "id": marker})
    while True:
        try:
            message = await ws.recv()
        except Closed as closed:
            assert closed.code == 4429, closed.code
            return
        assert message["type"] in SERVER_FRAME_TYPES, message
        if message["type"] == "error":
            assert message["error"] != "server_error" and documented(message["error"]), message
            assert isinstance(message["detail"], str) and message["detail"], message
        if message == {"type": "pong", "id": marker}:
            return


@ANY_FRAMES
@given(frames=st.lists(FRAMES, min_size=1, max_size=20))
def test_any_frames_at_a_game_socket_get_documented_replies_and_log_no_error(alice, caplog, frames):
    user, token = alice
    game_id = new_game(user)  # a fresh one each time: a resign among the frames ends a game

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await throw(ws, frames)

    run(body)
    assert error_records(caplog) == []


@ANY_FRAMES
@given(frames=st.lists(FRAMES, min_size=1, max_size=20))
def test_any_frames_at_a_race_socket_get_documented_replies_and_log_no_error(monkeypatch, alice, bob, caplog,
                                                                                frames):
    user, token = alice
    race = started_race(monkeypatch, user, bob[0])

    async def body():
        ws = await WS.open(race_path(race.id), token)
        await throw(ws, frames)

    run(body)
    assert error_records(caplog) == []


# --- a real Daphne process ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne(django_db_setup: Any):
    from django.db import connection

    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "this test needs Redis (REDIS_URL)"
    server, = start_daphnes(1, database_url(connection.settings_dict), redis_url)
    yield server
    server.stop()


def test_a_real_daphne_survives_deep_nesting_and_a_bad_seq_resign_then_plays_a_move(daphne):
    user, token = make_user("player")
    game_id = new_game(user)

    async def body():
        client = await Client(daphne, game_path(game_id), token, "player").connect()
        try:
            assert (await client.recv())["type"] == "snapshot"
            await client.send_text("[" * 2000)
            error = await client.recv_until(lambda m: m["type"] == "error")
            assert error["error"] == "bad_json", error
            await client.send({"type": "resign", "seq": "1", "id": "r"})
            error = await client.recv_until(lambda m: m["type"] == "error")
            assert (error["error"], error["field"], error["id"]) == ("bad_field", "seq", "r"), error
            await client.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "m"})
            ack = await client.recv_until(lambda m: m["type"] in ("ack", "error"))
            assert ack["type"] == "ack" and ack["seq"] == 1, ack
            assert (await client.recv_until(lambda m: m["type"] == "event"))["seq"] == 1
        finally:
            await client.close()

    asyncio.run(asyncio.wait_for(body(), 60))
    row = game_row(game_id)
    assert row.status == Game.Status.LIVE and row.seq == 1
    assert not re.search(r"Traceback|RecursionError|TypeError", daphne.output()), daphne.output()
