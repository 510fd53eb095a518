"""Operators' tools for the engine. The JSON shapes printed here are a public
contract: scripts depend on them.

    python manage.py klondike deal KL1-D1N-AAAAAAG [--json]
    python manage.py klondike replay KL1-D1N-AAAAAAG [--ranked] < moves.jsonl
    python manage.py klondike solve KL1-D1N-AAAAAAG [--budget-seconds S] [--json]
    python manage.py klondike pool --mode D1N --count 100 [--budget-seconds S]
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine import DealCode, DealCodeError, Game, Move, MoveError, board_text, deal_json


def _parse_code(text: str) -> DealCode:
    try:
        return DealCode.parse(text)
    except DealCodeError as exc:
        raise CommandError(f"{exc.code}: {exc.detail}") from None


def replay_lines(game: Game, lines: TextIO, out: TextIO) -> None:
    """Apply each JSON line to ``game``; write one JSON result line per input line."""
    for line in lines:
        if not line.strip():
            continue
        result: dict[str, Any] = {"ok": True}
        try:
            game.apply(Move.from_json(json.loads(line)))
        except json.JSONDecodeError:
            result = {"ok": False, "error": "bad_json"}
        except MoveError as exc:
            result = {"ok": False, "error": exc.code}
        result.update(
            score=game.score,
            moves=game.moves,
            won=game.won,
            foundation=game.foundation_count,
            legal=[move.to_json() for move in game.legal_moves()],
        )
        out.write(json.dumps(result) + "\n")
        out.flush()


class Command(BaseCommand):
    help = "Klondike engine tools: print a deal, replay moves."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        deal = sub.add_parser("deal", help="print the opening layout of a deal code")
        deal.add_argument("code")
        deal.add_argument("--json", action="store_true", help="print JSON instead of text")
        replay = sub.add_parser("replay", help="apply moves read as JSON lines on stdin")
        replay.add_argument("code")
        replay.add_argument("--ranked", action="store_true", help="apply the ranked undo policy")
        solve = sub.add_parser("solve", help="find a winning line, or prove there is none")
        solve.add_argument("code")
        solve.add_argument("--budget-seconds", type=float, default=10.0)
        solve.add_argument("--json", action="store_true", help="print JSON instead of text")
        pool = sub.add_parser("pool", help="grow the pool of proven-winnable deals (resumable)")
        pool.add_argument("--mode", required=True, choices=["D1N", "D3N", "D1V", "D3V"])
        pool.add_argument("--count", type=int, required=True,
                          help="winnable deals wanted in the pool (not yet handed out)")
        pool.add_argument("--budget-seconds", type=float, default=10.0)
        pool.add_argument("--max-tries", type=int, default=100_000)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "pool":
            return self.grow_pool(options)
        code = _parse_code(options["code"])
        if options["action"] == "solve":
            return self.solve(code, options)
        if options["action"] == "deal":
            game = Game.new(code)
            if options["json"]:
                self.stdout.write(json.dumps(deal_json(game)))
            else:
                self.stdout.write(board_text(game))
        else:
            replay_lines(Game.new(code, ranked=options["ranked"]), sys.stdin, self.stdout)

    def solve(self, code: DealCode, options: dict[str, Any]) -> None:
        from solver import solve

        result = solve(Game.new(code), budget_seconds=options["budget_seconds"])
        if options["json"]:
            self.stdout.write(json.dumps(result.to_json()))
            return
        self.stdout.write(f"{code}: {result.result} after {result.nodes} nodes in {result.seconds:.2f} s")
        for number, move in enumerate(result.moves, start=1):
            self.stdout.write(f"{number:4d}. {move}")

    def grow_pool(self, options: dict[str, Any]) -> None:
        """Solve random deals until the pool holds ``--count`` wins for the mode.
        Every deal tried is stored, so an interrupted run resumes where it stopped."""
        from engine.deal import parse_mode
        from games.models import SolvedDeal
        from games.solver_jobs import solve_deal

        mode = options["mode"]
        draw, mode_scoring = parse_mode(mode)
        scoring = mode_scoring.value
        done = SolvedDeal.objects.filter(draw=draw, scoring=scoring)
        # The pool is the wins not handed out yet (to a winnable game or a daily deal).
        stock = done.filter(result=SolvedDeal.Result.WIN, handed_out_at=None)
        wanted = options["count"]
        tries = 0
        while stock.count() < wanted and tries < options["max_tries"]:
            number = DealCode.random(draw).number
            if done.filter(deal_number=number).exists():
                continue
            tries += 1
            result = solve_deal(number, draw, scoring, options["budget_seconds"])
            SolvedDeal.objects.get_or_create(draw=draw, scoring=scoring, deal_number=number, defaults={
                "result": result["result"], "nodes": result["nodes"], "seconds": result["seconds"]})
            self._progress(stock.count(), wanted, done.count())
        sys.stderr.write("\n")
        wins = stock.count()
        self.stdout.write(f"{mode}: {wins} proven-winnable deals in the pool ({done.count()} examined)")

    @staticmethod
    def _progress(wins: int, wanted: int, examined: int) -> None:
        width = 30
        filled = min(width, width * wins // max(wanted, 1))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {wins}/{wanted} winnable, {examined} examined")
        sys.stderr.flush()
