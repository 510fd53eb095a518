"""Personal access tokens for tests, made the way their owners make them: from a
signed-in session (POST /api/accounts/tokens)."""

from __future__ import annotations

import json
from typing import Any


def api_token(session_client: Any, *, password: str, scope: str = "play", name: str = "test", days: int = 30) -> str:
    """A new token's secret, made by a client signed in with its session (and the
    account's password, which making a token needs)."""
    response = session_client.post("/api/accounts/tokens", data=json.dumps(
        {"name": name, "scope": scope, "expires_in_days": days, "password": password}),
        content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()["token"]
