"""The compiled solver (mypyc, ``games.solver._native``): in use after ``make``, the
same search as the pure-Python module node for node, and never used once stale."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import games.solver
from games.engine import DealCode, Game, Scoring
from games.solver import load_native, search


def test_the_compiled_solver_is_in_use() -> None:
    module = games.solver.implementation
    assert module is not search, "the compiled solver is not built or is stale: run `make solver`"
    assert module.__file__.endswith(".so")
    assert games.solver.solve is module.solve


@pytest.mark.parametrize("mode", ["D1N", "D3N", "D1V", "D3V"])
@pytest.mark.parametrize("number", [0, 3, 7])
def test_compiled_and_pure_solvers_search_the_same_nodes(mode: str, number: int) -> None:
    code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
    game = Game.new(code)
    pure = search.solve(game, budget_seconds=None, max_nodes=30_000)
    compiled = games.solver.implementation.solve(game, budget_seconds=None, max_nodes=30_000)
    assert (compiled.result, compiled.nodes, compiled.moves) == (pure.result, pure.nodes, pure.moves)
    assert compiled.nodes > 0


def test_a_build_from_another_source_is_not_used(tmp_path: Path) -> None:
    edited = tmp_path / "search.py"
    edited.write_bytes(games.solver.SOURCE.read_bytes() + b"\n# edited\n")
    with pytest.warns(RuntimeWarning, match="another version of search.py"):
        assert load_native(edited) is None


def test_the_build_from_this_source_is_used() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native = load_native()
    assert native is games.solver.implementation


def test_no_build_means_the_pure_solver() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_native(name="games.solver._not_built") is None
