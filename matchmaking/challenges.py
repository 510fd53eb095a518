"""Challenges: invite a named player to a race, or share a link anyone signed in may
accept. The race starts the moment it is accepted (a fresh proven-winnable deal);
an unanswered challenge expires."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from api.errors import ServiceError
from games import domain_events
from matchmaking.domain_events import ChallengesChanged
from matchmaking.models import Challenge, QueueTicket
from races import services as races

EXPIRES_AFTER = timedelta(minutes=15)
# Why a challenge can no longer be answered: a whole sentence for each status.
NOT_PENDING = {
    Challenge.Status.ACCEPTED: gettext_noop("this challenge has been accepted"),
    Challenge.Status.DECLINED: gettext_noop("this challenge has been declined"),
    Challenge.Status.CANCELLED: gettext_noop("this challenge has been cancelled"),
    Challenge.Status.EXPIRED: gettext_noop("this challenge has expired"),
}
MAX_PENDING = 10  # a player's open challenges at once: invitations are not spam


def expire_due() -> None:
    Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lte=timezone.now()).update(
        status=Challenge.Status.EXPIRED)


def challenge_payload(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": str(challenge.id),
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username if challenge.challenged_id else None,
        "draw": challenge.draw,
        "scoring": challenge.scoring,
        "rated": challenge.rated,
        "time_limit": challenge.time_limit,
        "status": challenge.status,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "race": str(challenge.race_id) if challenge.race_id else None,
    }


def _announce(challenge: Challenge) -> None:
    users = tuple(u for u in (challenge.challenger_id, challenge.challenged_id) if u is not None)
    domain_events.emit(ChallengesChanged(str(challenge.id), users,
                                         str(challenge.race_id) if challenge.race_id else None))


def create(challenger: Any, *, username: str | None = None, draw: int = 1, scoring: str = "normal",
           rated: bool = True, time_limit: int = 600) -> Challenge:
    challenged = None
    if username is not None:
        challenged = get_user_model().objects.filter(username__iexact=username, is_active=True).first()
        if challenged is None:
            raise ServiceError("not_found", _("there is no such player"), 404)
        if challenged.pk == challenger.pk:
            raise ServiceError("own_challenge", _("you cannot challenge yourself"), 409)
    with transaction.atomic():
        expire_due()
        races.ensure_free(challenger)
        if Challenge.objects.filter(challenger=challenger, status=Challenge.Status.PENDING).count() >= MAX_PENDING:
            detail = ngettext("you have %(count)s open challenge: cancel one first",
                              "you have %(count)s open challenges: cancel one first",
                              MAX_PENDING) % {"count": MAX_PENDING}
            raise ServiceError("too_many_challenges", detail, 409)
        challenge = Challenge.objects.create(challenger=challenger, challenged=challenged, draw=draw, scoring=scoring,
                                             rated=rated, time_limit=time_limit,
                                             expires_at=timezone.now() + EXPIRES_AFTER)
        _announce(challenge)
    return challenge


def _locked(challenge_id: Any) -> Challenge:
    try:
        challenge = (Challenge.objects.select_for_update(of=("self",)).select_related("challenger", "challenged")
                     .get(pk=challenge_id))
    except (Challenge.DoesNotExist, ValueError):
        raise ServiceError("not_found", _("there is no such challenge"), 404) from None
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= timezone.now():
        challenge.status = Challenge.Status.EXPIRED
        challenge.save(update_fields=["status"])
    return challenge


def _still_pending(challenge: Challenge) -> None:
    if challenge.status != Challenge.Status.PENDING:
        detail = (_(NOT_PENDING[challenge.status]) if challenge.status in NOT_PENDING
                  else _("this challenge has been %(status)s") % {"status": challenge.status})
        raise ServiceError(f"challenge_{challenge.status}", detail, 409,
                           race=str(challenge.race_id) if challenge.race_id else None)


def accept(challenge_id: Any, user: Any) -> Challenge:
    with transaction.atomic():
        challenge = _locked(challenge_id)
        _still_pending(challenge)
        if challenge.challenger_id == user.pk:
            raise ServiceError("own_challenge", _("this is your own challenge: wait for someone to accept it"), 409)
        if challenge.challenged_id not in (None, user.pk):
            raise ServiceError("not_challenged", _("this challenge is for another player"), 403)
        races.ensure_free(user)
        if races.racing_now(challenge.challenger) is not None:
            raise ServiceError("challenger_busy", _("%(name)s is racing right now: try again when their race is over")
                               % {"name": challenge.challenger.username}, 409)
        race = races.start_race_now([challenge.challenger, user], draw=challenge.draw, scoring=challenge.scoring,
                                    rated=challenge.rated, time_limit=challenge.time_limit, public=True)
        QueueTicket.objects.filter(user__in=[challenge.challenger, user], race=None).delete()
        challenge.status, challenge.race, challenge.answered_at = Challenge.Status.ACCEPTED, race, timezone.now()
        challenge.challenged = user
        challenge.save(update_fields=["status", "race", "answered_at", "challenged"])
        _announce(challenge)
    return challenge


def answer(challenge_id: Any, user: Any, status: str) -> Challenge:
    """Decline (the challenged player) or cancel (the challenger)."""
    with transaction.atomic():
        challenge = _locked(challenge_id)
        _still_pending(challenge)
        allowed = challenge.challenged_id if status == Challenge.Status.DECLINED else challenge.challenger_id
        if allowed != user.pk:
            if status == Challenge.Status.DECLINED:
                detail = _("only the challenged player can decline this challenge")
            else:
                detail = _("only the challenger can cancel this challenge")
            raise ServiceError("not_allowed", detail, 403)
        challenge.status, challenge.answered_at = status, timezone.now()
        challenge.save(update_fields=["status", "answered_at"])
        _announce(challenge)
    return challenge


def pending_for(user: Any) -> dict[str, list[dict[str, Any]]]:
    """The player's open challenges: received (named to them) and sent."""
    expire_due()
    pending = Challenge.objects.filter(status=Challenge.Status.PENDING).select_related("challenger", "challenged")
    return {"received": [challenge_payload(c) for c in pending.filter(challenged=user).order_by("-created_at")],
            "sent": [challenge_payload(c) for c in pending.filter(challenger=user).order_by("-created_at")]}


def get(challenge_id: Any) -> Challenge:
    expire_due()
    challenge = Challenge.objects.select_related("challenger", "challenged").filter(pk=challenge_id).first()
    if challenge is None:
        raise ServiceError("not_found", _("there is no such challenge"), 404)
    return challenge
