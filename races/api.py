"""REST endpoints for races: thin views over races.services."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.input import StrictBooleanField, StrictChoiceField, StrictIntegerField, StrictSerializer
from games.api import ERRORS, MOVE_ERRORS, actor_for, validated
from api.errors import ServiceError
from api.schema import ErrorSerializer
from games.serializers import MoveResultSerializer
from races import services as races
from races.models import Race


class CreateRaceSerializer(StrictSerializer):
    draw = StrictChoiceField(choices=[1, 3], default=1)
    scoring = StrictChoiceField(choices=["normal", "vegas"], default="normal")
    max_players = StrictIntegerField(min_value=races.MIN_PLAYERS, max_value=races.MAX_PLAYERS, default=races.MAX_PLAYERS)
    public = StrictBooleanField(default=True, help_text="listed in the lobby; private races need the link")
    time_limit = StrictIntegerField(min_value=60, max_value=3600, default=600, help_text="seconds")
    spectator_delay = StrictIntegerField(min_value=0, max_value=races.MAX_SPECTATOR_DELAY, default=0,
                                         help_text="spectators see each board this many moves late")
    rated = StrictBooleanField(required=False, help_text="the result changes the racers' ratings "
                               "(default: true, false with open boards)")
    open_boards = StrictBooleanField(default=False, help_text="unrated races only: every card is named to everyone "
                                     "live (otherwise a viewer is told only the cards they may know)")

    # The schema says what validate() checks: open boards are never rated.
    schema_constraints = {"not": {"required": ["rated", "open_boards"],
                                  "properties": {"rated": {"enum": [True]}, "open_boards": {"enum": [True]}}}}

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        data.setdefault("rated", not data["open_boards"])
        if data["rated"] and data["open_boards"]:
            raise serializers.ValidationError(_("open boards show every card to everyone: only an unrated race "
                                                "may have them"))
        return data


class ReadySerializer(StrictSerializer):
    ready = StrictBooleanField(default=True)


class EntrySerializer(serializers.Serializer):
    player = serializers.CharField()
    ready = serializers.BooleanField()
    game = serializers.UUIDField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    seq = serializers.IntegerField()
    foundation_count = serializers.IntegerField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True)
    won = serializers.BooleanField()
    seconds = serializers.FloatField(allow_null=True)
    rematch = serializers.BooleanField(help_text="this racer asked for a rematch")


class RaceSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    host = serializers.CharField()
    draw = serializers.IntegerField()
    scoring = serializers.CharField()
    max_players = serializers.IntegerField()
    public = serializers.BooleanField()
    time_limit = serializers.IntegerField()
    spectator_delay = serializers.IntegerField()
    rated = serializers.BooleanField()
    open_boards = serializers.BooleanField(help_text="every card named live; otherwise cards a viewer has not seen "
                                           "are sent as \"??\" (docs/realtime.md, fair races)")
    phase = serializers.ChoiceField(choices=["open", "countdown", "running", "finished", "cancelled"])
    code = serializers.CharField(allow_null=True, help_text="revealed when the race is finished")
    created_at = serializers.DateTimeField()
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    server_time = serializers.DateTimeField()
    rematch = serializers.UUIDField(allow_null=True, help_text="the race the same players started when every "
                                    "racer confirmed a rematch")
    entries = EntrySerializer(many=True, help_text="in joining order; rank is set when the race is finished")


def race_or_404(race_id: Any) -> Race:
    race = Race.objects.select_related("host").filter(pk=race_id).first()
    if race is None:
        raise ServiceError("not_found", _("there is no such race"), 404)
    return race


def fresh_payload(race_id: Any, request: Request) -> dict[str, Any]:
    races.finish_race(race_id)  # a race whose clock ran out with nobody connected ends now
    return races.race_payload(race_or_404(race_id), actor_for(request))


class RacesView(APIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(summary="Open and running public races", responses={200: RaceSerializer(many=True)})
    def get(self, request: Request) -> Response:
        listed = Race.objects.filter(public=True, status__in=[Race.Status.OPEN, Race.Status.STARTED])
        actor = actor_for(request)
        return Response([races.race_payload(r, actor)
                         for r in listed.select_related("host").order_by("-created_at")[:50]])

    @extend_schema(summary="Open a race", request=CreateRaceSerializer, responses={201: RaceSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        race = races.create_race(request.user, **validated(CreateRaceSerializer, request.data))
        return Response(races.race_payload(race, actor_for(request)), status=201)


class RaceView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="A race: players, clock, results", responses={200: RaceSerializer, 404: ErrorSerializer})
    def get(self, request: Request, race_id: Any) -> Response:
        return Response(fresh_payload(race_id, request))


class RaceActionView(APIView):
    permission_classes = [IsAuthenticated]
    service: Any = None

    def post(self, request: Request, race_id: Any) -> Response:
        self.run(request, race_id)
        return Response(fresh_payload(race_id, request))

    def run(self, request: Request, race_id: Any) -> None:
        type(self).service(race_id, request.user)


class JoinView(RaceActionView):
    service = staticmethod(races.join_race)

    @extend_schema(summary="Join a race", request=None, responses={200: RaceSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, race_id: Any) -> Response:
        return super().post(request, race_id)


class LeaveView(RaceActionView):
    service = staticmethod(races.leave_race)

    @extend_schema(summary="Leave a race before it starts", request=None,
                   responses={200: RaceSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, race_id: Any) -> Response:
        return super().post(request, race_id)


class ReadyView(RaceActionView):
    @extend_schema(summary="Mark yourself ready (or not)", description="When every player (at least two) is "
                   "ready, the countdown starts and everyone gets the same deal.",
                   request=ReadySerializer, responses={200: RaceSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, race_id: Any) -> Response:
        return super().post(request, race_id)

    def run(self, request: Request, race_id: Any) -> None:
        data = validated(ReadySerializer, request.data if request.body else {})
        races.set_ready(race_id, request.user, data["ready"])


class RematchView(RaceActionView):
    service = staticmethod(races.confirm_rematch)

    @extend_schema(summary="Ask for a rematch of a finished race", description="When every racer has asked, the "
                   "same players race again on a new proven-winnable deal: `rematch` names that race.",
                   request=None, responses={200: RaceSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request, race_id: Any) -> Response:
        return super().post(request, race_id)


class RaceResignView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Give up your race game", request=None,
                   responses={200: MoveResultSerializer, **MOVE_ERRORS, 409: ErrorSerializer})
    def post(self, request: Request, race_id: Any) -> Response:
        return Response(races.resign_race(race_id, request.user))
