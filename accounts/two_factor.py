"""Optional two-factor sign-in with an authenticator app (django-otp: a TOTP device, and
its static-code device for ten one-time recovery codes).

Turned on in two steps (with the password: a secret shown as a QR code, then a code from
the app to prove it was scanned). When it is on, signing in needs a code after the
password, and the account's sensitive actions (turning it off, changing the email,
making a token, deleting the account), which always need the password, need a fresh
code as well. Failed codes are slowed down
by django-otp's throttling (twice as long after each failure), never refused for good.
"""

from __future__ import annotations

from typing import Any

import segno
from django.db import transaction
from django.utils.translation import gettext as _
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import mail
from api.errors import ServiceError

RECOVERY_CODES = 10
MAX_FAILURES = 8  # the longest wait after wrong codes: 2**7 = 128 seconds


def enabled(user: Any) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def status(user: Any) -> dict[str, Any]:
    left = StaticToken.objects.filter(device__user=user, device__confirmed=True).count()
    return {"enabled": enabled(user), "recovery_codes_left": left}


def begin(user: Any) -> dict[str, str]:
    """A new secret for the app, not in force until ``confirm``."""
    if enabled(user):
        raise ServiceError("already_enabled", _("two-factor sign-in is on already: turn it off first"), 409)
    TOTPDevice.objects.filter(user=user, confirmed=False).delete()
    device = TOTPDevice.objects.create(user=user, name="authenticator app", confirmed=False)
    uri = device.config_url
    return {"otpauth_uri": uri, "secret": uri.split("secret=")[1].split("&")[0],
            "qr": segno.make(uri, error="m").svg_data_uri(scale=5)}


def confirm(user: Any, code: str) -> list[str]:
    """Turn it on with a code from the app; the recovery codes, shown this once."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
    if device is None:
        raise ServiceError("no_setup", _("start the set-up first"), 409)
    _verify(device, code)
    with transaction.atomic():
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        StaticDevice.objects.filter(user=user).delete()
        static = StaticDevice.objects.create(user=user, name="recovery codes", confirmed=True)
        codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
        StaticToken.objects.bulk_create([StaticToken(device=static, token=code) for code in codes])
        mail.two_factor_changed(user, turned_on=True)
    return codes


def disable(user: Any, password: str, code: str) -> None:
    require_fresh(user, password, code)
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
        mail.two_factor_changed(user, turned_on=False)


def check(user: Any, code: str) -> None:
    """A code from the app (six digits), or a recovery code (used up by this). A wrong
    one counts against its own kind only, and the wait it causes is capped."""
    code = (code or "").strip().replace(" ", "")
    kind = TOTPDevice if code.isdigit() and len(code) == 6 else StaticDevice
    if not enabled(user):
        raise ServiceError("not_enabled", _("two-factor sign-in is not on"), 409)
    # One confirmed device of each kind: set-up replaces them (begin, confirm).
    device = kind.objects.filter(user=user, confirmed=True).first()
    if device is None:
        raise ServiceError("wrong_code", _("that code is not right"), 400)
    _verify(device, code)


def _cap_failures(device: Any) -> None:
    """django-otp doubles the wait after each failure without a useful bound; here it
    stops at 2**(MAX_FAILURES-1) seconds, so nobody can lock the owner out for long."""
    if device.throttling_failure_count > MAX_FAILURES:
        type(device).objects.filter(pk=device.pk).update(throttling_failure_count=MAX_FAILURES)


def require_fresh(user: Any, password: str | None, code: str | None) -> None:
    """For a sensitive action: the password (a stolen session alone cannot change the
    address, make a token or enrol its own app), and a code while two-factor is on."""
    if not password:
        raise ServiceError("password_required", _("this needs your password"), 403)
    if not user.check_password(password):
        raise ServiceError("wrong_password", _("the password is not right"), 400)
    if not enabled(user):
        return
    if not code:
        raise ServiceError("two_factor_required", _("this needs your password and a code from your authenticator app"),
                           403)
    check(user, code)


def _verify(device: Any, code: str) -> None:
    """The code on one device, within django-otp's waits after wrong codes."""
    allowed, data = device.verify_is_allowed()
    if not allowed:
        raise ServiceError("code_throttled", _("too many wrong codes: wait a little and try again"), 429,
                           retry_after=_seconds_left(data))
    if not device.verify_token((code or "").strip().replace(" ", "")):
        _cap_failures(device)
        raise ServiceError("wrong_code", _("that code is not right"), 400)


def _seconds_left(wait: Any) -> int:
    from django.utils import timezone

    until = wait.get("locked_until") if wait else None
    return max(1, int((until - timezone.now()).total_seconds()) + 1) if until else 1
