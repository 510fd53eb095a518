"""Where an account is signed in: one ``UserSession`` row per signed-in browser session,
made when it signs in and removed when it signs out, so that its owner can list them
and sign any of them out (the session deleted from Django's store, its open sockets
closed on every process once that commits).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.module_loading import import_string

from accounts.domain_events import SessionEnded
from accounts.models import UserSession
from api.errors import ServiceError
from games import domain_events

SEEN_KEY = "_seen_at"  # in the session: when its row's last_seen_at was last written


def session_digest(session_key: str) -> str:
    """Names a session in channel groups without its key."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:40]


@receiver(user_logged_in)
def record_sign_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    session = getattr(request, "session", None)
    if session is None or not session.session_key:
        return
    UserSession.objects.update_or_create(session_key=session.session_key, defaults=_row(request, user))
    session[SEEN_KEY] = timezone.now().timestamp()


@receiver(user_logged_out)
def record_sign_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    session = getattr(request, "session", None)
    if session is not None and session.session_key:
        end([session.session_key], user.pk if user else None)


def _row(request: HttpRequest, user: Any) -> dict[str, Any]:
    """What a session's row says about it: whose it is, the device and the address."""
    return {"user": user, "user_agent": request.META.get("HTTP_USER_AGENT", "")[:300],
            "ip": request.META.get("REMOTE_ADDR") or None}


def note_seen(request: HttpRequest) -> None:
    """Move the session's last-seen time, at most every SESSION_SEEN_EVERY seconds; a
    session signed in before the list existed joins it here."""
    session = request.session
    now = timezone.now()
    if now.timestamp() - session.get(SEEN_KEY, 0) < settings.SESSION_SEEN_EVERY or not session.session_key:
        return
    seen = UserSession.objects.filter(session_key=session.session_key).update(last_seen_at=now)
    if not seen:
        UserSession.objects.get_or_create(session_key=session.session_key, defaults=_row(request, request.user))
    session[SEEN_KEY] = now.timestamp()


def rekeyed(old_key: str | None, new_key: str | None) -> None:
    """Django gave the session a new key (a password change): its row follows."""
    if old_key and new_key and old_key != new_key:
        UserSession.objects.filter(session_key=old_key).update(session_key=new_key)


def listed(user: Any, current_key: str | None) -> list[dict[str, Any]]:
    """The account's live sessions, the current one first; rows whose session has
    expired from the store are dropped on the way."""
    store = session_store()
    rows = []
    for row in UserSession.objects.filter(user=user):
        if not store.exists(row.session_key):
            row.delete()
            continue
        rows.append({"id": row.id, "device": device_of(row.user_agent), "ip": row.ip, "signed_in_at": row.signed_in_at,
                     "last_seen_at": row.last_seen_at, "current": row.session_key == current_key})
    return sorted(rows, key=lambda r: not r["current"])


def sign_out(user: Any, session_id: Any, current_key: str | None) -> None:
    row = UserSession.objects.filter(user=user, id=_uuid_or_none(session_id)).first()
    if row is None:
        raise ServiceError("not_found", _("you have no session with this id"), 404)
    if row.session_key == current_key:
        raise ServiceError("current_session", _("this is the session you are using: log out instead"), 409)
    end([row.session_key], user.pk)


def sign_out_others(user: Any, current_key: str | None) -> int:
    keys = list(UserSession.objects.filter(user=user).exclude(session_key=current_key or "")
                .values_list("session_key", flat=True))
    end(keys, user.pk)
    return len(keys)


def end(session_keys: list[str], user_id: int | None) -> None:
    """Delete the sessions from Django's store and the list; their sockets close once
    this commits (realtime.listeners)."""
    store = session_store()
    with transaction.atomic():
        UserSession.objects.filter(session_key__in=session_keys).delete()
        for key in session_keys:
            store.delete(key)
            domain_events.emit(SessionEnded(user_id, session_digest(key)))


def session_store() -> Any:
    return import_string(f"{settings.SESSION_ENGINE}.SessionStore")()


def _uuid_or_none(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


# -- a readable device name from the user agent (for the list only) --------------

_BROWSERS = [("Edge", r"Edg(?:e|A|iOS)?/"), ("Opera", r"OPR/|Opera"), ("Firefox", r"Firefox/|FxiOS"),
             ("Chrome", r"Chrome/|CriOS|Chromium/"), ("Safari", r"Safari/"), ("curl", r"^curl/"),
             ("Python", r"python-requests|Python-urllib|aiohttp|httpx")]
_SYSTEMS = [("Android", r"Android"), ("iPhone", r"iPhone"), ("iPad", r"iPad"), ("Windows", r"Windows"),
            ("macOS", r"Mac OS X|Macintosh"), ("ChromeOS", r"CrOS"), ("Linux", r"Linux")]


def device_of(user_agent: str) -> str:
    """``"Firefox on Windows"``; ``"an unknown device"`` when nothing is recognised."""
    browser = next((name for name, pattern in _BROWSERS if re.search(pattern, user_agent)), None)
    system = next((name for name, pattern in _SYSTEMS if re.search(pattern, user_agent)), None)
    if browser and system:
        # Translators: a signed-in device, e.g. "Firefox on Windows" (the names are kept as they are).
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system or _("an unknown device")

