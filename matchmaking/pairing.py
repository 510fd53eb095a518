"""Who races whom: the pure rule of a matchmaking wave (no Django, no clock).

Every waiting player accepts opponents whose Glicko-2 rating is within a range that
starts at ``BASE_RANGE`` and widens by ``WIDEN_PER_SECOND`` for each second waited,
up to ``MAX_RANGE``; two players are compatible when each is within the other's
range. A wave takes the longest-waiting players first: each gets the closest
compatible player, then the group grows by the closest players compatible with
every member, up to ``GROUP_MAX`` (players who queued for the same mode within one
wave race together)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence

BASE_RANGE = 150.0
WIDEN_PER_SECOND = 40.0
MAX_RANGE = 1000.0
GROUP_MAX = 4


@dataclass(frozen=True)
class Waiting:
    key: Hashable
    rating: float
    waited: float  # seconds in the queue at this wave


def accepted_range(waited: float) -> float:
    return min(MAX_RANGE, BASE_RANGE + WIDEN_PER_SECOND * max(0.0, waited))


def compatible(a: Waiting, b: Waiting) -> bool:
    difference = abs(a.rating - b.rating)
    return difference <= accepted_range(a.waited) and difference <= accepted_range(b.waited)


def groups(waiting: Sequence[Waiting], group_max: int = GROUP_MAX) -> list[list[Waiting]]:
    """The races this wave starts, each a list of two to ``group_max`` players; a
    player is in at most one. Longest waiting first, ties by key (deterministic)."""
    free = sorted(waiting, key=lambda w: (-w.waited, str(w.key)))
    taken: set[Hashable] = set()
    made: list[list[Waiting]] = []
    for first in free:
        if first.key in taken:
            continue
        group = [first]
        others = sorted((w for w in free if w.key not in taken and w.key != first.key),
                        key=lambda w: (abs(w.rating - first.rating), -w.waited, str(w.key)))
        for candidate in others:
            if len(group) == group_max:
                break
            if all(compatible(candidate, member) for member in group):
                group.append(candidate)
        if len(group) >= 2:
            made.append(group)
            taken.update(member.key for member in group)
    return made
