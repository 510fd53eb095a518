"""The WebSocket protocol (docs/realtime.md) against the real consumers.

Every test talks to ``config.asgi.application`` through channels' WebsocketCommunicator
(origin check, token auth and routing included), with real PostgreSQL and the
configured channel layer (Redis under ``make test``). Async bodies run with
``asyncio.run`` (tests/realtime_helpers.run); the database is reached from them only
through ``database_sync_to_async``.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import datetime, timedelta

import pytest

from realtime import consumers
from django.utils import timezone

from races import services as races
from engine import Game as EngineGame
from engine import public_view
from games.models import Game, Move
from races.models import Race
from tests.realtime_helpers import (
    DEAL, WS, Closed, adb, apply_event, assert_ranks, game_row, game_seq, legal_moves, make_user, move_rows, new_game, pick,
    play_ws, rest_get, rest_move, run, state_of, submit, view_after, ws_headers,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice():
    return make_user("alice")


@pytest.fixture
def bob():
    return make_user("bob")


def game_path(game_id: str, query: str = "") -> str:
    return f"/ws/games/{game_id}/" + (f"?{query}" if query else "")


def race_path(race_id: object) -> str:
    return f"/ws/races/{race_id}/"


def card_move_first(moves: list[dict]) -> dict:
    return next((m for m in moves if m["type"] == "move"), moves[0])


# --- playing and watching a game ------------------------------------------------


def test_player_gets_a_public_snapshot_then_ack_and_event_and_a_spectator_sees_the_event(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        player = await WS.open(game_path(game_id), token)
        snapshot = await player.recv()
        assert snapshot["type"] == "snapshot" and snapshot["seq"] == 0
        game = snapshot["game"]
        assert game["id"] == game_id and game["seq"] == 0 and game["status"] == "live"
        assert game["owner"] == "alice" and game["moves"] == 0
        # The public view: face-down cards are counts, the stock is a count.
        assert game["view"] == public_view(EngineGame.new(DEAL))
        assert all(set(column) == {"down", "up"} for column in game["view"]["tableau"])
        assert game["view"]["stock"] == {"count": 24}
        assert await player.recv() == {"type": "watchers", "count": 0}

        spectator = await WS.open(game_path(game_id))
        watched = await spectator.recv_type("snapshot")
        assert watched["seq"] == 0 and state_of(watched["game"]) == state_of(game)

        # 9D double-tapped to "tableau": the ack names the concrete column and the flip.
        ack, event = await play_ws(player, {"type": "move", "card": "9D", "to": "tableau"}, 1, id="m1")
        rows = await adb(move_rows)(game_id)
        assert ack == {"type": "ack", "id": "m1", "seq": 1, "move": {"type": "move", "card": "9D", "to": "t4"},
                       "flipped": rows[0].flipped}
        assert rows[0].flipped
        rest = await adb(rest_get)(game_id)
        assert event["type"] == "event" and event["game"] == game_id and event["action"] == ack["move"]
        assert {k: event[k] for k in ("seq", "score", "moves", "status", "view")} == state_of(rest)
        assert rows[0].flipped in event["view"]["tableau"][4]["up"]

        seen = await spectator.recv_type("event")
        assert seen == event
        assert await spectator.quiet() == [] and await player.quiet() == []

    run(body)


def test_a_spectators_moves_are_refused_with_not_your_game_and_change_nothing(alice, bob):
    user, token = alice
    _, bob_token = bob
    game_id = new_game(user)

    async def body():
        player = await WS.open(game_path(game_id), token)
        await player.recv_type("snapshot")
        await play_ws(player, {"type": "draw"}, 1)
        for spectator_token in (None, bob_token):  # anonymous, then another account
            spectator = await WS.open(game_path(game_id), spectator_token)
            await spectator.recv_type("snapshot")
            for frame in ({"type": "move", "move": {"type": "draw"}, "seq": 2, "id": "x"},
                          {"type": "undo", "seq": 2, "id": "y"}, {"type": "resign", "id": "z"}):
                await spectator.send(frame)
                error = await spectator.recv_type("error")
                assert error["error"] == "not_your_game" and error["id"] == frame["id"], error
            assert await spectator.quiet() == []
            await spectator.close()
        assert await player.quiet() == []
        assert await adb(game_seq)(game_id) == 1
        assert len(await adb(move_rows)(game_id)) == 1
        assert (await adb(rest_get)(game_id))["status"] == "live"

    run(body)


def test_the_player_is_told_how_many_spectators_come_and_go(alice, bob):
    user, token = alice
    _, bob_token = bob
    game_id = new_game(user)

    async def body():
        player = await WS.open(game_path(game_id), token)
        await player.recv_type("snapshot")
        assert await player.recv() == {"type": "watchers", "count": 0}
        first = await WS.open(game_path(game_id))
        assert (await player.recv()) == {"type": "watchers", "count": 1}
        second = await WS.open(game_path(game_id), bob_token)
        assert (await player.recv()) == {"type": "watchers", "count": 2}
        await first.close()
        assert (await player.recv()) == {"type": "watchers", "count": 1}
        await second.close()
        assert (await player.recv()) == {"type": "watchers", "count": 0}
        assert await player.quiet(ignore=()) == []

    run(body)


def test_a_spectator_reconnecting_with_since_gets_exactly_the_missed_events_then_live_ones(alice):
    user, token = alice
    game_id = new_game(user)
    rng = random.Random(7)

    async def next_move() -> dict:
        return pick(rng, await adb(legal_moves)(game_id))

    async def body():
        player = await WS.open(game_path(game_id), token)
        await player.recv_type("snapshot")
        spectator = await WS.open(game_path(game_id))
        await spectator.recv_type("snapshot")
        for seq in (1, 2):
            _, event = await play_ws(player, await next_move(), seq)
            assert await spectator.recv_type("event") == event
        await spectator.close()

        # While the spectator is away: moves over the socket, over REST and straight
        # through the service layer.
        await play_ws(player, await next_move(), 3)
        await play_ws(player, await next_move(), 4)
        await adb(rest_move)(game_id, token, await next_move(), 5)
        assert (await player.recv_type("event"))["seq"] == 5
        for seq in (6, 7):
            await adb(submit)(game_id, user, await next_move(), seq)
            assert (await player.recv_type("event"))["seq"] == seq

        spectator = await WS.open(game_path(game_id, "since=2"))
        missed = [await spectator.recv_type("event") for _ in range(5)]
        assert [m["seq"] for m in missed] == [3, 4, 5, 6, 7]
        rows = await adb(move_rows)(game_id)
        assert [m["action"] for m in missed] == [r.action for r in rows[2:]]
        assert all("view" not in m for m in missed[:-1])
        rest = await adb(rest_get)(game_id)
        assert {k: missed[-1][k] for k in ("seq", "score", "moves", "status", "view")} == state_of(rest)
        assert await spectator.quiet() == []

        _, event = await play_ws(player, await next_move(), 8)
        assert await spectator.recv_type("event") == event
        assert await spectator.quiet() == []

    run(body)


def test_reconnecting_with_since_equal_to_the_current_seq_gets_the_next_live_event_not_a_snapshot(alice):
    """since=N with nothing missed: nothing to catch up, then live *events* (N+1, …)."""
    user, token = alice
    game_id = new_game(user)

    async def body():
        player = await WS.open(game_path(game_id), token)
        await player.recv_type("snapshot")
        for seq in (1, 2, 3):
            await play_ws(player, {"type": "draw"}, seq)
        spectator = await WS.open(game_path(game_id, "since=3"))
        assert await spectator.quiet() == []
        _, event = await play_ws(player, {"type": "draw"}, 4)
        received = await spectator.recv()
        while received["type"] == "watchers":
            received = await spectator.recv()
        assert received == event, f"expected event 4, got {received['type']} {received.get('seq')}"
        assert await spectator.quiet() == []

    run(body)


def cycle_stock(game_id: str, user: object, count: int) -> None:
    """``count`` cheap events: draws, and a recycle when the stock runs out (worked
    out on a local copy of the engine, each played through the service layer)."""
    engine = game_row(game_id).engine()
    for seq in range(1, count + 1):
        move = {"type": "draw"} if engine.stock else {"type": "recycle"}
        engine.apply_json(move)
        submit(game_id, user, move, seq)


def test_since_too_far_behind_out_of_range_or_bogus_gets_a_snapshot(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        # (From inside the loop: each event's group_send reuses it.)
        await adb(cycle_stock)(game_id, user, 205)
        assert await adb(game_seq)(game_id) == 205
        rest = await adb(rest_get)(game_id)
        for query in ("since=0", "since=4", "since=206", "since=9999", "since=-1", "since=abc", "since=", ""):
            ws = await WS.open(game_path(game_id, query))
            first = await ws.recv_type("snapshot")
            assert first["seq"] == 205 and state_of(first["game"]) == state_of(rest), query
            assert await ws.quiet() == [], query
            await ws.close()

        # Exactly 200 behind is still a catch-up: events 6..205, the last with the board.
        ws = await WS.open(game_path(game_id, "since=5"))
        caught = [await ws.recv_type("event") for _ in range(200)]
        assert [m["seq"] for m in caught] == list(range(6, 206))
        assert all("view" not in m for m in caught[:-1])
        assert caught[-1]["view"] == rest["view"] and caught[-1]["status"] == "live"
        assert await ws.quiet() == []

        # The sync message follows the same rules.
        await ws.send({"type": "sync", "since": 200})
        assert [(await ws.recv_type("event"))["seq"] for _ in range(5)] == [201, 202, 203, 204, 205]
        for since in (None, 3, 206, 9999):
            await ws.send({"type": "sync"} if since is None else {"type": "sync", "since": since})
            assert (await ws.recv_type("snapshot"))["seq"] == 205, since
        for since in ("x", True, None):  # not integers: refused (tests/realtime/test_socket_protocol.py)
            await ws.send({"type": "sync", "since": since})
            assert (await ws.recv_type("error"))["error"] == "bad_field", since
        assert await ws.quiet() == []

    run(body)


def test_a_snapshot_plus_the_spectators_events_equals_a_fresh_get(alice):
    """Zulip-style: apply every event a spectator receives (live, and caught up after
    a reconnect) to the snapshot it started from; the result is the game as REST
    reads it afterwards."""
    user, token = alice
    game_id = new_game(user)
    rng = random.Random(2024)

    async def play(player: WS, seq: int) -> int:
        while True:
            move = pick(rng, await adb(legal_moves)(game_id), undo=True)
            frame = {"type": "undo", "seq": seq} if move["type"] == "undo" else {"type": "move", "move": move, "seq": seq}
            await player.send(frame)
            reply, _ = await player.recv_until(lambda m: m["type"] in ("ack", "error"))
            # ~60 messages, undo retries included, would outrun the consumer's rate
            # limit on a fast machine: keep to it, as any client must.
            await asyncio.sleep(1 / consumers.RATE_PER_SECOND)
            if reply["type"] == "error":
                assert move["type"] == "undo", reply  # e.g. nothing_to_undo: pick again
                continue
            assert reply["seq"] == seq, reply
            event, _ = await player.recv_until(lambda m: m["type"] == "event")
            assert event["seq"] == seq
            return seq + 1

    async def body():
        player = await WS.open(game_path(game_id), token)
        await player.recv_type("snapshot")
        seq = 1
        for _ in range(8):
            seq = await play(player, seq)

        spectator = await WS.open(game_path(game_id))
        snapshot = await spectator.recv_type("snapshot")
        state = state_of(snapshot["game"])
        assert state["seq"] == seq - 1

        async def absorb(expected_last: int) -> None:
            while state["seq"] < expected_last:
                apply_event(state, await spectator.recv_type("event"))

        for round_ in range(40):
            seq = await play(player, seq)
            if round_ == 20:
                await absorb(seq - 1)
                await spectator.close()
                for _ in range(5):
                    seq = await play(player, seq)
                spectator = await WS.open(game_path(game_id, f"since={state['seq']}"))
            await absorb(seq - 1)

        # Finally a resignation: status and the whole deal arrive with the event.
        await player.send({"type": "resign", "seq": seq, "id": "bye"})
        assert (await player.recv_type("ack"))["seq"] == seq
        await absorb(seq)
        assert await spectator.quiet() == []
        rest = await adb(rest_get)(game_id)
        assert rest["status"] == "resigned" and rest["seq"] == seq
        assert state == state_of(rest)

    run(body)


# --- limits, errors, close codes ----------------------------------------------------


def test_malformed_frames_get_error_events_and_the_socket_still_answers(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        await ws.send_bytes(b'{"type": "ping"}')
        assert (await ws.recv_type("error"))["error"] == "bad_frame"
        await ws.send_text('{"type": "ping", "pad": "' + "x" * 5000 + '"}')
        assert (await ws.recv_type("error"))["error"] == "frame_too_large"
        await ws.send_text('{"type": "ping",')
        assert (await ws.recv_type("error"))["error"] == "bad_json"
        for text in ("[1, 2]", '"ping"', "42", "null", '{"id": 1}', '{"type": 5}'):
            await ws.send_text(text)
            error = await ws.recv_type("error")
            assert error["error"] == "bad_message", (text, error)
        for kind in ("frobnicate", "__class__", "send_json", "on_ping", "bad type!"):
            await ws.send({"type": kind, "id": 7})
            error = await ws.recv_type("error")
            assert error["error"] == "unknown_type" and error["id"] == 7, (kind, error)
            assert isinstance(error["detail"], str) and error["detail"]
        await ws.send({"type": "ping", "id": "still-there"})
        assert await ws.recv_type("pong") == {"type": "pong", "id": "still-there"}
        # Nothing was played.
        await ws.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "ok"})
        assert (await ws.recv_type("ack"))["id"] == "ok"

    run(body)


def test_the_frame_limit_counts_bytes_not_characters(alice):
    """'Frames over 4096 bytes … an error event': 3000 two-byte characters are ~6 KB."""
    user, token = alice
    game_id = new_game(user)

    async def body():
        ws = await WS.open(game_path(game_id), token)
        await ws.recv_type("snapshot")
        text = '{"type": "ping", "id": 1, "pad": "' + "é" * 3000 + '"}'
        assert len(text) < 4096 < len(text.encode())
        await ws.send_text(text)
        reply = await ws.recv()
        while reply["type"] == "watchers":
            reply = await ws.recv()
        assert reply.get("error") == "frame_too_large", reply

    run(body)


def test_flooding_is_rate_limited_then_closed_with_4429_and_other_games_are_unaffected(alice, bob):
    user, token = alice
    bob_user, bob_token = bob
    flooded = new_game(user)
    other = new_game(bob_user)

    async def body():
        ws = await WS.open(game_path(flooded), token)
        await ws.recv_type("snapshot")
        assert (await ws.recv())["type"] == "watchers"
        calm = await WS.open(game_path(other), bob_token)
        await calm.recv_type("snapshot")
        watcher = await WS.open(game_path(other))
        await watcher.recv_type("snapshot")

        for i in range(60):
            await ws.send({"type": "ping", "id": i})
        replies = [await ws.recv() for _ in range(60)]
        pongs = [r for r in replies if r["type"] == "pong"]
        limited = [r for r in replies if r.get("error") == "rate_limited"]
        assert len(pongs) + len(limited) == 60, replies
        burst = int(consumers.RATE_BURST)  # the bucket's size; it refills while frames arrive
        assert len(pongs) >= burst and len(limited) >= 60 - burst - 10, (len(pongs), len(limited))
        assert [p["id"] for p in pongs][:burst] == list(range(burst))

        # Meanwhile the other game plays and is watched as usual.
        await calm.send({"type": "ping", "id": "calm"})
        assert await calm.recv_type("pong") == {"type": "pong", "id": "calm"}
        _, event = await play_ws(calm, {"type": "draw"}, 1)
        assert await watcher.recv_type("event") == event

        violations = len(limited)
        with pytest.raises(Closed) as closed:
            for _ in range(60):
                await ws.send_text("{not json")
                error = await ws.recv()
                assert error["type"] == "error" and error["error"] in {"bad_json", "rate_limited"}, error
                violations += 1
        assert closed.value.code == 4429
        assert violations == 50

        await calm.send({"type": "ping", "id": "after"})
        assert await calm.recv_type("pong") == {"type": "pong", "id": "after"}
        _, event = await play_ws(calm, {"type": "draw"}, 2)
        assert await watcher.recv_type("event") == event
        assert await adb(game_seq)(flooded) == 0

    run(body)


def test_unknown_game_race_or_path_gets_not_found_then_close_4404():
    async def body():
        for path in (game_path(str(uuid.uuid4())), race_path(uuid.uuid4()), "/ws/nowhere/",
                     "/ws/games/not-a-uuid/", "/ws/"):
            ws = await WS.open(path)
            error = await ws.recv()
            assert error["type"] == "error" and error["error"] == "not_found", (path, error)
            with pytest.raises(Closed) as closed:
                await ws.recv()
            assert closed.value.code == 4404, path

    run(body)


def test_a_foreign_or_missing_origin_is_refused_at_the_handshake(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        from channels.testing import WebsocketCommunicator
        from config.asgi import application

        for headers in (ws_headers(token, b"http://evil.example.com"), ws_headers(token, b"null"),
                        [(b"host", b"testserver"), (b"authorization", f"Token {token}".encode())]):
            comm = WebsocketCommunicator(application, game_path(game_id), headers=headers)
            connected, _ = await comm.connect(timeout=3)
            assert not connected, headers
            await comm.wait(1)
        ws = await WS.open(game_path(game_id), token)  # the right origin works
        assert (await ws.recv())["type"] == "snapshot"

    run(body)


def test_the_lobby_socket_is_told_about_a_new_game_and_a_new_race(alice):
    user, _ = alice

    async def body():
        lobby = await WS.open("/ws/lobby/")
        first = await lobby.recv_type("lobby")
        assert {"games", "races"} <= set(first)
        loop = asyncio.get_running_loop()
        started = loop.time()
        game_id = await adb(new_game)(user)
        await lobby.recv_until(lambda m: m["type"] == "lobby" and any(g["id"] == game_id for g in m["games"]),
                               timeout=3)
        assert loop.time() - started < 3
        race = await adb(races.create_race)(user)
        await lobby.recv_until(lambda m: m["type"] == "lobby" and any(r["id"] == str(race.id) for r in m["races"]),
                               timeout=3)
        await lobby.send({"type": "refresh"})
        fresh = await lobby.recv_type("lobby")
        assert game_id in [g["id"] for g in fresh["games"]]

    run(body)


# --- race rooms ---------------------------------------------------------------------------


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def wait_for_start(payload: dict) -> None:
    left = (parse_time(payload["starts_at"]) - parse_time(payload["server_time"])).total_seconds()
    await asyncio.sleep(max(0.0, left) + 0.15)


QUIET = ("watchers", "race")  # a race message comes on every race.changed, repeats included


def is_race(phase: str):
    return lambda m: m["type"] == "race" and m["race"]["phase"] == phase


def test_a_race_room_join_ready_countdown_play_and_resign(monkeypatch, alice, bob):
    # A short countdown, but long enough to be caught in it on a loaded machine.
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 3)
    alice_user, alice_token = alice
    _, bob_token = bob
    race = races.create_race(alice_user, max_players=2)

    async def body():
        a = await WS.open(race_path(race.id), alice_token)
        opened = await a.recv_type("race")
        assert opened["race"]["phase"] == "open" and [e["player"] for e in opened["race"]["entries"]] == ["alice"]
        b = await WS.open(race_path(race.id), bob_token)
        await b.recv_type("race")  # bob is a spectator until he joins
        await b.send({"type": "join", "id": "j"})
        await b.recv_until(lambda m: m["type"] == "ack" and m["id"] == "j")
        for ws in (a, b):
            joined, _ = await ws.recv_until(lambda m: m["type"] == "race" and len(m["race"]["entries"]) == 2)
            assert [e["player"] for e in joined["race"]["entries"]] == ["alice", "bob"]
            assert joined["race"]["phase"] == "open"

        await a.send({"type": "ready", "id": "ra"})
        await a.recv_until(lambda m: m["type"] == "ack" and m["id"] == "ra")
        await b.send({"type": "ready", "ready": True, "id": "rb"})
        await b.recv_until(lambda m: m["type"] == "ack" and m["id"] == "rb")
        countdown, _ = await a.recv_until(is_race("countdown"))
        # Too early: moves before starts_at are refused.
        await a.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "early"})
        games = {}
        for ws in (a, b):
            if ws is b:
                countdown, _ = await ws.recv_until(is_race("countdown"))
            payload = countdown["race"]
            assert payload["starts_at"] and payload["ends_at"] and payload["code"] is None
            games = {e["player"]: e["game"] for e in payload["entries"]}
            assert all(games.values())
            snapshots = [await ws.recv_type("snapshot") for _ in range(2)]
            assert {s["player"]: s["game"]["id"] for s in snapshots} == games
            assert all(s["seq"] == 0 for s in snapshots)
            assert snapshots[0]["game"]["view"] == snapshots[1]["game"]["view"]  # the same deal
        early, _ = await a.recv_until(lambda m: m["type"] in ("error", "ack"))
        assert early["type"] == "error" and early["error"] == "race_not_started", early
        assert early["id"] == "early" and early["starts_at"]
        assert await adb(game_seq)(games["alice"]) == 0

        await wait_for_start(payload)
        moves = await adb(legal_moves)(games["alice"])
        first = next((m for m in moves if m.get("to") == "foundation"), card_move_first(moves))
        await a.send({"type": "move", "move": first, "seq": 1, "id": "go"})
        ack, _ = await a.recv_until(lambda m: m["type"] == "ack")
        assert ack["id"] == "go" and ack["game"] == games["alice"] and ack["seq"] == 1 and ack["move"] == first
        for ws in (a, b):
            event, _ = await ws.recv_until(lambda m: m["type"] == "event")
            assert event["game"] == games["alice"] and event["seq"] == 1 and event["action"] == first
        await b.send({"type": "move", "move": {"type": "draw"}, "seq": 1, "id": "bd"})
        ack, _ = await b.recv_until(lambda m: m["type"] == "ack")
        assert ack["game"] == games["bob"] and ack["seq"] == 1
        for ws in (a, b):
            event, _ = await ws.recv_until(lambda m: m["type"] == "event")
            assert event["game"] == games["bob"] and event["seq"] == 1

        await a.send({"type": "resign", "id": "ga"})
        ack, _ = await a.recv_until(lambda m: m["type"] == "ack")
        assert ack["game"] == games["alice"] and ack["move"] == {"type": "resign"}
        await b.send({"type": "resign", "id": "gb"})
        for ws in (a, b):
            finished, skipped = await ws.recv_until(is_race("finished"))
            result = finished["race"]
            assert result["code"] and result["code"] == (await adb(Race.objects.get)(pk=race.id)).code
            assert {e["status"] for e in result["entries"]} == {"resigned"}
            assert_ranks(result["entries"])
            assert min(e["rank"] for e in result["entries"]) == 1
        assert (await adb(Race.objects.get)(pk=race.id)).status == Race.Status.FINISHED

    run(body)


def test_race_spectators_see_each_board_spectator_delay_events_late_and_everything_at_the_end(
        monkeypatch, alice, bob):
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 1)
    alice_user, alice_token = alice
    bob_user, bob_token = bob
    race = races.create_race(alice_user, spectator_delay=2)
    races.join_race(race.id, bob_user)

    async def body():
        spectator = await WS.open(race_path(race.id))
        await spectator.recv_type("race")
        a = await WS.open(race_path(race.id), alice_token)
        await a.recv_type("race")
        b = await WS.open(race_path(race.id), bob_token)
        await b.recv_type("race")
        await adb(races.set_ready)(race.id, alice_user)
        await adb(races.set_ready)(race.id, bob_user)
        countdown, _ = await spectator.recv_until(is_race("countdown"))
        games = {e["player"]: e["game"] for e in countdown["race"]["entries"]}
        code = (await adb(game_row)(games["alice"])).code
        snapshots = {}
        for _ in range(2):
            snapshot = await spectator.recv_type("snapshot")
            snapshots[snapshot["player"]] = snapshot
        assert all(s["seq"] == 0 and s["delayed_by"] == 2 for s in snapshots.values())
        assert snapshots["alice"]["game"]["view"] == view_after(code, [], True)
        await b.recv_until(is_race("countdown"))
        await wait_for_start(countdown["race"])

        played: list[dict] = []
        rng = random.Random(5)

        async def alice_moves(count: int) -> None:
            for _ in range(count):
                move = pick(rng, await adb(legal_moves)(games["alice"]))
                seq = len(played) + 1
                await a.send({"type": "move", "move": move, "seq": seq})
                ack, _ = await a.recv_until(lambda m: m["type"] == "ack")
                assert ack["seq"] == seq, ack
                played.append(ack["move"])
                live, _ = await b.recv_until(lambda m: m["type"] == "event")  # racers: live
                assert live["seq"] == seq and "delayed_by" not in live

        await alice_moves(4)
        for seq in (1, 2):
            delayed = await spectator.recv_type("event", ignore=QUIET)
            assert delayed["game"] == games["alice"] and delayed["seq"] == seq and delayed["delayed_by"] == 2
            assert delayed["action"] == played[seq - 1]
            assert delayed["view"] == view_after(code, played[:seq], True)
        assert await spectator.quiet(ignore=QUIET) == []

        # A spectator on alice's game socket gets the same delay.
        watcher = await WS.open(game_path(games["alice"]))
        late = await watcher.recv_type("snapshot")
        assert late["seq"] == 2 and late["delayed_by"] == 2
        assert late["game"]["view"] == view_after(code, played[:2], True)

        await alice_moves(1)
        for ws in (spectator, watcher):
            delayed = await ws.recv_type("event", ignore=QUIET)
            assert delayed["seq"] == 3 and delayed["delayed_by"] == 2
            assert delayed["view"] == view_after(code, played[:3], True)

        # Both resign: the race ends and the held-back events come at once.
        await a.send({"type": "resign", "id": "ra"})
        await a.recv_until(lambda m: m["type"] == "ack")
        await b.send({"type": "resign", "id": "rb"})
        await b.recv_until(lambda m: m["type"] == "ack")
        finished, skipped = await spectator.recv_until(is_race("finished"))
        assert finished["race"]["code"] == code
        released = [m for m in skipped if m["type"] == "event"] + await spectator.quiet(0.5, ignore=QUIET)
        assert all(e["type"] == "event" for e in released), released
        alice_events = [e for e in released if e["game"] == games["alice"]]
        bob_events = [e for e in released if e["game"] == games["bob"]]
        # alice's resignation pushed out event 4 (still 2 late); the end releases the rest.
        assert [(e["seq"], e["delayed_by"]) for e in alice_events] == [(4, 2), (5, 0), (6, 0)], released
        assert [(e["seq"], e["delayed_by"]) for e in bob_events] == [(1, 0)], released
        assert alice_events[-1]["action"] == bob_events[-1]["action"] == {"type": "resign"}
        assert [e["action"] for e in alice_events[:2]] == played[3:]
        assert alice_events[0]["view"] == view_after(code, played[:4], True)
        assert alice_events[1]["view"] == view_after(code, played, True)
        flushed = [m for m in watcher.log if m["type"] == "event" and m["seq"] > 3] + await watcher.quiet(0.5, ignore=QUIET)
        assert [(e["seq"], e["delayed_by"]) for e in flushed] == [(4, 2), (5, 0), (6, 0)], flushed
        assert [e["action"] for e in flushed] == [e["action"] for e in alice_events]


def test_a_delayed_spectator_on_a_racers_game_socket_is_not_sent_errors_when_the_race_room_changes(
        monkeypatch, alice, bob):
    """A spectator of a racer's game socket (race with spectator_delay) also listens to
    the race's group; spectators coming and going in the race room must not cost it an
    error event."""
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 1)
    alice_user, _ = alice
    bob_user, _ = bob
    race = races.create_race(alice_user, spectator_delay=2)
    races.join_race(race.id, bob_user)
    races.set_ready(race.id, alice_user)
    races.set_ready(race.id, bob_user)
    game_id = str(race.entries.get(user=alice_user).game_id)

    async def body():
        watcher = await WS.open(game_path(game_id))
        assert (await watcher.recv_type("snapshot"))["delayed_by"] == 2
        room = await WS.open(race_path(race.id))
        await room.recv_type("race")
        await room.close()
        assert await watcher.quiet(1.0, ignore=("watchers",)) == []

    run(body)


def test_a_race_whose_clock_runs_out_is_ended_by_a_connected_race_socket(monkeypatch, alice, bob):
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 1)
    alice_user, alice_token = alice
    bob_user, _ = bob
    race = races.create_race(alice_user)
    races.join_race(race.id, bob_user)
    races.set_ready(race.id, alice_user)
    races.set_ready(race.id, bob_user)
    race.refresh_from_db()
    games = {e.user.username: str(e.game_id) for e in race.entries.select_related("user")}

    async def body():
        await asyncio.sleep(max(0.0, (race.starts_at - timezone.now()).total_seconds()) + 0.1)
        await adb(submit)(games["alice"], alice_user, {"type": "draw"}, 1)
        ends_at = timezone.now() + timedelta(seconds=1)
        await adb(lambda: Race.objects.filter(pk=race.id).update(ends_at=ends_at))()

        a = await WS.open(race_path(race.id), alice_token)
        running = await a.recv_type("race")
        assert running["race"]["phase"] == "running"
        finished, skipped = await a.recv_until(is_race("finished"), timeout=4)
        timeouts = {m["game"]: m for m in skipped if m["type"] == "event"}
        assert set(timeouts) == set(games.values())
        assert all(m["action"] == {"type": "timeout"} and m["status"] == "timed_out" for m in timeouts.values())
        assert timeouts[games["alice"]]["seq"] == 2 and timeouts[games["bob"]]["seq"] == 1
        assert {e["status"] for e in finished["race"]["entries"]} == {"timed_out"}
        assert_ranks(finished["race"]["entries"])

        for game_id in games.values():
            row = await adb(game_row)(game_id)
            assert row.status == Game.Status.TIMED_OUT
            assert row.finished_at <= ends_at
            last = (await adb(move_rows)(game_id))[-1]
            assert last.action == {"type": "timeout"} and last.seq == row.seq
        stored = await adb(Race.objects.get)(pk=race.id)
        assert stored.status == Race.Status.FINISHED
        assert await adb(Move.objects.filter(game__race_id=race.id, action={"type": "timeout"}).count)() == 2

    run(body)
