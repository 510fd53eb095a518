"""The account page's access tokens in real headless Chromium: make one (its secret shown
once), see it listed with its scope, use it from a program, revoke it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.browser_helpers import chromium, daphne_server, new_page, shot, sign_up  # noqa: F401

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
