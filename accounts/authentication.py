"""Who is asking: a personal access token (``Authorization: Token kl_…``) for API
clients, the session cookie for browsers.

Session authentication checks CSRF for guests too: DRF checks it only for users
authenticated by session, but guests also own games through their session cookie, so
a request that carries the session cookie gets the same check whether or not anyone is
logged in; token clients send no cookie and are not affected."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts import tokens
from accounts.models import AccessToken


class AccessTokenAuthentication(TokenAuthentication):
    """Knox's header parsing; the check is ``accounts.tokens.authenticate`` (one query,
    expired tokens refused rather than deleted, the last use recorded sparingly). A
    ``read`` token may only read."""

    def authenticate_credentials(self, key: bytes) -> tuple[Any, AccessToken]:
        try:
            token = tokens.authenticate(key.decode("latin-1"))
        except tokens.TokenRefused as refused:
            raise exceptions.AuthenticationFailed(refused.detail, code=refused.code) from None
        return token.user, token

    def authenticate(self, request: Request) -> Any:
        result = super().authenticate(request)
        view = request.parser_context.get("view") if request.parser_context else None
        if (result is not None and result[1].scope == AccessToken.Scope.READ and request.method not in SAFE_METHODS
                and not getattr(view, "read_scope_may_post", False)):
            raise exceptions.PermissionDenied(_("this token's scope is read: it cannot play or change anything"),
                                              code="token_scope")
        return result


class SignedInSession(BasePermission):
    """Managing the account (its tokens, email, password, two-factor, export, deletion)
    needs a signed-in session: an API token never does it."""

    message = gettext_lazy("this needs a signed-in session: an API token cannot manage the account")
    code = "session_required"

    def has_permission(self, request: Request, view: Any) -> bool:
        # Not signed in at all: DRF answers 401 not_authenticated.
        return request.user.is_authenticated and not isinstance(request.auth, AccessToken)


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = AccessTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "a personal access token: `Token kl_…` (scope read or play)"}


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
            # Translators: X-CSRFToken, csrftoken and GET /api/accounts/csrf are names: keep them as they are.
            raise exceptions.PermissionDenied(_(
                "CSRF check failed: send the X-CSRFToken header with the csrftoken cookie "
                "(GET /api/accounts/csrf sets it)"), code="csrf_failed") from None


class SessionCookieScheme(OpenApiAuthenticationExtension):
    target_class = SessionAuthenticationWithGuestCsrf
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}
