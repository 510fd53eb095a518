"""A full-information Klondike solver for this service's rules.

    >>> from games.engine import Game
    >>> from games.solver import solve
    >>> result = solve(Game.new("KL1-D1N-AAAAAAG"), budget_seconds=10)
    >>> result.result in ("win", "lose", "unknown")
    True

``solve`` sees every card (face-down ones and the stock order included). It returns
``"win"`` with a line of plain engine moves that has been replayed to a win on a copy
of the game, ``"lose"`` only when the whole (soundly pruned) search space was
exhausted, and ``"unknown"`` when the time or node budget ran out. See
``games/solver/search.py`` for the techniques and why each pruning rule is sound.
"""

from .search import SolveResult, solve

__all__ = ["SolveResult", "solve"]
