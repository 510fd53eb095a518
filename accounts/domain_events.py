"""What happens to accounts, for the rooms above (the socket tier closes the sockets
a revoked token opened)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenRevoked:
    """A personal access token was revoked (``digest``: its stored SHA-512 digest)."""

    user_id: int
    digest: str


@dataclass(frozen=True)
class SessionEnded:
    """A signed-in session was signed out (from itself, from another one, or by a
    password change); ``digest`` names it without its key (accounts.sessions)."""

    user_id: int | None
    digest: str
