"""OpenAPI: every operation documents the error responses any request can get."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema


class ErrorDocumentingSchema(AutoSchema):
    """Adds ``{"error", "detail"}`` responses for the statuses that any endpoint may
    answer: bad input, authentication, permission, unknown object, wrong method,
    unsupported media type, throttling. An operation's own declaration wins."""

    COMMON_ERRORS = {
        "400": "the request is malformed",
        "401": "authentication is required or failed",
        "403": "not allowed (another player's game, a missing CSRF token)",
        "404": "no such object",
        "405": "method not allowed",
        "406": "only JSON responses are available",
        "415": "the body must be JSON",
        "429": "too many requests",
    }

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        from games.serializers import ErrorSerializer

        responses = super()._get_response_bodies(direction)
        for code, description in self.COMMON_ERRORS.items():
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                responses[code]["description"] = description
        return responses
