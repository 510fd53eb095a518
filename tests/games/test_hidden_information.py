"""No response ever names a card that is face down while the game is live.

Whole games are played through the API with moves taken from the engine's legal
moves in the server's own state, undos and a few probes of hidden cards mixed in.
After every response the raw body, the game as its player and a spectator GET it,
and the player's game list are scanned for the wire name of every card that is face
down at that moment (face-down tableau cards and the whole stock), quoted as JSON
strings are. Ranked (random Vegas) games must also never show their deal code or
deal number while live, and their replay is refused until the end."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from engine import Game as EngineGame
from engine.cards import CARD_NAMES
from engine.moves import FOUNDATION, MOVE
from games.models import Game

pytestmark = pytest.mark.django_db

ACTIONS = 150


def hidden_cards(engine: EngineGame) -> list[str]:
    """The cards nobody may see now: face-down tableau cards and the whole stock."""
    cards = [card for column, down in zip(engine.columns, engine.down) for card in column[:down]]
    return [CARD_NAMES[card] for card in cards + list(engine.stock)]


def assert_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"] == code and isinstance(body["detail"], str), body


def covered_waste(engine: EngineGame) -> list[str]:
    visible = len(engine.visible_waste())
    return [CARD_NAMES[card] for card in engine.waste[: len(engine.waste) - visible]]


class Table:
    """One game under watch: its player, a spectator, and what must stay secret."""

    def __init__(self, create_body: dict[str, Any]) -> None:
        self.player, self.spectator = APIClient(), APIClient()
        self.secrets: list[str] = []  # strings that must not appear at all (a ranked code)
        self.checked = 0
        response = self.post("/api/games/", create_body)
        assert response.status_code == 201, response.content
        self.id = response.json()["id"]
        self.url = f"/api/games/{self.id}/"
        row = self.row()
        if row.kind == Game.Kind.RANKED:
            self.secrets = [row.code, row.code.split("-")[2]]
        self.scan(response, "create")
        self.seq = response.json()["seq"]

    def row(self) -> Game:
        return Game.objects.get(pk=self.id)

    def engine(self) -> EngineGame:
        return self.row().engine()

    def post(self, url: str, body: Any):
        return self.player.post(url, json.dumps(body), content_type="application/json")

    def scan(self, response, what: str, hidden: list[str] | None = None) -> None:
        """The raw body names none of the hidden cards and none of the secrets (while
        the game is live: ``hidden`` is None once it is over)."""
        text = response.content.decode()
        if hidden is None:
            row = self.row()
            if row.status != Game.Status.LIVE:
                return
            hidden = hidden_cards(row.engine())
        for name in hidden:
            assert f'"{name}"' not in text, f"{what}: face-down {name} in {text}"
        for secret in self.secrets:
            assert secret not in text, f"{what}: ranked deal code {secret} in {text}"
        self.checked += 1

    def look(self, step: int) -> Game:
        """Everything a client can read about the game now; returns the game's row."""
        row = self.row()
        if row.status != Game.Status.LIVE:
            return row
        hidden = hidden_cards(row.engine())
        game = self.player.get(self.url)
        assert game.status_code == 200
        self.scan(game, f"GET after step {step}", hidden)
        listing = self.player.get("/api/games/")
        assert listing.status_code == 200 and listing.json()["count"] == 1
        self.scan(listing, f"list after step {step}", hidden)
        if step % 10 == 0:
            watched = self.spectator.get(self.url)
            assert watched.status_code == 200 and watched.json()["yours"] is False
            self.scan(watched, f"spectator GET after step {step}", hidden)
        if self.secrets:
            assert game.json()["code"] is None and listing.json()["results"][0]["code"] is None
            if step % 25 == 0:
                replay = self.spectator.get(self.url + "replay")
                assert replay.status_code == 409 and replay.json()["error"] == "game_live"
                self.scan(replay, "replay", hidden)
        return row

    def act(self, move: dict[str, Any], *, via_undo_endpoint: bool = False):
        if via_undo_endpoint:
            response = self.post(self.url + "undo", {"seq": self.seq + 1})
        else:
            response = self.post(self.url + "moves", {"move": move, "seq": self.seq + 1})
        assert response.status_code in (200, 422), response.content
        if response.status_code == 200:
            assert response.json()["seq"] == self.seq + 1
            self.seq += 1
        return response


def choose(engine: EngineGame, rng: random.Random) -> dict[str, Any]:
    """A legal move, biased toward progress so that cards get turned up."""
    legal = engine.legal_moves()
    assert legal, "no legal move (the stock is used up in Vegas and nothing fits): resign"
    taking_back = [m for m in legal if m.kind == MOVE and engine.foundations[m.card // 13] == m.card % 13 + 1]
    progress = [m for m in legal if m.kind == MOVE and m not in taking_back and (
        m.to == FOUNDATION or (engine.waste and engine.waste[-1] == m.card) or any(
            card == m.card and position == down and down > 0
            for column, down in zip(engine.columns, engine.down) for position, card in enumerate(column)))]
    pool = progress if progress and rng.random() < 0.7 else legal
    move = rng.choice(pool)
    wire = move.to_json()
    if wire.get("to", "").startswith("t") and rng.random() < 0.3:
        wire["to"] = "tableau"  # a double tap: the server picks the column
    if "card" in wire and rng.random() < 0.2:
        wire["card"] = wire["card"].lower()
    return wire


def probe_hidden_cards(table: Table, engine: EngineGame, rng: random.Random, step: int) -> None:
    """Asking to move a hidden card is refused with a sentence that does not say
    where the card is: the same for a face-down card, a stock card and a covered
    waste card."""
    face_down = [CARD_NAMES[c] for column, down in zip(engine.columns, engine.down) for c in column[:down]]
    groups = [g for g in (face_down, [CARD_NAMES[c] for c in engine.stock], covered_waste(engine)) if g]
    details = set()
    for group in groups:
        card = rng.choice(group)
        response = table.act({"type": "move", "card": card, "to": rng.choice(["foundation", "t1", "tableau"])})
        assert response.status_code == 422, response.content
        body = response.json()
        assert body["error"] == "card_not_available", body
        details.add(body["detail"].replace(card, "XX"))
        table.scan(response, f"probe of {card} at step {step}")
    assert len(details) <= 1, details


def play_and_watch(table: Table, rng: random.Random, budget: int) -> int:
    """Play up to ``budget`` actions, scanning everything after each; then, if the game
    is still live, check that resigning reveals what was hidden. Returns the number of
    actions taken (fewer when a Vegas game runs out of moves)."""
    ranked = bool(table.secrets)
    row = table.look(0)
    steps = 0
    for step in range(1, budget + 1):
        engine = row.engine()
        legal = engine.legal_moves()
        if not legal and not engine.can_undo():
            break  # stuck: Vegas goes through the stock once
        steps = step
        roll = rng.random()
        if (roll < 0.15 or not legal) and engine.history:
            response = table.act({"type": "undo"}, via_undo_endpoint=rng.random() < 0.5)
            if response.status_code == 422:
                assert ranked and response.json()["error"] == "undo_refused_ranked", response.content
                if not legal:
                    break
        elif roll < 0.2:
            probe_hidden_cards(table, engine, rng, step)
            response = None
        else:
            response = table.act(choose(engine, rng))
            assert response.status_code == 200, response.content
        row = table.look(step)
        if response is not None:
            table.scan(response, f"step {step}", hidden_cards(row.engine()) if row.is_live else [])
        if not row.is_live:
            return steps
    assert table.checked >= 2 * steps
    assert_error(table.player.get(table.url + "replay"), 409, "game_live")

    # Once the game is over everything may be shown, and the very scan above finds it:
    # it looked for the right spelling.
    still_hidden = hidden_cards(row.engine())
    assert still_hidden
    resigned = table.post(table.url + "resign", {})
    assert resigned.status_code == 200
    shown = table.spectator.get(table.url).content.decode()
    assert all(f'"{name}"' in shown for name in still_hidden)
    assert table.spectator.get(table.url + "replay").status_code == 200
    if ranked:
        assert all(secret in shown for secret in table.secrets)
        assert table.player.get(table.url).json()["code"] == row.code
    return steps


@pytest.mark.parametrize("create_body, seed", [
    pytest.param({"code": "KL1-D1N-AAAAAAB"}, 1, id="draw1-normal"),
    pytest.param({"code": "KL1-D3N-AAAAAAH"}, 2, id="draw3-normal"),
    pytest.param({"draw": 1, "scoring": "vegas"}, 3, id="draw1-vegas-ranked"),
    pytest.param({"draw": 3, "scoring": "vegas"}, 4, id="draw3-vegas-ranked"),
])
def test_no_response_names_a_face_down_card(create_body, seed):
    """About ACTIONS actions per configuration; a random Vegas deal that gets stuck
    early is resigned and another one dealt (each with a new player, so that the
    list never holds a finished game, whose cards may all be shown)."""
    rng = random.Random(seed)
    played = tables = 0
    revealed = False
    while played < ACTIONS and tables < 6:
        table = Table(create_body)
        tables += 1
        assert bool(table.secrets) == (create_body.get("scoring") == "vegas")
        played += play_and_watch(table, rng, ACTIONS - played)
        engine = table.row().engine()
        revealed = revealed or engine.foundation_count > 0 or sum(engine.down) < 21
    assert played >= ACTIONS * 0.9, (played, tables)
    assert revealed  # cards were really turned up along the way


def test_a_retry_after_an_undo_names_no_card_that_is_face_down_again():
    """A retried move gets its first result, except when that result names cards an
    undo has since turned face down again (or put back in the stock): while the game
    is live no response names a face-down card."""
    player = APIClient()
    created = player.post("/api/games/", {"code": "KL1-D1N-AAAAAAJ"}, format="json").json()
    url = f"/api/games/{created['id']}/"

    def send(move: dict[str, Any], seq: int) -> Any:
        response = player.post(url + "moves", {"move": move, "seq": seq}, format="json")
        assert response.status_code == 200, response.content
        return response

    flip = {"type": "move", "card": "AC", "to": "foundation"}  # turns AD face up
    assert send(flip, 1).json()["flipped"] == "AD"
    send({"type": "undo"}, 2)  # AD is face down again
    send({"type": "draw"}, 3)  # 9D to the waste
    send({"type": "undo"}, 4)  # 9D back in the stock
    engine = Game.objects.get(pk=created["id"]).engine()
    hidden = hidden_cards(engine)
    assert "AD" in hidden and "9D" in hidden
    for move, seq in ((flip, 1), ({"type": "draw"}, 3)):
        # The first result can't be shown without those cards: the retry is told the
        # game has moved on (409 with the current seq), like any other stale seq.
        retried = player.post(url + "moves", {"move": move, "seq": seq}, format="json")
        assert retried.status_code == 409 and retried.json()["error"] == "seq_conflict", retried.content
        assert retried.json()["seq"] == 4
        text = retried.content.decode()
        leaked = [name for name in hidden if f'"{name}"' in text]
        assert leaked == [], f"retry of event {seq} names face-down {leaked}: {text}"
