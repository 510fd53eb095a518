"""The lobby's snapshot over REST: what the lobby socket then keeps up to date."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from realtime.lobby import lobby


class LobbySerializer(serializers.Serializer):
    games = serializers.ListField(child=serializers.DictField(), help_text="live public games played lately "
                                  "(a move in the last LOBBY_IDLE_SECONDS), each with its spectators (`watchers`)")
    races = serializers.ListField(child=serializers.DictField(), help_text="open and running public races; "
                                  "`full`: no seat left")
    top = serializers.ListField(child=serializers.DictField(), help_text="the top live games: featured by rating, "
                                "spectators and, for a race, how close it is")


class LobbyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Live public games, open races and the top live games", responses={200: LobbySerializer})
    def get(self, request: Request) -> Response:
        return Response(lobby())
