"""REST endpoints for quick match and challenges: thin views over the services.

The web app waits for a quick match on its socket (``/ws/me/``: leaving the page
leaves the queue); an API client queues here and polls ``GET`` (each poll renews its
ticket and runs a wave), or it is dropped after ``STALE_SECONDS``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.input import StrictBooleanField, StrictChoiceField, StrictCharField, StrictIntegerField, StrictSerializer
from api.schema import ErrorSerializer
from games.api import ERRORS, validated
from matchmaking import challenges
from matchmaking import services as matchmaking
from matchmaking.models import Challenge


class QueueSerializer(StrictSerializer):
    draw = StrictChoiceField(choices=[1, 3], default=1)
    scoring = StrictChoiceField(choices=["normal", "vegas"], default="normal")


class QueueStateSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["idle", "waiting", "matched"])
    draw = serializers.IntegerField(allow_null=True)
    scoring = serializers.CharField(allow_null=True)
    waited = serializers.FloatField(help_text="seconds in the queue")
    rating = serializers.IntegerField(allow_null=True, help_text="your race rating when you queued")
    range = serializers.IntegerField(required=False, help_text="the rating difference you accept now: it widens "
                                     "the longer you wait")
    race = serializers.UUIDField(allow_null=True, help_text="the race you were matched into")


class QueueView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Your quick-match state", description="Renews a waiting ticket and runs a "
                   "matchmaking wave.", responses={200: QueueStateSerializer})
    def get(self, request: Request) -> Response:
        state = matchmaking.state(request.user)
        if state["state"] == "waiting":
            matchmaking.touch([matchmaking.ticket_id_of(request.user)])
            matchmaking.match_waiting()
            state = matchmaking.state(request.user)
        return Response(state)

    @extend_schema(summary="Race now: wait for a quick match", request=QueueSerializer,
                   responses={200: QueueStateSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        data = validated(QueueSerializer, request.data if request.body else {})
        matchmaking.enqueue(request.user, data["draw"], data["scoring"])
        matchmaking.match_waiting()
        return Response(matchmaking.state(request.user))

    @extend_schema(summary="Leave the quick-match queue", request=None, responses={200: QueueStateSerializer})
    def delete(self, request: Request) -> Response:
        matchmaking.cancel(request.user)
        return Response(matchmaking.state(request.user))


class CreateChallengeSerializer(StrictSerializer):
    username = StrictCharField(required=False, max_length=150,
                               help_text="the player invited; leave out for a link anyone may accept")
    draw = StrictChoiceField(choices=[1, 3], default=1)
    scoring = StrictChoiceField(choices=["normal", "vegas"], default="normal")
    rated = StrictBooleanField(default=True)
    time_limit = StrictIntegerField(min_value=60, max_value=3600, default=600, help_text="seconds")


class ChallengeSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    challenger = serializers.CharField()
    challenged = serializers.CharField(allow_null=True, help_text="null: a link anyone signed in may accept")
    draw = serializers.IntegerField()
    scoring = serializers.CharField()
    rated = serializers.BooleanField()
    time_limit = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Challenge.Status.values)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    race = serializers.UUIDField(allow_null=True, help_text="the race started when it was accepted")


class PendingChallengesSerializer(serializers.Serializer):
    received = ChallengeSerializer(many=True)
    sent = ChallengeSerializer(many=True)


class ChallengesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Your open challenges", operation_id="challenges_pending", responses={200: PendingChallengesSerializer})
    def get(self, request: Request) -> Response:
        return Response(challenges.pending_for(request.user))

    @extend_schema(summary="Challenge a player, or make a challenge link", request=CreateChallengeSerializer,
                   responses={201: ChallengeSerializer, 409: ErrorSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        challenge = challenges.create(request.user, **validated(CreateChallengeSerializer, request.data))
        return Response(challenges.challenge_payload(challenge), status=201)


class ChallengeView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="A challenge", operation_id="challenge_retrieve", responses={200: ChallengeSerializer, 404: ErrorSerializer})
    def get(self, request: Request, challenge_id: Any) -> Response:
        return Response(challenges.challenge_payload(challenges.get(challenge_id)))


class ChallengeActionView(APIView):
    permission_classes = [IsAuthenticated]
    action_name = ""

    def post(self, request: Request, challenge_id: Any) -> Response:
        if self.action_name == "accept":
            challenge = challenges.accept(challenge_id, request.user)
        else:
            challenge = challenges.answer(challenge_id, request.user, self.action_name)
        return Response(challenges.challenge_payload(challenge))


def challenge_action(name: str, summary: str) -> Any:
    def post(self: ChallengeActionView, request: Request, challenge_id: Any) -> Response:
        return ChallengeActionView.post(self, request, challenge_id)

    documented = extend_schema(summary=summary, request=None,
                               responses={200: ChallengeSerializer, 409: ErrorSerializer, **ERRORS})(post)
    return type(f"Challenge{name.title()}View", (ChallengeActionView,), {"action_name": name, "post": documented})
