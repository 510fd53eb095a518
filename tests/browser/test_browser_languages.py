"""The service in Italian and Spanish, in Chromium: with the browser's locale set to
it-IT or es-ES, the pages a newcomer meets (home, sign-up, their own game and a game
watched, a race running, the leaderboards' tabs, a profile, the rules) hold no English
text (tests/language_check.py says what counts); a player signs up and plays in that
language; the switcher changes the language and it stays after a reload and on the
account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from races import services as races
from races.models import Race
from tests.browser_helpers import chromium, daphne_server, diagnose, new_page  # noqa: F401
from tests.language_check import english_on
from tests.matchmaking.helpers import player, stock_deals
from tests.realtime_helpers import DEAL, legal_moves, new_game, submit

pytestmark = pytest.mark.django_db(transaction=True)

LOCALES = {"it": "it-IT", "es": "es-ES"}


def look(page, path: str, ready: str, language: str, found: list[str]) -> None:
    page.goto(path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.lang") == language, path
    found += [f"{path}: {line}" for line in english_on(page, language)]


@pytest.mark.parametrize("language", LOCALES)
def test_a_reader_of_one_language_meets_no_english(chromium, daphne_server, language):
    stock_deals(scoring="vegas")
    stock_deals(draw=3, first=9500)
    (alice, _), (bob, _) = player("alice", 1600), player("bob", 1550)
    watched = new_game(alice, DEAL)
    for seq in (1, 2):
        submit(watched, alice, legal_moves(watched)[0], seq)
    running = races.start_race_now([alice, bob], draw=1, scoring="vegas")
    Race.objects.filter(pk=running.id).update(starts_at=timezone.now() - timedelta(seconds=1))
    found: list[str] = []
    ctx, page, errors = new_page(chromium, daphne_server, f"lang-{language}", locale=LOCALES[language])
    with diagnose(f"lang-{language}", errors):
        look(page, "/", "#top-games li, #top-games .empty", language, found)
        look(page, "/rules/", "article.rules-page h2", language, found)
        look(page, "/signup/", "#auth-form", language, found)
        look(page, f"/watch/{watched}/", "#board [data-card]", language, found)
        look(page, f"/races/{running.id}/", ".opponent [data-card]", language, found)
        for tab in ("daily", "vegas", "deal", "races"):
            look(page, f"/leaderboards/?tab={tab}", "#table table, #table .empty", language, found)
        look(page, "/players/alice/", "#modes table, #modes p", language, found)
        look(page, "/players/zqxw/", "[data-testid=profile-missing]", language, found)

        # A newcomer signs up and plays, all in their language.
        page.goto("/signup/")
        page.fill("#username", f"nuovo{language}")
        page.fill("#password", "correct horse battery 9")
        page.click("#auth-form button[type=submit]")
        page.wait_for_selector("[data-testid=me]")
        look(page, "/", "#new-game button[type=submit]", language, found)
        page.click("#new-game button[type=submit]")
        page.wait_for_url("**/games/**")
        page.wait_for_selector("#board [data-card]")
        page.click("[data-testid=stock]")
        page.wait_for_selector("#board[data-seq='1']")
        found += [f"own game: {line}" for line in english_on(page, language)]
        look(page, "/account/", "main form", language, found)

        # …and races against another player, on their own board beside hers.
        carla, _ = player(f"carla{language}", 1500)
        newcomer = get_user_model().objects.get(username=f"nuovo{language}")
        racing = races.start_race_now([newcomer, carla], draw=3, scoring="normal")
        Race.objects.filter(pk=racing.id).update(starts_at=timezone.now() - timedelta(seconds=1))
        look(page, f"/races/{racing.id}/", "#my-area:not([hidden]) #board [data-card]", language, found)
        look(page, f"/races/{racing.id}/", ".opponent [data-card]", language, found)
        errors.check()
    ctx.close()
    assert get_user_model().objects.get(username=f"nuovo{language}").language == language
    assert not found, "\n".join(found)


def test_the_switcher_changes_the_language_and_it_stays(chromium, daphne_server):
    ctx, page, errors = new_page(chromium, daphne_server, "switcher", locale="en-US")
    with diagnose("switcher", errors):
        page.goto("/leaderboards/")
        assert page.evaluate("document.documentElement.lang") == "en"
        page.select_option("[data-testid=language-select]", "it")
        page.click("[data-testid=language-submit]")
        page.wait_for_selector("html[lang=it]")
        assert "/leaderboards/" in page.url
        page.reload()
        assert page.evaluate("document.documentElement.lang") == "it"
        assert not english_on(page, "it")
        page.goto("/signup/")
        page.fill("#username", "switcher")
        page.fill("#password", "correct horse battery 9")
        page.click("#auth-form button[type=submit]")
        page.wait_for_selector("[data-testid=me]")
        page.select_option("[data-testid=language-select]", "es")
        page.click("[data-testid=language-submit]")
        page.wait_for_selector("html[lang=es]")
        errors.check()
    ctx.close()
    assert get_user_model().objects.get(username="switcher").language == "es"


def test_the_check_finds_a_string_left_in_english(chromium, daphne_server):
    """The check itself: on an Italian page, a message left untranslated and a sentence
    never marked for translation are both found; the page's own Italian is not."""
    ctx, page, errors = new_page(chromium, daphne_server, "check", locale="it-IT")
    page.goto("/leaderboards/")
    page.wait_for_selector("#table table, #table .empty")
    assert not english_on(page, "it")
    page.evaluate("""() => {
      const untranslated = document.createElement("button");
      untranslated.textContent = "Leaderboards";
      const unmarked = document.createElement("p");
      unmarked.setAttribute("aria-label", "Your opponent left the game");
      document.querySelector("main").append(untranslated, unmarked);
    }""")
    found = english_on(page, "it")
    assert any("'Leaderboards'" in line for line in found), found
    assert any("Your opponent left the game" in line for line in found), found
    assert len(found) == 2, found
    errors.check()
    ctx.close()
