"""How a move's event travels: built in the move's transaction, sent from the event
loop (not from the database thread), once encoded, and never trusted for delivery:
a spectator whose channel layer drops or repeats events still sees each one once,
in order. Real PostgreSQL and the configured channel layer (Redis under make test)."""

from __future__ import annotations

import json
import threading

import pytest
from channels.layers import get_channel_layer

from games import services
from realtime import publishing
from realtime.database_threads import db_async
from realtime.streams import GameStream
from games.viewer_policy import SPECTATOR, Sight
from tests.realtime_helpers import WS, adb, make_user, new_game, run, submit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice():
    return make_user("alice")


def draw(game_id: str, user, seq: int) -> dict:
    return submit(game_id, user, {"type": "draw"}, seq)


def test_sends_of_a_collected_call_are_returned_not_made(alice):
    user, _ = alice
    game_id = new_game(user)
    result, error, sends = publishing.collecting_sends(draw)(game_id, user, 1)
    assert error is None and result["seq"] == 1
    group, message = next((g, m) for g, m in sends if m["type"] == "game.event")
    assert group == publishing.game_group(game_id)
    event = json.loads(message["text"])
    assert message["seq"] == event["seq"] == 1 and event["type"] == "event" and event["game"] == game_id
    assert event["view"] == result["view"] and event["action"] == result["move"]


def test_a_failed_collected_call_returns_its_error_and_sends_nothing(alice):
    user, _ = alice
    game_id = new_game(user)
    result, error, sends = publishing.collecting_sends(draw)(game_id, user, 5)
    assert result is None and isinstance(error, services.ServiceError) and error.code == "seq_conflict"
    assert sends == []


def test_database_calls_run_in_parallel_threads_off_the_event_loop():
    barrier = threading.Barrier(2, timeout=10)  # passes only if both calls are in flight at once
    loop_thread = threading.get_ident()

    def meet() -> int:
        barrier.wait()
        return threading.get_ident()

    async def body():
        import asyncio

        return await asyncio.gather(db_async(meet)(), db_async(meet)())

    first, second = run(body)
    assert first != second and loop_thread not in (first, second)


def test_stream_shows_the_next_event_as_is_and_drops_repeats():
    stream = GameStream("g")
    stream.last_seq = stream.received = 4
    assert not stream.next_in_line(6)      # a gap: must be filled first
    assert stream.next_in_line(5) and stream.last_seq == 5
    assert stream.seen(5) and stream.seen(3) and not stream.seen(6)
    delayed = GameStream("g")
    delayed.sight = Sight(SPECTATOR, delay=2)  # as the viewer policy sets it for a race's spectator
    delayed.last_seq = delayed.received = 4
    assert not delayed.next_in_line(5)     # delayed streams always go through take()


def test_a_spectator_sees_each_event_once_in_order_when_the_layer_drops_and_repeats(alice):
    user, token = alice
    game_id = new_game(user)

    async def body():
        spectator = await WS.open(f"/ws/games/{game_id}/")
        assert (await spectator.recv_type("snapshot"))["seq"] == 0
        # Two moves whose events the layer "loses": collected, never sent.
        collected = [await adb(publishing.collecting_sends(draw))(game_id, user, seq) for seq in (1, 2)]
        (first, _, first_sends), (second, _, second_sends) = collected
        layer = get_channel_layer()
        event_of = dict(second_sends)[publishing.game_group(game_id)]
        await layer.group_send(publishing.game_group(game_id), event_of)       # seq 2 arrives: 1 is missing
        filled = await spectator.recv_type("event")
        live = await spectator.recv_type("event")
        assert (filled["seq"], live["seq"]) == (1, 2)
        assert filled["action"] == first["move"] and live["view"] == second["view"]
        repeat = dict(first_sends)[publishing.game_group(game_id)]
        await layer.group_send(publishing.game_group(game_id), repeat)          # a late duplicate
        await layer.group_send(publishing.game_group(game_id), event_of)        # and a repeat
        assert await spectator.quiet() == []
        # The next live event comes through as sent, once.
        third = await adb(draw)(game_id, user, 3)
        event = await spectator.recv_type("event")
        assert event["seq"] == 3 and event["view"] == third["view"]
        assert await spectator.quiet() == []

    run(body)
