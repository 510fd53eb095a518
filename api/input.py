"""Request input taken as JSON and the OpenAPI schema say it: 1 is not true, "1" is not
1, 5 is not "5", " alice" is not "alice", and a field the request does not declare is
refused, not ignored (api/schema.py declares additionalProperties: false for these)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from django.utils.translation import gettext as _
from rest_framework.request import Request

from api.errors import ServiceError

MAX_PAGE = 100
MAX_OFFSET = 10**7  # a deeper page costs the database more than any reader needs
# ASCII digits, and few (int() of 5,000 digits raises): int() alone also takes " 5", "+5", "5_0", "٥".
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")


class StrictSerializer(serializers.Serializer):
    """A request body: refuses fields it does not declare (a typo such as "pubilc"
    would otherwise pass unnoticed), like the socket protocol's frames do.
    ``schema_constraints``: JSON Schema keywords for what ``validate()`` checks
    across fields, added to the body's schema (api/schema.py)."""

    schema_constraints: dict[str, Any] = {}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = [name for name in data if name not in self.fields]
            if unknown:
                if self.fields:
                    # Translators: %(fields)s lists the request's field names as they are sent.
                    detail = _("unknown field: this request takes %(fields)s") % {"fields": ", ".join(self.fields)}
                else:
                    detail = _("unknown field: this request takes no fields")
                raise serializers.ValidationError({name: [detail] for name in unknown})
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false: DRF's own also takes 1, "yes" and "on"."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: "2", 2.5 and true are not integers here."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices as its own JSON type: 1 is a draw of one, "1" and true are not."""

    def to_internal_value(self, data: Any) -> Any:
        for choice in self.choices:
            if type(data) is type(choice) and data == choice:
                return choice
        self.fail("invalid_choice", input=data)


class JsonString:
    """A JSON string only (DRF's would take 5 as "5"), kept as sent: no trimming,
    which the schema could not say."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(*args, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")  # type: ignore[attr-defined]
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictCharField(JsonString, serializers.CharField):
    pass


class StrictRegexField(JsonString, serializers.RegexField):
    pass


class StrictEmailField(JsonString, serializers.EmailField):
    pass


class StrictUUIDField(serializers.UUIDField):
    """A UUID as a JSON string only (DRF's would take the integer 5 as a UUID)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


def query_int(request: Request, name: str, default: int, minimum: int, maximum: int) -> int:
    """A whole-number query parameter within its bounds (the schema's minimum and
    maximum), or ``default`` when it is absent; anything else is refused."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not _WHOLE_NUMBER.fullmatch(text) or not minimum <= int(text) <= maximum:
        # Translators: %(name)s is a query parameter's name (limit, offset): keep it as it is.
        raise ServiceError("invalid", _("%(name)s must be a whole number from %(minimum)s to %(maximum)s") % {
            "name": name, "minimum": minimum, "maximum": maximum})
    return int(text)


_NUMBER = re.compile(r"[+-]?([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})([eE][+-]?[0-9]{1,3})?")


def query_float(request: Request, name: str, minimum: float, maximum: float) -> float:
    """A required number query parameter (``12.5``, ``1e-3``: JSON's numbers) within
    its bounds; no NaN, no infinity, nothing else."""
    text = request.query_params.get(name)
    if text is None or not _NUMBER.fullmatch(text) or not minimum <= float(text) <= maximum:
        # Translators: %(name)s is a query parameter's name: keep it as it is.
        raise ServiceError("invalid", _("%(name)s must be a number of seconds from %(minimum)s to %(maximum)s") % {
            "name": name, "minimum": f"{minimum:g}", "maximum": f"{maximum:g}"})
    return float(text)


def query_flag(request: Request, name: str) -> bool:
    """A true/false query parameter (absent: false); anything else is refused."""
    text = request.query_params.get(name)
    if text is None or text == "false":
        return False
    if text == "true":
        return True
    # Translators: %(name)s is a query parameter's name; true and false are its values: keep them.
    raise ServiceError("invalid", _("%(name)s must be true or false") % {"name": name})


def paging(request: Request, default_limit: int) -> tuple[int, int]:
    """``offset`` and ``limit`` of a paged list: limit 1 to MAX_PAGE (0 is refused,
    not taken as "the default"), offset 0 to MAX_OFFSET."""
    offset = query_int(request, "offset", 0, 0, MAX_OFFSET)
    return offset, query_int(request, "limit", default_limit, 1, MAX_PAGE)


def paging_parameters(default_limit: int) -> list[OpenApiParameter]:
    """The schema of :func:`paging`'s parameters."""
    return [
        OpenApiParameter("offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
                         description="entries to skip (default 0)"),
        OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                         description=f"entries on the page, 1 to {MAX_PAGE} (default {default_limit})"),
    ]
