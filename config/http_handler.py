"""Django's ASGI handler for HTTP, without the costs py-spy found on a loaded Daphne
(docs/performance.md, "Where the floor's time went"):

1. Django runs each request's synchronous code on a thread of its own and starts that
   thread for the request (asgiref's ``ThreadSensitiveContext`` without an executor).
   Here a request borrows a thread that earlier requests used: it still has the thread to
   itself (thread-sensitive code such as its database connection stays on it), but no
   thread is started or stopped per request.
2. Every request in flight had a thread, and 32 threads contending for the GIL with the
   event loop cost a third more CPU per request than 4. Here at most ``HTTP_THREADS``
   requests run at once; the others wait their turn on the event loop, first come first
   served, and one that waits longer than ``DB_POOL_TIMEOUT`` is answered 503
   ``database_busy``, as a request that waits that long for a pooled connection is (each
   thread is one database connection in use: HTTP_THREADS is the web tier's share of the
   pool). Requests for async views (the solver's, which wait seconds for a worker without
   needing a thread) do not take a turn.
3. Under ASGI Django runs middleware that can be async in async mode. Ours are
   ``MiddlewareMixin`` classes with synchronous hooks (sessions, CSRF, authentication…)
   around a WhiteNoise that is synchronous only, and our views are synchronous, so a
   request went back and forth between the event loop and its thread about fifteen times.
   Here the whole chain runs as it does under WSGI, in one call on the request's thread;
   Django calls an async view from there with ``async_to_sync``.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections
from django.urls import Resolver404, resolve

from config.security_headers import page_headers

# Threads kept for later requests; async-view requests may briefly need more.
IDLE_THREADS_KEPT = 32


class RequestThreads:
    """Single-thread executors lent to one request at a time."""

    def __init__(self, keep: int = IDLE_THREADS_KEPT) -> None:
        self.keep = keep
        self.idle: list[ThreadPoolExecutor] = []
        self.started = 0

    def borrow(self) -> ThreadPoolExecutor:
        if self.idle:
            return self.idle.pop()
        self.started += 1
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="http")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        if len(self.idle) < self.keep:
            self.idle.append(executor)
        else:
            executor.shutdown(wait=False)


# Only the API has async views; a longer path is no address of ours. Both bound what a
# client can make the cache below hold (4096 short paths).
ASYNC_VIEW_PREFIX = "/api/"
LONGEST_API_PATH = 200


def runs_async_view(path: str) -> bool:
    if len(path) > LONGEST_API_PATH or not path.startswith(ASYNC_VIEW_PREFIX):
        return False
    return _resolves_to_async_view(path)


@functools.lru_cache(maxsize=4096)
def _resolves_to_async_view(path: str) -> bool:
    try:
        return iscoroutinefunction(resolve(path).func)
    except Resolver404:
        return False


class HttpHandler(ASGIHandler):
    def __init__(self) -> None:
        self.threads = RequestThreads(max(IDLE_THREADS_KEPT, settings.HTTP_THREADS))
        self.turns: asyncio.Semaphore | None = None  # made on the server's event loop
        super().__init__()

    def load_middleware(self, is_async: bool = False) -> None:
        # The chain in sync mode, as under WSGI, then one hop onto the request's thread.
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        if runs_async_view(path_info(scope)):
            return await self.run(scope, receive, send)
        if self.turns is None:
            self.turns = asyncio.Semaphore(settings.HTTP_THREADS)
        try:
            await asyncio.wait_for(self.turns.acquire(), settings.HTTP_WAIT_TIMEOUT)
        except TimeoutError:
            return await self.refuse_busy(scope, receive, send)
        try:
            await self.run(scope, receive, send)
        finally:
            self.turns.release()

    async def run(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        executor = self.threads.borrow()
        try:
            # Everything thread-sensitive in the request (signals, middleware, view, the
            # response's close) runs on this executor's one thread.
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        except asyncio.CancelledError:
            # Daphne gave up on the request (the client left long ago) while its view
            # may still run on the thread. The thread returns the view's database
            # connection once the view is done, and only then serves another request.
            loop = asyncio.get_running_loop()
            cleanup = executor.submit(close_old_connections)
            cleanup.add_done_callback(lambda _: loop.call_soon_threadsafe(self.threads.give_back, executor))
            raise
        self.threads.give_back(executor)

    async def refuse_busy(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        from database.middleware import busy_response

        try:
            (await self.read_body(receive)).close()
        except RequestAborted:
            return
        response = busy_response(scope["method"], path_info(scope))
        for name, value in page_headers(secure=scope.get("scheme") == "https").items():
            response[name] = value
        await self.send_response(response, send)


def path_info(scope: dict[str, Any]) -> str:
    root = scope.get("root_path", "")
    path = scope["path"]
    return path[len(root):] if root and path.startswith(root) else path


def get_http_application() -> HttpHandler:
    import django

    django.setup(set_prefix=False)
    return HttpHandler()
