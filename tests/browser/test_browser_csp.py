"""The Content-Security-Policy (no inline script or style) breaks no page: every page of
the web app and the API docs, driven in real headless Chromium, logs no violation, and
the live sockets open under it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_helpers import chromium, daphne_server, diagnose, new_page, sign_up, wait_seq  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

# Runs before the page's own scripts and outside its CSP (Playwright's init scripts).
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


class CspWatch:
    """Violations of one browser page, from the DOM event and from the console."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.violations: list[str] = []
        page.context.add_init_script(RECORD_VIOLATIONS)
        page.on("console", self.console)

    def console(self, message: Any) -> None:
        if "Content Security Policy" in message.text:
            self.violations.append(f"{self.page.url}: console: {message.text}")

    def goto(self, url: str) -> None:
        self.collect()
        response = self.page.goto(url)
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, (url, policy)

    def collect(self) -> None:
        """The current document's violations (each document starts a new list)."""
        found = self.page.evaluate("window.cspViolations || []")
        self.violations += [f"{self.page.url}: {line}" for line in found]
        self.page.evaluate("window.cspViolations = []")


def test_no_page_violates_the_content_security_policy(chromium, daphne_server):
    context, page, errors = new_page(chromium, daphne_server, "visitor")
    csp = CspWatch(page)
    with diagnose("csp", errors):
        csp.goto("/")
        page.wait_for_selector("#daily:not([aria-busy])")

        csp.goto("/signup/")
        sign_up(page, "cspuser")  # the sign-up form, then home, logged in

        # A game: its board and its socket (the first snapshot arrives over it).
        page.click("#new-game button[type=submit]")
        page.wait_for_url("**/games/**")
        wait_seq(page, 0)
        page.click("#board [data-testid=stock]")
        wait_seq(page, 1)
        game_url = page.url
        csp.goto(game_url.replace("/games/", "/watch/"))
        wait_seq(page, 1)

        csp.goto("/")
        page.click("#new-race-box summary")
        page.click("#new-race button[type=submit]")
        page.wait_for_url("**/races/**")
        page.wait_for_selector("#players li[data-player=cspuser]")

        csp.goto("/leaderboards/")
        page.wait_for_selector("#table:not([aria-busy])")
        for tab in ("vegas", "deal", "races"):
            page.click(f"[role=tab][data-tab={tab}]")
            page.wait_for_selector(f"[role=tab][data-tab={tab}][aria-selected=true]")
            page.wait_for_selector("#table:not([aria-busy])")

        csp.goto("/players/cspuser/")
        page.wait_for_selector("#totals dd")
        page.wait_for_selector("#chart-score svg, #chart-score .empty")

        page.click("[data-testid=logout]")
        page.wait_for_selector("text=Log in")
        csp.goto("/login/")
        page.fill("#username", "cspuser")
        page.fill("#password", "wrong password 1")
        page.click("#auth-form button[type=submit]")
        page.wait_for_selector("#auth-error:not(:empty)")

        # The API docs: Swagger UI loads the schema and opens an operation.
        csp.goto("/api/docs/")
        page.wait_for_selector(".swagger-ui .info .title")
        page.click(".opblock-summary >> nth=0")
        page.wait_for_selector(".opblock.is-open")
        csp.collect()

        assert not csp.violations, "Content-Security-Policy violations:\n" + "\n".join(csp.violations)
        errors.check()
    context.close()


def test_the_admin_works_under_the_content_security_policy(chromium, daphne_server):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("cspadmin", "cspadmin@example.com", "  admin pass phrase  ")
    context, page, errors = new_page(chromium, daphne_server, "admin")
    csp = CspWatch(page)
    with diagnose("csp-admin", errors):
        csp.goto("/admin/login/")
        page.fill("#id_username", "cspadmin")
        page.fill("#id_password", "  admin pass phrase  ")
        page.click("input[type=submit]")
        page.wait_for_selector("#site-name")
        for url in ("/admin/accounts/user/", "/admin/accounts/user/add/", "/admin/games/game/"):
            csp.goto(url)
            page.wait_for_selector("#content")
        csp.collect()
        assert not csp.violations, "Content-Security-Policy violations:\n" + "\n".join(csp.violations)
        errors.check()
    context.close()
