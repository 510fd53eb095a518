"""Quick match: the queue every server process shares (a Postgres table), and the wave
that pairs its players (matchmaking.pairing) into races that start at once.

Any process may run a wave; an advisory lock lets one run at a time (the others skip,
they do not wait). A wave pairs the waiting players, then creates the races of each
mode and marks their tickets in one short transaction, a few statements however many
races (bulk inserts); the players hear of it after that commit (``MatchMade``), and a
player who missed that finds the race on their ticket."""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta
from typing import Any, Iterator

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from api.errors import ServiceError
from games import domain_events
from leaderboards.models import Rating
from matchmaking import pairing
from matchmaking.domain_events import MatchMade
from matchmaking.models import QueueTicket
from races import services as races

logger = logging.getLogger(__name__)

# A waiting player's socket renews their ticket this often; a ticket not renewed for
# STALE_SECONDS (its server process died) is dropped by the next wave.
TOUCH_SECONDS = 5
STALE_SECONDS = 20
WAVE_LOCK = 0x6B6C6D61  # pg advisory lock key: one wave at a time, on every process
MATCH_TIME_LIMIT = 600


def rating_of(user: Any) -> float:
    return Rating.objects.filter(user=user).values_list("rating", flat=True).first() or 1500.0


def ticket_state(ticket: QueueTicket | None, now: Any = None) -> dict[str, Any]:
    if ticket is None:
        return {"state": "idle", "draw": None, "scoring": None, "waited": 0.0, "race": None, "rating": None}
    now = now or timezone.now()
    waited = ((ticket.matched_at or now) - ticket.queued_at).total_seconds()
    return {"state": "matched" if ticket.race_id else "waiting", "draw": ticket.draw, "scoring": ticket.scoring,
            "waited": round(waited, 3), "race": str(ticket.race_id) if ticket.race_id else None,
            "rating": round(ticket.rating), "range": round(pairing.accepted_range(waited))}


def state(user: Any) -> dict[str, Any]:
    return ticket_state(QueueTicket.objects.filter(user=user).first())


def enqueue(user: Any, draw: int, scoring: str) -> QueueTicket:
    """Put the player in the queue for this mode (again, if they were matched before
    or waited for another mode). Refused while they are in a race."""
    if draw not in (1, 3) or scoring not in ("normal", "vegas"):
        # Translators: draw, scoring, normal and vegas are the request's fields and values: keep them as they are.
        raise ServiceError("invalid", _("draw is 1 or 3 and scoring normal or vegas"))
    with transaction.atomic():
        races.ensure_free(user)
        now = timezone.now()
        # A new ticket each time: the socket that held the old one hears it is gone.
        QueueTicket.objects.filter(user=user).delete()
        return QueueTicket.objects.create(user=user, draw=draw, scoring=scoring, rating=rating_of(user),
                                          queued_at=now, seen_at=now)


def cancel(user: Any, ticket_id: Any = None) -> bool:
    """Leave the queue (only the given ticket, when named: a closed tab must not
    cancel the one its reload just opened). A matched ticket is not cancelled: the
    race has started."""
    waiting = QueueTicket.objects.filter(user=user, race=None)
    if ticket_id is not None:
        waiting = waiting.filter(pk=ticket_id)
    deleted, _ = waiting.delete()
    return bool(deleted)


def outcomes(ticket_ids: list[Any]) -> dict[str, str | None]:
    """What became of each ticket: its race id, or None while it waits (a ticket that
    is gone, cancelled or dropped, is left out)."""
    if not ticket_ids:
        return {}
    return {str(pk): (str(race) if race else None)
            for pk, race in QueueTicket.objects.filter(pk__in=ticket_ids).values_list("pk", "race_id")}


def touch(ticket_ids: list[Any]) -> dict[str, str | None]:
    """Renew these waiting tickets, and what became of each (``outcomes``)."""
    QueueTicket.objects.filter(pk__in=ticket_ids, race=None).update(seen_at=timezone.now())
    return outcomes(ticket_ids)


@contextlib.contextmanager
def wave_lock() -> Iterator[bool]:
    """One wave at a time across every process: a session-level advisory lock, taken
    without waiting (a process that finds it held skips its wave) and always released
    (the connection goes back to the pool)."""
    if connection.vendor != "postgresql":
        yield True  # SQLite (make run): one process, and its writes are serialized anyway
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [WAVE_LOCK])
        taken = bool(cursor.fetchone()[0])
    try:
        yield taken
    finally:
        if taken:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [WAVE_LOCK])


def match_waiting() -> list[str]:
    """One wave: drop stale tickets, pair the waiting players of each mode and start
    their races, each mode's in one short transaction of a few statements however many
    races it starts. The ids of the races started ([] when another process holds the
    wave, or nobody could be matched)."""
    started: list[str] = []
    with wave_lock() as taken:
        if not taken:
            return started
        now = timezone.now()
        QueueTicket.objects.filter(race=None, seen_at__lt=now - timedelta(seconds=STALE_SECONDS)).delete()
        modes: dict[tuple[int, str], list[pairing.Waiting]] = {}
        for pk, draw, scoring, rating, queued_at in (QueueTicket.objects.filter(race=None)
                                                     .values_list("pk", "draw", "scoring", "rating", "queued_at")):
            modes.setdefault((draw, scoring), []).append(pairing.Waiting(pk, rating, (now - queued_at).total_seconds()))
        for (draw, scoring), waiting in modes.items():
            groups = [[w.key for w in group] for group in pairing.groups(waiting)]
            if groups:
                started += _start_matches(groups, draw, scoring)
    return started


def _start_matches(groups: list[list[Any]], draw: int, scoring: str) -> list[str]:
    """The races of these groups of tickets, in one transaction. A group loses its
    race if one of its tickets went meanwhile (a cancel, a closed socket) or one of its
    players joined a race since queueing (that ticket is dropped); the others wait for
    the next wave, as do groups beyond the winnable deals ready."""
    with transaction.atomic():
        tickets = {t.pk: t for t in QueueTicket.objects.select_for_update(of=("self",)).select_related("user")
                   .filter(pk__in=[pk for group in groups for pk in group], race=None)}
        racing = races.racing_among([t.user_id for t in tickets.values()])
        QueueTicket.objects.filter(pk__in=[pk for pk, t in tickets.items() if t.user_id in racing]).delete()
        ready = [group for group in groups
                 if all(pk in tickets and tickets[pk].user_id not in racing for pk in group)]
        if not ready:
            return []
        try:
            started = races.start_races_now([[tickets[pk].user for pk in group] for group in ready], draw=draw,
                                            scoring=scoring, time_limit=MATCH_TIME_LIMIT)
        except ServiceError as error:
            logger.warning("quick matches %s/%s not started: %s", draw, scoring, error.code)
            return []
        now = timezone.now()
        matched = []
        for race, group in zip(started, ready):
            for pk in group:
                tickets[pk].race, tickets[pk].matched_at = race, now
                matched.append(tickets[pk])
            domain_events.emit(MatchMade(str(race.id), tuple(tickets[pk].user_id for pk in group)))
        QueueTicket.objects.bulk_update(matched, ["race", "matched_at"])
    return [str(race.id) for race in started]


def ticket_id_of(user: Any) -> Any:
    return QueueTicket.objects.filter(user=user).values_list("pk", flat=True).first()
