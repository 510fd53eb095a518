"""What happens to accounts, for the rooms above (the socket tier closes the sockets
a revoked token opened)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenRevoked:
    """A personal access token was revoked (``digest``: its stored SHA-512 digest)."""

    user_id: int
    digest: str
