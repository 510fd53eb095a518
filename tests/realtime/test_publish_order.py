"""A request thread's group sends (realtime/publishing.py): handed to the server's event loop
and made there in the order they were handed over, over the real
channel layer."""

from __future__ import annotations

import asyncio

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from realtime.publishing import LoopPublisher, send_group


def test_sends_from_a_request_thread_arrive_in_the_order_they_were_made() -> None:
    async def scenario() -> list[int]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add("publish-order-test", channel)

        def request_thread() -> None:
            # As an after-commit hook does in a view under Daphne.
            for n in range(40):
                send_group("publish-order-test", {"type": "test.event", "n": n})

        await sync_to_async(request_thread, thread_sensitive=False)()
        received = [(await asyncio.wait_for(layer.receive(channel), 10))["n"] for _ in range(40)]
        await layer.group_discard("publish-order-test", channel)
        return received

    assert asyncio.run(scenario()) == list(range(40))


def test_a_loop_has_one_publisher() -> None:
    async def publishers() -> bool:
        loop = asyncio.get_running_loop()
        return LoopPublisher.of(loop) is LoopPublisher.of(loop)

    assert asyncio.run(publishers())
