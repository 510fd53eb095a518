"""The mail the service sends about an account: links (reset a password, verify an
address) and notices (the password or two-factor changed, a token made, the address
changed). Through Django's email backend (SMTP in production, the console in make
run), once the transaction that caused it has committed; a mail that cannot be sent is
logged (without its link) and does not fail the request. Each mail is written in its
recipient's language (accounts.languages.for_user: the account's, else the request's)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import languages

logger = logging.getLogger(__name__)


def site_url(request: HttpRequest | None) -> str:
    if settings.SITE_URL or request is None:
        return settings.SITE_URL or "http://127.0.0.1:8000"
    return request.build_absolute_uri("/").rstrip("/")


def send(to: str, subject: str, *paragraphs: str) -> None:
    """Queue a mail for after the commit (at once outside a transaction). Its text is
    composed now, in the active language: the callers make it the recipient's."""
    if not to:
        return
    # Translators: the subject of every mail: "Klondike: reset your password".
    subject = _("Klondike: %(subject)s") % {"subject": subject}
    body = "\n\n".join(paragraphs) + "\n\n— Klondike\n" + _(
        "(You get this mail because it concerns your account. Nothing to do if it was you.)") + "\n"

    def deliver() -> None:
        try:
            send_mail(subject, body, None, [to])
        except Exception as exc:  # noqa: BLE001 - mail trouble must not fail the account's request
            logger.warning("mail %r could not be sent: %r", subject, exc)

    transaction.on_commit(deliver)


def hello(user: Any) -> str:
    return _("Hello %(name)s,") % {"name": user.username}


def reset_link(user: Any, link: str) -> None:
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60
    with translation.override(languages.for_user(user)):
        send(user.email, _("reset your password"),
             hello(user),
             ngettext("Someone (we hope you) asked to reset the password of your account. Follow this link within "
                      "%(minutes)s minute to choose a new one; it works once:",
                      "Someone (we hope you) asked to reset the password of your account. Follow this link within "
                      "%(minutes)s minutes to choose a new one; it works once:", minutes) % {"minutes": minutes},
             link,
             _("If it was not you, ignore this mail: your password has not changed."))


def verify_link(user: Any, address: str, link: str) -> None:
    with translation.override(languages.for_user(user)):
        send(address, _("verify your email address"),
             hello(user),
             _("Follow this link to confirm that %(address)s is yours. With a verified address you can reset a "
               "forgotten password.") % {"address": address},
             link)


def password_changed(user: Any, *, reset: bool) -> None:
    """``reset``: with a mailed link; otherwise changed from a signed-in session."""
    with translation.override(languages.for_user(user)):
        if reset:
            notice = _("The password of your account was reset with a link mailed to you. If it was not you, reset "
                       "it now and check the sessions and access tokens on your account page.")
        else:
            notice = _("The password of your account was changed from a signed-in session. If it was not you, "
                       "reset it now and check the sessions and access tokens on your account page.")
        send(user.email, _("your password was changed"), hello(user), notice)


def token_created(user: Any, name: str, scope: str) -> None:
    with translation.override(languages.for_user(user)):
        send(user.email, _("a new access token"),
             hello(user),
             # Translators: %(scope)s is the token's scope, read or play (kept as it is).
             _("An access token named \"%(name)s\" (scope %(scope)s) was made for your account. If it was not you, "
               "revoke it on your account page and change your password.") % {"name": name, "scope": scope})


def email_changed(user: Any, old_address: str) -> None:
    """To the old address, in the account's language."""
    with translation.override(languages.for_user(user)):
        send(old_address, _("your email address was changed"),
             hello(user),
             _("The email address of your account was changed from %(old)s to %(new)s. If it was not you, log in "
               "and change your password.") % {"old": old_address, "new": user.email or _("(none)")})


def two_factor_changed(user: Any, *, turned_on: bool) -> None:
    with translation.override(languages.for_user(user)):
        if turned_on:
            subject = _("two-factor sign-in turned on")
            notice = _("Two-factor sign-in was turned on for your account. If it was not you, change your password "
                       "and check your account page.")
        else:
            subject = _("two-factor sign-in turned off")
            notice = _("Two-factor sign-in was turned off for your account. If it was not you, change your password "
                       "and check your account page.")
        send(user.email, subject, hello(user), notice)
