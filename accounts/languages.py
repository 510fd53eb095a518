"""The language a person reads the service in. The switcher's choice lives in the
language cookie on this device and, for a signed-in player, on the account, so that a
sign-in on another device (and every email) brings it along. Without a choice the
browser's Accept-Language decides (Django's LocaleMiddleware)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.utils import translation

CODES = [code for code, _ in settings.LANGUAGES]


def choose(request: Any, response: HttpResponse, code: str) -> None:
    """The one write of a language choice: this device's cookie, the account's field,
    and the rest of this request (its answer is already in the new language)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.language != code:
        get_user_model().objects.filter(pk=user.pk).update(language=code)
        user.language = code
    remember(response, code)
    translation.activate(code)


def remember(response: HttpResponse, code: str) -> None:
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, code, max_age=settings.LANGUAGE_COOKIE_AGE,
                        path="/", secure=settings.LANGUAGE_COOKIE_SECURE, httponly=False,
                        samesite=settings.LANGUAGE_COOKIE_SAMESITE)


def signed_in(request: Any, response: HttpResponse, user: Any, *, new_account: bool = False) -> None:
    """At sign-in: the account's language becomes this device's. A new account keeps
    the language it was made in; an older one without a choice stays without (each
    device then follows its browser)."""
    if user.language:
        remember(response, user.language)
        translation.activate(user.language)
    elif new_account:
        user.language = translation.get_language() or settings.LANGUAGE_CODE
        get_user_model().objects.filter(pk=user.pk).update(language=user.language)


def for_user(user: Any) -> str:
    """The language to write to a player in (emails)."""
    return getattr(user, "language", "") or translation.get_language() or settings.LANGUAGE_CODE
