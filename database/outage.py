"""Database outages as clients see them: *busy* (every pooled connection is in use
for longer than DB_POOL_TIMEOUT) or *unavailable* (the server cannot be reached); and
Redis unreachable under what needs the cache (``service_unavailable``).
Both are 503 answers with a Retry-After, never a 500 and never a traceback in the
log: one line per refused request, and a counter per kind for the metrics."""

from __future__ import annotations

import logging
import threading
from collections import Counter

import psycopg
import redis
from django.db import utils
from django.utils.translation import gettext_noop

from api.texts import localized
from engine.text import Text

logger = logging.getLogger("klondike.database")

# SQLSTATEs that mean the server is going or gone, not that the query was wrong:
# class 08 (connection exception), admin/crash shutdown, cannot connect now, and
# too many connections (a cluster other clients have filled).
UNREACHABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300")

# The socket close code for "try again later". RFC 6455's 1013 says it, but Daphne's
# WebSocket library sends only 1000 and 3000-4999; 4503 mirrors HTTP 503, as the
# protocol's 4403, 4404 and 4429 mirror theirs (docs/realtime.md).
CLOSE_TRY_AGAIN = 4503


class DatabaseOutage(utils.OperationalError):
    """The database cannot serve this request now; try again after ``retry_after``.
    ``detail`` reads as the English sentence; the answers carry it in the reader's
    language (a Text: the sockets' error events translate it too)."""

    code = "database_outage"
    detail = Text(gettext_noop("the database cannot serve this request now; try again shortly"))
    retry_after = 2

    def to_json(self) -> dict[str, object]:
        return {"error": self.code, "detail": localized(self.detail), "retry_after": self.retry_after}


class DatabaseBusy(DatabaseOutage):
    code = "database_busy"
    detail = Text(gettext_noop("the service is busy: every database connection is in use; try again in a moment"))
    retry_after = 1


class DatabaseUnavailable(DatabaseOutage):
    code = "database_unavailable"
    detail = Text(gettext_noop("the database cannot be reached at the moment; try again shortly"))
    retry_after = 2


class RedisUnavailable(DatabaseOutage):
    """Redis (the cache: rate limits, socket tickets, presence) cannot be reached: what
    needs it is refused the same way. Moves do not need it (docs/operations.md)."""

    code = "service_unavailable"
    detail = Text(gettext_noop("part of the service cannot be reached at the moment; try again shortly"))
    retry_after = 2


def classify(exc: BaseException | None) -> DatabaseOutage | None:
    """The outage ``exc`` stands for, or None when it is something else (a bug, a
    constraint, a deadlock): a pool refusal as it is, and a connection that broke
    under a query (the server stopped or restarted) as unavailable."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, DatabaseOutage):
            return exc
        if isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
            state = getattr(exc, "sqlstate", None)
            if state is None or state.startswith(UNREACHABLE_STATES):
                return DatabaseUnavailable()
            return None
        if isinstance(exc, utils.InterfaceError) and "closed" in str(exc):
            return DatabaseUnavailable()  # Django's "connection already closed"
        if isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
            return RedisUnavailable()
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


_refused: Counter[str] = Counter()
_refused_lock = threading.Lock()


def record_refusal(outage: DatabaseOutage, what: str) -> None:
    """One log line for a refused request or socket action, and its count."""
    with _refused_lock:
        _refused[outage.code] += 1
        total = _refused[outage.code]
    logger.warning("%s: refused %s (503, retry after %d s; %d so far)", outage.code, what, outage.retry_after, total)


def refusals() -> dict[str, int]:
    """Requests and socket actions refused per kind since the process started."""
    with _refused_lock:
        return dict(_refused)
