"""CSRF for guests too.

DRF checks CSRF only for users authenticated by session. Guests also own games
through their session cookie, so a request that carries the session cookie gets the
same check whether or not anyone is logged in; token clients send no cookie and are
not affected."""

from __future__ import annotations

from django.conf import settings
from rest_framework.authentication import BaseAuthentication, CSRFCheck
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request


def _dummy_get_response(request):  # pragma: no cover - never called by the check
    return None


class GuestCsrfCheck(BaseAuthentication):
    """Authenticates nobody; refuses cookie-bearing unsafe requests without a CSRF token."""

    def authenticate(self, request: Request) -> None:
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            check = CSRFCheck(_dummy_get_response)
            check.process_request(request._request)
            reason = check.process_view(request._request, None, (), {})
            if reason:
                raise PermissionDenied(
                    "CSRF check failed: send the X-CSRFToken header with the csrftoken cookie "
                    "(GET /api/accounts/csrf sets it)", code="csrf_failed")
        return None
