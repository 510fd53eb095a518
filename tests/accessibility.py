"""The accessibility check of the browser tests: axe-core (WCAG 2.0 and 2.1, levels A
and AA) run in the page, and a meta description on every page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import axe_playwright_python

AXE_SCRIPT = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text()
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Rules axe-core still calls experimental, so not run by its tags alone: WCAG 2.5.3
# (a control's name contains its visible text).
EXPERIMENTAL = {"label-content-name-mismatch": {"enabled": True}}


def violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations of WCAG 2.1 A and AA on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: the page's CSP (script-src 'self')
        # allows no inline <script>, and is left as it is.
        page.evaluate(AXE_SCRIPT + "\n;undefined")
    result = page.evaluate("async ([tags, rules]) => await axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                           "rules, resultTypes: ['violations']})", [WCAG_TAGS, EXPERIMENTAL])
    return result["violations"]


def describe(found: list[dict[str, Any]]) -> str:
    lines = []
    for violation in found:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {node['target']}: {node['failureSummary'].splitlines()[-1].strip()}")
    return "\n".join(lines)


def problems(page: Any) -> str:
    """Every accessibility problem of the page, as text ('' when there is none)."""
    text = describe(violations(page))
    description = page.evaluate("() => document.querySelector('meta[name=description]')?.content || ''")
    if len(description.strip()) < 20:
        text += "\nno meta description"
    return text.strip()
