"""Ghost races: a new casual game on the deal of a finished game, whose moves are
played back beside it at their original pace. Unrated; the result compares times.

The ghost's board is what a racer of a fair race would see of an opponent on the
same deal (RULES.md, "one deal, many players"): its public view (nothing face down,
no stock order), with the name of a card only if it has been face up in the player's
own game; the position is the ghost's as it was that many seconds after its first
move, and nothing later."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils.translation import gettext as _

from api.errors import ServiceError
from engine import Game as EngineGame
from engine.views import ALL_CARDS, public_view, redact_view
from games import viewer_policy
from games.models import ENGINE_ACTIONS, Game, Move
from games.viewer_policy import Actor


def recorded(ghost_id: Any, actor: Actor) -> Game:
    """The finished game a new ghost race replays: one whose replay this player may
    read (over, and its race or daily deal over too), with at least one move."""
    game = Game.objects.select_related("owner", "race", "daily").filter(pk=ghost_id).first()
    if game is None:
        raise ServiceError("not_found", _("there is no such game to race"), 404)
    if game.is_live or not viewer_policy.sight(game, actor).reveal or game.started_at is None:
        raise ServiceError("ghost_unavailable", _("only a finished game with its result public (and at least one "
                                                  "move) can be raced as a ghost"), 409)
    return game


def summary(ghost: Game) -> dict[str, Any]:
    """The recorded result the ghost race is against (shown from the start)."""
    return {"game": str(ghost.id), "owner": ghost.owner.username if ghost.owner_id else None,
            "status": ghost.status, "seconds": ghost.seconds, "score": ghost.score, "moves": ghost.moves,
            "foundation_count": ghost.foundation_count}


def ghost_at(game_id: Any, actor: Actor, elapsed: float) -> dict[str, Any]:
    """The ghost ``elapsed`` seconds after its first move (0: before it, the opening
    deal), as this game's player may see it now; ``next_at``: when its next event comes
    (None: it has finished)."""
    game = Game.objects.select_related("ghost_of").filter(pk=game_id).first()
    if game is None:
        raise ServiceError("not_found", _("there is no such game"), 404)
    if not actor.owns(game):
        raise ServiceError("not_your_game", _("only the game's player races its ghost"), 403)
    ghost = game.ghost_of
    if ghost is None:
        raise ServiceError("no_ghost", _("this game is not a ghost race"), 409)
    due = ghost.started_at + timedelta(seconds=max(0.0, elapsed))
    rows = list(Move.objects.filter(game=ghost).order_by("seq").values_list("seq", "action", "score", "moves",
                                                                              "created_at"))
    engine = EngineGame.new(ghost.code, ranked=ghost.ranked_undo)
    shown = {"seq": 0, "score": engine.score, "moves": 0, "status": "live"}
    next_at = None
    for seq, action, score, moves, at in rows:
        if at > due or elapsed <= 0:  # at 0 the race has not started: the opening deal
            next_at = round((at - ghost.started_at).total_seconds(), 3)
            break
        if action["type"] in ENGINE_ACTIONS:
            engine.apply_json(action)
        shown = {"seq": seq, "score": score, "moves": moves, "status": "live" if seq < ghost.seq else ghost.status}
    # A game the player has finished knows every card (the replay is theirs to read).
    known = ALL_CARDS if not game.is_live else game.cards_seen
    return {"elapsed": round(elapsed, 3), **shown, "foundation_count": engine.foundation_count,
            "next_at": next_at, "view": redact_view(public_view(engine), known)}
