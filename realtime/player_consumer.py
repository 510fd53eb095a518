"""``/ws/me/``: a signed-in player's own channel. Quick match ("Race now": waiting is
this connection, so closing it leaves the queue), the challenges sent and received,
and the news that a match or an accepted challenge has started a race."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from api.errors import ServiceError
from matchmaking import challenges
from matchmaking import services as matchmaking
from realtime import publishing
from realtime.consumers import CLOSE_FORBIDDEN, ProtocolConsumer
from realtime.database_threads import db_async
from realtime.matchmaker import matchmaker
from realtime.socket_protocol import PLAYER_FRAMES


@db_async
def player_state(user: Any) -> dict[str, Any]:
    return {"queue": matchmaking.state(user), "challenges": challenges.pending_for(user)}


class PlayerConsumer(ProtocolConsumer):
    frames = PLAYER_FRAMES

    async def connect(self) -> None:
        self.ticket_id: str | None = None
        self.group = None
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.send_json({"type": "error", "error": "not_authenticated",
                                  "detail": _("log in to race other players")})
            return await self.close(code=CLOSE_FORBIDDEN)
        self.user = user
        self.group = publishing.player_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_state()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.ticket_id is not None:
            matchmaker().remove(self.ticket_id)
            await db_async(matchmaking.cancel)(self.user, self.ticket_id)

    async def send_state(self) -> None:
        state = await player_state(self.user)
        await self.send_json({"type": "me", **state})

    async def on_queue(self, data: dict[str, Any]) -> None:
        if not await self.may_play(data):
            return
        try:
            ticket = await db_async(matchmaking.enqueue)(self.user, data["draw"], data["scoring"])
        except ServiceError as error:
            return await self.refuse(error.code, error.detail, data, **error.extra)
        if self.ticket_id is not None and self.ticket_id != str(ticket.pk):
            matchmaker().remove(self.ticket_id)
        self.ticket_id = str(ticket.pk)
        matchmaker().add(self.ticket_id, self)
        await self.send_json({"type": "queue", "id": data.get("id"), **matchmaking.ticket_state(ticket)})

    async def on_cancel(self, data: dict[str, Any]) -> None:
        matchmaker().remove(self.ticket_id)
        await db_async(matchmaking.cancel)(self.user)
        self.ticket_id = None
        await self.send_json({"type": "queue", "id": data.get("id"), **await db_async(matchmaking.state)(self.user)})

    async def match_found(self, message: dict[str, Any]) -> None:
        """From the wave that matched this player (any process), or from this process's
        matchmaker reading the ticket: both may come, the client is told once."""
        if self.ticket_id is not None:
            matchmaker().remove(self.ticket_id)
            self.ticket_id = None
        if message["race"] == getattr(self, "announced", None):
            return
        self.announced = message["race"]
        await self.send_json({"type": "matched", "race": message["race"]})

    async def queue_gone(self, message: dict[str, Any]) -> None:
        """The ticket was dropped elsewhere (cancelled over REST or from another tab)."""
        self.ticket_id = None
        await self.send_json({"type": "queue", **await db_async(matchmaking.state)(self.user)})

    async def challenges_changed(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "challenges", **await db_async(challenges.pending_for)(self.user)})
        if message.get("race"):
            await self.send_json({"type": "challenge_accepted", "challenge": message["challenge"],
                                  "race": message["race"]})

    async def resync(self) -> None:
        await self.send_state()
