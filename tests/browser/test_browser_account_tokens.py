"""The account page in real headless Chromium: access tokens (one made, its secret shown
once, listed, used from a program, revoked) and the signed-in sessions (the other
browser signed out)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.browser_helpers import PASSWORD, chromium, daphne_server, new_page, shot, sign_up  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def me_with(server_url: str, secret: str) -> int:
    request = urllib.request.Request(f"{server_url}/api/accounts/me", headers={"Authorization": f"Token {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status if json.load(response)["username"] == "tokenkeeper" else 0
    except urllib.error.HTTPError as refused:
        return refused.code


def test_make_list_use_and_revoke_a_token_on_the_account_page(chromium, daphne_server):
    context, page, errors = new_page(chromium, daphne_server, "tokens")
    sign_up(page, "tokenkeeper")
    page.click("[data-testid=account]")
    page.wait_for_url("**/account/")
    page.wait_for_selector("#tokens:has-text('You have no access tokens')")
    # No name: the form says so and makes nothing.
    page.click("#token-form button[type=submit]")
    page.wait_for_selector("#token-error:not(:empty)")
    page.fill("#proof-password", PASSWORD)
    page.fill("#token-name", "scoreboard bot")
    page.check("input[name=scope][value=play]")
    page.select_option("#token-expiry", "90")
    page.click("#token-form button[type=submit]")
    page.wait_for_selector("[data-testid=token-secret]:not(:empty)")
    page.wait_for_selector("#tokens tbody tr")
    secret = page.locator("[data-testid=token-secret]").text_content()
    assert secret.startswith("kl_") and len(secret) == 67
    row = page.locator("#tokens tbody tr")
    assert row.count() == 1 and "scoreboard bot" in row.text_content() and "play" in row.text_content()
    assert secret[:15] in row.text_content() and secret not in page.locator("#tokens").text_content()
    shot(page, "account-tokens")
    assert me_with(daphne_server.url, secret) == 200
    # After a reload the secret is gone from the page for good.
    page.reload()
    page.wait_for_selector("#tokens tbody tr")
    assert secret not in page.content()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=revoke]")
    page.wait_for_selector("#tokens:has-text('You have no access tokens')")
    assert me_with(daphne_server.url, secret) == 401
    errors.check()
    context.close()


def test_see_where_you_are_signed_in_and_sign_the_other_browser_out(chromium, daphne_server):
    desk, desk_page, desk_errors = new_page(chromium, daphne_server, "desk")
    sign_up(desk_page, "traveller")
    phone, phone_page, phone_errors = new_page(chromium, daphne_server, "phone")
    phone_page.goto("/login/")
    phone_page.fill("#username", "traveller")
    phone_page.fill("#password", PASSWORD)
    phone_page.click("#auth-form button[type=submit]")
    phone_page.wait_for_selector("[data-testid=me]:has-text('traveller')")

    desk_page.goto("/account/")
    desk_page.wait_for_selector("#sessions tbody tr >> nth=1")
    rows = desk_page.locator("#sessions tbody tr")
    assert rows.count() == 2 and "this browser" in rows.nth(0).text_content()
    assert "Chrome on Linux" in rows.nth(1).text_content()
    shot(desk_page, "account-sessions")
    desk_page.click("[data-testid=sign-out]")
    desk_page.wait_for_selector("#sessions tbody tr >> nth=1", state="detached")
    assert rows.count() == 1 and "this browser" in rows.nth(0).text_content()
    # The phone is signed out: a reload shows the guest's links.
    phone_page.reload()
    phone_page.wait_for_selector("text=Log in")
    assert phone_page.locator("[data-testid=me]").count() == 0
    desk_errors.check()
    desk.close()
    phone.close()
