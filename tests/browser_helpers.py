"""Browser tests: real headless Chromium (Debian's ``chromium``) driven by Playwright,
against Daphne started in a subprocess on the pytest test database.

Import the fixtures into a test module::

    from tests.browser_helpers import chromium, daphne_server  # noqa: F401 (fixtures)

Screenshots go to ``test-artifacts/`` (gitignored). Pass ``wait_for_function`` a function
(``"() => …"``), not an expression: Playwright evals an expression inside the page, and
the Content-Security-Policy forbids eval.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
INSTALL_HINT = ("Chromium is needed for the browser tests: run `apt-get install -y chromium` "
                "(as root; Debian's package puts it at /usr/bin/chromium). Do not run `playwright install`.")
PASSWORD = "correct horse battery 42"

# Daphne, with static files served by WhiteNoise straight from the apps' static
# folders (no collectstatic): the settings are read as configured, then WhiteNoise is
# told to use the finders before the ASGI application (and its middleware) is built.
SERVE = """
import os, sys
import django
from django.conf import settings
django.setup()
settings.WHITENOISE_USE_FINDERS = True
settings.WHITENOISE_AUTOREFRESH = True
from daphne.cli import CommandLineInterface
CommandLineInterface().run(["-b", "127.0.0.1", "-p", sys.argv[1], "--verbosity", "1", "config.asgi:application"])
"""


def require_chromium() -> None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(f"{CHROMIUM} is missing. {INSTALL_HINT}", pytrace=False)
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.fail("The Playwright package is missing: pip install -e '.[test]' (it ships its own driver; "
                    "the browser is Debian's chromium).", pytrace=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """Daphne in a subprocess on the test database; can be stopped and restarted on the
    same port (to drop every WebSocket)."""

    def __init__(self, database: dict[str, Any], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.process: subprocess.Popen | None = None
        user = database.get("USER") or "postgres"
        password = f":{database['PASSWORD']}" if database.get("PASSWORD") else ""
        host = database.get("HOST") or "127.0.0.1"
        port = database.get("PORT") or "5432"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"postgres://{user}{password}@{host}:{port}/{database['NAME']}",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "insecure-browser-test-key",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DEBUG": "false",
            "WHITENOISE_USE_FINDERS": "true",
            # Every test signs up from 127.0.0.1: keep the throttles out of the way.
            "THROTTLE_SIGNUP": "10000/hour",
            "THROTTLE_LOGIN": "10000/min",
            "PYTHONUNBUFFERED": "1",
        }
        if os.environ.get("REDIS_URL"):
            self.env["REDIS_URL"] = os.environ["REDIS_URL"]
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)

    def start(self) -> None:
        handle = open(self.log, "ab")
        self.process = subprocess.Popen([sys.executable, "-c", SERVE, str(self.port)], cwd=ROOT, env=self.env,
                                        stdout=handle, stderr=subprocess.STDOUT)
        handle.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Daphne exited with {self.process.returncode}; see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"Daphne did not answer within 30 s; see {self.log}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, pause: float = 0.0) -> None:
        self.stop()
        time.sleep(pause)
        self.start()


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


@pytest.fixture
def daphne_server(transactional_db: Any, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    require_chromium()
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("the browser tests share the test database with a Daphne process: set DATABASE_URL to "
                    "PostgreSQL (make test does)")
    log = artifact(f"{request.node.name}.daphne.log")
    log.unlink(missing_ok=True)
    server = LiveServer(connection.settings_dict, log)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        wait_for_other_sessions_to_close(connection, log)


def wait_for_other_sessions_to_close(connection: Any, log: Path, timeout: float = 10.0) -> None:
    """Daphne's database sessions end a moment after the process does; the test
    database is flushed (and at the end dropped) only once they are gone."""
    started = time.monotonic()
    others: list[tuple] = []
    while time.monotonic() < started + timeout:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid, application_name, state, left(query, 80) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
            others = cursor.fetchall()
        if not others:
            return
        time.sleep(0.1)
    with open(log, "a") as handle:
        handle.write(f"sessions still open {timeout:.0f} s after Daphne stopped: {others}\n")


@contextlib.contextmanager
def launch_chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def chromium(daphne_server: LiveServer) -> Iterator[Any]:
    """Headless Chromium, one per test. Playwright's sync API keeps an event loop set
    on this thread, so Django's async-safety check is relaxed while it runs (the test
    database is used from this thread only)."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with launch_chromium() as browser:
            try:
                yield browser
            finally:
                # Database calls made by the test while Playwright's loop was set got their
                # own connection (asgiref's Local follows the loop's context): close it here.
                from django.db import connections

                connections.close_all()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class PageErrors:
    """Collects uncaught script errors of a page (a test asserts there were none) and,
    for diagnosis, the page's last WebSocket frames and console messages."""

    def __init__(self, page: Any, label: str) -> None:
        self.label = label
        self.page = page
        self.errors: list[str] = []
        self.log: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"{label}: {error}"))
        page.on("console", lambda message: self.note(f"console {message.type}: {message.text}"))
        page.on("websocket", self.watch)

    def note(self, line: str) -> None:
        self.log.append(f"{time.strftime('%H:%M:%S')} {line[:300]}")
        del self.log[:-80]

    def watch(self, ws: Any) -> None:
        path = ws.url.split("/", 3)[-1]
        self.note(f"ws open {path}")
        ws.on("framereceived", lambda frame: self.note(f"<< {path} {frame}"))
        ws.on("framesent", lambda frame: self.note(f">> {path} {frame}"))
        ws.on("close", lambda _: self.note(f"ws closed {path}"))

    def check(self) -> None:
        assert not self.errors, "script errors in the page:\n" + "\n".join(self.errors)


class diagnose:
    """On failure, save a screenshot of every page and print its recent log."""

    def __init__(self, name: str, *watched: PageErrors) -> None:
        self.name = name
        self.watched = watched

    def __enter__(self) -> "diagnose":
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is None:
            return
        for item in self.watched:
            try:
                shot(item.page, f"FAILED-{self.name}-{item.label}")
            except Exception:  # the page may be gone
                pass
            print(f"--- {item.label} ---", *item.log, sep="\n")


def new_page(browser: Any, server: LiveServer, label: str, **context_options: Any) -> tuple[Any, Any, PageErrors]:
    options = {"viewport": {"width": 1280, "height": 900}, "base_url": server.url, **context_options}
    context = browser.new_context(**options)
    context.set_default_timeout(15000)
    page = context.new_page()
    return context, page, PageErrors(page, label)


def shot(page: Any, name: str, full_page: bool = True) -> Path:
    path = artifact(f"{name}.png")
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")
    return path


def sign_up(page: Any, username: str, password: str = PASSWORD) -> None:
    page.goto("/signup/")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#auth-form button[type=submit]")
    page.wait_for_url("**/")
    page.wait_for_selector(f"[data-testid=me]:has-text('{username}')")


# -- driving a board ----------------------------------------------------------------


def board_seq(page: Any, board: str = "#board") -> int:
    value = page.get_attribute(board, "data-seq")
    return int(value) if value else 0


def wait_seq(page: Any, seq: int, board: str = "#board", timeout: float = 10000) -> None:
    page.wait_for_function(
        """([selector, seq]) => { const el = document.querySelector(selector);
             return el && el.dataset.seq !== "" && el.dataset.seq !== undefined
                    && Number(el.dataset.seq) >= seq && el.dataset.pending === "0"; }""",
        arg=[board, seq], timeout=timeout)


def card(page: Any, name: str, board: str = "#board") -> Any:
    return page.locator(f'{board} .card[data-card="{name}"]')


def grab_point(locator: Any) -> tuple[float, float]:
    """A point on the visible strip at the top of a card (cards above cover the rest)."""
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + min(12, box["height"] * 0.1)


def drag_card(page: Any, name: str, column: str, board: str = "#board") -> None:
    """Drag a card (with the run on it) with the mouse onto column ``t1``…``t7``."""
    source = card(page, name, board)
    source.scroll_into_view_if_needed()
    x, y = grab_point(source)
    target = column_drop_point(page, column, board)
    page.mouse.move(x, y)
    page.mouse.down()
    steps = 8
    for i in range(1, steps + 1):
        page.mouse.move(x + (target[0] - x) * i / steps, y + (target[1] - y) * i / steps)
    page.mouse.up()


def column_drop_point(page: Any, column: str, board: str = "#board") -> tuple[float, float]:
    """Where to drop a grabbed card so that it lands on the column's last card."""
    slot = page.locator(f'{board} .slot[data-pile="{column}"]').bounding_box()
    last = page.evaluate(
        """([selector, pile]) => { const cards = [...document.querySelectorAll(`${selector} > .card[data-pile="${pile}"]`)];
             if (!cards.length) return null; const r = cards[cards.length - 1].getBoundingClientRect();
             return {x: r.x, y: r.y, h: r.height}; }""", [board, column])
    x = slot["x"] + slot["width"] / 2
    y = (last["y"] + last["h"] * 0.3) if last else slot["y"] + 12
    return x, y


def touch_drag(page: Any, name: str, column: str, board: str = "#board") -> None:
    """The same drag with a finger: touch events through the DevTools protocol, which
    Chromium turns into pointer events of type "touch"."""
    source = card(page, name, board)
    source.scroll_into_view_if_needed()
    x, y = grab_point(source)
    tx, ty = column_drop_point(page, column, board)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    steps = 8
    for i in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + (tx - x) * i / steps, "y": y + (ty - y) * i / steps}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


# -- a winning line, computed from the deal --------------------------------------------


def winning_line(code: str, budget: int = 20000) -> list[dict[str, Any]] | None:
    """A depth-first search over the engine's legal moves (the solver is not needed):
    foundation moves first, then moves that turn a card up, then waste moves, then
    emptying a column, then draws. No take-backs, no run shuffles between columns."""
    from engine import Game
    from engine.moves import FOUNDATION

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    start = Game.new(code)
    seen: set[tuple] = set()
    line: list[dict[str, Any]] = []
    nodes = 0

    def ordered(game: Game) -> list[Any]:
        scored = []
        for move in game.legal_moves():
            if move.kind in ("draw", "recycle"):
                scored.append((5, move))
                continue
            source = next((i for i, col in enumerate(game.columns) if move.card in col), None)
            from_waste = bool(game.waste) and game.waste[-1] == move.card
            if source is None and not from_waste:
                continue  # a take-back from a foundation
            if move.to == FOUNDATION:
                scored.append((0, move))
            elif from_waste:
                scored.append((2, move))
            else:
                position = game.columns[source].index(move.card)
                if position == game.down[source] and position > 0:
                    scored.append((1, move))  # turns a card up
                elif position == 0 and game.columns[source][0] % 13 != 12:
                    scored.append((3, move))  # empties a column for a King
        scored.sort(key=lambda pair: pair[0])
        return [move for _, move in scored]

    def search(game: Game) -> bool:
        nonlocal nodes
        nodes += 1
        if game.won:
            return True
        if nodes > budget:
            return False
        key = (tuple(map(tuple, game.columns)), tuple(game.down), tuple(game.stock), tuple(game.waste),
               tuple(game.foundations))
        if key in seen:
            return False
        seen.add(key)
        for move in ordered(game):
            after = game.copy()
            after.apply(move)
            line.append(move.to_json())
            if search(after):
                return True
            line.pop()
        return False

    return line if search(start) else None


def winnable_deal(draw: int = 1, first: int = 0, last: int = 200) -> tuple[str, list[dict[str, Any]]]:
    """The first deal number in range whose Normal deal the search wins: (code, line)."""
    from engine import DealCode, Scoring

    for number in range(first, last + 1):
        code = str(DealCode(number, draw, Scoring.NORMAL))
        line = winning_line(code)
        if line is not None:
            return code, line
    raise AssertionError(f"no deal in {first}..{last} was won by the search")


def smart_column(code: str, played: list[dict[str, Any]], move: dict[str, Any]) -> str | None:
    """Where a double tap on the move's card would send it (the engine decides)."""
    from engine import Game, MoveError, replay

    game: Game = replay(code, played)
    try:
        outcome = game.apply_json({"type": "move", "card": move["card"], "to": "tableau"})
    except MoveError:
        return None
    return outcome.move.to_json()["to"]
