"""Request validation and the documented shapes of the games API."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.schema import ErrorSerializer
from api.input import (
    StrictBooleanField, StrictCharField, StrictChoiceField, StrictIntegerField, StrictSerializer, StrictUUIDField,
)
from engine.cards import CARD_PATTERN
from engine.deal import DEAL_CODE_PATTERN
from engine.moves import DESTINATION_PATTERN

MAX_SEQ = 2**31 - 1  # the database's integer

# The engine's wire format of a move (engine.moves), as Move.from_json takes it:
# the other kinds take no field but "type"; a card move takes exactly these three.
MOVE_SCHEMA = {
    "description": 'the move in the engine\'s wire format, e.g. {"type": "move", "card": "9S", "to": "t4"}',
    "oneOf": [
        {"type": "object", "title": "draw, recycle or undo", "additionalProperties": False, "required": ["type"],
         "properties": {"type": {"type": "string", "enum": ["draw", "recycle", "undo"]}}},
        {"type": "object", "title": "a card (with the cards on it) to a pile", "additionalProperties": False,
         "required": ["type", "card", "to"],
         "properties": {
             "type": {"type": "string", "enum": ["move"]},
             "card": {"type": "string", "pattern": CARD_PATTERN,
                      "description": "rank A23456789TJQK (or 10) and suit SHDC, in any case: 9S, th, 10H"},
             "to": {"type": "string", "pattern": DESTINATION_PATTERN,
                    "description": "t1…t7, foundation (its suit's), or tableau (a legal column), in any case"},
         }},
    ],
}


class ConflictSerializer(ErrorSerializer):
    seq = serializers.IntegerField(required=False, help_text="the game's current event number (stale seq, game over)")


@extend_schema_field({"type": "string", "maxLength": 64, "pattern": DEAL_CODE_PATTERN})
class DealCodeField(StrictCharField):
    """Parsed by the engine (DealCode.parse), whose errors say which part is wrong;
    the schema's pattern says what it takes."""


@extend_schema_field(MOVE_SCHEMA)
class WireMoveField(serializers.JSONField):
    """Parsed by the engine (Move.from_json: bad_move, bad_card, bad_destination)."""


@extend_schema_field({"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}})
class AppliedMoveField(serializers.JSONField):
    """A move as applied: the canonical wire move, or "resign" / "timeout" / "abandon"."""


DEAL_CHOICES = ("code", "daily", "winnable", "ghost")  # each chooses a new game's deal


def choosing(name: str) -> dict[str, Any]:
    """The JSON Schema of a body that chooses the deal with ``name``."""
    if name in ("code", "ghost"):
        return {"required": [name]}
    return {"required": [name], "properties": {name: {"enum": [True]}}}


class CreateGameSerializer(StrictSerializer):
    """A new game. `code`, `daily` and `winnable` each choose the deal: send at most one."""

    # The schema says what validate() checks: no two of them.
    schema_constraints = {"not": {"anyOf": [
        {"allOf": [choosing(first), choosing(second)]}
        for i, first in enumerate(DEAL_CHOICES) for second in DEAL_CHOICES[i + 1:]
    ]}}

    code = DealCodeField(required=False, max_length=64,
                         help_text="a deal code such as KL1-D1N-AAAAAAG; its draw and scoring win")
    draw = StrictChoiceField(choices=[1, 3], default=1)
    scoring = StrictChoiceField(choices=["normal", "vegas"], default="normal")
    public = StrictBooleanField(default=True, help_text="listed for spectators; private games need the link")
    daily = StrictBooleanField(default=False, help_text="today's daily deal for this draw (Normal scoring)")
    winnable = StrictBooleanField(default=False, help_text="a random deal proven winnable by the solver")
    ghost = StrictUUIDField(required=False, help_text="a ghost race: a finished game whose result is public; "
                                  "its deal, its moves played back beside yours (unrated)")

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        chosen = [name for name in DEAL_CHOICES if data.get(name) not in (None, False)]
        if len(chosen) > 1:
            fields = chosen[0]
            for name in chosen[1:]:
                # Translators: joins the names of two request fields (kept as they are): "code and daily".
                fields = pgettext("field names", "%(first)s and %(second)s") % {"first": fields, "second": name}
            # Translators: %(fields)s names request fields (kept as they are): "code and daily".
            raise serializers.ValidationError(_("%(fields)s each choose the deal: send one of them")
                                              % {"fields": fields})
        return data


class MoveRequestSerializer(StrictSerializer):
    move = WireMoveField()
    seq = StrictIntegerField(min_value=1, max_value=MAX_SEQ,
                             help_text="the number this move will get: the last event number you saw, plus one")


class SeqSerializer(StrictSerializer):
    seq = StrictIntegerField(min_value=1, max_value=MAX_SEQ, required=False,
                             help_text="the last event number you saw, plus one (for safe retries)")


class UndoRequestSerializer(StrictSerializer):
    seq = StrictIntegerField(min_value=1, max_value=MAX_SEQ)


CARD = {"type": "string", "pattern": r"^[A2-9TJQK][SHDC]$"}
# In a fair race a face-up card the viewer may not know is sent as "??" (no name, suit,
# rank or colour): engine.views.UNSEEN, docs/realtime.md "Fair races".
SHOWN_CARD = {"type": "string", "pattern": r"^([A2-9TJQK][SHDC]|\?\?)$",
              "description": 'a card, or "??": face up, not yet seen by you (a race)'}
VIEW_SCHEMA = {
    "type": "object",
    "description": "The board. While the game is live, the public view (engine.views.public_view): "
                   "face-up cards by name (in a race, \"??\" for one the viewer may not know yet), face-down "
                   "counts, the stock's count, the waste's count and visible fan, each foundation's top (in a "
                   "race, the top of the unbroken run from the Ace the viewer has seen; foundation_count stays "
                   "the true total). Once the game and its competition are over, every card (full_view).",
    "properties": {
        "foundations": {"type": "object", "additionalProperties": {**CARD, "nullable": True}},
        "foundation_count": {"type": "integer", "minimum": 0, "maximum": 52},
        "tableau": {"type": "array", "items": {"type": "object", "properties": {
            "down": {"type": "integer", "minimum": 0},
            "up": {"type": "array", "items": SHOWN_CARD},
            "cards": {"type": "array", "items": CARD},
        }}},
        "waste": {"oneOf": [
            {"type": "object", "properties": {"count": {"type": "integer"},
                                              "visible": {"type": "array", "items": SHOWN_CARD}}},
            {"type": "array", "items": CARD},
        ]},
    },
}


@extend_schema_field(VIEW_SCHEMA)
class ViewField(serializers.JSONField):
    pass


class GameSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    code = serializers.CharField(allow_null=True, help_text="null while a ranked deal is live")
    draw = serializers.IntegerField()
    scoring = serializers.CharField()
    kind = serializers.CharField()
    daily = serializers.DateField(allow_null=True, help_text="the daily deal's date, for a daily attempt")
    practice = serializers.BooleanField(help_text="a later attempt at a daily deal: on no board")
    ranked_undo = serializers.BooleanField()
    public = serializers.BooleanField()
    status = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    seq = serializers.IntegerField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    foundation_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True, help_text="time from the first action to the end (or now)")
    yours = serializers.BooleanField()
    complete_offered = serializers.BooleanField(help_text="whether Complete may be asked for now")
    complete_reason = serializers.CharField(help_text="why Complete is not offered (empty when it is)")
    view = ViewField(help_text="the public view while live; every card once the game is over")
    ghost = serializers.DictField(allow_null=True, required=False,
                                  help_text="a ghost race: the recorded game it is against (game, owner, status, "
                                  "seconds, score, moves, foundation_count)")


class GamePageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameSerializer(many=True)


class MoveResultSerializer(serializers.Serializer):
    game = serializers.UUIDField()
    seq = serializers.IntegerField()
    move = AppliedMoveField(help_text="the canonical move applied (a concrete destination)")
    flipped = serializers.CharField(allow_null=True, help_text="the card this move turned face up")
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    at = serializers.DateTimeField()
    status = serializers.CharField()
    view = ViewField()


class GhostSerializer(serializers.Serializer):
    elapsed = serializers.FloatField(help_text="seconds after the ghost's first move")
    seq = serializers.IntegerField(help_text="the ghost's last event by then (0: not started)")
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    foundation_count = serializers.IntegerField()
    status = serializers.CharField(help_text="live until its last event, then how it ended")
    next_at = serializers.FloatField(allow_null=True, help_text="when its next event comes; null: it is done")
    view = ViewField(help_text="its public view, naming only the cards face up in your game so far")


class ReplayMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    move = AppliedMoveField()
    flipped = serializers.CharField(allow_null=True)
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    at = serializers.DateTimeField()
    view = ViewField(required=False, help_text="with ?views=true: every card after this event (full_view)")


class ReplaySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    code = serializers.CharField()
    status = serializers.CharField()
    owner = serializers.CharField(allow_null=True, help_text="null: a guest's game")
    draw = serializers.IntegerField()
    scoring = serializers.CharField()
    kind = serializers.CharField()
    race = serializers.UUIDField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True, help_text="the first move")
    finished_at = serializers.DateTimeField(allow_null=True)
    deal = serializers.JSONField(help_text="the full opening layout (klondike deal --json shape)")
    start_view = ViewField(required=False, help_text="with ?views=true: every card before the first move")
    moves = ReplayMoveSerializer(many=True)
