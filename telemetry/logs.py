"""Structured logs: one JSON object per line, with the request id and the game id of
the request or socket that logged it (kept in context variables, so a line logged deep
in a service call still carries them)."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import time
from typing import Any

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")
game_id: contextvars.ContextVar[str] = contextvars.ContextVar("game_id", default="")

# A request id a proxy may hand us (nginx's $request_id is 32 hex digits): anything
# else is replaced, so a client cannot write into our logs through it.
REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
# A game's id in an API or socket path: /api/games/<uuid>/..., /ws/games/<uuid>/...
GAME_IN_PATH = re.compile(r"/games/([0-9a-fA-F-]{32,36})(?:/|$)")

# LogRecord's own attributes: what is not one of them was passed as ``extra``.
_RECORD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id", "game_id"}


def keep_context_on_records() -> None:
    """Every log record notes the request and game ids of where it was made, so that a
    handler that formats it later (or elsewhere) still has them."""
    current = logging.getLogRecordFactory()
    if getattr(current, "keeps_context", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = current(*args, **kwargs)
        record.request_id = request_id.get()
        record.game_id = game_id.get()
        return record

    factory.keeps_context = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def new_request_id(offered: str | None = None) -> str:
    if offered and REQUEST_ID.match(offered):
        return offered
    return secrets.token_hex(16)


def game_of(path: str) -> str:
    found = GAME_IN_PATH.search(path)
    return found.group(1).lower() if found else ""


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "request_id", "game_id", ...extra}``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, var in (("request_id", request_id), ("game_id", game_id)):
            value = getattr(record, name, None) or var.get()
            if value:
                entry[name] = value
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
