"""The HTTP handler (config/http_handler.py): requests borrow threads instead of starting
one each, at most HTTP_THREADS run at once, and requests for async views take no turn.
Its answers under a real Daphne are in tests/database/test_database_outage.py (a request that
waits too long for its turn) and every Daphne test of the suite."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

from config.http_handler import HttpHandler, RequestThreads, runs_async_view


def scope(path: str, method: str = "GET") -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000)}


async def request(app: HttpHandler, path: str) -> tuple[int, dict[str, str], bytes]:
    communicator = ApplicationCommunicator(app, scope(path))
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(10)
    body = await communicator.receive_output(10)
    await communicator.wait(10)
    headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
    return start["status"], headers, body["body"]


def test_requests_one_after_another_reuse_one_thread() -> None:
    app = HttpHandler()

    async def twenty() -> list[int]:
        return [(await request(app, "/healthz"))[0] for _ in range(20)]

    assert asyncio.run(twenty()) == [200] * 20
    assert app.threads.started == 1


def test_requests_at_once_use_at_most_http_threads_threads(settings: Any) -> None:
    settings.HTTP_THREADS = 3
    app = HttpHandler()

    async def at_once() -> list[int]:
        answers = await asyncio.gather(*(request(app, "/healthz") for _ in range(12)))
        return [status for status, _, _ in answers]

    assert asyncio.run(at_once()) == [200] * 12
    assert app.threads.started <= 3


def test_a_request_that_waits_past_the_timeout_for_its_turn_is_answered_busy(settings: Any) -> None:
    settings.HTTP_THREADS, settings.HTTP_WAIT_TIMEOUT = 1, 0.2
    app = HttpHandler()

    async def while_the_only_turn_is_taken() -> list[tuple[int, dict[str, str], bytes]]:
        app.turns = asyncio.Semaphore(1)
        await app.turns.acquire()  # as a request still running would hold it
        answers = [await request(app, "/api/accounts/me"), await request(app, "/")]
        app.turns.release()
        answers.append(await request(app, "/healthz"))
        return answers

    (api, api_headers, api_body), (page, page_headers, page_body), (after, _, _) = \
        asyncio.run(while_the_only_turn_is_taken())
    assert api == 503 and json.loads(api_body)["error"] == "database_busy"
    assert api_headers["retry-after"] == "1" and api_headers["cache-control"] == "no-store"
    assert page == 503 and page_headers["content-type"].startswith("text/html")
    assert b"Back in a moment" in page_body and page_headers["x-frame-options"] == "DENY"
    # Answered before the middleware runs, with the headers it would have added.
    assert api_headers["referrer-policy"] == "same-origin" and "cross-origin-opener-policy" in page_headers
    assert "content-security-policy" in page_headers and page_headers["x-content-type-options"] == "nosniff"
    assert after == 200


def test_only_requests_for_async_views_skip_the_turns() -> None:
    game = uuid.uuid4()
    assert runs_async_view(f"/api/games/{game}/hint") and runs_async_view(f"/api/games/{game}/complete")
    assert not runs_async_view(f"/api/games/{game}/moves")
    assert not runs_async_view("/no/such/page")
    # Only short API paths are resolved (and cached): a client cannot fill the cache.
    assert not runs_async_view(f"/api/games/{game}/hint" + "/" * 300)
    assert not runs_async_view(f"/static/api/games/{game}/hint")


def test_idle_threads_beyond_the_kept_number_are_stopped() -> None:
    threads = RequestThreads(keep=2)
    lent = [threads.borrow() for _ in range(4)]
    for executor in lent:
        threads.give_back(executor)
    assert threads.started == 4 and len(threads.idle) == 2
    assert lent[2]._shutdown and lent[3]._shutdown
    assert threads.borrow() is lent[1] and threads.started == 4
