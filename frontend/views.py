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


# What each page is, for search results and link previews (<meta name="description">).
DESCRIPTIONS = {
    "home": "Play Klondike solitaire: draw one or three, Normal or Vegas scoring, the daily deal, races against "
            "other players and live games to watch.",
    "game": "A game of Klondike solitaire, played or watched live.",
    "race": "A Klondike race room: players on the same deal at the same moment, every board live.",
    "challenge": "A challenge to a Klondike race: accept it and race on a fresh winnable deal.",
    "replay": "The replay of a finished Klondike game: step through every move, play it back, share a moment.",
    "race_replay": "The replay of a finished Klondike race: every racer's board side by side, in time.",
    "deal": "A shared Klondike deal: play the same cards someone else played.",
    "leaderboards": "Klondike leaderboards: the daily deal, Vegas cumulative balances, every deal and race ratings.",
    "profile": "A Klondike player's profile: games, wins, streaks, best times and race rating.",
    "signup": "Create a Klondike account to race, keep your statistics and climb the leaderboards.",
    "login": "Log in to your Klondike account.",
    "account": "Your Klondike account: email, password, two-factor sign-in, tokens and sessions.",
    "forgot": "Forgot your Klondike password? Get a link to choose a new one.",
    "reset": "Choose a new password for your Klondike account.",
    "verify_email": "Verify the email address of your Klondike account.",
}


def page(name: str, **extra: Any) -> Callable[..., HttpResponse]:
    """A view rendering ``frontend/<name>.html`` with the URL's parameters."""

    @require_safe
    @ensure_csrf_cookie  # the scripts send the cookie's token in X-CSRFToken
    def view(request: HttpRequest, **params: Any) -> HttpResponse:
        context = {"page": name, "title": TITLES[name], "description": DESCRIPTIONS[name],
                   "params": {k: str(v) for k, v in params.items()}, **extra}
        return render(request, f"frontend/{name}.html", context)

    view.__name__ = f"{name}_page"
    return view
