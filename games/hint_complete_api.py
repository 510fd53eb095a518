"""Hint and Complete over REST. They wait for the solver, so they are async views:
the wait blocks neither the event loop nor one of the process's HTTP_THREADS request
turns (config/http_handler.py), and holds no database connection. Authentication,
CSRF and the rate limits run briefly in a thread."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.authentication import TokenAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from api.error_responses import exception_handler
from games import hint_complete, solver_throttle
from games.api import MOVE_ERRORS, actor_for, retry_after, validated
from api.errors import ServiceError
from api.schema import ErrorSerializer
from games.serializers import MoveResultSerializer, SeqSerializer
from games.services import Actor


class HintSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the event the hint is for")
    move = serializers.JSONField(help_text="the next move of a winning line")
    remaining = serializers.IntegerField(help_text="moves left in that line")


class CompleteSerializer(serializers.Serializer):
    moves_played = serializers.IntegerField()
    remaining = serializers.IntegerField(help_text="moves of the line left unplayed when Complete's time ran "
                                                   "out (0 once won): ask again to finish")
    result = MoveResultSerializer(allow_null=True, help_text="the result of the last move played (the win)")


SOLVER_ERRORS = {
    **MOVE_ERRORS,
    429: OpenApiResponse(ErrorSerializer, description="`throttled`: over the player's or the address's rate "
                                                      "of hints and Completes (THROTTLE_SOLVER, "
                                                      "THROTTLE_SOLVER_ADDRESS); `Retry-After` says when"),
    503: OpenApiResponse(ErrorSerializer, description="`solver_busy`: the solvers of this server are all taken; "
                                                      "answered at once, `Retry-After` says when to try again"),
}


def _authenticate(request: HttpRequest) -> tuple[Actor, Any]:
    """The actor and the body, once the request is within its rates."""
    drf_request = Request(request, parsers=[JSONParser()],
                          authenticators=[auth() for auth in api_settings.DEFAULT_AUTHENTICATION_CLASSES])
    drf_request.user  # noqa: B018 - runs the authenticators (and the CSRF check)
    actor = actor_for(drf_request)
    solver_throttle.check(actor.user_id, actor.guest_key, request.META.get("REMOTE_ADDR") or "unknown")
    data = drf_request.data if request.method == "POST" and request.body else {}
    return actor, data


def _error(code: str, detail: str, status: int, headers: dict[str, str] | None = None, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": code, "detail": detail, **extra}, status=status, headers=headers)


def _method_not_allowed(request: HttpRequest, allowed: str) -> JsonResponse:
    # Translators: %(method)s and %(allowed)s are HTTP methods (GET, POST), kept as they are.
    detail = _("%(method)s is not allowed here; allowed: %(allowed)s") % {"method": request.method, "allowed": allowed}
    response = _error("method_not_allowed", detail, 405)
    response["Allow"] = allowed
    return response


def _refusal(exc: ServiceError | exceptions.APIException) -> JsonResponse:
    """The answer an APIView would give: the API's error shape and its headers."""
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        exc.auth_header = TokenAuthentication().authenticate_header(None)  # as APIView sets it
    response = exception_handler(exc, {})
    assert response is not None  # both kinds always get one
    headers = {name: value for name, value in response.items() if name.lower() != "content-type"}
    return JsonResponse(response.data, status=response.status_code, headers=headers)


async def _run(request: HttpRequest, work: Any) -> JsonResponse:
    try:
        actor, data = await sync_to_async(hint_complete.returning_connection(_authenticate))(request)
        return JsonResponse(await work(actor, data), json_dumps_params={"default": str})
    except (ServiceError, exceptions.APIException) as exc:
        return _refusal(exc)


class HintSchema(APIView):
    @extend_schema(summary="Hint: the next move of a winning line (casual games)",
                   responses={200: HintSerializer, **SOLVER_ERRORS}, parameters=[retry_after(429, 503)])
    def get(self, request: Request, game_id: Any) -> None: ...


class CompleteSchema(APIView):
    @extend_schema(summary="Complete: play the game to a win from here",
                   description="Casual games: from any position where a win exists. Ranked games: once every card "
                               "is face up and the stock and waste are empty. Each move is an event like the "
                               "player's own.", request=SeqSerializer,
                   responses={200: CompleteSerializer, **SOLVER_ERRORS}, parameters=[retry_after(429, 503)])
    def post(self, request: Request, game_id: Any) -> None: ...


@csrf_exempt  # DRF's session authentication enforces CSRF, as for every API view
async def hint_view(request: HttpRequest, game_id: Any) -> JsonResponse:
    if request.method != "GET":
        return _method_not_allowed(request, "GET")
    return await _run(request, lambda actor, data: hint_complete.hint(game_id, actor))


@csrf_exempt
async def complete_view(request: HttpRequest, game_id: Any) -> JsonResponse:
    if request.method != "POST":
        return _method_not_allowed(request, "POST")

    async def work(actor: Actor, data: Any) -> dict[str, Any]:
        seq = validated(SeqSerializer, data).get("seq")  # as for a resignation: invalid, with fields.seq
        return await hint_complete.complete(game_id, actor, seq)

    return await _run(request, work)


# drf-spectacular documents a URL by its callback's ``cls``.
hint_view.cls, hint_view.initkwargs = HintSchema, {}  # type: ignore[attr-defined]
complete_view.cls, complete_view.initkwargs = CompleteSchema, {}  # type: ignore[attr-defined]
