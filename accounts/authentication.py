"""Session authentication with CSRF for guests too.

DRF checks CSRF only for users authenticated by session. Guests also own games
through their session cookie, so a request that carries the session cookie gets the
same check whether or not anyone is logged in; token clients send no cookie and are
not affected."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request


class SessionAuthenticationWithGuestCsrf(SessionAuthentication):
    def authenticate(self, request: Request) -> Any:
        result = super().authenticate(request)
        if result is None and settings.SESSION_COOKIE_NAME in request.COOKIES:
            self.enforce_csrf(request)
        return result

    def enforce_csrf(self, request: Request) -> None:
        """The same error for guests and logged-in users."""
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise exceptions.PermissionDenied(
                "CSRF check failed: send the X-CSRFToken header with the csrftoken cookie "
                "(GET /api/accounts/csrf sets it)", code="csrf_failed") from None


class SessionCookieScheme(OpenApiAuthenticationExtension):
    target_class = SessionAuthenticationWithGuestCsrf
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}
