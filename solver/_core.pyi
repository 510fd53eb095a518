"""Types of the C core (solver/_core.c), for mypy and mypyc."""

from typing import Sequence

SOURCE_DIGEST: str
UNKNOWN: int
WIN: int
LOSE: int
TICK: int

class Core:
    nodes: int

    def __init__(self, cols: Sequence[Sequence[int]], down: Sequence[int], found: Sequence[int],
                 talon: Sequence[int], pos: int, draw: int, vegas: int, level: int, lift_after: int,
                 skip_covered: bool, dominating: Sequence[int]) -> None: ...
    def run(self, node_limit: int, checks: int, prunes: int) -> tuple[int, int, int]: ...
    def line(self) -> list[tuple[tuple[int, ...], int, bool, int]]: ...
