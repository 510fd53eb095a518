"""A WebSocket handshake that meets a database outage is refused with the "try again
later" close code, not torn down as a server error: the session and token lookups of
the auth middleware run before any consumer exists, so no consumer can answer it."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from database.outage import CLOSE_TRY_AGAIN, classify, record_refusal

Message = dict[str, Any]


class RefuseHandshakeDuringOutage:
    def __init__(self, inner: Callable[..., Awaitable[None]]) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        accepted = False

        async def watch_send(message: Message) -> None:
            nonlocal accepted
            accepted = accepted or message["type"] == "websocket.accept"
            await send(message)

        try:
            await self.inner(scope, receive, watch_send)
        except Exception as error:
            outage = classify(error)
            if outage is None or accepted:
                raise  # a consumer's own failure after the handshake is its own to answer
            record_refusal(outage, f"socket handshake {scope.get('path', '')}")
            # The client's connect message is waiting; answer it, say why, and close.
            if (await receive())["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps({"type": "error", **outage.to_json()})})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
