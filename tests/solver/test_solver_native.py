"""The compiled solver (mypyc, ``solver._native``, with the C core): in use after
``make``, the same search as the pure-Python module node for node, and never used once
stale."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import solver
from engine import DealCode, Game, Scoring
from solver import load_native, search, sources


def test_the_compiled_solver_is_in_use() -> None:
    module = solver.implementation
    assert module is not search, "the compiled solver is not built or is stale: run `make solver`"
    assert module.__file__.endswith(".so")
    assert solver.solve is module.solve


@pytest.mark.parametrize("mode", ["D1N", "D3N", "D1V", "D3V"])
@pytest.mark.parametrize("number", [0, 3, 7])
def test_compiled_and_pure_solvers_search_the_same_nodes(mode: str, number: int, monkeypatch) -> None:
    """``solve`` end to end (the schedule, every search, the replay): pure Python, the
    mypyc build, and the mypyc build with the C core (the default) agree node for node."""
    code = str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL))
    game = Game.new(code)
    compiled = solver.implementation
    with_core = compiled.solve(game, budget_seconds=None, max_nodes=30_000)
    monkeypatch.setattr(search, "USE_CORE", False)
    monkeypatch.setattr(compiled, "USE_CORE", False)
    pure = search.solve(game, budget_seconds=None, max_nodes=30_000)
    mypyc = compiled.solve(game, budget_seconds=None, max_nodes=30_000)
    assert (mypyc.result, mypyc.nodes, mypyc.moves) == (pure.result, pure.nodes, pure.moves)
    assert (with_core.result, with_core.nodes, with_core.moves) == (pure.result, pure.nodes, pure.moves)
    assert pure.nodes > 0


def edited(tmp_path: Path, original: Path) -> Path:
    copy = tmp_path / original.name
    copy.write_bytes(original.read_bytes() + b"\n# edited\n")
    return copy


def test_a_build_from_another_search_py_is_not_used(tmp_path: Path) -> None:
    search_py, *engine = sources.files()
    with pytest.warns(RuntimeWarning, match="other versions of search.py or the engine"):
        assert load_native([edited(tmp_path, search_py), *engine]) is None


def test_a_build_against_another_engine_is_not_used(tmp_path: Path) -> None:
    # mypyc inlines the engine's Final constants (engine/moves.py: FOUNDATION, MOVE).
    paths = sources.files()
    moves = next(i for i, path in enumerate(paths) if path.name == "moves.py")
    paths[moves] = edited(tmp_path, paths[moves])
    with pytest.warns(RuntimeWarning, match="other versions of search.py or the engine"):
        assert load_native(paths) is None


def test_the_build_from_this_source_is_used() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native = load_native()
    assert native is solver.implementation


def test_no_build_means_the_pure_solver() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_native(name="solver._not_built") is None
