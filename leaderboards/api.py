"""REST endpoints for boards and statistics: thin views over leaderboards.services."""

from __future__ import annotations

import datetime as dt
import re

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.input import paging as page_of
from api.input import paging_parameters
from engine import DealCode, DealCodeError
from engine.deal import DEAL_CODE_PATTERN
from api.errors import ServiceError
from games import daily_deals
from games.models import Game
from api.schema import ErrorSerializer
from leaderboards import services

PAGING = paging_parameters(services.BOARD_PAGE)
DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"  # fromisoformat() alone also takes 20261202 and 2026-W48-3


def paging(request: Request) -> tuple[int, int]:
    return page_of(request, services.BOARD_PAGE)


def draw_param(request: Request) -> int:
    draw = request.query_params.get("draw", "1")
    if draw not in ("1", "3"):
        # Translators: %(name)s is the query parameter's name (kept as it is).
        raise ServiceError("invalid", _("%(name)s must be 1 or 3") % {"name": "draw"})
    return int(draw)


def date_param(request: Request) -> dt.date:
    """The ``date`` parameter (YYYY-MM-DD); today when it is absent or empty (the
    board page's cleared date field)."""
    text = request.query_params.get("date")
    if not text:
        return daily_deals.today()
    try:
        if not re.fullmatch(DATE_PATTERN, text):
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        # Translators: %(name)s is the query parameter's name (kept as it is); YYYY-MM-DD is the format of the
        # date in the address, which stays as it is (2026-12-31).
        raise ServiceError("invalid", _("%(name)s must be a date written YYYY-MM-DD") % {"name": "date"}) from None


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.CharField()
    score = serializers.IntegerField()
    seconds = serializers.FloatField(allow_null=True)
    moves = serializers.IntegerField()
    foundation_count = serializers.IntegerField()
    game = serializers.UUIDField()


class DailyBoardSerializer(serializers.Serializer):
    date = serializers.DateField()
    draw = serializers.IntegerField()
    code = serializers.CharField(allow_null=True, help_text="revealed once the day is over")
    count = serializers.IntegerField()
    results = StandingSerializer(many=True)


class DealBoardSerializer(serializers.Serializer):
    code = serializers.CharField()
    scoring = serializers.ChoiceField(["normal", "vegas"], help_text="the deal's scoring, read from its code")
    count = serializers.IntegerField()
    results = StandingSerializer(many=True)


class BalanceSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    balance = serializers.IntegerField()
    games = serializers.IntegerField()


class VegasBoardSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    results = BalanceSerializer(many=True)


class HistoryPointSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    balance = serializers.IntegerField()


class VegasMeSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    balance = serializers.IntegerField()
    games = serializers.IntegerField()
    history = HistoryPointSerializer(many=True)


class RatingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    rating = serializers.FloatField()
    rd = serializers.FloatField()
    races = serializers.IntegerField()


class RaceBoardSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    results = RatingRowSerializer(many=True)


class ModeStatsSerializer(serializers.Serializer):
    draw = serializers.IntegerField()
    scoring = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    win_rate = serializers.FloatField()
    current_streak = serializers.IntegerField()
    best_streak = serializers.IntegerField()
    best_seconds = serializers.FloatField(allow_null=True)
    best_score = serializers.IntegerField(allow_null=True)
    abandoned = serializers.IntegerField(help_text="games left unfinished: not in games or the win rate")


class StatsSerializer(serializers.Serializer):
    player = serializers.CharField()
    modes = ModeStatsSerializer(many=True)
    score_history = serializers.ListField(child=serializers.DictField())
    balance_history = HistoryPointSerializer(many=True)
    rating_history = serializers.ListField(child=serializers.DictField())


class DailyDealSerializer(serializers.Serializer):
    draw = serializers.IntegerField()
    attempted = serializers.BooleanField()
    ranked_game = serializers.UUIDField(allow_null=True)


class DailySerializer(serializers.Serializer):
    date = serializers.DateField()
    deals = DailyDealSerializer(many=True)


class DailyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Today's daily deals", description="One a day (UTC) for draw one and draw three, "
                   "Normal scoring. Start one with POST /api/games/ {\"daily\": true, \"draw\": 1}.",
                   responses={200: DailySerializer})
    def get(self, request: Request) -> Response:
        day = daily_deals.today()
        deals = []
        for draw in (1, 3):
            daily = daily_deals.daily_deal(day, draw)
            ranked = None
            if request.user.is_authenticated:
                ranked = Game.objects.filter(owner=request.user, daily=daily, practice=False).first()
            deals.append({"draw": draw, "attempted": ranked is not None, "ranked_game": ranked.id if ranked else None})
        return Response({"date": day, "deals": deals})


class DailyBoardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Daily deal leaderboard", parameters=[
        OpenApiParameter("date", {"anyOf": [{"type": "string", "format": "date", "pattern": DATE_PATTERN},
                                            {"type": "string", "enum": [""]}]}, required=False,
                         description="YYYY-MM-DD (UTC); absent or empty: today"),
        OpenApiParameter("draw", int, enum=[1, 3], required=False, description="1 (default) or 3"), *PAGING],
        responses={200: DailyBoardSerializer, 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(services.daily_board(date_param(request), draw_param(request), *paging(request)))


class DealBoardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Best results on one deal", parameters=[
        OpenApiParameter("code", {"type": "string", "pattern": DEAL_CODE_PATTERN}, OpenApiParameter.PATH,
                         description="a deal code such as KL1-D1N-AAAAAAG, in any case"), *PAGING],
        responses={200: DealBoardSerializer, 400: ErrorSerializer})
    def get(self, request: Request, code: str) -> Response:
        try:
            deal = DealCode.parse(code)
        except DealCodeError as exc:
            raise ServiceError(exc.code, exc.detail) from None
        return Response(services.deal_board(deal, *paging(request)))


class VegasBoardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Vegas cumulative balances", parameters=PAGING,
                   responses={200: VegasBoardSerializer, 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(services.vegas_board(*paging(request)))


class VegasMeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="My Vegas balance, rank and history", responses={200: VegasMeSerializer, 401: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(services.vegas_rank(request.user.pk, own=True))


class RaceBoardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Race ratings (Glicko-2)", parameters=PAGING,
                   responses={200: RaceBoardSerializer, 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return Response(services.race_board(*paging(request)))


class StatsView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="A player's statistics", responses={200: StatsSerializer, 404: ErrorSerializer})
    def get(self, request: Request, username: str) -> Response:
        user = get_user_model().objects.filter(username__iexact=username, is_active=True).first()
        if user is None:
            raise ServiceError("not_found", _("there is no such player"), 404)
        return Response(services.player_stats(user))
