"""A game played to a win through the page in headless Chromium: mouse drags for column
moves, taps for foundation moves and double taps where the engine's smart destination
is the wanted column, a few keyboard moves, and a refused move that snaps back. Then the
phone layout (360 px) with touch drags and taps."""

import re

import pytest

from tests.browser_helpers import (  # noqa: F401 (fixtures)
    card, chromium, daphne_server, drag_card, grab_point, new_page, shot, smart_column, touch_drag, wait_seq,
    winnable_deal,
)

pytestmark = pytest.mark.django_db(transaction=True)

CARD_NAME = re.compile(r"^(ace|king|queen|jack|[2-9]|10) of (spades|hearts|diamonds|clubs)$")


def start_game_from_code(page, code):
    page.goto("/")
    page.fill("#code-input", code)
    page.click("#play-code button[type=submit]")
    page.wait_for_url("**/games/**")
    wait_seq(page, 0)
    page.wait_for_selector("#board .card[data-card]")


def an_illegal_drag(code):
    """A face-up column card and a column it does not fit on, from the opening."""
    from engine import Game, card_name

    game = Game.new(code)
    legal = {(m.card, m.to) for m in game.legal_moves() if m.kind == "move"}
    for source, column in enumerate(game.columns):
        moving = column[-1]
        for target in range(7):
            if target != source and (moving, target) not in legal:
                return card_name(moving), f"t{source + 1}", f"t{target + 1}"
    raise AssertionError("every opening move is legal?")


def play(page, code, line, index, *, keyboard=False, touch=False):
    """Play line[index] through the page the way a person would."""
    move = line[index]
    if move["type"] in ("draw", "recycle"):
        if touch:
            page.locator("[data-testid=stock]").tap()
        else:
            page.click("[data-testid=stock]")
        return "stock"
    target = card(page, move["card"])
    target.scroll_into_view_if_needed()
    if move["to"] == "foundation":
        if keyboard:
            target.focus()
            page.keyboard.press("Enter")
            return "key"
        x, y = grab_point(target)
        if touch:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)
        return "tap"
    if not touch and index % 3 == 0 and smart_column(code, line[:index], move) == move["to"]:
        x, y = grab_point(target)
        page.mouse.dblclick(x, y)
        return "double-tap"
    if touch:
        touch_drag(page, move["card"], move["to"])
    else:
        drag_card(page, move["card"], move["to"])
    return "drag"


def test_win_a_game_through_the_page(chromium, daphne_server):
    code, line = winnable_deal(draw=1)
    context, page, errors = new_page(chromium, daphne_server, "player")
    start_game_from_code(page, code)

    # Nothing hidden reaches the browser: the page's HTML carries no deal data.
    html = context.request.get(page.url).text()
    assert "data-card" not in html and code not in html
    assert not re.search(r'"(up|tableau|stock|waste)"', html)

    # Every face-up card is a named button.
    labels = page.eval_on_selector_all("#board .card[role=button]", "els => els.map(e => e.getAttribute('aria-label'))")
    assert len(labels) == 7 and all(CARD_NAME.match(label) for label in labels), labels
    shot(page, "game-start")

    # A refused move shows at once, then snaps back with the server's reason.
    moving, home, elsewhere = an_illegal_drag(code)
    drag_card(page, moving, elsewhere)
    page.wait_for_selector("#message[data-kind=error]")
    assert "refused" in page.inner_text("#message")
    page.wait_for_function(f"""() => document.querySelector('#board .card[data-card="{moving}"]').dataset.pile === "{home}" """)
    assert page.get_attribute("#board", "data-seq") == "0"
    shot(page, "game-refused-move")

    ways = []
    keyboard_left = 3
    for index in range(len(line)):
        keyboard = line[index].get("to") == "foundation" and keyboard_left > 0
        keyboard_left -= keyboard
        ways.append(play(page, code, line, index, keyboard=keyboard))
        wait_seq(page, index + 1)
        if index == len(line) // 2:
            shot(page, "game-middle")
    assert {"stock", "tap", "drag", "double-tap", "key"} <= set(ways), ways

    page.wait_for_selector("#result:not([hidden]) h2:has-text('You won')")
    assert page.get_attribute("#board", "data-status") == "won"
    for suit in "SHDC":
        assert page.get_attribute(f'#board .card[data-card="K{suit}"]', "data-pile") == f"f{suit}"
    assert page.locator("#moves").inner_text() == str(len(line))
    shot(page, "game-won")
    errors.check()

    from games.models import Game

    game = Game.objects.get()
    assert game.status == "won" and game.seq == len(line) and game.foundation_count == 52
    assert page.inner_text("#score") == str(game.score)
    context.close()


def test_phone_layout_touch_and_keyboard(chromium, daphne_server):
    code, line = winnable_deal(draw=1)
    context, page, errors = new_page(chromium, daphne_server, "phone", viewport={"width": 360, "height": 740},
                                     device_scale_factor=2, is_mobile=True, has_touch=True)
    start_game_from_code(page, code)
    # Nothing sticks out sideways at 360 px.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    shot(page, "phone-start")

    ways = set()
    for index in range(12):
        ways.add(play(page, code, line, index, touch=True))
        wait_seq(page, index + 1)
    assert "drag" in ways and "stock" in ways, ways
    shot(page, "phone-after-touch-moves")

    # Keyboard: the focus ring is visible on a card, and Undo takes the last move back.
    page.locator("#board .card[role=button]").first.focus()
    outline = page.eval_on_selector(":focus", "el => getComputedStyle(el).outlineStyle")
    assert outline != "none"
    shot(page, "phone-keyboard-focus", full_page=False)
    page.keyboard.press("u")
    wait_seq(page, 13)
    assert page.locator("#moves").inner_text() == "13"
    errors.check()
    context.close()
