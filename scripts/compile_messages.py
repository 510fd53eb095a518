"""Compile gettext catalogs (.po -> .mo beside it) with Babel, so that `make run`,
`make test` and the Docker build need no GNU gettext. Refuses a catalog with a fuzzy or
malformed entry instead of compiling a half-translated one (Django would show English).

    python scripts/compile_messages.py locale/it/LC_MESSAGES/django.po [...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po


def compile_catalog(po_path: Path) -> list[str]:
    with po_path.open("rb") as source:
        catalog = read_po(source, abort_invalid=True)
    problems = [f"{po_path}: fuzzy: {message.id!r}" for message in catalog if message.id and message.fuzzy]
    problems += [f"{po_path}: {message.id!r}: {error}" for message, errors in catalog.check() for error in errors]
    if problems:
        return problems
    with po_path.with_suffix(".mo").open("wb") as target:
        write_mo(target, catalog, use_fuzzy=False)
    return []


def main(paths: list[str]) -> int:
    problems = [problem for path in paths for problem in compile_catalog(Path(path))]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or [str(p) for p in Path("locale").glob("*/LC_MESSAGES/*.po")]))
