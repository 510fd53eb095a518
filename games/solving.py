"""Complete, hint and winnable deals: where the solver meets the service.

The solver is CPU-bound Python, so it runs in a small process pool: a request that
waits for it holds no database transaction and blocks neither the event loop nor the
thread that all ``database_sync_to_async`` calls of a process share. Complete then
applies the winning line move by move through ``services.submit_move``: every move is
scored, counted and streamed like the player's own."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

from games.engine import DealCode, Game as EngineGame, Scoring, from_bytes, to_bytes
from games.errors import ServiceError
from games.models import DailyDeal, Game, SolvedDeal

HINT_BUDGET_SECONDS = 3.0
COMPLETE_BUDGET_SECONDS = 8.0
WINNABLE_BUDGET_SECONDS = 2.0
WINNABLE_TRIES = 8

_pool: ProcessPoolExecutor | None = None


def solver_pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=2, initializer=start_worker,
                                    initargs=(settings.SOLVER_TABLE_CACHE_MB,))
    return _pool


def start_worker(table_cache_mb: int) -> None:
    """Run in each worker process as it starts: bound the table memory it keeps."""
    from games.solver import search

    search.keep_table_memory(table_cache_mb << 20)


def worker_table_memory() -> tuple[int, int]:
    """Run in a worker process: its bound on kept table memory and what it keeps, in bytes."""
    from games.solver import search

    return search.table_memory()


def solve_state(state: bytes, code: str, budget_seconds: float) -> dict[str, Any]:
    """Run in a worker process: solve a stored position."""
    from games.solver import solve

    return solve(from_bytes(state, code=DealCode.parse(code)), budget_seconds=budget_seconds).to_json()


def solve_deal(number: int, draw: int, scoring: str, budget_seconds: float) -> dict[str, Any]:
    """Run in a worker process: solve a deal from its opening position."""
    from games.solver import solve

    return solve(EngineGame.new(DealCode(number, draw, Scoring(scoring))), budget_seconds=budget_seconds).to_json()


def complete_status(game: Game, engine: EngineGame) -> tuple[bool, str]:
    """Whether Complete is offered, and why not when it is not."""
    if not game.is_live:
        return False, "the game is over"
    if game.kind == Game.Kind.CASUAL:
        return True, ""
    if engine.stock or engine.waste or any(engine.down):
        return False, ("in a ranked game Complete is offered once every card is face up "
                       "and the stock and the waste are empty")
    return True, ""


def _snapshot_for_solving(game_id: Any, actor: Any, purpose: str) -> tuple[bytes, str, int]:
    try:
        game = Game.objects.select_related("race", "daily").get(pk=game_id)
    except (Game.DoesNotExist, ValueError):
        raise ServiceError("not_found", "there is no such game", 404) from None
    if not actor.owns(game):
        raise ServiceError("not_your_game", "only the game's player can ask for this", 403)
    engine = game.engine()
    if purpose == "hint":
        if not game.is_live:
            raise ServiceError("game_over", f"this game is over ({game.status})", 409)
        if game.kind != Game.Kind.CASUAL:
            raise ServiceError("hint_not_offered", "hints are for casual games only", 409)
    else:
        offered, reason = complete_status(game, engine)
        if not offered:
            raise ServiceError("complete_not_offered", reason, 409)
    return to_bytes(engine), game.code, game.seq


async def _solve(state: bytes, code: str, budget: float) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    result = await loop.run_in_executor(solver_pool(), solve_state, state, code, budget)
    if result["result"] == "lose":
        raise ServiceError("not_winnable", "there is no way to win from here: undo or start a new game", 409)
    if result["result"] != "win":
        raise ServiceError("solver_timeout", "no winning line was found in time: try again after a move", 409)
    return result


async def hint(game_id: Any, actor: Any) -> dict[str, Any]:
    state, code, seq = await sync_to_async(_snapshot_for_solving)(game_id, actor, "hint")
    result = await _solve(state, code, HINT_BUDGET_SECONDS)
    return {"seq": seq, "move": result["moves"][0] if result["moves"] else None,
            "remaining": len(result["moves"])}


async def complete(game_id: Any, actor: Any, seq: Any) -> dict[str, Any]:
    """Play the game to a win from here, each move as its own event."""
    from games.services import submit_move

    state, code, current = await sync_to_async(_snapshot_for_solving)(game_id, actor, "complete")
    if seq is not None and seq != current + 1:
        raise ServiceError("seq_conflict", f"the game is at event {current}: send seq {current + 1}", 409, seq=current)
    result = await _solve(state, code, COMPLETE_BUDGET_SECONDS)
    last = None
    for offset, move in enumerate(result["moves"], start=1):
        last = await sync_to_async(submit_move)(game_id, actor, move, current + offset)
    return {"moves_played": len(result["moves"]), "result": last}


def winnable_deal(draw: int, scoring: str) -> DealCode:
    """A random proven-winnable deal: from the pool, or else solved on the spot."""
    pool = (SolvedDeal.objects.filter(draw=draw, scoring=scoring, result=SolvedDeal.Result.WIN)
            .exclude(deal_number__in=DailyDeal.objects.filter(draw=draw).values("deal_number")))
    count = pool.count()
    if count:
        chosen = pool.order_by("deal_number")[secrets.randbelow(count)]
        return DealCode(chosen.deal_number, draw, Scoring(scoring))
    for _ in range(WINNABLE_TRIES):
        code = DealCode.random(draw, Scoring(scoring))
        result = solve_deal(code.number, draw, scoring, WINNABLE_BUDGET_SECONDS)
        SolvedDeal.objects.get_or_create(draw=draw, scoring=scoring, deal_number=code.number, defaults={
            "result": result["result"], "nodes": result["nodes"], "seconds": result["seconds"]})
        if result["result"] == "win":
            return code
    raise ServiceError("no_winnable_deal", "no winnable deal could be found right now: try again", 409)
