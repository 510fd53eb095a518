"""Two-factor sign-in through the pages in real headless Chromium: turned on from the
account page with a code computed from the key it shows, the recovery codes shown,
then a log-in that asks for the code after the password."""

from __future__ import annotations

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
    page.wait_for_selector("[data-testid=twofa-secret]:not(:empty)")
    secret = page.locator("[data-testid=twofa-secret]").text_content()
    assert page.locator("#twofa-qr").get_attribute("src").startswith("data:image/svg+xml")
    page.fill("#twofa-code", totp(secret))
    page.click("#twofa-confirm button[type=submit]")
    page.wait_for_selector("[data-testid=recovery-codes] li >> nth=9")
    page.wait_for_selector("#twofa-state:has-text('On')")
    assert page.locator("#proof").is_visible()
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
