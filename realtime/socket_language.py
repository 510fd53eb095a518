"""The language of a WebSocket connection: Django's choice for an HTTP request (the
language cookie, else Accept-Language, else English), made once from the handshake."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.utils.translation import get_language_from_request


def language_of(scope: dict[str, Any]) -> str:
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
    handshake = SimpleNamespace(COOKIES=scope.get("cookies") or {}, path_info=scope.get("path", "/"),
                                META={"HTTP_ACCEPT_LANGUAGE": headers.get("accept-language", "")})
    return get_language_from_request(handshake)
