"""What happens to a race, for the rooms above (the boards settle and rate it)."""

from __future__ import annotations

from dataclasses import dataclass

from games.models import Game
from races.models import Race


@dataclass(frozen=True)
class RaceFinished:
    """The race's results are stored, in the transaction that finishes it."""

    race: Race
    games: list[Game]


@dataclass(frozen=True)
class RaceChanged:
    """A race was opened, joined, left, readied, started or finished: its page and the
    lobby show something new."""

    race_id: int
    finished: bool
