"""The Italian and Spanish catalogs are complete: `makemessages` run over a copy of
the code (templates, Python, JavaScript) finds no message that the committed catalogs
leave untranslated or fuzzy, and the compiled catalogs load."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent.parent
LANGUAGES = ["it", "es"]
DOMAINS = ["django", "djangojs"]
SKIP = {".venv", ".git", "test-artifacts", "staticfiles", "node_modules", ".pytest_cache", ".hypothesis",
        ".import_linter_cache", "bench", "deploy", ".stack"}


@pytest.fixture(scope="module")
def fresh_catalogs(tmp_path_factory) -> Path:
    """The repository's code and catalogs copied aside, then `make messages`' makemessages
    run there: what a translator would get from the code as it is."""
    if shutil.which("xgettext") is None:
        pytest.fail("GNU gettext is missing (makemessages needs xgettext): apt-get install -y gettext")
    copy = tmp_path_factory.mktemp("catalogs") / "repo"
    shutil.copytree(ROOT, copy, ignore=lambda directory, names: [n for n in names if n in SKIP or n.endswith(".mo")])
    env = {**os.environ, "SECRET_KEY": "makemessages-only", "DATABASE_URL": ""}
    for domain in DOMAINS:
        subprocess.run([sys.executable, "manage.py", "makemessages", "-d", domain, "-l", "it", "-l", "es",
                        "--no-obsolete", "--no-location", "-i", "tests/*", "-i", "scripts/*"],
                       cwd=copy, env=env, check=True, capture_output=True, timeout=300)
    return copy


def translated(message) -> bool:
    """Every form of it (plurals are tuples)."""
    forms = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(forms)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_makemessages_leaves_nothing_untranslated_or_fuzzy(fresh_catalogs, language, domain):
    path = fresh_catalogs / "locale" / language / "LC_MESSAGES" / f"{domain}.po"
    with path.open("rb") as source:
        catalog = read_po(source)
    messages = [message for message in catalog if message.id]
    assert len(messages) > 20, f"{path} holds only {len(messages)} messages"
    untranslated = [message.id for message in messages if not translated(message)]
    fuzzy = [message.id for message in messages if message.fuzzy]
    assert not untranslated, f"{language}/{domain}: untranslated: {untranslated[:20]}"
    assert not fuzzy, f"{language}/{domain}: fuzzy: {fuzzy[:20]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_forms_are_declared_and_the_catalogs_compile(language):
    for domain in DOMAINS:
        path = ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.po"
        with path.open("rb") as source:
            catalog = read_po(source)
        assert catalog.plural_forms == "nplurals=2; plural=(n != 1);", (path, catalog.plural_forms)
        assert path.with_suffix(".mo").exists(), f"{path} is not compiled (make catalogs)"
        assert path.with_suffix(".mo").stat().st_mtime >= path.stat().st_mtime, f"{path} changed after compiling"
