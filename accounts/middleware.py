"""Keeps the signed-in session's last-seen time for its owner's list (accounts.sessions)."""

from __future__ import annotations

from typing import Any, Callable

from django.http import HttpRequest, HttpResponse

from accounts import sessions


class SessionSeenMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        if request.user.is_authenticated:
            sessions.note_seen(request)
        return self.get_response(request)
