"""An account's email address: changing it (the old address told, the new one sent a
link) and verifying it (the link, signed and expiring). Only a verified address can
receive a password reset."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from accounts import mail
from api.errors import ServiceError

SALT = "accounts.email-verification"


def change(request: HttpRequest, address: str) -> None:
    user, old = request.user, request.user.email
    if address == old:
        return
    with transaction.atomic():
        user.email, user.email_verified = address, False
        user.save(update_fields=["email", "email_verified"])
        if old:
            mail.email_changed(user, old)
        if address:
            send_verification(request, user)


def send_verification(request: HttpRequest, user: Any) -> None:
    if not user.email:
        raise ServiceError("no_email", _("add an email address first"), 409)
    if user.email_verified:
        raise ServiceError("already_verified", _("this address is verified already"), 409)
    token = signing.dumps({"user": user.pk, "email": user.email}, salt=SALT)
    # In the fragment: a browser never sends it, so no log or Referer holds it.
    mail.verify_link(user, user.email, f"{mail.site_url(request)}/verify-email/#token={token}")


def verify(token: str) -> Any:
    try:
        claim = signing.loads(token, salt=SALT, max_age=settings.EMAIL_VERIFY_SECONDS)
    except signing.SignatureExpired:
        raise ServiceError("link_expired", _("this link is too old: ask for a new one on your account page")) from None
    except signing.BadSignature:
        raise ServiceError("bad_link", _("this link is not valid")) from None
    # One statement: an address changed meanwhile is not the one marked verified.
    users = get_user_model().objects.filter(pk=claim.get("user"), email=claim.get("email"), is_active=True)
    if not users.update(email_verified=True):
        raise ServiceError("bad_link", _("this link is for an address the account no longer has"))
    return users.get()
