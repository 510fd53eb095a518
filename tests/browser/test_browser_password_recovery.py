"""Email verification, password change and a forgotten password through the pages, in
real headless Chromium, with the mail read from a real local SMTP server."""

from __future__ import annotations

import pytest

from tests.browser_helpers import PASSWORD, chromium, daphne_server, new_page, shot  # noqa: F401
from tests.mail_helpers import link_in, mailbox  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

CHANGED = "a changed passphrase 31"
RESET = "a reset passphrase 47"


def log_in(page, password: str) -> None:
    page.goto("/login/")
    page.fill("#username", "rosa")
    page.fill("#password", password)
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("[data-testid=me]:has-text('rosa')")


def test_verify_the_address_change_the_password_then_reset_a_forgotten_one(chromium, daphne_server, mailbox):
    daphne_server.env.update(EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(mailbox.port), EMAIL_USE_TLS="false")
    daphne_server.restart()
    context, page, errors = new_page(chromium, daphne_server, "recovery")
    page.goto("/signup/")
    page.fill("#username", "rosa")
    page.fill("#password", PASSWORD)
    page.fill("#email", "rosa@example.com")
    page.click("#auth-form button[type=submit]")
    page.wait_for_selector("[data-testid=me]:has-text('rosa')")

    page.goto("/account/")
    page.wait_for_selector("#email-state:has-text('not verified')")
    assert page.locator("#email-warning").is_visible()
    page.goto(link_in(mailbox.wait_for("rosa@example.com", "verify your email")))
    page.wait_for_selector("#recovery-done:has-text('is verified')")
    page.goto("/account/")
    page.wait_for_selector("#email-state:has-text('verified')")
    assert not page.locator("#email-warning").is_visible()

    page.fill("#current-password", "not my password")
    page.fill("#new-password", CHANGED)
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("#password-error:has-text('not right')")
    page.fill("#current-password", PASSWORD)
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("#password-error:empty")
    mailbox.wait_for("rosa@example.com", "your password was changed")
    shot(page, "account-password")
    page.click("[data-testid=logout]")
    page.wait_for_selector("text=Log in")

    page.goto("/login/")
    page.click("text=Forgot your password?")
    page.wait_for_url("**/forgot/")
    page.fill("#email", "rosa@example.com")
    page.click("#recovery-form button[type=submit]")
    page.wait_for_selector("#recovery-done:has-text('on its way')")
    link = link_in(mailbox.wait_for("rosa@example.com", "reset your password"))
    page.goto(link)
    page.fill("#new-password", RESET)
    page.click("#recovery-form button[type=submit]")
    page.wait_for_selector("#recovery-done:has-text('is changed')")
    shot(page, "password-reset-done")
    # The link worked once (a fresh load: only the fragment would not reload the page).
    page.goto("/")
    page.goto(link)
    page.fill("#new-password", "one more passphrase 88")
    page.click("#recovery-form button[type=submit]")
    page.wait_for_selector("#recovery-error:has-text('used or too old')")
    log_in(page, RESET)
    # No secret of the links reached the server's log.
    secrets = link.split("#", 1)[1]
    assert secrets not in daphne_server.log.read_text(errors="replace")
    errors.check()
    context.close()
