"""Sentences in the reader's language, at the edges: the API's error answers and the
sockets' error events. Django-side code translates as it raises (gettext, with the
request's language active); the engine and the socket protocol cannot import Django,
so they raise :class:`engine.text.Text` values, rendered here."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from engine.text import Text


def localized(value: Any) -> Any:
    """A Text in the active language (its values too); anything else as it is."""
    if not isinstance(value, Text):
        return value
    template = gettext(value.template)
    if not value.params:
        return template
    return template % {name: localized(param) for name, param in value.params.items()}
