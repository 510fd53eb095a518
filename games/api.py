"""REST endpoints for games: thin views over games.services."""

from __future__ import annotations

import secrets
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.input import MAX_OFFSET, MAX_PAGE, paging_parameters, query_flag, query_float, query_int
from api.schema import ErrorSerializer
from games import ghosts, services, viewer_policy
from engine import Game as EngineGame
from engine import deal_json
from engine.views import full_view
from games.hint_complete import complete_status
from games.models import ENGINE_ACTIONS, Game, Move
from games.serializers import (
    ConflictSerializer, CreateGameSerializer, GamePageSerializer, GameSerializer,
    MoveRequestSerializer,
    GhostSerializer, MoveResultSerializer, ReplaySerializer, SeqSerializer, UndoRequestSerializer,
)
from games.services import Actor, ServiceError

GUEST_SESSION_KEY = "guest_key"
ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}
MOVE_ERRORS = {**ERRORS, 409: ConflictSerializer, 422: ErrorSerializer}


def retry_after(*statuses: int) -> OpenApiParameter:
    """The ``Retry-After`` response header of these statuses."""
    return OpenApiParameter("Retry-After", int, OpenApiParameter.HEADER, response=list(statuses),
                            description="seconds to wait before trying again")


def actor_for(request: Request, *, create_guest: bool = False) -> Actor:
    """The account, or the guest of this browser session (created on first write)."""
    if request.user.is_authenticated:
        return Actor(user_id=request.user.pk)
    key = request.session.get(GUEST_SESSION_KEY, "")
    if not key and create_guest:
        key = secrets.token_urlsafe(24)
        request.session[GUEST_SESSION_KEY] = key
    return Actor(guest_key=key)


def game_payload(game: Game, actor: Actor, engine: EngineGame | None = None) -> dict[str, Any]:
    """The game as ``actor`` may see it now (games.viewer_policy): a race's spectator
    gets it as it was ``spectator_delay`` events ago, counters and status included."""
    return seen_payload(viewer_policy.seen_by(game, actor, engine=engine))


def seen_payload(shown: viewer_policy.SeenGame) -> dict[str, Any]:
    game = shown.game
    if shown.delayed_by:
        offered, reason = False, _("the game is shown with a delay")
    else:
        offered, reason = complete_status(game, shown.engine)
    return {
        "id": str(game.id),
        "code": game.code if game.code_visible else None,
        "draw": game.draw,
        "scoring": game.scoring,
        "kind": game.kind,
        "daily": game.daily.date if game.daily_id else None,
        "practice": game.practice,
        "ranked_undo": game.ranked_undo,
        "public": game.public,
        "status": shown.status,
        "owner": game.owner.username if game.owner_id else None,
        "seq": shown.seq,
        "score": shown.score,
        "moves": shown.moves,
        "foundation_count": shown.foundation_count,
        "created_at": game.created_at,
        "started_at": shown.started_at,
        "finished_at": shown.finished_at,
        "seconds": shown.seconds,
        "yours": shown.sight.role == viewer_policy.PLAYER,
        "complete_offered": offered,
        "complete_reason": reason,
        "view": shown.view,
        "ghost": ghosts.summary(game.ghost_of) if game.ghost_of_id else None,
    }


def get_game(game_id: Any) -> Game:
    try:
        return Game.objects.select_related("owner", "race", "daily").get(pk=game_id)
    except Game.DoesNotExist:
        raise ServiceError("not_found", _("there is no such game"), 404) from None


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ServiceError("invalid", _("the request body must be a JSON object"))
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class GamePagination(LimitOffsetPagination):
    """DRF's, but a limit or offset out of bounds is refused, not replaced by the default."""

    default_limit = 20
    max_limit = MAX_PAGE

    def get_limit(self, request: Request) -> int:
        return query_int(request, self.limit_query_param, self.default_limit, 1, self.max_limit)

    def get_offset(self, request: Request) -> int:
        return query_int(request, self.offset_query_param, 0, 0, MAX_OFFSET)


class GamesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="List my games", operation_id="games_list",
        parameters=[OpenApiParameter("status", str, enum=Game.Status.values, required=False),
                    *paging_parameters(GamePagination.default_limit)],
        responses={200: GamePageSerializer, **ERRORS},
    )
    def get(self, request: Request) -> Response:
        actor = actor_for(request)
        if actor.user_id is not None:
            games = Game.objects.filter(owner_id=actor.user_id)
        elif actor.guest_key:
            games = Game.objects.filter(owner=None, guest_key=actor.guest_key)
        else:
            games = Game.objects.none()
        status = request.query_params.get("status")
        if status is not None:
            if status not in Game.Status.values:
                # Translators: %(name)s is the query parameter's name, %(values)s its values (kept as they are).
                raise ServiceError("invalid", _("%(name)s must be one of %(values)s")
                                   % {"name": "status", "values": ", ".join(Game.Status.values)})
            games = games.filter(status=status)
        paginator = GamePagination()
        page = paginator.paginate_queryset(games.select_related("owner", "race", "daily").order_by("-created_at"),
                                           request, view=self)
        return paginator.get_paginated_response([game_payload(game, actor) for game in page])

    @extend_schema(
        summary="Start a game",
        description="A random deal with the given rules, or the deal of `code`. A random Vegas "
                    "deal is ranked: its undo policy is ranked and its code is withheld until it ends. "
                    "`winnable` deals come at once from a stock the solver keeps topped up in the background.",
        request=CreateGameSerializer, parameters=[retry_after(503)],
        responses={201: GameSerializer, **ERRORS, 503: OpenApiResponse(
            ErrorSerializer, description="`no_winnable_deal`: the stock of proven-winnable deals for this mode is "
                                         "empty for now (a top-up is on its way); `Retry-After` says when to try "
                                         "again, or start a random deal")},
    )
    def post(self, request: Request) -> Response:
        data = validated(CreateGameSerializer, request.data)
        game = services.create_game(actor_for(request, create_guest=True), **data)
        return Response(game_payload(game, actor_for(request)), status=201)


class GameView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Read a game", responses={200: GameSerializer, **ERRORS})
    def get(self, request: Request, game_id: Any) -> Response:
        game, actor = get_game(game_id), actor_for(request)
        return Response(game_payload(game, actor))


class MovesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Play a move",
        description="The move in the engine's wire format and `seq`, the event number it will get. "
                    "A retry with the same seq and move returns the first result; any other stale "
                    "seq gets 409 with the current one. An illegal move gets 422 and changes nothing.",
        request=MoveRequestSerializer, responses={200: MoveResultSerializer, **MOVE_ERRORS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        data = validated(MoveRequestSerializer, request.data)
        return Response(services.submit_move(game_id, actor_for(request), data["move"], data["seq"]))


class UndoView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Undo the last action", request=UndoRequestSerializer,
                   responses={200: MoveResultSerializer, **MOVE_ERRORS})
    def post(self, request: Request, game_id: Any) -> Response:
        data = validated(UndoRequestSerializer, request.data)
        return Response(services.submit_move(game_id, actor_for(request), {"type": "undo"}, data["seq"]))


class ResignView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Give up", request=SeqSerializer, responses={200: MoveResultSerializer, **MOVE_ERRORS})
    def post(self, request: Request, game_id: Any) -> Response:
        data = validated(SeqSerializer, request.data if request.body else {})
        return Response(services.resign(game_id, actor_for(request), data.get("seq")))


class GhostView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="The ghost of a ghost race at a moment",
                   description="The recorded game `at` seconds after its first move, as the player may see it "
                               "now: its public view, naming only the cards face up in the player's own game.",
                   parameters=[OpenApiParameter("at", {"type": "number", "minimum": 0, "maximum": 86400}, required=True,
                                                description="seconds after the ghost's first move")],
                   responses={200: GhostSerializer, **ERRORS, 409: ErrorSerializer})
    def get(self, request: Request, game_id: Any) -> Response:
        at = query_float(request, "at", 0.0, 86400.0)
        return Response(ghosts.ghost_at(game_id, actor_for(request), at))


class ReplayView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Replay of a finished game",
                   description="The full deal and every move with its time; with `views=true`, every card after "
                               "each move too (the replay viewer steps through them). Refused while the game is live, "
                               "or while its race or daily deal is still going.",
                   parameters=[OpenApiParameter("views", bool, description="every card after each move")],
                   responses={200: ReplaySerializer, 400: ErrorSerializer, 409: ErrorSerializer, 404: ErrorSerializer})
    def get(self, request: Request, game_id: Any) -> Response:
        with_views = query_flag(request, "views")
        game = get_game(game_id)
        if not viewer_policy.sight(game, actor_for(request)).reveal:
            raise ServiceError("game_live", _("the replay is available once the game is over"), 409)
        rows = list(Move.objects.filter(game=game).order_by("seq"))
        moves = [{"seq": m.seq, "move": m.action, "flipped": m.flipped or None, "score": m.score,
                  "moves": m.moves, "at": m.created_at} for m in rows]
        engine = EngineGame.new(game.code, ranked=game.ranked_undo)
        answer = {"id": str(game.id), "code": game.code, "status": game.status,
                  "owner": game.owner.username if game.owner_id else None, "draw": game.draw,
                  "scoring": game.scoring, "kind": game.kind, "race": str(game.race_id) if game.race_id else None,
                  "created_at": game.created_at, "started_at": game.started_at, "finished_at": game.finished_at,
                  "deal": deal_json(engine), "moves": moves}
        if with_views:
            answer["start_view"] = full_view(engine)
            for row, move in zip(rows, moves):
                if row.action.get("type") in ENGINE_ACTIONS:  # a resignation or time-out changes no card
                    engine.apply_json(row.action)
                move["view"] = full_view(engine)
        return Response(answer)
