"""The one exception the service layer raises for a refused request."""

from __future__ import annotations

from typing import Any

from api import texts


class ServiceError(Exception):
    """A refused request: ``code`` and ``detail`` go to the client as they are;
    ``retry_after`` (seconds) becomes a ``Retry-After`` header (429, 503)."""

    status = 400

    def __init__(self, code: str, detail: str, status: int = 400, *, retry_after: int | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.code, self.detail, self.status, self.extra = code, detail, status, extra
        self.retry_after = retry_after  # seconds, sent as Retry-After (429, 503)

    def headers(self) -> dict[str, str]:
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}

    def to_json(self) -> dict[str, Any]:
        return {"error": self.code, "detail": texts.localized(self.detail), **self.extra}
