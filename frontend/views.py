"""Page shells. They render no game data: only the ids taken from the URL, which the
page's script uses to ask the API and the WebSockets for what may be shown."""

from __future__ import annotations

from typing import Any, Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

TITLES = {
    "home": "Klondike",
    "game": "Game",
    "race": "Race room",
    "challenge": "A race challenge",
    "replay": "Replay",
    "deal": "A shared deal",
    "race_replay": "Race replay",
    "leaderboards": "Leaderboards",
    "profile": "Player",
    "signup": "Sign up",
    "login": "Log in",
    "account": "Your account",
    "forgot": "Forgot your password?",
    "reset": "Choose a new password",
    "verify_email": "Verify your email address",
}


def page(name: str, **extra: Any) -> Callable[..., HttpResponse]:
    """A view rendering ``frontend/<name>.html`` with the URL's parameters."""

    @require_safe
    @ensure_csrf_cookie  # the scripts send the cookie's token in X-CSRFToken
    def view(request: HttpRequest, **params: Any) -> HttpResponse:
        context = {"page": name, "title": TITLES[name], "params": {k: str(v) for k, v in params.items()}, **extra}
        return render(request, f"frontend/{name}.html", context)

    view.__name__ = f"{name}_page"
    return view
