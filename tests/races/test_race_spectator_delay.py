"""The race's spectator delay holds on every channel (games/viewer_policy.py).

A Vegas race with a spectator delay of k moves, served by a real Daphne process with
PostgreSQL and Redis: while it runs, a spectator (anonymous, or signed in without
racing) never receives a position, card, score or sequence number of a racer's game
newer than the racer's seq − k — not from the REST game, race, race list, replay and
lobby answers, not from the game, race, lobby and leaderboards sockets, not from the
Vegas board, profiles or statistics. Racers see each other live; once the race is
over everyone sees everything."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from typing import Any

import pytest

from races import services as races
from engine import DealCode, Game as EngineGame, Move as EngineMove, Scoring
from engine.views import face_up_mask, redact_view
from games.models import Game, Move
from tests.realtime_helpers import Daphne, database_url, make_user, submit, view_after
from tests.leaderboards.test_vegas_balance import find_path

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 3


def vegas_deal_with_late_foundation_moves() -> tuple[DealCode, list[dict[str, Any]]]:
    """A Vegas deal and a line of play whose last move puts a second card on the
    foundations, at least DELAY + 1 moves long: the spectator's board and score then
    differ from the racer's."""
    for number in range(200):
        deal = DealCode(number, 1, Scoring.VEGAS)
        path = find_path(EngineGame.new(deal, ranked=True), lambda e: e.foundation_count >= 2,
                         budget=3000, max_depth=20)
        if path and len(path) > DELAY:
            return deal, [move.to_json() for move in path]
    raise AssertionError("no deal with a short line to two foundation cards")


class Viewer:
    """REST and sockets on one Daphne process, as one viewer (a token or nobody)."""

    def __init__(self, server: Daphne, token: str | None = None) -> None:
        self.server, self.token = server, token
        self.received: list[Any] = []

    def get(self, path: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        request = urllib.request.Request(f"{self.server.http}{path}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, body = response.status, json.load(response)
        except urllib.error.HTTPError as error:
            status, body = error.code, json.load(error)
        self.received.append(body)
        return status, body

    def json(self, path: str) -> Any:
        status, body = self.get(path)
        assert status == 200, (path, status, body)
        return body

    async def frames(self, path: str, send: list[dict[str, Any]] = (), count: int = 1,
                     quiet: float = 0.7) -> list[dict[str, Any]]:
        """Open a socket, send ``send``, and collect what arrives until it goes quiet."""
        from websockets.asyncio.client import connect

        headers = {"Origin": f"http://127.0.0.1:{self.server.port}"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        collected: list[dict[str, Any]] = []
        async with connect(f"{self.server.ws}{path}", additional_headers=headers, open_timeout=10) as socket:
            for frame in send:
                await socket.send(json.dumps(frame))
            while True:
                try:
                    text = await asyncio.wait_for(socket.recv(), quiet if len(collected) >= count else 10)
                except asyncio.TimeoutError:
                    break
                collected.append(json.loads(text))
        self.received.extend(collected)
        return collected


def seqs_of(game_id: str, value: Any) -> list[int]:
    """Every sequence number anywhere in ``value`` that belongs to ``game_id``'s game."""
    found: list[int] = []
    if isinstance(value, dict):
        if (value.get("id") == game_id or value.get("game") == game_id) and isinstance(value.get("seq"), int):
            found.append(value["seq"])
        if value.get("type") == "snapshot" and isinstance(value.get("game"), dict) \
                and value["game"].get("id") == game_id:
            found.append(value["seq"])
        for item in value.values():
            found.extend(seqs_of(game_id, item))
    elif isinstance(value, list):
        for item in value:
            found.extend(seqs_of(game_id, item))
    return found


@pytest.fixture
def server(django_db_setup: Any):
    from django.core.cache import cache
    from django.db import connection

    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "these tests need Redis: run them with make test (REDIS_URL)"
    cache.clear()
    daphne = Daphne(database_url(connection.settings_dict), redis_url)
    daphne.wait_ready()
    yield daphne
    daphne.stop()


def test_a_spectator_never_gets_anything_newer_than_the_delay_allows(server, monkeypatch):
    deal, line = vegas_deal_with_late_foundation_moves()
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 0)
    monkeypatch.setattr(races.DealCode, "random", staticmethod(lambda draw, scoring: deal))
    (alice, alice_token), (bob, bob_token) = make_user("alice"), make_user("bob")
    _, carol_token = make_user("carol")  # signed in, not racing: a spectator too
    race = races.create_race(alice, scoring="vegas", spectator_delay=DELAY)
    races.join_race(race.id, bob)
    races.set_ready(race.id, alice)
    races.set_ready(race.id, bob)
    games = {e.user.username: str(e.game_id) for e in race.entries.select_related("user")}
    game_id, code = games["alice"], str(deal)
    for seq, move in enumerate(line, start=1):
        submit(game_id, alice, move, seq)
    played = [m.action for m in Move.objects.filter(game_id=game_id).order_by("seq")]
    live, shown = len(line), len(line) - DELAY
    row = Game.objects.get(pk=game_id)
    then = EngineGame.new(deal, ranked=True)
    for action in played[:shown]:
        then.apply(EngineMove.from_json(action))
    assert row.foundation_count == 2 and then.foundation_count < 2  # the delay hides progress
    # Bob has played nothing: spectators may name only the cards of the opening deal
    # (fair races: tests/races/test_fair_races.py).
    opening = face_up_mask(EngineGame.new(deal, ranked=True))

    def delayed_view(count: int) -> dict[str, Any]:
        return redact_view(view_after(code, played[:count], True), opening)

    spectators = [Viewer(server), Viewer(server, carol_token)]
    for viewer in spectators:
        # REST: the game, the race, the race list, the replay, the lobby.
        game = viewer.json(f"/api/games/{game_id}/")
        assert (game["seq"], game["moves"], game["score"], game["foundation_count"], game["status"]) == \
            (shown, then.moves, then.score, then.foundation_count, "live")
        assert game["view"] == delayed_view(shown) and game["code"] is None
        entry = next(e for e in viewer.json(f"/api/races/{race.id}/")["entries"] if e["player"] == "alice")
        assert (entry["seq"], entry["score"], entry["foundation_count"]) == (shown, then.score, then.foundation_count)
        listed = next(r for r in viewer.json("/api/races/") if r["id"] == str(race.id))
        assert next(e for e in listed["entries"] if e["player"] == "alice")["seq"] == shown
        status, refused = viewer.get(f"/api/games/{game_id}/replay")
        assert status == 409 and refused["error"] == "game_live"
        assert game_id not in json.dumps(viewer.json("/api/lobby"))
        # The boards: the Vegas balance moves when the race ends, not with each card.
        board = viewer.json("/api/leaderboards/vegas")["results"]
        assert {r["player"]: r["balance"] for r in board} == {"alice": -52, "bob": -52}

    async def sockets(viewer: Viewer) -> None:
        snapshot = (await viewer.frames(f"/ws/games/{game_id}/?since={live}"))[0]
        assert snapshot["type"] == "snapshot" and snapshot["seq"] == shown and snapshot["delayed_by"] == DELAY
        assert snapshot["game"]["view"] == delayed_view(shown)
        synced = await viewer.frames(f"/ws/games/{game_id}/", send=[{"type": "sync", "since": live}], count=2)
        assert [f["seq"] for f in synced if f["type"] == "snapshot"] == [shown, shown]
        room = await viewer.frames(f"/ws/races/{race.id}/", count=3)
        race_frame = next(f for f in room if f["type"] == "race")
        assert next(e for e in race_frame["race"]["entries"] if e["player"] == "alice")["seq"] == shown
        alice_snapshot = next(f for f in room if f["type"] == "snapshot" and f["player"] == "alice")
        assert alice_snapshot["seq"] == shown
        assert alice_snapshot["game"]["view"] == delayed_view(shown)
        lobby = await viewer.frames("/ws/lobby/")
        assert lobby[0]["type"] == "lobby" and game_id not in json.dumps(lobby)
        vegas = await viewer.frames("/ws/leaderboards/?board=vegas")
        assert {r["player"]: r["balance"] for r in vegas[0]["results"]} == {"alice": -52, "bob": -52}

    for viewer in spectators:
        asyncio.run(sockets(viewer))
        assert seqs_of(game_id, viewer.received) and max(seqs_of(game_id, viewer.received)) == shown

    # Racers see each other live; the player sees her own game live.
    assert Viewer(server, bob_token).json(f"/api/games/{game_id}/")["seq"] == live
    assert Viewer(server, alice_token).json(f"/api/games/{game_id}/")["seq"] == live
    own = Viewer(server, alice_token).json("/api/leaderboards/vegas/me")
    assert own["balance"] == -52 + 5 * 2  # her own balance, with what the race holds back

    # Bob resigns while alice plays on: his result waits for the race's end too.
    races.resign_race(race.id, bob)
    stats = Viewer(server).json("/api/players/bob/stats")
    assert stats["modes"] == [] and stats["score_history"] == []

    # The race ends: everyone sees everything.
    races.resign_race(race.id, alice)
    after = Viewer(server).json(f"/api/games/{game_id}/")
    assert after["seq"] == live + 1 and after["code"] == code and "cards" in after["view"]["tableau"][0]
    board = Viewer(server).json("/api/leaderboards/vegas")["results"]
    assert {r["player"]: r["balance"] for r in board} == {"alice": -52 + 10, "bob": -52}
    assert Viewer(server).json("/api/players/bob/stats")["modes"][0]["games"] == 1
    assert Viewer(server).get(f"/api/games/{game_id}/replay")[0] == 200
