"""The production image holds every package of the service and its catalogs: a new
room (matchmaking/ was missed once) or the translations cannot be left out of the
Dockerfile unnoticed. No Docker engine runs here, so the Dockerfile is read."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NOT_SHIPPED = {"tests", "bench"}


def copied() -> set[str]:
    text = (ROOT / "Dockerfile").read_text()
    runtime = text[text.index("FROM python:3.11-slim"):]
    return {match.group(1) for match in re.finditer(r"^COPY (?!--from)(\S+)", runtime, re.MULTILINE)}


def test_every_package_and_the_catalogs_are_copied_into_the_image():
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - NOT_SHIPPED
    missing = packages - copied()
    assert not missing, f"Dockerfile does not COPY {sorted(missing)}"
    assert "locale" in copied()


def test_the_image_compiles_the_catalogs_before_collecting_static_files():
    text = (ROOT / "Dockerfile").read_text()
    assert text.index("scripts/compile_messages.py") < text.index("collectstatic")
