"""Whether this web process is draining (config/serve.py sets it on SIGTERM): /readyz
then answers 503, so nothing that asks it sends new work here."""

from __future__ import annotations

from telemetry import metrics

_draining = False


def begin() -> None:
    global _draining
    _draining = True
    metrics.DRAINING.set(1)


def is_draining() -> bool:
    return _draining
