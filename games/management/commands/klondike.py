"""Operators' tools for the engine. The JSON shapes printed here are a public
contract: scripts depend on them.

    python manage.py klondike deal KL1-D1N-AAAAAAG [--json]
    python manage.py klondike replay KL1-D1N-AAAAAAG [--ranked] < moves.jsonl
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import DealCode, DealCodeError, Game, Move, MoveError, board_text, deal_json


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

    def handle(self, *args: Any, **options: Any) -> None:
        code = _parse_code(options["code"])
        if options["action"] == "deal":
            game = Game.new(code)
            if options["json"]:
                self.stdout.write(json.dumps(deal_json(game)))
            else:
                self.stdout.write(board_text(game))
        else:
            replay_lines(Game.new(code, ranked=options["ranked"]), sys.stdin, self.stdout)
