"""The service's Prometheus metrics, one registry per process.

Each web process and each solver worker serves its own numbers (``/metrics`` on the
web processes, docs/operations.md): Prometheus scrapes every process, not the proxy,
and sums across them. Labels have few values (a route pattern, never a path)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import CONTENT_TYPE_LATEST, ProcessCollector, PlatformCollector

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

# Latency buckets from a move's few milliseconds to a slow request's seconds.
FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SOLVER_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)

HTTP_REQUESTS = Counter("klondike_http_requests", "HTTP requests answered",
                        ("method", "route", "status"), registry=REGISTRY)
HTTP_SECONDS = Histogram("klondike_http_request_seconds", "Time from a request's arrival to its answer",
                         ("method", "route"), buckets=FAST_BUCKETS, registry=REGISTRY)
SOCKETS_OPEN = Gauge("klondike_sockets_open", "WebSocket connections open on this process", ("route",),
                     registry=REGISTRY)
SOCKET_SESSIONS = Counter("klondike_socket_sessions", "WebSocket connections ended, by close code",
                          ("route", "code"), registry=REGISTRY)
MOVES = Counter("klondike_moves", "Game events committed (moves, undos, resignations); rate() is moves per second",
                registry=REGISTRY)
MOVE_PUBLISH_SECONDS = Histogram("klondike_move_publish_seconds",
                                 "From a move's commit to its event handed to the channel layer",
                                 buckets=FAST_BUCKETS, registry=REGISTRY)
CHANNEL_SEND_FAILURES = Counter("klondike_channel_send_failures",
                                "Channel-layer sends that failed (Redis down or slow); clients catch up from Postgres",
                                registry=REGISTRY)
SOLVER_QUEUE_DEPTH = Gauge("klondike_solver_queue_depth", "Solver jobs waiting for a worker", registry=REGISTRY)
SOLVER_JOB_SECONDS = Histogram("klondike_solver_job_seconds", "A solver job from its request to its answer",
                               ("kind", "outcome"), buckets=SOLVER_BUCKETS, registry=REGISTRY)
DRAINING = Gauge("klondike_draining", "1 while this process drains before it exits", registry=REGISTRY)


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus's text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
