"""What happens to the boards, for the rooms above (the socket tier tells the
boards' watchers)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BoardChanged:
    """A board's standings may have moved: ``board`` is its name (``vegas``,
    ``races``, ``daily.<date>.<draw>``)."""

    board: str
