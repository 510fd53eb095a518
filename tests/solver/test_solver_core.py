"""The solver's C core (solver/_core.c) against its specification, the Python
depth-first search in solver/search.py: the same positions in the same order,
the same answers and the same winning lines, in all four modes and for every kind of
depth-first search the solver runs (complete, streamlined, relaxed)."""

from __future__ import annotations

import hashlib
import random
import shutil
import time
from pathlib import Path

import pytest

from engine import DealCode, Game, Scoring
from solver import search

MODES = ("D1N", "D3N", "D1V", "D3V")
#: (level, relaxed, lift_after): the complete search (its foundation-move obligation
#: from the start, and from LIFT_AFTER), the streamlined levels, and the relaxation's
#: two searches.
SEARCHES = ((0, False, 0), (0, False, None), (1, False, None), (2, False, None), (1, True, None), (0, True, 0))


def deal(mode: str, number: int) -> Game:
    return Game.new(str(DealCode(number, int(mode[1]), Scoring.VEGAS if mode[2] == "V" else Scoring.NORMAL)))


def python_search(game: Game, level: int, relaxed: bool, lift_after: int | None,
                  seed: int | None = None) -> search._DepthFirst:
    shuffle = random.Random(seed).shuffle if seed is not None else None
    return search._DepthFirst(game, level, shuffle, relaxed, None, lift_after)


def core_search(game: Game, level: int, relaxed: bool, lift_after: int | None,
                seed: int | None = None) -> search._CoreDepthFirst:
    assert search.CORE is not None
    return search._CoreDepthFirst(search.CORE, game, level, relaxed, None, lift_after, seed)


def run_to(dfs: search._DepthFirst | search._CoreDepthFirst, limits: list[int]) -> tuple:
    """Run ``dfs`` in turns ending at each node count of ``limits``; its answer, node
    count, blocked-check gate and winning line (its undo records)."""
    result = search.UNKNOWN
    for limit in limits:
        result = dfs.run(None, limit, time.perf_counter)
        if result != search.UNKNOWN:
            break
    line = dfs.outcome(time.perf_counter(), time.perf_counter).moves
    return result, dfs.nodes, tuple(dfs.gate), [m.to_json() for m in line]


def test_the_core_is_built_and_current():
    """``make test`` builds it (``make solver``); the searches here would all run in
    Python otherwise."""
    assert search.CORE is not None, "solver/_core.c is not built: make solver"
    assert search.CORE.SOURCE_DIGEST == hashlib.sha256(Path(search.__file__).with_name("_core.c").read_bytes()).hexdigest()
    assert isinstance(search._depth_first(deal("D3N", 1)), search._CoreDepthFirst)
    assert isinstance(search._depth_first(deal("D3N", 1), 1, seed=3), search._CoreDepthFirst)


@pytest.mark.parametrize("mode", MODES)
def test_the_core_visits_the_positions_the_python_search_does(mode):
    """Node for node: for real deals, each kind of search stopped at the same node cap
    gives the same answer, node count, blocked-check statistics and line. (The node
    count is the number of positions generated, so equal counts with equal answers at
    every cap mean the same positions in the same order.)"""
    compared = decided = 0
    for number in (0, 1, 2, 5, 11):
        game = deal(mode, number)
        for level, relaxed, lift_after in SEARCHES:
            expected = run_to(python_search(game, level, relaxed, lift_after), [12_000])
            got = run_to(core_search(game, level, relaxed, lift_after), [12_000])
            assert got == expected, (mode, number, level, relaxed, lift_after)
            compared += 1
            decided += expected[0] != search.UNKNOWN
    assert compared == 30 and decided >= 10


@pytest.mark.parametrize("mode", MODES)
def test_shuffled_restarts_make_the_moves_random_shuffle_makes(mode):
    """The streamlined searches' restarts shuffle their moves with
    ``random.Random(attempt).shuffle``; the core reproduces that generator (MT19937 and
    Python's rejection sampling), so a restart visits the same positions in C."""
    changed = 0
    for number, level, seed in ((0, 1, 1), (3, 2, 2), (7, 1, 5), (13, 2, 2**32 - 1), (25, 1, 9), (42, 2, 4)):
        game = deal(mode, number)
        expected = run_to(python_search(game, level, False, None, seed), [8_000])
        assert run_to(core_search(game, level, False, None, seed), [8_000]) == expected, (number, seed)
        unshuffled = run_to(core_search(game, level, False, None), [8_000])
        changed += expected[1] != unshuffled[1] or expected[3] != unshuffled[3]
    if mode[2] == "N":
        # The shuffling is real: other positions, or another line. (Vegas's streamlined
        # spaces are small enough that any order covers them whole in as many nodes.)
        assert changed >= 2


def test_a_search_stopped_in_turns_resumes_where_it_stopped():
    """The schedule runs the complete search in turns: stopping it at node caps (and at
    the clock's ticks in between) changes nothing, in C as in Python."""
    game = deal("D3N", 42)  # won by the complete search after 37,003 positions
    whole = run_to(core_search(game, 0, False, None), [60_000])
    turns = run_to(core_search(game, 0, False, None), [1, 2, 777, 5_000, 5_001, 20_000, 60_000])
    python = run_to(python_search(game, 0, False, None), [3_000, 60_000])
    assert whole == turns == python
    assert whole[0] == search.WIN and whole[1] == 37_003


def test_a_deadline_stops_the_core_and_it_goes_on_later():
    game = deal("D3N", 925)  # lost: millions of positions
    dfs = core_search(game, 0, False, None)
    assert dfs.run(time.perf_counter() - 1, -1, time.perf_counter) == search.UNKNOWN
    first = dfs.nodes
    # It reads the clock every 1,024 positions it keeps (the blocked check's prunes
    # do not count), as the Python search does.
    assert 1 < first < 3_000
    assert dfs.run(None, first + 50_000, time.perf_counter) == search.UNKNOWN
    assert dfs.nodes == first + 50_000


def test_long_searches_agree_on_lost_and_won_deals():
    """Whole searches, to the end: a loss proof (D3N deal 25 in the relaxation: 66,900
    positions) and a win found late (D1N deal 43: 55,149), the same in both."""
    for mode, number, relaxed, answer in (("D3N", 25, True, search.LOSE), ("D1N", 43, False, search.WIN)):
        game = deal(mode, number)
        expected = run_to(python_search(game, 0, relaxed, None), [200_000])
        got = run_to(core_search(game, 0, relaxed, None), [200_000])
        assert got == expected
        assert got[0] == answer and got[1] > 50_000, (mode, number, got[:2])


def test_table_memory_is_reused_and_changes_nothing():
    """A big table's memory, once freed, is kept for the next table that fits in it
    (module notes of _core.c): a search run again on kept memory, which must be cleared
    first, visits the same positions; a bound of 0 keeps nothing."""
    core = search.CORE
    assert core is not None
    game = deal("D3N", 925)  # lost: millions of positions, so its table grows
    bound = core.table_cache()[0]
    try:
        _, _, hits, misses = core.table_cache(1 << 30)  # frees what earlier tests left
        fresh = run_to(core_search(game, 0, False, None), [400_000])
        # Tables of 2^17 and 2^18 entries of 24 bytes were mapped, each kept once freed.
        kept = 24 * (2**17 + 2**18)
        assert core.table_cache()[1:] == (kept, hits, misses + 2)
        reused = run_to(core_search(game, 0, False, None), [400_000])
        assert reused == fresh and fresh[0] == search.UNKNOWN and fresh[1] == 400_000
        assert core.table_cache()[1:] == (kept, hits + 2, misses + 2)
        assert core.table_cache(0)[:2] == (0, 0)
        assert run_to(core_search(game, 0, False, None), [400_000]) == fresh
        assert core.table_cache()[1:] == (0, hits + 2, misses + 4)
    finally:
        core.table_cache(bound)


def test_solve_uses_the_core_and_its_lines_replay():
    """``solve`` through the core: a win's line replays to a win on the engine (the
    solver checks that itself) and each loss is a loss in Python too."""
    for mode, number in (("D1N", 3), ("D3N", 4), ("D3N", 237), ("D1V", 7)):
        game = deal(mode, number)
        result = search.solve(game, budget_seconds=None, max_nodes=300_000)
        assert result.result in ("win", "lose")
        if result.result == "win":
            replay = game.copy()
            for move in result.moves:
                replay.apply(move)
            assert replay.won


def test_a_stale_core_is_not_used(tmp_path, monkeypatch):
    """A core built from another version of _core.c is refused with a warning: an
    edited search never runs stale C."""
    source = Path(search.__file__).with_name("_core.c")
    shutil.copy(source, tmp_path / "_core.c")
    monkeypatch.setattr(search, "__file__", str(tmp_path / "search.py"))
    assert search._load_core() is search.CORE
    (tmp_path / "_core.c").write_text(source.read_text() + "\n/* edited */\n")
    with pytest.warns(RuntimeWarning, match="another version of _core.c"):
        assert search._load_core() is None


def test_bad_arguments_are_refused_not_crashed():
    """The core indexes arrays by card: anything but a real position is a ValueError."""
    core = search.CORE
    assert core is not None
    s = search._Search(deal("D3N", 4))
    good = dict(cols=s.cols, down=s.down, found=s.found, talon=s.talon, pos=s.pos, draw=3, vegas=0, level=0,
                lift_after=-1, skip_covered=True, dominating=s.dominating())
    assert core.Core(**good).nodes == 1
    swapped = [list(c) for c in s.cols]
    swapped[6][-1] = 300  # not a card (and 300 % 256 would be one)
    duplicated = [list(c) for c in s.cols]
    duplicated[6][-1] = duplicated[5][-1]
    for bad in (dict(cols=s.cols[:6]), dict(cols=swapped), dict(cols=duplicated), dict(talon=list(range(40))),
                dict(talon=s.talon[:-1]), dict(down=[9] * 7), dict(found=[14, 0, 0, 0]), dict(pos=99),
                dict(draw=2), dict(level=7), dict(dominating=s.dominating()[:10])):
        with pytest.raises(ValueError):
            core.Core(**{**good, **bad})
    with pytest.raises(TypeError):
        core.Core(**{**good, "cols": [["x"]] * 7})
