"""Page shells. They render no game data: only the ids taken from the URL, which the
page's script uses to ask the API and the WebSockets for what may be shown."""

from __future__ import annotations

from typing import Any, Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

# Page titles (<title>, followed by " · Klondike"): module constants, so lazy; the view
# turns them into the request's language.
TITLES = {
    # Translators: the home page's title; the game's name.
    "home": _("Klondike"),
    # Translators: the title of the page of one game of solitaire (a "partita"/"partida").
    "game": _("Game"),
    "race": _("Race room"),
    "challenge": _("A race challenge"),
    "replay": _("Replay"),
    "deal": _("A shared deal"),
    "race_replay": _("Race replay"),
    "leaderboards": _("Leaderboards"),
    # Translators: a player (the title of a player's profile page).
    "profile": _("Player"),
    "signup": _("Sign up"),
    "login": _("Log in"),
    "account": _("Your account"),
    "forgot": _("Forgot your password?"),
    "reset": _("Choose a new password"),
    "verify_email": _("Verify your email address"),
    "rules": _("Rules of Klondike"),
}


# What each page is, for search results and link previews (<meta name="description">).
DESCRIPTIONS = {
    "home": _("Play Klondike solitaire: draw one or three, Normal or Vegas scoring, the daily deal, races against "
              "other players and live games to watch."),
    "game": _("A game of Klondike solitaire, played or watched live."),
    "race": _("A Klondike race room: players on the same deal at the same moment, every board live."),
    "challenge": _("A challenge to a Klondike race: accept it and race on a fresh winnable deal."),
    "replay": _("The replay of a finished Klondike game: step through every move, play it back, share a moment."),
    "race_replay": _("The replay of a finished Klondike race: every racer's board side by side, in time."),
    "deal": _("A shared Klondike deal: play the same cards someone else played."),
    "leaderboards": _("Klondike leaderboards: the daily deal, Vegas cumulative balances, every deal and race ratings."),
    "profile": _("A Klondike player's profile: games, wins, streaks, best times and race rating."),
    "signup": _("Create a Klondike account to race, keep your statistics and climb the leaderboards."),
    "login": _("Log in to your Klondike account."),
    "account": _("Your Klondike account: email, password, two-factor sign-in, tokens and sessions."),
    "forgot": _("Forgot your Klondike password? Get a link to choose a new one."),
    "reset": _("Choose a new password for your Klondike account."),
    "verify_email": _("Verify the email address of your Klondike account."),
    "rules": _("The rules of Klondike solitaire here: draw one or three, Normal and Vegas scoring, undo, the daily "
               "deal, races and watching."),
}


def page(name: str, **extra: Any) -> Callable[..., HttpResponse]:
    """A view rendering ``frontend/<name>.html`` with the URL's parameters."""

    @require_safe
    @ensure_csrf_cookie  # the scripts send the cookie's token in X-CSRFToken
    def view(request: HttpRequest, **params: Any) -> HttpResponse:
        # The lazy texts become the request's language here (LocaleMiddleware made it active).
        context = {"page": name, "title": str(TITLES[name]), "description": str(DESCRIPTIONS[name]),
                   "params": {k: str(v) for k, v in params.items()}, **extra}
        return render(request, f"frontend/{name}.html", context)

    view.__name__ = f"{name}_page"
    return view
