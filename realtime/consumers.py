"""WebSocket consumers: play and watch a game, and the lobby.

Protocol: docs/realtime.md. Each connection keeps the last sequence number it sent
for its game; events from the channel layer at or below it are duplicates and are
dropped, and one above the next expected number means the layer lost something, so
the gap is fetched from Postgres before going on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import parse_qs

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from api.texts import localized
from engine.text import Text
from realtime.database_threads import db_async
from realtime.socket_language import language_of
from autobahn.exception import Disconnected
from channels.exceptions import AcceptConnection, DenyConnection, StopConsumer
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer

from database.outage import CLOSE_TRY_AGAIN, DatabaseOutage, classify, record_refusal

from games import services, viewer_policy
from accounts.sessions import session_digest
from realtime import layer_watch, publishing, socket_protocol
from races import services as races
from engine.views import redact_view
from games.models import Game
from races.models import Race
from realtime.socket_protocol import FrameError
from realtime.streams import GameStream
from realtime.presence import HEARTBEAT_SECONDS, presence
from games.services import Actor, ServiceError

logger = logging.getLogger(__name__)

RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
MAX_VIOLATIONS = 50

# Close codes (docs/realtime.md).
CLOSE_UNAUTHORIZED = 4401  # a token or ticket refused or revoked: get a new one
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_ABUSE = 4429
# This process is shutting down (config/serve.py): reconnect at once, through the proxy
# to another process, and resume from the last seq. RFC 6455's 1012 "service restart"
# says it, but Daphne sends only 1000 and 3000-4999 (as for 4503).
CLOSE_RECONNECT = 4012


# The channel layer's high-volume news (a move, a count of watchers, a board or lobby
# change) carries no sentence; every other message is handled in the reader's language.
FANNED_OUT = frozenset({"game.event", "game.watchers", "racer.event", "race.watchers", "lobby.changed",
                        "board.changed"})


class ProtocolConsumer(AsyncWebsocketConsumer):
    """JSON frames checked against the endpoint's schema (realtime.socket_protocol), a
    per-connection token bucket and error events that never end the connection,
    except for sustained abuse: every refused frame is a violation."""

    frames: dict[str, socket_protocol.Frame] = socket_protocol.PING_ONLY

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Run the message's handler; a bug in one handler costs one error event, not
        the connection.

        Channels' own dispatch first awaits ``aclose_old_connections()``, a hop through
        the one thread that all ``database_sync_to_async`` calls of the process share,
        for every message: every event for every spectator queued behind the moves
        (bench/realtime.py measured it). The database calls here all go through
        ``db_async``, which closes old connections itself, so the hop is skipped."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            logger.warning("no handler for message type %s", message.get("type"))
            return
        async with self.turn:
            if message["type"] in FANNED_OUT:
                # News fanned out to every viewer: no sentence to write, so no language
                # to switch to (bench/i18n.py: a switch costs about what encoding the
                # event does).
                return await self.handle_safely(handler, message)
            with translation.override(self.language):
                await self.handle_safely(handler, message)

    @functools.cached_property
    def turn(self) -> asyncio.Lock:
        """One message at a time, a resync included (layer_watch)."""
        return asyncio.Lock()

    async def handle_safely(self, handler: Any, message: dict[str, Any]) -> None:
        try:
            await handler(message)
        except (StopConsumer, AcceptConnection, DenyConnection):
            raise
        except Disconnected:
            return  # the client left while the handler ran (Daphne's send refused): nothing to tell it
        except Exception as error:
            if self.closed:
                return  # the client has gone: nothing to tell it
            if (outage := classify(error)) is not None:
                return await self.try_again_later(outage, message.get("type", "message"))
            logger.exception("error handling %s", message.get("type"))
            with contextlib.suppress(Exception), translation.override(self.language):
                await self.send_json({"type": "error", "error": "server_error",
                                      "detail": _("something went wrong on our side; resync with a sync message")})

    closed = False
    accepted = False

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def try_again_later(self, outage: DatabaseOutage, what: str) -> None:
        """The database failed under a connect or under news from the channel layer:
        what this socket shows may be behind, so it is closed with the code that tells
        the client to reconnect (and resume from its last seq) after ``retry_after``."""
        record_refusal(outage, f"socket {self.scope.get('path', '')} {what}")
        if not self.accepted:
            await self.accept()
        with contextlib.suppress(Exception):
            await self.send_json(outage.to_json() | {"type": "error"})
            await self.close(code=CLOSE_TRY_AGAIN)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.closed = True
        await super().websocket_disconnect(message)

    # The reader's language (realtime.socket_language), active while a message is
    # handled: refusals are raised in it, engine Texts rendered in it (send_json).
    language = "en"

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.language = language_of(self.scope)
        with translation.override(self.language):
            await self.connect_in_language(message)

    async def connect_in_language(self, message: dict[str, Any]) -> None:
        self.tokens = RATE_BURST
        self.refilled = time.monotonic()
        self.violations = 0
        if refused := self.scope.get("auth_refused"):
            return await self.shut_out(*refused)
        if digest := self.scope.get("token_digest"):
            self.groups = [publishing.token_group(digest)]  # left again by Channels on disconnect
        elif (session_key := self.signed_in_session_key()) is not None:
            self.groups = [publishing.session_group(session_digest(session_key))]
        elif ticket_session := self.scope.get("ticket_session"):
            self.groups = [publishing.session_group(ticket_session)]  # a session's ticket: closes with it
        layer_watch.watch(self)
        await super().websocket_connect(message)

    async def shut_out(self, code: str, detail: str) -> None:
        """The credential this socket came with is refused or was revoked: say so, and
        close with the code that tells the client not to retry with it."""
        if not self.accepted:
            await self.accept()
        with contextlib.suppress(Exception):
            await self.send_json({"type": "error", "error": code, "detail": detail})
            await self.close(code=CLOSE_UNAUTHORIZED)

    def resync_soon(self) -> None:
        """The channel layer was down (realtime.layer_watch): catch up from the
        database, in turn with the messages this socket handles."""
        if self.closed or not self.accepted:
            return
        asyncio.ensure_future(self.dispatch({"type": "layer.recovered"}))

    async def layer_recovered(self, message: dict[str, Any]) -> None:
        await self.resync()

    async def resync(self) -> None:
        """What this socket shows, brought up to date from the database."""

    async def server_drain(self, message: dict[str, Any]) -> None:
        """The server drains: the frame before this one has been answered (a move in
        flight committed and acknowledged), so close with "reconnect"."""
        if self.closed:
            return
        if not self.accepted:
            await self.accept()
        await self.close(code=CLOSE_RECONNECT)

    async def auth_revoked(self, message: dict[str, Any]) -> None:
        await self.shut_out("token_revoked", _("the token this socket was opened with has been revoked"))

    async def auth_signed_out(self, message: dict[str, Any]) -> None:
        await self.shut_out("signed_out", _("this session has been signed out: log in again"))

    def signed_in_session_key(self) -> str | None:
        """The session key of a socket signed in by its session cookie."""
        user, session = self.scope.get("user"), self.scope.get("session")
        if user is None or not user.is_authenticated or session is None:
            return None
        return session.session_key

    async def may_play(self, data: dict[str, Any]) -> bool:
        """A token of scope read may watch, not play."""
        if self.scope.get("token_scope") == "read":
            # Translators: "read" is the name of a token scope.
            await self.refuse("token_scope", _("this token's scope is read: it cannot play or change anything"), data)
            return False
        return True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Handlers get frames of their endpoint's schema only; anything else is
        refused here and counts toward the violation limit."""
        try:
            if not self.take_token():
                raise FrameError("rate_limited",
                                 _("at most %(rate)s messages a second") % {"rate": f"{RATE_PER_SECOND:g}"})
            if text_data is None:
                raise FrameError("bad_frame", _("frames are JSON text, not binary"))
            frame_type, data = socket_protocol.read_frame(text_data, self.frames)
        except FrameError as error:
            return await self.violation(error)
        try:
            await getattr(self, "on_" + frame_type)(data)
        except Exception as error:
            if (outage := classify(error)) is None:
                raise
            # The client sends the same frame (same seq) again: a move that did commit
            # before the connection broke is answered as it was the first time.
            record_refusal(outage, f"socket {self.scope.get('path', '')} {frame_type}")
            await self.refuse(outage.code, outage.detail, data, retry_after=outage.retry_after)

    async def on_ping(self, data: dict[str, Any]) -> None:
        await self.send_json({"type": "pong", "id": data.get("id")})

    def take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.refilled) * RATE_PER_SECOND)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def violation(self, error: FrameError) -> None:
        """A refused frame: its error event, and the socket closed at the limit."""
        self.violations += 1
        await self.send_json(error.event())
        if self.violations >= MAX_VIOLATIONS:
            await self.close(code=CLOSE_ABUSE)

    async def refuse(self, code: str, detail: str, data: dict[str, Any] | None = None, **extra: Any) -> None:
        """A valid frame whose request is refused (an illegal move, a stale seq): not
        a protocol violation."""
        message = {"type": "error", "error": code, "detail": detail, **extra}
        if data is not None and "id" in data:
            message["id"] = data["id"]
        await self.send_json(message)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        # Frames may still arrive before the client sees the close; a consumer that
        # closed itself half set up (4404, 4403) must not run handlers on them.
        self.frames = {}
        await super().close(code=code, reason=reason)

    async def send_json(self, content: dict[str, Any]) -> None:
        if content.get("type") == "error" and isinstance(content.get("detail"), (Text, Promise)):
            with translation.override(self.language):
                content = {**content, "detail": str(localized(content["detail"]))}
        await self.send(text_data=json.dumps(content, default=str))

    def actor(self) -> Actor:
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            return Actor(user_id=user.pk)
        session = self.scope.get("session")
        return Actor(guest_key=session.get("guest_key", "") if session is not None else "")

    def query_int(self, name: str) -> int | None:
        values = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get(name)
        if not values:
            return None
        try:
            return int(values[0])
        except ValueError:
            return None


async def run_service(function: Any, *args: Any) -> Any:
    """Run a sync service call in the database thread; its channel-layer sends are
    made here, from the event loop, so that thread never waits on Redis."""
    result, error, sends = await db_async(publishing.collecting_sends(function))(*args)
    await publishing.send_collected(sends)
    if error is not None:
        raise error
    return result


RENDERED_EVENTS = 4096  # rendered event texts kept per process: spectators share them
_rendered: OrderedDict[tuple, str] = OrderedDict()


def rendered_text(message: dict[str, Any], known: int | None, extra: dict[str, Any]) -> str:
    """A stream's message as JSON for a viewer who may know ``known`` (None: every
    name). An event is rendered once per process for everyone who knows the same
    cards: all of a race's spectators, say."""
    if message["type"] != "event" or extra:
        return json.dumps({**viewer_policy.render(message, known), **extra}, default=str)
    key = (message["game"], message["seq"], message.get("delayed_by"), "view" in message,
           message["action"].get("card"), known)
    text = _rendered.get(key)
    if text is None:
        text = _rendered[key] = json.dumps(viewer_policy.render(message, known), default=str)
        if len(_rendered) > RENDERED_EVENTS:
            _rendered.popitem(last=False)
    return text


_filled_in: OrderedDict[tuple, str | None] = OrderedDict()


def filled_in_text(game_id: str, stream: GameStream, before: int, after: int) -> str | None:
    """The "view" frame that fills in the board ``stream`` last showed, for a viewer
    who knew ``before`` and now knows ``after`` (None: no name on it changes). Built
    once per process for everyone who learns the same cards at the same event: all of
    a race's spectators when the last racer still playing sees a card."""
    key = (game_id, stream.last_seq, stream.delay, before, after)
    if key in _filled_in:
        return _filled_in[key]
    text = None
    view = redact_view(stream.last_view, after)
    if view != redact_view(stream.last_view, before):
        frame = {"type": "view", "game": game_id, "seq": stream.last_seq, "view": view}
        if stream.delay:
            frame["delayed_by"] = stream.delay
        text = json.dumps(frame)
    _filled_in[key] = text
    if len(_filled_in) > RENDERED_EVENTS:
        _filled_in.popitem(last=False)
    return text


@db_async
def load_knowledge(race_id: Any, actor: Actor) -> viewer_policy.RaceKnowledge | None:
    race = Race.objects.filter(pk=race_id).first()
    return viewer_policy.race_knowledge(race, actor) if race is not None else None


class RaceViewing:
    """For a socket that shows a running race's games: what its viewer may know
    (games.viewer_policy.RaceKnowledge, kept from the racers' events), each message
    rendered with it, and boards filled in when the viewer learns a card."""

    knowledge: viewer_policy.RaceKnowledge | None = None

    def known_for(self, game_id: str) -> int | None:
        if self.knowledge is None or game_id == self.knowledge.own_game:
            return None  # the viewer's own game, or nothing left to hide
        return self.knowledge.known()

    async def deliver(self, messages: list[dict[str, Any]], **extra: Any) -> None:
        for message in messages:
            game_id = message["game"]["id"] if message["type"] == "snapshot" else message["game"]
            if self.knowledge is not None and "_seen" in message:
                self.knowledge.update(game_id, message["seq"], message["_seen"], message["_live"])
            await self.send(text_data=rendered_text(message, self.known_for(game_id), extra))

    async def learn(self, message: dict[str, Any], streams: dict[str, GameStream]) -> None:
        """Take in a racer's event from the race's group: when it changes what this
        viewer may know, send again each board whose names it fills in (the event
        that turns a card up in the viewer's own game names it on every board)."""
        if self.knowledge is None:
            return
        event = message["event"]
        before = self.knowledge.known()
        self.knowledge.update(event["game"], event["seq"], message["seen"], message["live"])
        if event["game"] == self.knowledge.own_game and not message["live"] and self.knowledge.delay:
            for game_id, stream in streams.items():  # finished: watch the others as a spectator does
                if game_id != self.knowledge.own_game:
                    await stream.hold_back(self.knowledge.delay)
        after = self.knowledge.known()
        if after == before:
            return
        for game_id, stream in streams.items():
            if game_id == self.knowledge.own_game or stream.last_view is None:
                continue
            text = filled_in_text(game_id, stream, before, after)
            if text is not None:
                await self.send(text_data=text)


@db_async
def load_game(game_id: str, actor: Actor) -> tuple[Game | None, viewer_policy.Sight | None, ServiceError | None]:
    """The game, and how this viewer may see it (games.viewer_policy), or why not."""
    game = Game.objects.select_related("owner", "race", "daily").filter(pk=game_id).first()
    if game is None:
        return None, None, None
    try:
        return game, viewer_policy.sight(game, actor), None
    except ServiceError as refusal:
        return game, None, refusal


class GameConsumer(RaceViewing, ProtocolConsumer):
    """``/ws/games/<id>/?since=N``: the player plays here; anyone with the link
    watches. A snapshot (or the missed events) first, then every event live."""

    frames = socket_protocol.GAME_FRAMES

    async def connect(self) -> None:
        self.game_id = str(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = publishing.game_group(self.game_id)
        self.watching = False
        actor = self.actor()
        game, sight, refusal = await load_game(self.game_id, actor)
        await self.accept()
        if game is None:
            await self.send_json({"type": "error", "error": "not_found", "detail": _("there is no such game")})
            self.group = None
            return await self.close(code=CLOSE_NOT_FOUND)
        if refusal is not None:
            await self.send_json({"type": "error", "error": refusal.code, "detail": refusal.detail})
            self.group = None
            return await self.close(code=CLOSE_FORBIDDEN)
        self.player = sight.role == viewer_policy.PLAYER
        self.stream = GameStream(self.game_id, actor)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if game.race_id is not None and not self.player:
            self.knowledge = await load_knowledge(game.race_id, actor)
        if sight.delay or self.knowledge is not None:
            # The racers' events keep the knowledge; the race's end releases what is
            # held back (race_changed).
            self.race_group = publishing.race_group(game.race_id)
            await self.channel_layer.group_add(self.race_group, self.channel_name)
        await self.send_all(await self.stream.start(self.query_int("since")))
        if not self.player:
            self.watching = True
            count = await presence().join(self.game_id, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "game.watchers", "count": count})
            self.heartbeat = asyncio.ensure_future(self.keep_alive())
        else:
            await self.send_json({"type": "watchers", "count": await presence().count(self.game_id)})

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "race_group", None):
            await self.channel_layer.group_discard(self.race_group, self.channel_name)
        if getattr(self, "watching", False):
            self.heartbeat.cancel()
            count = await presence().leave(self.game_id, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "game.watchers", "count": count})

    async def keep_alive(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            await presence().heartbeat(self.game_id, self.channel_name)

    async def send_all(self, messages: list[dict[str, Any]]) -> None:
        await self.deliver(messages)

    async def on_sync(self, data: dict[str, Any]) -> None:
        if self.stream.delay:
            return await self.send_all(await self.stream.start())
        await self.send_all(await self.stream.start(data.get("since")))

    async def on_move(self, data: dict[str, Any]) -> None:
        await self.play(data, lambda actor: services.submit_move(self.game_id, actor, data["move"], data["seq"]))

    async def on_undo(self, data: dict[str, Any]) -> None:
        await self.play(data, lambda actor: services.submit_move(self.game_id, actor, {"type": "undo"}, data["seq"]))

    async def on_resign(self, data: dict[str, Any]) -> None:
        await self.play(data, lambda actor: services.resign(self.game_id, actor, data.get("seq")))

    async def play(self, data: dict[str, Any], action: Any) -> None:
        if not self.player:
            return await self.refuse("not_your_game", _("only the game's player can play it"), data)
        if not await self.may_play(data):
            return
        try:
            result = await run_service(action, self.actor())
        except ServiceError as exc:
            return await self.refuse(exc.code, exc.detail, data, **exc.extra)
        await self.send_json({"type": "ack", "id": data.get("id"), "seq": result["seq"], "move": result["move"],
                              "flipped": result["flipped"]})
        # Don't wait for the layer: the mover sees its own event at once, in order.
        await self.send_all(await self.stream.take({**events_of(result), "type": "event"}))

    async def game_event(self, message: dict[str, Any]) -> None:
        if self.knowledge is None and self.stream.next_in_line(message["seq"]):
            return await self.send(text_data=message["text"])  # every name may be shown: as it is
        if self.stream.seen(message["seq"]):
            return
        event = {**json.loads(message["text"]), "_seen": message["seen"], "_live": message["live"]}
        await self.send_all(await self.stream.take(event))

    async def game_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "count": message["count"]})

    async def resync(self) -> None:
        if self.stream.last_seq >= 0:
            await self.send_all(await self.stream.refresh())

    async def race_changed(self, message: dict[str, Any]) -> None:
        if message.get("finished"):
            self.knowledge = None  # everyone sees everything
            await self.send_all(self.stream.flush())

    async def racer_event(self, message: dict[str, Any]) -> None:
        # The game's own events come through the game group; every racer's event
        # may change what this viewer may know.
        await self.learn(message, {self.game_id: self.stream})

    async def race_watchers(self, message: dict[str, Any]) -> None:
        pass  # a game socket shows its own game's watchers


def events_of(result: dict[str, Any]) -> dict[str, Any]:
    """The event of a move result, as the channel layer would carry it."""
    return {"game": result["game"], "seq": result["seq"], "action": result["move"], "score": result["score"],
            "moves": result["moves"], "at": result.get("at"), "view": result["view"], "status": result["status"]}


@db_async
def lobby_listing(fresh: bool = True) -> dict[str, Any]:
    from realtime.lobby import lobby

    return lobby(fresh=fresh)


class LobbyConsumer(ProtocolConsumer):
    """``/ws/lobby/``: live public games and open races, refreshed when they change
    (at most once a second, however busy the site is) and every 15 seconds."""

    REFRESH_SECONDS = 1.0
    # Games leave the list by going idle, which no event announces: the listing is
    # sent again this often as well (the snapshot is shared by the process's sockets).
    PERIODIC_SECONDS = 15.0
    frames = socket_protocol.LOBBY_FRAMES

    async def connect(self) -> None:
        self.pending: asyncio.Future | None = None
        await self.accept()
        await self.channel_layer.group_add(publishing.LOBBY_GROUP, self.channel_name)
        await self.send_json({"type": "lobby", **await lobby_listing()})
        self.ticker = asyncio.ensure_future(self.tick())

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(publishing.LOBBY_GROUP, self.channel_name)
        if self.pending:
            self.pending.cancel()
        if getattr(self, "ticker", None):
            self.ticker.cancel()

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(self.PERIODIC_SECONDS)
            await self.dispatch({"type": "lobby.changed"})

    async def lobby_changed(self, message: dict[str, Any]) -> None:
        if self.pending is None or self.pending.done():
            self.pending = asyncio.ensure_future(self.refresh_soon())

    async def resync(self) -> None:
        await self.lobby_changed({"type": "lobby.changed"})

    async def refresh_soon(self) -> None:
        await asyncio.sleep(self.REFRESH_SECONDS)
        await self.send_json({"type": "lobby", **await lobby_listing(fresh=False)})

    async def on_refresh(self, data: dict[str, Any]) -> None:
        await self.send_json({"type": "lobby", **await lobby_listing()})


class NotFoundConsumer(ProtocolConsumer):
    """Any other WebSocket path: an error event and a close, not a server error."""

    async def connect(self) -> None:
        await self.accept()
        await self.send_json({"type": "error", "error": "not_found", "detail": _("there is no such endpoint")})
        await self.close(code=CLOSE_NOT_FOUND)


@db_async
def load_race(race_id: str, actor: Actor) -> tuple[Race | None, dict[str, Any] | None]:
    race = Race.objects.select_related("host").filter(pk=race_id).first()
    return race, (races.race_payload(race, actor) if race else None)


async def call_race_service(function: Any, *args: Any) -> Any:
    result = await run_service(function, *args)
    return result if isinstance(result, dict) else None


class RaceConsumer(RaceViewing, ProtocolConsumer):
    """``/ws/races/<id>/``: the race room. The race's state on every change, the
    countdown, and every racer's board live (spectators with the race's delay).
    Racers may join, mark ready, play and resign from here."""

    frames = socket_protocol.RACE_FRAMES

    async def connect(self) -> None:
        self.race_id = str(self.scope["url_route"]["kwargs"]["race_id"])
        self.group = publishing.race_group(self.race_id)
        self.streams: dict[str, GameStream] = {}
        self.clock: asyncio.Future | None = None
        self.watching = False
        race, payload = await load_race(self.race_id, self.actor())
        await self.accept()
        if race is None:
            await self.send_json({"type": "error", "error": "not_found", "detail": _("there is no such race")})
            self.group = None
            return await self.close(code=CLOSE_NOT_FOUND)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.show(payload)
        if not self.racer(payload):
            self.watching = True
            count = await presence().join(self.group, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "race.watchers", "count": count})

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.clock:
            self.clock.cancel()
        if getattr(self, "watching", False):
            count = await presence().leave(self.group, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "race.watchers", "count": count})

    def username(self) -> str | None:
        user = self.scope.get("user")
        return user.username if user is not None and user.is_authenticated else None

    def racer(self, payload: dict[str, Any]) -> bool:
        name = self.username()
        return name is not None and any(e["player"] == name for e in payload["entries"])

    async def show(self, payload: dict[str, Any]) -> None:
        """Send the race's state; open a stream for each racer's game not yet followed
        (the viewer policy sets each stream's delay)."""
        await self.send_json({"type": "race", "race": payload})
        finished = payload["phase"] == "finished"
        if finished:
            self.knowledge = None  # everyone sees everything
        elif self.knowledge is None and payload["phase"] in ("countdown", "running") and not payload["open_boards"]:
            self.knowledge = await load_knowledge(self.race_id, self.actor())
        for entry in payload["entries"]:
            game_id = entry["game"]
            if game_id and game_id not in self.streams:
                self.streams[game_id] = GameStream(game_id, self.actor())
                await self.deliver(await self.streams[game_id].start(), player=entry["player"])
        if finished:
            for stream in self.streams.values():
                await self.deliver(stream.flush())
        elif payload["ends_at"] and self.clock is None:
            self.clock = asyncio.ensure_future(self.end_on_time(payload["ends_at"]))

    async def end_on_time(self, ends_at: Any) -> None:
        """Every connected process ends the race when its clock runs out; the first
        one does it and the rest find it done."""
        from django.utils import timezone

        await asyncio.sleep(max(0.0, (ends_at - timezone.now()).total_seconds()) + 0.05)
        await run_service(races.finish_race, self.race_id)

    async def race_changed(self, message: dict[str, Any]) -> None:
        _race, payload = await load_race(self.race_id, self.actor())
        if payload is None:
            return
        if self.watching and self.racer(payload):
            # A spectator who joined is a racer now, not a watcher.
            self.watching = False
            count = await presence().leave(self.group, self.channel_name)
            await self.channel_layer.group_send(self.group, {"type": "race.watchers", "count": count})
        await self.show(payload)

    async def racer_event(self, message: dict[str, Any]) -> None:
        await self.learn(message, self.streams)
        stream = self.streams.get(message["event"]["game"])
        if stream is not None:
            event = {**message["event"], "_seen": message["seen"], "_live": message["live"]}
            await self.deliver(await stream.take(event))

    async def race_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "count": message["count"]})

    async def resync(self) -> None:
        """The race's state, what this viewer may know, and every board's missed events."""
        _race, payload = await load_race(self.race_id, self.actor())
        if payload is None:
            return
        self.knowledge = None  # read again from the database by show()
        await self.show(payload)
        for stream in self.streams.values():
            await self.deliver(await stream.refresh())

    async def act(self, data: dict[str, Any], function: Any, *args: Any) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return await self.refuse("not_authenticated", _("log in to race"), data)
        if not await self.may_play(data):
            return
        try:
            result = await call_race_service(function, self.race_id, user, *args)
        except ServiceError as exc:
            return await self.refuse(exc.code, exc.detail, data, **exc.extra)
        ack = {"type": "ack", "id": data.get("id")}
        if result is not None:
            ack.update(game=result["game"], seq=result["seq"], move=result["move"], flipped=result["flipped"])
        await self.send_json(ack)

    async def on_join(self, data: dict[str, Any]) -> None:
        await self.act(data, races.join_race)

    async def on_leave(self, data: dict[str, Any]) -> None:
        await self.act(data, races.leave_race)

    async def on_ready(self, data: dict[str, Any]) -> None:
        await self.act(data, races.set_ready, data.get("ready", True))

    async def on_resign(self, data: dict[str, Any]) -> None:
        await self.act(data, races.resign_race, data.get("seq"))

    async def on_rematch(self, data: dict[str, Any]) -> None:
        await self.act(data, races.confirm_rematch)

    async def on_move(self, data: dict[str, Any]) -> None:
        await self.act(data, races.play_in_race, data["move"], data["seq"])
