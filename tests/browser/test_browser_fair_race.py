"""Fair races in the browser (#33 item 4), in real Chromium against Daphne: a face-up
card the viewer has not seen is drawn as its own face, labelled for screen readers, with
a legend in the race room; it is filled in, with no reload, by the move that turns it up
in the viewer's own game (race page and a spectator's game page alike); a foundation
names only the run from the Ace the viewer has seen and counts the rest. An open-boards
race, opened from the lobby's form, says so there and in its room and names every card.

The races start in this process (races.set_ready) with a fixed deal; the pages load
them. Alice's and Dave's moves are played here (services.submit_move), Bob's through
his page. Services publish to the channel layer with async_to_sync, which may not run
on this thread while Playwright's event loop is set: they run on a thread of their own."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import pytest

from games import services
from races import services as races
from engine import DealCode, Game as EngineGame, Move, Scoring
from engine.cards import card_name
from races.models import Race
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, shot, sign_up, wait_seq  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

UNSEEN_LABEL = "face-up card you have not seen yet"
RANK_WORDS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def label(name: str) -> str:
    """What the board's cards.js cardLabel says for a card: "9 of spades"."""
    return f"{RANK_WORDS.get(name[0], name[0])} of {SUIT_WORDS[name[1]]}"


def drawn_cards(deal: DealCode, draws: int) -> list[str]:
    """The cards the first ``draws`` draws turn up, in order."""
    game = EngineGame.new(str(deal), ranked=True)
    cards = []
    for _ in range(draws):
        game.apply(Move.draw())
        cards.append(card_name(game.waste[-1]))
    return cards


def opening_flip(deal: DealCode) -> dict[str, Any] | None:
    """A column-to-column move of the deal's opening that turns a face-down card up."""
    game = EngineGame.new(str(deal), ranked=True)
    for move in game.legal_moves():
        if move.kind != "move" or not 0 <= move.to <= 6:
            continue
        source = next((i for i, column in enumerate(game.columns) if move.card in column), None)
        if source is not None and game.down[source] > 0 and game.columns[source].index(move.card) == game.down[source]:
            return move.to_json()
    return None


def ace_then_flip_deal() -> tuple[DealCode, dict[str, Any]]:
    """The first draw-one deal whose stock starts with an Ace and whose opening has a
    move that turns a card up: (deal, that move)."""
    for number in range(2000):
        deal = DealCode(number, 1, Scoring.NORMAL)
        flip = opening_flip(deal)
        if flip is not None and drawn_cards(deal, 1)[0][0] == "A":
            return deal, flip
    raise AssertionError("no deal in 0..1999 starts its stock with an Ace and opens with a flip")


def off_loop(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``function`` on a fresh thread (no event loop there) and return its result."""
    from django.db import connections

    def call() -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def start_race(deal: DealCode, monkeypatch: Any, host: Any, *others: Any, **options: Any) -> Race:
    """A race of these users on ``deal``, started at once (no countdown)."""
    monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 0)
    monkeypatch.setattr(races.DealCode, "random", staticmethod(lambda draw, scoring: deal))
    race = off_loop(races.create_race, host, max_players=len(others) + 1, time_limit=1800, **options)
    for user in others:
        off_loop(races.join_race, race.id, user)
    for user in (host, *others):
        off_loop(races.set_ready, race.id, user)
    return Race.objects.get(pk=race.id)


def game_of(race: Race, user: Any) -> str:
    return str(race.entries.get(user=user).game_id)


def play(game_id: str, user: Any, move: dict[str, Any], seq: int) -> None:
    off_loop(services.submit_move, game_id, services.Actor(user_id=user.pk), move, seq)


def user(name: str) -> Any:
    from django.contrib.auth import get_user_model

    model = get_user_model()
    return model.objects.filter(username=name).first() or model.objects.create_user(name)


def test_an_unseen_card_is_its_own_face_until_the_viewer_turns_it_up(chromium, daphne_server, monkeypatch):
    ctx_b, bob, errors_b = new_page(chromium, daphne_server, "bob")
    ctx_s, spectator, errors_s = new_page(chromium, daphne_server, "spectator")
    with diagnose("fair-race", errors_b, errors_s):
        sign_up(bob, "bob")
        alice = user("alice")
        deal, flip = ace_then_flip_deal()
        ace, second = drawn_cards(deal, 2)
        column = flip_source(deal, flip)
        race = start_race(deal, monkeypatch, alice, user("bob"))
        alice_game = game_of(race, alice)

        bob.goto(f"/races/{race.id}/")
        bob.wait_for_selector("#phase[data-phase=running]")
        wait_seq(bob, 0)
        bob.wait_for_selector(".opponent[data-player=alice][data-seq='0']")
        spectator.goto(f"/watch/{alice_game}/")
        wait_seq(spectator, 0)
        for page in (bob, spectator):
            page.evaluate("() => { window.sameDocument = true; }")

        # Alice draws an Ace and plays it home, turns a card up in a column, draws again:
        # three cards Bob has not seen.
        for seq, move in enumerate([{"type": "draw"}, {"type": "move", "card": ace, "to": "foundation"}, flip,
                                    {"type": "draw"}], start=1):
            play(alice_game, alice, move, seq)
        alices = ".opponent[data-player=alice]"
        bob.wait_for_selector(f"{alices}[data-seq='4']")
        unseen = bob.locator(f"{alices} .card.unseen")
        assert unseen.count() == 2
        assert {unseen.nth(i).get_attribute("aria-label") for i in range(2)} == {UNSEEN_LABEL}
        assert {unseen.nth(i).get_attribute("data-pile") for i in range(2)} == {"waste", column}
        assert bob.locator(f"{alices} .card[data-card='{ace}'], {alices} .card[data-card='{second}']").count() == 0
        moved = flip["card"]
        assert bob.locator(f"{alices} .card[data-card='{moved}']").count() == 1  # dealt face up: known
        assert bob.inner_text(f"{alices} .foundation-more").split() == ["+1", "home"]  # the Ace, by count only
        summary = bob.get_attribute(f"{alices} .board", "aria-label")
        assert "1 card on the foundations (1 you have not seen yet)" in summary
        assert bob.locator("#fair-legend").is_visible()
        assert "you have not seen it yet" in bob.inner_text("#fair-legend")
        assert bob.inner_text("#race-kind") == "Rated race"
        wait_seq(spectator, 4)
        assert spectator.locator("#board .card.unseen").count() == 2
        assert spectator.locator("#board .foundation-more").is_visible()
        assert spectator.locator("#fair-legend").is_visible()
        shot(bob, "fair-race-unseen-bob")

        # Bob draws the Ace through his page: named on his board and, with that event, on
        # Alice's foundation; her second draw and the card in her column stay unseen.
        bob.click("#board [data-testid=stock]")
        wait_seq(bob, 1)
        assert bob.locator(f"#board .card[data-card='{ace}']").count() == 1
        bob.wait_for_selector(f'{alices} .card[data-pile=f{ace[1]}][aria-label="{label(ace)}"]')
        assert bob.locator(f"{alices} .foundation-more").is_hidden()
        assert bob.locator(f"{alices} .card.unseen").count() == 2
        # He draws again: her waste card fills in; the column's card is all that is left.
        bob.click("#board [data-testid=stock]")
        wait_seq(bob, 2)
        bob.wait_for_selector(f'{alices} .card[data-pile=waste][aria-label="{label(second)}"]')
        assert bob.locator(f"{alices} .card.unseen").count() == 1
        assert bob.locator(f"{alices} .card.unseen").get_attribute("data-pile") == column
        assert bob.get_attribute(alices, "data-seq") == "4"  # no move of hers: the same board, filled in
        # A spectator is told a card once every racer still playing has seen it.
        spectator.wait_for_selector(f'#board .card[data-pile=waste][aria-label="{label(second)}"]')
        spectator.wait_for_selector(f'#board .card[data-pile=f{ace[1]}][aria-label="{label(ace)}"]')
        assert spectator.locator("#board .card.unseen").count() == 1
        for page in (bob, spectator):
            assert page.evaluate("() => window.sameDocument === true")  # never reloaded
        shot(bob, "fair-race-filled-in-bob")

        # Both give up: with the last racer's event nobody is left playing, everyone may
        # know everything, and Alice's board fills in on Bob's page.
        off_loop(services.resign, alice_game, services.Actor(user_id=alice.pk), 5)
        bob.click("#resign")
        bob.click("#resign:has-text('Really')")
        bob.wait_for_selector("#phase[data-phase=finished]")
        bob.wait_for_selector(f"{alices} .card[data-pile={column}][data-card='{turned_up(deal, flip)}']")
        assert bob.locator(".card.unseen").count() == 0
        assert bob.locator("#fair-legend").is_hidden()
        for errors in (errors_b, errors_s):
            errors.check()
    for context in (ctx_b, ctx_s):
        context.close()


def turned_up(deal: DealCode, flip: dict[str, Any]) -> str:
    """The card the flip move turns face up."""
    game = EngineGame.new(str(deal), ranked=True)
    game.apply(Move.from_json(flip))
    source = int(flip_source(deal, flip)[1:]) - 1
    return card_name(game.columns[source][-1])


def flip_source(deal: DealCode, flip: dict[str, Any]) -> str:
    """The column the flip move takes its card from (where the card turns up)."""
    game = EngineGame.new(str(deal), ranked=True)
    card = Move.from_json(flip).card
    return f"t{next(i for i, column in enumerate(game.columns) if card in column) + 1}"


def test_an_open_boards_race_says_so_and_names_every_card(chromium, daphne_server, monkeypatch):
    ctx_e, erin, errors_e = new_page(chromium, daphne_server, "erin")
    ctx_v, visitor, errors_v = new_page(chromium, daphne_server, "visitor")
    with diagnose("open-boards", errors_e, errors_v):
        sign_up(erin, "erin")
        dave = user("dave")
        off_loop(races.create_race, dave)  # a rated race, for the lobby's contrast

        # Erin opens an open-boards race from the lobby's form: it cannot be rated.
        erin.click("#new-race-box summary")
        erin.check("#new-race [name=open_boards]")
        assert erin.is_disabled("#new-race [name=rated]") and not erin.is_checked("#new-race [name=rated]")
        erin.fill("#new-race [name=max_players]", "2")
        erin.click("#new-race button[type=submit]")
        erin.wait_for_url("**/races/**")
        erin.wait_for_selector("#players li[data-player=erin]")
        race = Race.objects.get(host__username="erin")
        assert race.open_boards and not race.rated
        assert erin.inner_text("#race-kind") == "Open boards: every card is shown live (unrated)"

        # The lobby marks it open boards and unrated; the rated race carries neither mark.
        visitor.goto("/")
        listed = visitor.locator("[data-testid=races] li", has_text="erin's race")
        listed.locator("[data-testid=open-boards]").wait_for()
        assert listed.locator("[data-testid=unrated]").count() == 1
        other = visitor.locator("[data-testid=races] li", has_text="dave's race")
        assert other.locator("[data-testid=open-boards], [data-testid=unrated]").count() == 0

        # Dave joins; the race starts; he draws: Erin sees his card named, live.
        deal = DealCode(7, 1, Scoring.NORMAL)
        monkeypatch.setattr(races, "COUNTDOWN_SECONDS", 0)
        monkeypatch.setattr(races.DealCode, "random", staticmethod(lambda draw, scoring: deal))
        off_loop(races.join_race, race.id, dave)
        for racer in (user("erin"), dave):
            off_loop(races.set_ready, race.id, racer)
        erin.wait_for_selector("#phase[data-phase=running]")
        (drawn,) = drawn_cards(deal, 1)
        play(game_of(race, dave), dave, {"type": "draw"}, 1)
        erin.wait_for_selector(f".opponent[data-player=dave][data-seq='1'] .card[data-card='{drawn}']")
        assert erin.locator(".card.unseen").count() == 0
        assert erin.locator("#fair-legend").is_hidden()
        assert erin.inner_text("#race-kind") == "Open boards: every card is shown live (unrated)"
        shot(erin, "open-boards-erin")
        for errors in (errors_e, errors_v):
            errors.check()
    for context in (ctx_e, ctx_v):
        context.close()
