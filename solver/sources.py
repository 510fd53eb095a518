"""The files the compiled solver is built from, and their digest.

mypyc compiles ``search.py`` against the engine modules it imports and inlines their
``Final`` constants (``FOUNDATION``, ``MOVE``, …), so a build is current only while
both are as they were: the digest covers ``search.py`` and every engine module.
Run as a script (``python solver/sources.py``) it prints the digest, which is
how ``scripts/build-solver.sh`` records it without importing the package.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SEARCH = Path(__file__).with_name("search.py")
ENGINE = Path(__file__).parent.parent / "engine"


def files() -> list[Path]:
    """``search.py``, then the engine's modules by name."""
    return [SEARCH, *sorted(ENGINE.glob("*.py"))]


def digest(paths: list[Path] | None = None) -> str:
    """SHA-256 over each file's name and contents, in order."""
    sha = hashlib.sha256()
    for path in files() if paths is None else paths:
        data = path.read_bytes()
        sha.update(f"{path.name}\0{len(data)}\0".encode())
        sha.update(data)
    return sha.hexdigest()


if __name__ == "__main__":
    print(digest())
