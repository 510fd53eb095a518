"""Django's psycopg pool, made to answer quickly when it cannot give a connection.

psycopg_pool alone cannot tell its caller *why* no connection came: with the server
down, a request waits the whole pool timeout while the pool retries in the
background with a growing backoff, and a connection left stale by a restart sends
the caller into a check-and-sleep loop (1 s, 2 s, …) until the timeout. Here:

- every connect attempt, the pool's own or a probe, tells the process's
  :class:`DatabaseGate` whether the server was reached;
- while the gate is down, requests are refused at once (``DatabaseUnavailable``),
  but one request every ``PROBE_EVERY`` seconds tries a fresh connection: the first
  that succeeds opens the gate again, so the process recovers by itself;
- requests wait for a connection first come first served; when a connect attempt
  finds the server gone, every waiting request is refused at once; a wait that runs
  out with the server up is ``DatabaseBusy``;
- a pooled connection is checked before it is handed out (the health check); a
  stale one is dropped, the server probed, and if it answers (it restarted) the
  other idle connections are checked at once, so no request fails on one."""

from __future__ import annotations

import logging
import threading
from time import monotonic
from typing import Any, Callable

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from database.outage import DatabaseBusy, DatabaseUnavailable

logger = logging.getLogger("klondike.database")

PROBE_EVERY = 0.5  # seconds between fresh connection attempts while the server is down


class DatabaseGate:
    """Whether this process last reached its database, and the probing while not."""

    def __init__(self, probe: Callable[[], bool]) -> None:
        self._probe = probe
        self._down_since: float | None = None
        self._last_probe = 0.0
        self._probing = threading.Lock()

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def reached(self) -> None:
        if self._down_since is not None:
            logger.warning("database reachable again after %.1f s", monotonic() - self._down_since)
            self._down_since = None

    def lost(self, error: BaseException | None = None) -> None:
        if self._down_since is None:
            self._down_since = monotonic()
            logger.warning("database unreachable: %s", str(error).strip() if error else "connection failed")

    def admit(self) -> None:
        """Return if the database may be tried; refuse at once while it is down,
        except for the one caller whose turn it is to probe."""
        if self._down_since is None:
            return
        now = monotonic()
        if now - self._last_probe < PROBE_EVERY or not self._probing.acquire(blocking=False):
            raise DatabaseUnavailable()
        try:
            self._last_probe = now
            if not self._probe():
                raise DatabaseUnavailable()
        finally:
            self._probing.release()


class GatedConnectionPool(ConnectionPool):
    """A ``ConnectionPool`` that refuses with ``DatabaseBusy`` or
    ``DatabaseUnavailable`` instead of making its caller wait out a dead server.

    ``check`` is done here, not by psycopg_pool (whose failed check sleeps)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["check"] = None
        super().__init__(*args, **kwargs)
        self.gate = DatabaseGate(self.probe)

    def _connect(self, timeout: float | None = None) -> Any:
        try:
            conn = super()._connect(timeout)
        except Exception as error:
            self.server_lost(error)
            raise
        self.gate.reached()
        return conn

    def probe(self) -> bool:
        """One fresh connection, closed again: True when the server answered."""
        try:
            conn = psycopg.connect(self.conninfo if isinstance(self.conninfo, str) else "",
                                   **self._resolve_kwargs())
        except psycopg.Error as error:
            self.server_lost(error)
            return False
        conn.close()
        self.gate.reached()
        return True

    def getconn(self, timeout: float | None = None) -> Any:
        self.gate.admit()
        deadline = monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            try:
                # One wait, first come first served: waiting in slices would send a
                # waiter to the back of the queue at each slice.
                conn = super().getconn(timeout=max(deadline - monotonic(), 0.001))
            except PoolTimeout:
                raise (DatabaseUnavailable() if self.gate.down else DatabaseBusy()) from None
            if self.healthy(conn):
                return conn
            self.putconn(conn)  # closed: the pool opens a replacement
            if not self.probe():
                raise DatabaseUnavailable()
            # The server restarted under the pool: drop the other stale ones now.
            self.check()

    def server_lost(self, error: BaseException | None) -> None:
        """The server went away: the gate closes, and everyone already waiting for a
        connection hears it now rather than at the end of the pool timeout."""
        self.gate.lost(error)
        with self._lock:
            while self._waiting:
                self._waiting.popleft().fail(DatabaseUnavailable())

    @staticmethod
    def healthy(conn: Any) -> bool:
        try:
            ConnectionPool.check_connection(conn)
        except psycopg.Error:
            return False
        return True
