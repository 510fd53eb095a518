"""The web process: Daphne, with a graceful drain on SIGTERM (and Ctrl-C).

    python -m config.serve -b 0.0.0.0 -p 8000 config.asgi:application

takes Daphne's own arguments. On the first SIGTERM or SIGINT the process

1. stops listening, so the proxy sends new connections to the other processes, and
   answers 503 on /readyz (config.draining);
2. tells every socket to close once the frame it is handling is done (a move in
   flight is committed and acknowledged first) with close code 4012, "reconnect":
   the client reconnects at once through the proxy and resumes from its last seq;
3. waits for the HTTP requests in flight, then exits; at most DRAIN_SECONDS in all.

A second signal stops it at once. docs/operations.md has the rolling restart."""

from __future__ import annotations

import contextvars
import logging
import signal
import sys
import time
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol

logger = logging.getLogger("klondike.serve")

CHECK_EVERY_SECONDS = 0.05
DRAIN_MESSAGE = {"type": "server.drain"}  # handled by realtime.consumers.ProtocolConsumer


class DrainingServer(Server):
    def run(self) -> None:
        from twisted.internet import reactor

        self.ports: list[Any] = []
        self.drain_deadline: float | None = None
        self.signal_handlers = False  # ours, not Twisted's immediate stop
        reactor.callWhenRunning(self._install_signal_handlers)
        super().run()

    def listen_success(self, port: Any) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def _install_signal_handlers(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        from twisted.internet import reactor

        # A context of its own: the drain's log lines belong to no request.
        step = self.stop if self.drain_deadline is not None else self.begin_drain
        reactor.callFromThread(contextvars.Context().run, step)

    def begin_drain(self) -> None:
        from django.conf import settings
        from twisted.internet import reactor

        from config import draining

        draining.begin()
        self.drain_deadline = time.monotonic() + settings.DRAIN_SECONDS
        for port in self.ports:
            port.stopListening()
        self._close_idle_connections()
        self.told: set[Any] = set()
        logger.warning("draining: no new connections; %d sockets told to reconnect elsewhere", self._tell_sockets())
        reactor.callLater(CHECK_EVERY_SECONDS, contextvars.Context().run, self._stop_when_drained)

    def _close_idle_connections(self) -> None:
        """HTTP keep-alive connections (the proxy's) close when idle, and after the
        response of the request they carry: the proxy sends nothing more here."""
        from twisted.internet import reactor
        from twisted.web.http import HTTPChannel

        for reader in reactor.getReaders():
            channel = getattr(reader, "protocol", None)
            if isinstance(channel, HTTPChannel):
                channel.persistent = False
                if not channel.requests:
                    reader.loseConnection()

    def _tell_sockets(self) -> int:
        """Ask every open socket not yet told to close with "reconnect" (a socket whose
        handshake was under way when the drain began is told once it is open)."""
        told = 0
        for protocol, details in list(self.connections.items()):
            queue = getattr(protocol, "application_queue", None)
            if (isinstance(protocol, WebSocketProtocol) and queue is not None and "disconnected" not in details
                    and protocol not in self.told):
                queue.put_nowait(dict(DRAIN_MESSAGE))
                self.told.add(protocol)
                told += 1
        return told

    def _busy(self) -> int:
        """Connections whose application still runs: requests in flight, open sockets."""
        return sum(1 for details in self.connections.values()
                   if "disconnected" not in details and details.get("application_instance") is not None
                   and not details["application_instance"].done())

    def _stop_when_drained(self) -> None:
        from twisted.internet import reactor

        self._tell_sockets()
        self._close_idle_connections()
        busy = self._busy()
        assert self.drain_deadline is not None
        if busy and time.monotonic() < self.drain_deadline:
            reactor.callLater(CHECK_EVERY_SECONDS, contextvars.Context().run, self._stop_when_drained)
            return
        if busy:
            logger.warning("drained for DRAIN_SECONDS with %d connections still busy: stopping", busy)
        else:
            logger.warning("drained: stopping")
        self.stop()


class DrainingCommandLine(CommandLineInterface):
    server_class = DrainingServer


def main(argv: list[str] | None = None) -> None:
    DrainingCommandLine().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
