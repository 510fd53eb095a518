"""OpenAPI: every operation documents the error responses any request can get, and a
request body says what the server refuses (unknown fields, NUL characters)."""

from __future__ import annotations

import copy
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from rest_framework import serializers

from api.input import StrictSerializer


class ErrorSerializer(serializers.Serializer):
    """The one error shape, for the schema (api.error_responses writes it)."""

    error = serializers.CharField(help_text="stable machine-readable code")
    detail = serializers.CharField(help_text="a sentence for the player")


NO_NUL_PATTERN = "^[^\\x00]*$"  # DRF refuses a NUL in any text field; PostgreSQL could not store it


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
        responses = super()._get_response_bodies(direction)
        for code, description in self.COMMON_ERRORS.items():
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                responses[code]["description"] = description
        return responses

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        schema = super()._map_basic_serializer(serializer, direction)
        serializer = force_instance(serializer)
        if direction == "request" and isinstance(serializer, StrictSerializer):
            if not vars(type(serializer)).get("__doc__"):
                schema.pop("description", None)  # StrictSerializer's own, inherited
            schema["additionalProperties"] = False
            schema.update(copy.deepcopy(serializer.schema_constraints))
            for name, field in serializer.fields.items():
                text = schema["properties"].get(name, {})
                if (text.get("type") == "string" and "pattern" not in text
                        and any(isinstance(v, ProhibitNullCharactersValidator) for v in field.validators)):
                    text["pattern"] = NO_NUL_PATTERN
        return schema
