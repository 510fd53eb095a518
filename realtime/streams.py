"""One game's event stream as one connection sees it.

A stream remembers the last sequence number it delivered: duplicates from the
channel layer are dropped and a gap is filled from Postgres, so a client sees every
event once, in order. With a spectator delay (races) the stream holds back the last
``delay`` events and shows the board as it was that many moves ago.

A stream's messages carry the public view and every card name, and what the game's
player had seen (``_seen``, ``_live``): the connection renders each one for its viewer
(``viewer_policy.render``), which in a fair race names only the cards they may know."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from realtime.database_threads import db_async

from games import viewer_policy, wire_format
from engine import Game as EngineGame
from engine import Move as EngineMove
from engine import card_name
from engine.views import hidden_cards
from games.models import ENGINE_ACTIONS, Game, Move
from games.viewer_policy import Actor

CATCH_UP_LIMIT = 200  # beyond this many missed events a client gets a full resync
LAST_SEQ = 2**31 - 1


def _load(game_id: str) -> Game:
    return Game.objects.select_related("owner", "race", "daily").get(pk=game_id)


def _snapshot(shown: viewer_policy.SeenGame) -> dict[str, Any]:
    from games.api import seen_payload

    snapshot = {"type": "snapshot", "seq": shown.seq, "game": seen_payload(shown)}
    if shown.sight.delay:
        snapshot["delayed_by"] = shown.sight.delay
    return snapshot


def _raw_sight(game: Game, actor: Actor) -> viewer_policy.Sight:
    """The policy's sight without its card names' limit: the connection applies that
    as it sends (the knowledge behind it changes with every racer's move)."""
    return replace(viewer_policy.sight(game, actor), known=None)


def _event(game: Game, row: Move, view: dict[str, Any] | None) -> dict[str, Any]:
    event = wire_format.event_of(game, row, view)
    event["_seen"], event["_live"] = row.cards_seen, row.seq < game.seq or game.is_live
    return event


def _catch_up(game: Game, since: int | None, actor: Actor) -> list[dict[str, Any]]:
    """The events after ``since`` from Postgres, the last one with the current board;
    or a snapshot when the client has nothing, or too much, to catch up."""
    if since is None or since < 0 or since > game.seq or game.seq - since > CATCH_UP_LIMIT:
        return [_snapshot(viewer_policy.seen(game, _raw_sight(game, actor)))]
    rows = list(Move.objects.filter(game=game, seq__gt=since).order_by("seq"))
    if not rows:
        return []
    engine = game.engine()
    hidden = set() if game.reveals_everything else {card_name(c) for c in hidden_cards(engine)}
    messages = [_event(game, row, None) for row in rows]
    for message in messages:
        if message["action"].get("card") in hidden:
            # An undo may have turned this card face down again since: don't name it.
            message["action"] = {**message["action"], "card": None}
    messages[-1] = _event(game, rows[-1], wire_format.view_of(game, engine))
    return messages


@db_async
def catch_up(game_id: str, since: int | None, actor: Actor) -> list[dict[str, Any]]:
    return _catch_up(_load(game_id), since, actor)


@db_async
def open_stream(game_id: str, actor: Actor, since: int | None) -> tuple[viewer_policy.Sight, list[dict[str, Any]],
                                                                         EngineGame | None, list[dict[str, Any]]]:
    """What a stream starts with, as the viewer policy decides now: live, the missed
    events or a snapshot; delayed, the board ``delay`` events ago, the events held
    back since, and the engine at the board shown (to play them forward)."""
    game = _load(game_id)
    sight = _raw_sight(game, actor)
    if not sight.delay:
        return sight, _catch_up(game, since, actor), None, []
    shown = viewer_policy.seen(game, sight)
    held = [_event(game, row, None) for row in Move.objects.filter(game=game, seq__gt=shown.seq).order_by("seq")]
    return sight, [_snapshot(shown)], shown.engine, held


@db_async
def missing_events(game_id: str, after: int, before: int) -> list[dict[str, Any]]:
    game = Game.objects.select_related("race").get(pk=game_id)
    rows = Move.objects.filter(game=game, seq__gt=after, seq__lt=before).order_by("seq")
    return [_event(game, row, None) for row in rows]


@db_async
def engine_at(game_id: str, seq: int) -> EngineGame:
    return Game.objects.get(pk=game_id).engine_after(seq)


class GameStream:
    """``actor``'s stream of one game; the viewer policy sets its delay when it starts."""

    def __init__(self, game_id: str, actor: Actor = viewer_policy.ANONYMOUS) -> None:
        self.game_id = game_id
        self.actor = actor
        self.sight = viewer_policy.Sight(viewer_policy.SPECTATOR)
        self.last_seq = -1           # last event delivered to the client
        self.received = -1           # last event taken in (ahead of last_seq when delayed)
        self.held: deque[dict[str, Any]] = deque()
        self.engine: EngineGame | None = None
        self.last_view: dict[str, Any] | None = None  # the board last shown, every name in it

    @property
    def delay(self) -> int:
        return self.sight.delay

    async def hold_back(self, delay: int) -> None:
        """From now on, show this game ``delay`` events late (a racer who has finished
        watches as a spectator does): the next ``delay`` events are held."""
        if self.delay or not delay or self.last_seq < 0:
            return
        self.engine = await engine_at(self.game_id, self.last_seq)
        self.held, self.received = deque(), self.last_seq
        self.sight = replace(self.sight, delay=delay)

    async def start(self, since: int | None = None) -> list[dict[str, Any]]:
        self.sight, messages, self.engine, held = await open_stream(self.game_id, self.actor, since)
        if not self.delay:
            self.held = deque()
            if not messages and since is not None:
                self.last_seq = self.received = since  # nothing missed: live events follow on
            return self._delivered(messages)
        self.held = deque(held)
        self.last_seq = messages[0]["seq"]
        self.received = held[-1]["seq"] if held else self.last_seq
        self.last_view = messages[0]["game"]["view"]
        return messages

    def next_in_line(self, seq: int) -> bool:
        """Whether the event ``seq`` is exactly the next one to show as it is (no
        delay, no gap); if so it counts as delivered."""
        if self.delay or seq != self.last_seq + 1:
            return False
        self.last_seq = self.received = seq
        return True

    def seen(self, seq: int) -> bool:
        """Whether the event ``seq`` was already taken in (a duplicate, such as a
        player's own move coming back through the channel layer)."""
        return seq <= self.received

    async def take(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Messages to send for an event from the channel layer."""
        if not self.delay:
            if event["seq"] <= self.last_seq:
                return []
            if event["seq"] > self.last_seq + 1:
                return self._delivered(await catch_up(self.game_id, self.last_seq, self.actor))
            return self._delivered([event])
        if event["seq"] <= self.received:
            return []
        if event["seq"] > self.received + 1:
            self.held.extend(await missing_events(self.game_id, self.received, event["seq"]))
        self.held.append(event)
        self.received = event["seq"]
        return self._release(self.delay)

    async def refresh(self) -> list[dict[str, Any]]:
        """Messages for the events the channel layer may have lost (it was down),
        read from Postgres."""
        if not self.delay:
            return self._delivered(await catch_up(self.game_id, self.last_seq, self.actor))
        missed = await missing_events(self.game_id, self.received, LAST_SEQ)
        if not missed:
            return []
        self.held.extend(missed)
        self.received = missed[-1]["seq"]
        return self._release(self.delay)

    def flush(self) -> list[dict[str, Any]]:
        """Show everything: the competition is over."""
        released = self._release(0)
        self.sight = replace(self.sight, delay=0)
        return released

    def _release(self, keep: int) -> list[dict[str, Any]]:
        out = []
        while len(self.held) > keep:
            event = self.held.popleft()
            action = event["action"]
            if action["type"] in ENGINE_ACTIONS:
                self.engine.apply(EngineMove.from_json(action))
            delayed = {key: event[key] for key in ("type", "game", "seq", "action", "score", "moves", "at",
                                                    "_seen", "_live") if key in event}
            delayed.update(view=self.sight.view(self.engine), delayed_by=keep)
            out.append(delayed)
            self.last_seq, self.last_view = event["seq"], delayed["view"]
        return out

    def _delivered(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for message in messages:
            self.last_seq = self.received = message["seq"]
            view = message["game"]["view"] if message["type"] == "snapshot" else message.get("view")
            if view is not None:
                self.last_view = view
        return messages
