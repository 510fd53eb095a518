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
    games = serializers.ListField(child=serializers.DictField())
    races = serializers.ListField(child=serializers.DictField())


class LobbyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Live public games and open races", responses={200: LobbySerializer})
    def get(self, request: Request) -> Response:
        return Response(lobby())
