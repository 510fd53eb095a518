"""Keeps the signed-in session's last-seen time for its owner's list (accounts.sessions)."""

from __future__ import annotations

import logging
from typing import Any, Callable

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse

from accounts import sessions

logger = logging.getLogger(__name__)


class SessionSeenMiddleware:
    """After the view, and only when it already read the user (so no request loads
    the session or the user for this alone, and an outage under the view is the
    view's 503); a failure here is skipped: the next request notes the time."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        response = self.get_response(request)
        user = getattr(request, "_cached_user", None)
        if user is not None and user.is_authenticated and response.status_code < 500:
            try:
                sessions.note_seen(request)
            except DatabaseError as exc:
                logger.warning("session last-seen not written: %r", exc)
        return response
