"""Request validation and the documented shapes of the games API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="stable machine-readable code")
    detail = serializers.CharField(help_text="a sentence for the player")


class ConflictSerializer(ErrorSerializer):
    seq = serializers.IntegerField(required=False, help_text="the game's current event number (stale seq, game over)")


class StrictIntegerField(serializers.IntegerField):
    """A JSON number only: "2" and true are not integers here."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class CreateGameSerializer(serializers.Serializer):
    code = serializers.CharField(required=False, max_length=64,
                                 help_text="a deal code such as KL1-D1N-AAAAAAG; its draw and scoring win")
    draw = serializers.ChoiceField(choices=[1, 3], default=1)
    scoring = serializers.ChoiceField(choices=["normal", "vegas"], default="normal")
    public = serializers.BooleanField(default=True, help_text="listed for spectators; private games need the link")
    daily = serializers.BooleanField(default=False, help_text="today's daily deal for this draw (Normal scoring)")
    winnable = serializers.BooleanField(default=False, help_text="a random deal proven winnable by the solver")


class WireMoveSerializer(serializers.Serializer):
    """The engine's wire format (games.engine.moves). Validated by the engine."""

    type = serializers.ChoiceField(choices=["draw", "recycle", "undo", "move"])
    card = serializers.CharField(required=False, help_text="e.g. 9S, TH, AC (move only)")
    to = serializers.CharField(required=False, help_text="t1…t7, foundation or tableau (move only)")


class MoveRequestSerializer(serializers.Serializer):
    move = serializers.JSONField(help_text='the move, e.g. {"type": "move", "card": "9S", "to": "t4"}')
    seq = StrictIntegerField(min_value=1, max_value=2**31 - 1,
                             help_text="the number this move will get: the last event number you saw, plus one")


class SeqSerializer(serializers.Serializer):
    seq = StrictIntegerField(min_value=1, max_value=2**31 - 1, required=False,
                                   help_text="the last event number you saw, plus one (for safe retries)")


class UndoRequestSerializer(serializers.Serializer):
    seq = StrictIntegerField(min_value=1, max_value=2**31 - 1)


@extend_schema_field({"type": "object", "description": "public view: games.engine.views.public_view"})
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


class GamePageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameSerializer(many=True)


class MoveResultSerializer(serializers.Serializer):
    game = serializers.UUIDField()
    seq = serializers.IntegerField()
    move = serializers.JSONField(help_text="the canonical move applied (a concrete destination)")
    flipped = serializers.CharField(allow_null=True, help_text="the card this move turned face up")
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    at = serializers.DateTimeField()
    status = serializers.CharField()
    view = ViewField()


class ReplayMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    move = serializers.JSONField()
    flipped = serializers.CharField(allow_null=True)
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    at = serializers.DateTimeField()


class ReplaySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    code = serializers.CharField()
    status = serializers.CharField()
    deal = serializers.JSONField(help_text="the full opening layout (klondike deal --json shape)")
    moves = ReplayMoveSerializer(many=True)
