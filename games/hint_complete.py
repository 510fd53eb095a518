"""Hint and Complete: a game's position solved on the solver's workers
(games.solver_jobs), and for Complete the winning line played through the move
service, each move an event like the player's own."""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

from asgiref.sync import sync_to_async
from django.db import connection
from django.utils.translation import gettext as _

from engine import Game as EngineGame, to_bytes
from api.errors import ServiceError
from games.models import Game
from games.services import game_over_detail, submit_move
from games.solver_jobs import (COMPLETE_BUDGET_SECONDS, COMPLETE_SECONDS, HINT_BUDGET_SECONDS, QUEUE_WAIT_SECONDS,
                               solve_position)


def complete_status(game: Game, engine: EngineGame) -> tuple[bool, str]:
    """Whether Complete is offered, and why not when it is not."""
    if not game.is_live:
        return False, _("the game is over")
    if game.kind == Game.Kind.CASUAL:
        return True, ""
    if engine.stock or engine.waste or any(engine.down):
        # Translators: Complete is the button that plays the game to a win.
        return False, _("in a ranked game Complete is offered once every card is face up "
                        "and the stock and the waste are empty")
    return True, ""


def _snapshot_for_solving(game_id: Any, actor: Any, purpose: str) -> tuple[bytes, str, int]:
    try:
        game = Game.objects.select_related("race", "daily").get(pk=game_id)
    except (Game.DoesNotExist, ValueError):
        raise ServiceError("not_found", _("there is no such game"), 404) from None
    if not actor.owns(game):
        raise ServiceError("not_your_game", _("only the game's player can ask for this"), 403)
    engine = game.engine()
    if purpose == "hint":
        if not game.is_live:
            raise ServiceError("game_over", game_over_detail(game.status), 409)
        if game.kind != Game.Kind.CASUAL:
            raise ServiceError("hint_not_offered", _("hints are for casual games only"), 409)
    else:
        offered, reason = complete_status(game, engine)
        if not offered:
            raise ServiceError("complete_not_offered", reason, 409)
    return to_bytes(engine), game.code, game.seq


async def _solve(kind: str, state: bytes, code: str, budget: float, deadline: float) -> dict[str, Any]:
    """The solver's answer for a position; ``solver_busy`` if no worker answered
    before ``deadline`` (``time.monotonic()``)."""
    result = await solve_position(kind, state, code, budget, deadline)
    if result["result"] == "lose":
        raise ServiceError("not_winnable", _("there is no way to win from here: undo or start a new game"), 409)
    if result["result"] != "win":
        raise ServiceError("solver_timeout", _("no winning line was found in time: try again after a move"), 409)
    return result


def returning_connection(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` run from these async views by ``sync_to_async``, the request's
    database connection given back to the pool as it returns: the view then waits
    seconds for a solver worker, and holds no connection while it does."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:  # a test's transaction: leave it be
                connection.close()

    return call


async def hint(game_id: Any, actor: Any) -> dict[str, Any]:
    deadline = time.monotonic() + HINT_BUDGET_SECONDS + QUEUE_WAIT_SECONDS
    state, code, seq = await sync_to_async(returning_connection(_snapshot_for_solving))(game_id, actor, "hint")
    result = await _solve("hint", state, code, HINT_BUDGET_SECONDS, deadline)
    return {"seq": seq, "move": result["moves"][0] if result["moves"] else None,
            "remaining": len(result["moves"])}


async def complete(game_id: Any, actor: Any, seq: Any) -> dict[str, Any]:
    """Play the game to a win from here, each move as its own event, within
    ``COMPLETE_SECONDS`` in all."""
    started = time.monotonic()
    state, code, current = await sync_to_async(returning_connection(_snapshot_for_solving))(game_id, actor,
                                                                                          "complete")
    if seq is not None and seq != current + 1:
        # Translators: "seq" is the request's field (kept as it is): the number of the event sent.
        raise ServiceError("seq_conflict", _("the game is at event %(seq)s: send seq %(next)s")
                           % {"seq": current, "next": current + 1}, 409, seq=current)
    result = await _solve("complete", state, code, COMPLETE_BUDGET_SECONDS,
                          started + COMPLETE_BUDGET_SECONDS + QUEUE_WAIT_SECONDS)
    moves, last, played = result["moves"], None, 0
    for move in moves:
        if time.monotonic() - started > COMPLETE_SECONDS:
            break
        played += 1
        last = await sync_to_async(returning_connection(submit_move))(game_id, actor, move, current + played)
    return {"moves_played": played, "remaining": len(moves) - played, "result": last}
