"""Quick match: the queue every server process shares (a Postgres table), and the wave
that pairs its players (matchmaking.pairing) into races that start at once.

Any process may run a wave; a transaction-level advisory lock lets one run at a time
(the others skip, they do not wait). A wave matches, creates each race and marks the
tickets in one short transaction; the players hear of it after the commit
(``MatchMade``), and a player who missed that finds the race on their ticket."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

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
        raise ServiceError("invalid", "draw is 1 or 3 and scoring normal or vegas")
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


def _take_wave_lock() -> bool:
    if connection.vendor != "postgresql":
        return True  # SQLite (make run): one process, and its writes are serialized anyway
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [WAVE_LOCK])
        return bool(cursor.fetchone()[0])


def match_waiting() -> list[str]:
    """One wave: drop stale tickets, pair the waiting players of each mode and start
    their races. The ids of the races started ([] when another process holds the
    wave, or nobody could be matched)."""
    started: list[str] = []
    with transaction.atomic():
        if not _take_wave_lock():
            return started
        now = timezone.now()
        QueueTicket.objects.filter(race=None, seen_at__lt=now - timedelta(seconds=STALE_SECONDS)).delete()
        waiting = list(QueueTicket.objects.filter(race=None).select_related("user"))
        modes: dict[tuple[int, str], list[QueueTicket]] = {}
        for ticket in waiting:
            modes.setdefault((ticket.draw, ticket.scoring), []).append(ticket)
        for (draw, scoring), tickets in modes.items():
            by_id = {t.pk: t for t in tickets}
            candidates = [pairing.Waiting(t.pk, t.rating, (now - t.queued_at).total_seconds()) for t in tickets]
            for group in pairing.groups(candidates):
                race_id = _start_match([by_id[w.key] for w in group], draw, scoring, now)
                if race_id is None:
                    break  # no winnable deal ready for this mode: they wait for the next wave
                if race_id:
                    started.append(race_id)
    return started


def _start_match(tickets: list[QueueTicket], draw: int, scoring: str, now: Any) -> str | None:
    busy = [t for t in tickets if races.racing_now(t.user) is not None]
    if busy:  # joined a race since queueing: out of the queue; the others wait for the next wave
        QueueTicket.objects.filter(pk__in=[t.pk for t in busy]).delete()
        return ""
    users = [t.user for t in tickets]
    try:
        with transaction.atomic():  # a savepoint: a refused match leaves the wave's other races
            race = races.start_race_now(users, draw=draw, scoring=scoring, time_limit=MATCH_TIME_LIMIT)
    except ServiceError as error:
        logger.warning("quick match %s/%s not started: %s", draw, scoring, error.code)
        return None
    for ticket in tickets:
        ticket.race, ticket.matched_at = race, now
        ticket.save(update_fields=["race", "matched_at"])
    domain_events.emit(MatchMade(str(race.id), tuple(u.pk for u in users)))
    return str(race.id)


def ticket_id_of(user: Any) -> Any:
    return QueueTicket.objects.filter(user=user).values_list("pk", flat=True).first()
