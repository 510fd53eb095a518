"""Probes and metrics for the proxy, the orchestrator and Prometheus.

- ``/healthz``: the process is up and routing requests (liveness: restart it if not).
- ``/readyz``: it can serve players: the database and Redis answer and it is not
  draining (readiness: send it traffic). 503 with what failed otherwise.
- ``/metrics``: this process's Prometheus metrics (telemetry.metrics). The proxy does
  not serve it to the public (deploy/nginx); Prometheus scrapes each process.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from config import draining
from games import solver_jobs
from telemetry import metrics

logger = logging.getLogger("klondike.health")

# A probe must answer well inside the proxy's and compose's probe timeouts.
CHECK_TIMEOUT_SECONDS = 1.0


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness probe: the process is up and routing requests."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check(_database), "redis": _check(_redis)}
    if draining.is_draining():
        checks["draining"] = "the process is shutting down"
    ready = all(result == "ok" for result in checks.values())
    response = JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks},
                            status=200 if ready else 503)
    if not ready:
        # An expected answer of a probe: one warning that says why, not Django's error line.
        logger.warning("not ready: %s", ", ".join(f"{name} {result}" for name, result in checks.items()
                                                  if result != "ok"))
        response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def metrics_view(request: HttpRequest) -> HttpResponse:
    metrics.SOLVER_QUEUE_DEPTH.set(solver_jobs.queue_depth())
    body, content_type = metrics.exposition()
    return HttpResponse(body, content_type=content_type)


def _check(probe: Any) -> str:
    started = time.monotonic()
    try:
        probe()
    except Exception as exc:  # noqa: BLE001 - any failure is "not ready", said plainly
        return f"failed after {time.monotonic() - started:.2f}s: {type(exc).__name__}"
    return "ok"


def _database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # the probe's pooled connection goes straight back


def _redis() -> None:
    for url in _redis_urls():
        _redis_client(url).ping()


def _redis_urls() -> list[str]:
    urls = [settings.REDIS_URL, settings.CACHES["default"].get("LOCATION")]
    return sorted({url for url in urls if isinstance(url, str) and url.startswith(("redis://", "rediss://", "unix://"))})


@functools.lru_cache(maxsize=4)
def _redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=CHECK_TIMEOUT_SECONDS,
                                socket_connect_timeout=CHECK_TIMEOUT_SECONDS)
