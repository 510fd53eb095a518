"""Sentences for people, in a form any language can be rendered from. The engine
imports nothing from Django, so it cannot translate: it marks its messages with
:func:`gettext_noop` (``makemessages`` collects them) and raises :class:`Text` values,
which are the English sentence (a ``str``) and also carry the template and its values.
The edges (the API's error answers, the sockets' error events) render them in the
reader's language (api/texts.py)."""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogs; translated where it is shown."""
    return message


class Text(str):
    """``Text(gettext_noop("the %(pile)s is empty"), pile="waste")``: reads as the
    English sentence, and keeps ``template`` and ``params`` for translation."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, /, **params: Any) -> "Text":
        self = super().__new__(cls, template % params if params else template)
        self.template = template
        self.params = params
        return self
