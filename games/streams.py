"""One game's event stream as one connection sees it.

A stream remembers the last sequence number it delivered: duplicates from the
channel layer are dropped and a gap is filled from Postgres, so a client sees every
event once, in order. With a spectator delay (races) the stream holds back the last
``delay`` events and shows the board as it was that many moves ago."""

from __future__ import annotations

from collections import deque
from typing import Any

from games.dbthreads import db_async

from games import events
from games.engine import Game as EngineGame
from games.engine import Move as EngineMove
from games.engine import card_name, public_view
from games.engine.views import hidden_cards
from games.models import ENGINE_ACTIONS, Game, Move

CATCH_UP_LIMIT = 200  # beyond this many missed events a client gets a full resync


@db_async
def catch_up(game_id: str, since: int | None, yours: bool = False) -> list[dict[str, Any]]:
    """The events after ``since`` from Postgres, the last one with the current board;
    or a snapshot when the client has nothing, or too much, to catch up."""
    from games.api import game_payload
    from games.services import Actor

    game = Game.objects.select_related("owner", "race", "daily").get(pk=game_id)
    if since is None or since < 0 or since > game.seq or game.seq - since > CATCH_UP_LIMIT:
        return [{"type": "snapshot", "seq": game.seq, "game": {**game_payload(game, Actor()), "yours": yours}}]
    rows = list(Move.objects.filter(game=game, seq__gt=since).order_by("seq"))
    if not rows:
        return []
    engine = game.engine()
    hidden = set() if game.reveals_everything else {card_name(c) for c in hidden_cards(engine)}
    messages = [events.event_of(game, row, None) for row in rows]
    for message in messages:
        if message["action"].get("card") in hidden:
            # An undo may have turned this card face down again since: don't name it.
            message["action"] = {**message["action"], "card": None}
    messages[-1] = events.event_of(game, rows[-1], events.view_of(game, engine))
    return messages


@db_async
def delayed_start(game_id: str, delay: int) -> tuple[EngineGame, int, list[dict[str, Any]], dict[str, Any]]:
    """The board ``delay`` events ago and the events held back since."""
    game = Game.objects.select_related("owner", "race", "daily").get(pk=game_id)
    shown = max(0, game.seq - delay)
    engine = game.engine_after(shown)
    held = [events.event_of(game, row, None)
            for row in Move.objects.filter(game=game, seq__gt=shown).order_by("seq")]
    header = {"id": str(game.id), "owner": game.owner.username if game.owner_id else None,
              "draw": game.draw, "scoring": game.scoring}
    return engine, shown, held, header


@db_async
def missing_events(game_id: str, after: int, before: int) -> list[dict[str, Any]]:
    game = Game.objects.select_related("race").get(pk=game_id)
    rows = Move.objects.filter(game=game, seq__gt=after, seq__lt=before).order_by("seq")
    return [events.event_of(game, row, None) for row in rows]


class GameStream:
    def __init__(self, game_id: str, delay: int = 0, yours: bool = False) -> None:
        self.game_id = game_id
        self.yours = yours
        self.delay = delay
        self.last_seq = -1           # last event delivered to the client
        self.received = -1           # last event taken in (ahead of last_seq when delayed)
        self.held: deque[dict[str, Any]] = deque()
        self.engine: EngineGame | None = None

    async def start(self, since: int | None = None) -> list[dict[str, Any]]:
        if not self.delay:
            messages = await catch_up(self.game_id, since, self.yours)
            if not messages and since is not None:
                self.last_seq = self.received = since  # nothing missed: live events follow on
            return self._delivered(messages)
        self.engine, self.last_seq, held, header = await delayed_start(self.game_id, self.delay)
        self.held = deque(held)
        self.received = held[-1]["seq"] if held else self.last_seq
        return [{"type": "snapshot", "seq": self.last_seq, "delayed_by": self.delay,
                 "game": {**header, "seq": self.last_seq, "view": public_view(self.engine)}}]

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
                return self._delivered(await catch_up(self.game_id, self.last_seq, self.yours))
            return self._delivered([event])
        if event["seq"] <= self.received:
            return []
        if event["seq"] > self.received + 1:
            self.held.extend(await missing_events(self.game_id, self.received, event["seq"]))
        self.held.append(event)
        self.received = event["seq"]
        return self._release(self.delay)

    def flush(self) -> list[dict[str, Any]]:
        """Show everything: the competition is over."""
        released = self._release(0)
        self.delay = 0
        return released

    def _release(self, keep: int) -> list[dict[str, Any]]:
        out = []
        while len(self.held) > keep:
            event = self.held.popleft()
            action = event["action"]
            if action["type"] in ENGINE_ACTIONS:
                self.engine.apply(EngineMove.from_json(action))
            delayed = {key: event[key] for key in ("type", "game", "seq", "action", "score", "moves", "at")}
            delayed.update(view=public_view(self.engine), delayed_by=keep)
            out.append(delayed)
            self.last_seq = event["seq"]
        return out

    def _delivered(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for message in messages:
            self.last_seq = self.received = message["seq"]
        return messages
