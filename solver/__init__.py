"""A full-information Klondike solver for this service's rules.

    >>> from engine import Game
    >>> from solver import solve
    >>> result = solve(Game.new("KL1-D1N-AAAAAAG"), budget_seconds=10)
    >>> result.result in ("win", "lose", "unknown")
    True

``solve`` sees every card (face-down ones and the stock order included). It returns
``"win"`` with a line of plain engine moves that has been replayed to a win on a copy
of the game, ``"lose"`` only when the whole (soundly pruned) search space was
exhausted, and ``"unknown"`` when the time or node budget ran out. See
``solver/search.py`` for the techniques and why each pruning rule is sound.

The search is pure Python (``search.py``). ``make`` also compiles that same file
with mypyc into ``_native`` (``scripts/build-solver.sh``), which searches the same
nodes in the same order about twice as fast; :data:`implementation` is the module
in use. Its depth-first searches run in the C core (``_core.c``, built by the same
script, used while current), node for node the same search again, 7–10 times as
fast as the mypyc build. The compiled module carries the SHA-256 of the sources it was built from
(``search.py`` and the engine modules: :mod:`solver.sources`) and is used only
while they still have that digest, so an edited solver or engine never runs stale
compiled code (it falls back to the pure module and warns).
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from types import ModuleType

from . import search, sources


def load_native(paths: list[Path] | None = None, name: str = "solver._native") -> ModuleType | None:
    """The compiled solver if it is built and was built from ``paths`` (default:
    :func:`solver.sources.files`) as they are now; else ``None`` (with a warning
    when it is stale)."""
    try:
        native = importlib.import_module(name)
    except ImportError:
        return None
    if getattr(native, "SOURCE_DIGEST", None) != sources.digest(paths):
        warnings.warn(
            f"{name} was compiled from other versions of search.py or the engine; using the "
            "pure-Python solver (rebuild it with `make solver`)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return native


#: The solver module in use: the compiled one when it is current, else ``search``.
implementation: ModuleType = load_native() or search
solve = implementation.solve
SolveResult = implementation.SolveResult

__all__ = ["SolveResult", "implementation", "load_native", "solve"]
