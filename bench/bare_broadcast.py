"""The floor for bench/realtime.py: a bare Channels + Redis broadcast under Daphne.

No database, no engine, no authentication: ``/ws/bare/<game>/`` joins the channel
group of that "game" and forwards every group message to its socket; any text frame
a client sends is ``group_send`` to the group as it is. The channel layer is
configured like the service's on ``REDIS_URL``: channels_redis's pub/sub layer, or
with ``CHANNEL_LAYER=lists`` its list-based layer (capacity 1000, expiry 60 s). ``GET /healthz`` answers 200 so the bench can wait for it.

    REDIS_URL=redis://127.0.0.1:6379/1 daphne -p 8100 bare_broadcast:application   (from bench/)
"""

from __future__ import annotations

import os

import django
from django.conf import settings

if not settings.configured:
    settings.configure(
        DEBUG=False,
        SECRET_KEY="bare-broadcast-bench",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/1")],
                           "capacity": 1000, "expiry": 60},
            }
        } if os.environ.get("CHANNEL_LAYER") == "lists" else {
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/1")]},
            }
        },
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class BareConsumer(AsyncWebsocketConsumer):
    if os.environ.get("BARE_DISPATCH") == "direct":
        # Channels >= 4.2 runs close_old_connections() in the one sync thread before
        # every handler (AsyncConsumer.dispatch); with no database that hop is pure
        # overhead. BARE_DISPATCH=direct skips it, to measure what it costs.
        async def dispatch(self, message: dict) -> None:
            from channels.consumer import get_handler_name

            await getattr(self, get_handler_name(message))(message)

    async def connect(self) -> None:
        self.group = "bare." + self.scope["url_route"]["kwargs"]["game"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is not None:
            await self.channel_layer.group_send(self.group, {"type": "bare.event", "text": text_data})

    async def bare_event(self, message: dict) -> None:
        await self.send(text_data=message["text"])


async def http_app(scope, receive, send) -> None:
    """``/healthz`` only."""
    if scope["type"] != "http":
        return
    ok = scope["path"] == "/healthz"
    body = b'{"status": "ok"}' if ok else b"not found"
    await send({"type": "http.response.start", "status": 200 if ok else 404,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


application = ProtocolTypeRouter({
    "http": http_app,
    "websocket": URLRouter([path("ws/bare/<str:game>/", BareConsumer.as_asgi())]),
})
