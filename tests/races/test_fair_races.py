"""Fair races (RULES.md, "one deal, many players"; games/viewer_policy.py): no viewer
receives the name of a card they may not know, on any channel, at any moment.

Races of two and three racers on two real Daphne processes with PostgreSQL and Redis.
One racer plays many moves (seeded random play: draws, recycles, moves that uncover
cards), the others a few. After every move the test knows from the database what each
racer has seen, and scans every socket frame each viewer received since the previous
move — racers on the race socket and on the other racers' game sockets, spectators
(anonymous, signed in, a racer's second account) — and, every few moves, every REST
answer (game, race, race list, lobby, replay), for card names outside what that viewer
may know then. Foundations may name only the unbroken run from the Ace."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from races import services as races
from engine import DealCode, Scoring
from engine.cards import RANKS, SUITS
from engine.views import ALL_CARDS, UNSEEN
from games.models import Game
from races.models import Race
from leaderboards.models import Rating
from tests.realtime_helpers import Client, Daphne, adb, database_url, legal_moves, make_user, submit

pytestmark = pytest.mark.django_db(transaction=True)

CARD_NAME = re.compile(r"^[A2-9TJQK][SHDC]$")
NAME_BIT = {rank + suit: 1 << (s * 13 + r) for s, suit in enumerate(SUITS) for r, rank in enumerate(RANKS)}


def names_in(value: Any) -> set[str]:
    """Every card name anywhere in a JSON value (strings only: counts are numbers)."""
    if isinstance(value, str):
        return {value} if CARD_NAME.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(names_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(names_in(v) for v in value)) if value else set()
    return set()


def mask_of(names: set[str]) -> int:
    mask = 0
    for name in names:
        mask |= NAME_BIT[name]
    return mask


def names_of(mask: int) -> set[str]:
    return {name for name, bit in NAME_BIT.items() if mask & bit}


def foundation_runs_ok(value: Any, allowed: int) -> bool:
    """Every foundation top in ``value`` is the top of a run from the Ace that is
    wholly within ``allowed``."""
    if isinstance(value, dict):
        tops = value.get("foundations")
        if isinstance(tops, dict):
            for top in tops.values():
                if top is not None:
                    rank = RANKS.index(top[0])
                    if any(not allowed & NAME_BIT[RANKS[r] + top[1]] for r in range(rank + 1)):
                        return False
        return all(foundation_runs_ok(v, allowed) for v in value.values())
    if isinstance(value, list):
        return all(foundation_runs_ok(v, allowed) for v in value)
    return True


class Racing:
    """A started race and everything its viewers receive."""

    def __init__(self, servers: list[Daphne], players: int, *, delay: int = 0, open_boards: bool = False):
        self.servers = servers
        self.users = [make_user(f"racer{i}") for i in range(players)]
        host = self.users[0][0]
        self.race = races.create_race(host, spectator_delay=delay, rated=not open_boards, open_boards=open_boards,
                                      time_limit=3600)
        for user, _ in self.users[1:]:
            races.join_race(self.race.id, user)
        races.COUNTDOWN_SECONDS = 0
        for user, _ in self.users:
            races.set_ready(self.race.id, user)
        self.games = [str(self.race.entries.get(user=user).game_id) for user, _ in self.users]
        self.seq = [0] * players
        # A racer's second account and a signed-in non-racer are spectators like the anonymous one.
        self.spectator_tokens = {"anonymous": None, "signed in": make_user("watcher")[1],
                                 "second account": make_user("racer0-alt")[1]}
        self.clients: dict[str, list[Client]] = {}

    def racer_name(self, index: int) -> str:
        return f"racer {index}"

    async def connect(self) -> None:
        """Racers on the race socket and on each other racer's game socket;
        spectators on the race socket and on every game socket; spread over both
        server processes."""
        path = f"/ws/races/{self.race.id}/"
        turn = 0
        for index, (_, token) in enumerate(self.users):
            sockets = [Client(self.servers[turn % 2], path, token, f"racer{index} race")]
            turn += 1
            for other, game_id in enumerate(self.games):
                if other != index:
                    sockets.append(Client(self.servers[turn % 2], f"/ws/games/{game_id}/", token, f"racer{index} g{other}"))
                    turn += 1
            self.clients[self.racer_name(index)] = sockets
        for name, token in self.spectator_tokens.items():
            sockets = [Client(self.servers[turn % 2], path, token, f"{name} race")]
            sockets += [Client(self.servers[(turn + i) % 2], f"/ws/games/{g}/", token, f"{name} g{i}")
                        for i, g in enumerate(self.games)]
            turn += 1
            self.clients[name] = sockets
        for sockets in self.clients.values():
            for socket in sockets:
                await socket.connect()
        await self.settle()

    async def settle(self, quiet: float = 0.35, limit: float = 10.0) -> None:
        """Wait until no socket has received anything for ``quiet`` seconds."""
        deadline = time.monotonic() + limit
        counts = None
        while time.monotonic() < deadline:
            await asyncio.sleep(quiet)
            now = [len(s.messages) for sockets in self.clients.values() for s in sockets]
            if now == counts:
                return
            counts = now

    def marks(self) -> dict[str, list[int]]:
        return {viewer: [len(s.messages) for s in sockets] for viewer, sockets in self.clients.items()}

    def received_since(self, marks: dict[str, list[int]], viewer: str) -> list[dict[str, Any]]:
        return [m for socket, mark in zip(self.clients[viewer], marks[viewer]) for m in socket.messages[mark:]]

    def seen(self) -> list[tuple[int, bool]]:
        rows = {str(g.id): (g.cards_seen, g.status == Game.Status.LIVE) for g in Game.objects.filter(race=self.race)}
        return [rows[g] for g in self.games]

    def allowed(self, viewer: str, seen: list[tuple[int, bool]]) -> int:
        """What ``viewer`` may know now: a racer still playing, what they have seen;
        anyone else, what every racer still playing has seen."""
        if viewer.startswith("racer "):
            own, live = seen[int(viewer.split()[1])]
            if live:
                return own
        known = ALL_CARDS
        for mask, live in seen:
            if live:
                known &= mask
        return known

    def play(self, index: int, rng: random.Random) -> None:
        moves = legal_moves(self.games[index])
        cards = [m for m in moves if m["type"] == "move"]
        move = rng.choice(cards) if cards and rng.random() < 0.6 else rng.choice(moves)
        self.seq[index] += 1
        submit(self.games[index], self.users[index][0], move, self.seq[index])

    def rest(self, viewer: str, path: str) -> Any:
        token = self.users[int(viewer.split()[1])][1] if viewer.startswith("racer ") else self.spectator_tokens[viewer]
        server = self.servers[len(path) % 2]
        request = urllib.request.Request(f"{server.http}{path}",
                                         headers={"Authorization": f"Token {token}"} if token else {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            return json.load(error)

    def rest_answers(self, viewer: str) -> list[Any]:
        paths = [f"/api/races/{self.race.id}/", "/api/races/", "/api/lobby"]
        paths += [f"/api/games/{g}/" for g in self.games] + [f"/api/games/{g}/replay" for g in self.games]
        if viewer.startswith("racer "):
            own = self.games[int(viewer.split()[1])]
            paths = [p for p in paths if own not in p]  # their own game is theirs to see
        return [self.rest(viewer, path) for path in paths]

    async def close(self) -> None:
        for sockets in self.clients.values():
            for socket in sockets:
                await socket.close()


def own_game_frames(racing: Racing, viewer: str, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames about anyone's game but the viewer's own."""
    if not viewer.startswith("racer "):
        return frames
    own = racing.games[int(viewer.split()[1])]

    def about(frame: dict[str, Any]) -> str | None:
        game = frame.get("game")
        return game.get("id") if isinstance(game, dict) else game

    return [f for f in frames if about(f) != own and f.get("type") != "ack"]


def check_step(racing: Racing, marks: dict[str, list[int]], *, rest: bool) -> dict[str, list[dict[str, Any]]]:
    seen = racing.seen()
    received = {}
    for viewer in racing.clients:
        allowed = racing.allowed(viewer, seen)
        frames = own_game_frames(racing, viewer, racing.received_since(marks, viewer))
        if rest:
            frames = frames + racing.rest_answers(viewer)
        leaked = names_in(frames) - names_of(allowed)
        assert not leaked, f"{viewer} received {sorted(leaked)} they may not know"
        assert foundation_runs_ok(frames, allowed), f"{viewer}: a foundation named a card above its known run"
        received[viewer] = frames
    return received


@pytest.fixture(scope="module")
def servers(django_db_setup: Any, django_db_blocker: Any):
    from django.db import connection

    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "these tests need Redis: run them with make test (REDIS_URL)"
    with django_db_blocker.unblock():
        url = database_url(connection.settings_dict)
    pair = [Daphne(url, redis_url), Daphne(url, redis_url)]
    for server in pair:
        server.wait_ready()
    yield pair
    for server in pair:
        server.stop()


@pytest.fixture(autouse=True)
def fixed_deal(monkeypatch):
    """Reproducible races: one deal, no countdown (the moves come from seeded play)."""
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 0)
    monkeypatch.setattr(races.DealCode, "random", staticmethod(lambda draw, scoring: DealCode(12345, draw, Scoring(scoring))))


def test_a_race_of_two_names_no_card_a_viewer_has_not_seen(servers):
    racing = Racing(servers, 2, delay=2)  # spectators a couple of events late
    rng = random.Random(11)

    async def body() -> None:
        await racing.connect()
        filled_in = 0
        for step in range(70):
            mover = 0 if step < 55 or step % 3 else 1  # racer 0 races ahead; racer 1 plays a few late moves
            before = await adb(racing.seen)()
            marks = racing.marks()
            await adb(racing.play)(mover, rng)
            await racing.settle()
            received = await adb(check_step)(racing, marks, rest=step % 10 == 0)
            if mover == 1:
                # A card racer 1 has just turned up is named on racer 0's board with this event.
                learned = names_of((await adb(racing.seen)())[1][0] & ~before[1][0])
                on_board = learned & names_in(await adb(current_view)(racing.games[0]))
                if on_board:
                    named = names_in(own_game_frames(racing, "racer 1", received["racer 1"]))
                    assert on_board <= named, f"racer 1 was not told {sorted(on_board - named)}"
                    filled_in += 1
        # The scan was not vacuous: placeholders were sent, and names were filled in.
        frames = [m for s in racing.clients["anonymous"] for m in s.messages]
        assert sum(m["type"] == "event" for m in frames) >= 70 and UNSEEN in json.dumps(frames)
        assert filled_in, "racer 1 should have turned up a card showing on racer 0's board"
        await racing.close()

    asyncio.run(body())
    # The race over, everyone sees everything.
    races.resign_race(racing.race.id, racing.users[0][0])
    races.resign_race(racing.race.id, racing.users[1][0])
    final = racing.rest("anonymous", f"/api/games/{racing.games[0]}/")
    assert "cards" in final["view"]["tableau"][0] and UNSEEN not in json.dumps(final)


def current_view(game_id: str) -> dict[str, Any]:
    from engine import public_view

    return public_view(Game.objects.get(pk=game_id).engine())


def test_a_race_of_three_hides_a_card_from_spectators_until_every_racer_still_playing_has_seen_it(servers):
    racing = Racing(servers, 3)
    rng = random.Random(7)

    async def body() -> None:
        await racing.connect()
        for step in range(45):
            mover = 0 if step % 4 else 1  # racer 2 watches
            marks = racing.marks()
            await adb(racing.play)(mover, rng)
            await racing.settle()
            await adb(check_step)(racing, marks, rest=step % 15 == 0)
        seen = await adb(racing.seen)()
        on_boards = names_in([await adb(current_view)(game) for game in racing.games[:2]])
        two_of_three = names_of(seen[0][0] & seen[1][0] & ~seen[2][0]) & on_boards
        assert two_of_three, "the play should leave cards on the boards that two racers only have seen"
        # Racer 2 resigns: a racer who has finished watches as a spectator does, and
        # what racers 0 and 1 have both seen may now be shown to spectators.
        marks = racing.marks()
        await adb(races.resign_race)(racing.race.id, racing.users[2][0])
        await racing.settle()
        received = await adb(check_step)(racing, marks, rest=False)
        told = names_in(received["anonymous"])  # by the sockets, at once
        assert two_of_three <= told, f"spectators should now be told {sorted(two_of_three - told)}"
        await adb(check_step)(racing, racing.marks(), rest=True)
        await racing.close()

    asyncio.run(body())


def test_an_open_boards_race_names_every_card_live_and_changes_no_rating(servers):
    racing = Racing(servers, 2, open_boards=True)
    rng = random.Random(3)
    for _ in range(25):
        racing.play(0, rng)
    expected = names_in(current_view(racing.games[0]))

    async def body() -> list[dict[str, Any]]:
        await racing.connect()
        frames = [m for s in racing.clients["anonymous"] for m in s.messages]
        await racing.close()
        return frames

    frames = asyncio.run(body())
    snapshot = next(m for m in frames if m["type"] == "snapshot" and m["game"]["id"] == racing.games[0])
    assert names_in(snapshot["game"]["view"]) == expected and UNSEEN not in json.dumps(frames)
    anonymous = racing.rest("anonymous", f"/api/games/{racing.games[0]}/")
    assert names_in(anonymous["view"]) == expected
    race = racing.rest("anonymous", f"/api/races/{racing.race.id}/")
    assert race["open_boards"] is True and race["rated"] is False
    for user, _ in racing.users:
        races.resign_race(racing.race.id, user)
    assert Race.objects.get(pk=racing.race.id).status == Race.Status.FINISHED
    assert not Rating.objects.filter(user__in=[u for u, _ in racing.users]).exists()


def test_open_boards_only_for_unrated_races():
    from api.errors import ServiceError

    host, _ = make_user("host")
    with pytest.raises(ServiceError) as refused:
        races.create_race(host, open_boards=True)
    assert refused.value.code == "invalid"


def test_the_api_opens_boards_only_for_unrated_races():
    from rest_framework.test import APIClient

    _, token = make_user("host")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    refused = client.post("/api/races/", {"open_boards": True, "rated": True}, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid"
    opened = client.post("/api/races/", {"open_boards": True}, format="json").json()
    assert (opened["open_boards"], opened["rated"]) == (True, False)
    fair = client.post("/api/races/", {}, format="json").json()
    assert (fair["open_boards"], fair["rated"]) == (False, True)


def test_a_sockets_knowledge_follows_each_racers_event_though_it_is_kept_between_them():
    """A socket asks what its viewer may know several times per event; the answer is
    kept, and every racer's event that changes it counts at once."""
    from games.viewer_policy import RaceKnowledge

    spectator = RaceKnowledge(own_game=None, delay=0, opening=0b1,
                              games={"a": [(0, 0b011, True)], "b": [(0, 0b101, True)]})
    assert spectator.known() == 0b001
    spectator.update("b", 1, 0b111, True)
    assert spectator.known() == 0b011
    spectator.update("b", 1, 0b001, True)  # the same event again: nothing changes
    assert spectator.known() == 0b011
    spectator.update("a", 1, 0b011, False)  # racer a has finished: only b counts
    assert spectator.known() == 0b111


def test_spectators_who_learn_the_same_cards_share_one_filled_in_board():
    """The board filled in when the common knowledge grows is built once per process
    for every spectator; a viewer who learns something else gets their own."""
    from realtime.consumers import filled_in_text
    from engine import Game as EngineGame
    from engine import public_view
    from engine.views import face_up_mask
    from realtime.streams import GameStream

    engine = EngineGame.new(DealCode(12345, 1, Scoring.NORMAL), ranked=True)
    shown = face_up_mask(engine)
    card = shown & -shown  # one face-up card of the board
    streams = [GameStream("game"), GameStream("game")]
    for stream in streams:  # two spectators' sockets showing the same board
        stream.last_seq, stream.last_view = 3, public_view(engine)
    before, after = ALL_CARDS & ~card, ALL_CARDS
    first, second = (filled_in_text("game", stream, before, after) for stream in streams)
    assert first is second and names_of(card) <= names_in(json.loads(first)["view"])
    rest = shown & ~card
    unseen = rest & -rest  # another face-up card, which this racer has not seen
    racer = filled_in_text("game", streams[0], before & ~unseen, after & ~unseen)
    assert racer != first and names_of(card) <= names_in(json.loads(racer)["view"])
    face_down = ALL_CARDS & ~shown
    off_board = face_down & -face_down
    assert filled_in_text("game", streams[0], ALL_CARDS & ~off_board, ALL_CARDS) is None  # no name changes
