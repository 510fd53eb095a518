"""The account page's guard and exit in real headless Chromium: two-factor sign-in
turned on with a code computed from the key it shows (the recovery codes shown, then a
log-in that asks for the code after the password); a copy of one's data downloaded and
the account deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.accounts.test_two_factor import totp
from tests.browser_helpers import PASSWORD, chromium, daphne_server, new_page, shot, sign_up  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_turn_two_factor_on_and_sign_in_with_a_code(chromium, daphne_server):
    context, page, errors = new_page(chromium, daphne_server, "two-factor")
    sign_up(page, "vault")
    page.goto("/account/")
    page.wait_for_selector("#twofa-state:has-text('Off')")
    page.click("[data-testid=twofa-start]")
    page.wait_for_selector("#twofa-error:has-text('password')")  # turning it on needs the password
    page.fill("#proof-password", PASSWORD)
    page.click("[data-testid=twofa-start]")
    page.wait_for_selector("[data-testid=twofa-secret]:not(:empty)")
    secret = page.locator("[data-testid=twofa-secret]").text_content()
    assert page.locator("#twofa-qr").get_attribute("src").startswith("data:image/svg+xml")
    page.fill("#twofa-code", totp(secret))
    page.click("#twofa-confirm button[type=submit]")
    page.wait_for_selector("[data-testid=recovery-codes] li >> nth=9")
    page.wait_for_selector("#twofa-state:has-text('On')")
    assert page.locator("#proof-code").is_visible()
    shot(page, "account-two-factor")

    page.click("[data-testid=logout]")
    page.wait_for_selector("text=Log in")
    page.goto("/login/")
    page.fill("#username", "vault")
    page.fill("#password", PASSWORD)
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("#code-step:not([hidden])")
    TOTPDevice.objects.update(last_t=-1)  # the app's next 30 seconds: a code not used yet
    page.fill("#code", "000000")
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("#auth-error:has-text('not right')")
    TOTPDevice.objects.update(throttling_failure_count=0, throttling_failure_timestamp=None)
    page.fill("#code", totp(secret))
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("[data-testid=me]:has-text('vault')")
    errors.check()
    context.close()


def test_download_a_copy_then_delete_the_account(chromium, daphne_server):
    context, page, errors = new_page(chromium, daphne_server, "leaving")
    sign_up(page, "farewell")
    page.goto("/account/")
    page.wait_for_selector("#sessions tbody tr")
    with page.expect_download() as download:
        page.click("[data-testid=export]")
    copy = json.loads(Path(download.value.path()).read_text())
    assert copy["profile"]["username"] == "farewell" and copy["games"] == []
    page.click("[data-testid=delete-account]")
    page.wait_for_selector("#delete-error:not(:empty)")  # no password: nothing happens
    page.fill("#delete-password", PASSWORD)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=delete-account]")
    page.wait_for_url(f"{daphne_server.url}/")
    page.wait_for_selector("text=Log in")
    page.goto("/login/")
    page.fill("#username", "farewell")
    page.fill("#password", PASSWORD)
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("#auth-error:has-text('do not match')")
    page.goto("/players/farewell/")
    page.wait_for_selector("text=no such player")
    errors.check()
    context.close()
