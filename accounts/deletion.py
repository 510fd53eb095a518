"""Deleting an account. Nothing of other players changes: the account's row stays,
anonymised under a distinct neutral name ("deleted player 4821") that links nowhere, so
finished games, race results, races it hosted and daily-board entries keep every other
player's rank; nothing is deleted by a cascade. Its live games are resigned, it leaves
open races and the Vegas and race-rating boards, every session and token ends, and its
name stays reserved for USERNAME_RESERVED_DAYS before anyone else may take it."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import sessions, tokens, two_factor
from accounts.models import ReservedUsername, UserSession
from api.errors import ServiceError
from games import services as games
from games.models import Game
from games.viewer_policy import Actor
from leaderboards import services as boards
from races import services as races
from races.models import Race

DELETED_PREFIX = "deleted player "  # a space: no account can be signed up with it


def name_is_reserved(username: str) -> bool:
    return ReservedUsername.objects.filter(name=username.lower(), free_from__gt=timezone.now()).exists()


def delete(user: Any, password: str, code: str | None) -> None:
    two_factor.require_fresh(user, password, code)
    _leave_play(user)
    old_name = user.username
    with transaction.atomic():
        sessions.end(list(UserSession.objects.filter(user=user).values_list("session_key", flat=True)), user.pk)
        tokens.revoke_all(user)
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
        boards.forget_account(user.pk)
        ReservedUsername.objects.update_or_create(name=old_name.lower(), defaults={
            "free_from": timezone.now() + timedelta(days=settings.USERNAME_RESERVED_DAYS)})
        _anonymise(user)


def _leave_play(user: Any) -> None:
    """Resign the live games and leave the open races, each in its own transaction (as
    the player would); a race game still in its countdown times out with its race."""
    for race_id in Race.objects.filter(status=Race.Status.OPEN, entries__user=user).values_list("id", flat=True):
        try:
            races.leave_race(race_id, user)
        except ServiceError:
            pass
    for game_id in Game.objects.filter(owner=user, status=Game.Status.LIVE).values_list("id", flat=True):
        try:
            games.resign(game_id, Actor(user_id=user.pk))
        except ServiceError:
            pass


def _anonymise(user: Any) -> None:
    user.email, user.first_name, user.last_name, user.email_verified = "", "", "", False
    user.is_active, user.is_staff, user.is_superuser = False, False, False
    user.deleted_at = timezone.now()
    user.set_unusable_password()
    for _ in range(20):
        user.username = f"{DELETED_PREFIX}{secrets.randbelow(900_000) + 100_000}"
        try:
            with transaction.atomic():
                user.save()
            return
        except IntegrityError:
            continue  # that number is taken: another
    raise RuntimeError("no free placeholder name")
