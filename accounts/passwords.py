"""Changing a password (with the current one) and resetting a forgotten one (a link
mailed to a verified address, Django's one-use expiring reset tokens). Either signs out
every other session and revokes every access token unless the owner keeps them, and
mails a notice."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model, password_validation, update_session_auth_hash
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts import mail, sessions, tokens
from accounts.models import UserSession
from api.errors import ServiceError

RESET_MAILS_PER_HOUR = 3  # per account: what an attacker can make the service send


def checked_new_password(user: Any, password: str) -> None:
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ServiceError("weak_password", " ".join(exc.messages)) from None


def change(request: HttpRequest, current: str, new: str, *, keep_tokens: bool) -> dict[str, int]:
    user = request.user
    if not user.check_password(current):
        raise ServiceError("wrong_password", _("the current password is not right"), 400)
    checked_new_password(user, new)
    with transaction.atomic():
        user.set_password(new)
        user.save(update_fields=["password"])
        old_key = request.session.session_key
        update_session_auth_hash(request, user)  # this session stays signed in, under a new key
        sessions.rekeyed(old_key, request.session.session_key)
        # Every other session: Django's session hash follows the password, so none
        # could stay signed in; ending them here also closes their sockets.
        signed_out = sessions.sign_out_others(user, request.session.session_key)
        revoked = 0 if keep_tokens else tokens.revoke_all(user)
        mail.password_changed(user, reset=False)
    return {"signed_out": signed_out, "revoked_tokens": revoked}


def request_reset(request: HttpRequest, address: str) -> None:
    """Mail a reset link to each active account with this verified address. The answer
    is the same whether there is one or not, and each account gets at most
    RESET_MAILS_PER_HOUR of them asked from one client address (so that one asker
    cannot use up the owner's)."""
    users = get_user_model().objects.filter(email__iexact=address.strip(), email_verified=True, is_active=True)
    asker = request.META.get("REMOTE_ADDR", "")
    for user in users:
        sent = f"reset-mails:{user.pk}:{asker}"
        cache.add(sent, 0, 3600)
        if cache.incr(sent) > RESET_MAILS_PER_HOUR:
            continue
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        # In the fragment: a browser never sends it, so no log or Referer holds it.
        link = f"{mail.site_url(request)}/reset/#uid={uid}&token={default_token_generator.make_token(user)}"
        mail.reset_link(user, link)


def confirm_reset(uid: str, token: str, new: str, *, keep_tokens: bool) -> Any:
    """Set the new password if the link is good (once, within PASSWORD_RESET_TIMEOUT);
    every session is signed out."""
    user = _user_of(uid)
    if user is None or not default_token_generator.check_token(user, token):
        raise ServiceError("bad_reset_link", _("this reset link is wrong, used or too old: ask for a new one"), 400)
    checked_new_password(user, new)
    with transaction.atomic():
        user.set_password(new)
        user.save(update_fields=["password"])
        sessions.end(list(UserSession.objects.filter(user=user).values_list("session_key", flat=True)), user.pk)
        if not keep_tokens:
            tokens.revoke_all(user)
        mail.password_changed(user, reset=True)
    return user


def _user_of(uid: str) -> Any:
    try:
        pk = force_str(urlsafe_base64_decode(uid))
        return get_user_model().objects.filter(pk=int(pk), is_active=True).first()
    except (ValueError, TypeError, OverflowError):
        return None
