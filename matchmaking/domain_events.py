"""What matchmaking does, for the socket tier: who was matched into which race, and
whose challenges changed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MatchMade:
    """A wave matched these players into this race (emitted in its transaction; the
    news goes out after the commit)."""

    race_id: str
    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class ChallengesChanged:
    """A challenge these players sent or received was made or answered."""

    challenge_id: str
    user_ids: tuple[int, ...]
    race_id: str | None = None
