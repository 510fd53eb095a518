"""Sign up, log out, log in through the pages; the profile and leaderboard pages render
(empty states included) in real headless Chromium."""

import pytest

from tests.browser_helpers import PASSWORD, chromium, daphne_server, new_page, shot, sign_up  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_up_log_out_and_log_in(chromium, daphne_server):
    context, page, errors = new_page(chromium, daphne_server, "visitor")
    page.goto("/")
    page.click("text=Sign up")
    page.wait_for_url("**/signup/")
    # A refused sign-up says why, next to the form.
    page.fill("#username", "ab")
    page.fill("#password", PASSWORD)
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("#auth-error:not(:empty)")
    shot(page, "signup-error")

    sign_up(page, "carla")
    shot(page, "signup-done-home")
    page.click("[data-testid=logout]")
    page.wait_for_selector("text=Log in")
    assert page.locator("[data-testid=me]").count() == 0

    page.click("text=Log in")
    page.wait_for_url("**/login/")
    page.fill("#username", "carla")
    page.fill("#password", "wrong password 1")
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("#auth-error:has-text('do not match')")
    page.fill("#username", " carla ")  # the API takes names as sent; the page trims what was typed around it
    page.fill("#password", PASSWORD)
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("[data-testid=me]:has-text('carla')")

    page.click("[data-testid=me]")
    page.wait_for_url("**/players/carla/")
    page.wait_for_selector("#totals dd")
    shot(page, "profile")

    page.goto("/leaderboards/")
    page.wait_for_selector("#table:not([aria-busy])")
    for tab in ("vegas", "deal", "races"):
        page.click(f"[role=tab][data-tab={tab}]")
        page.wait_for_selector(f"[role=tab][data-tab={tab}][aria-selected=true]")
        page.wait_for_selector("#table:not([aria-busy])")
    shot(page, "leaderboards")
    errors.check()
    context.close()
