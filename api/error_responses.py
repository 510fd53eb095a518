"""One error shape for the whole API: ``{"error": code, "detail": sentence}``."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from api.error_middleware import ERRORS, is_api, not_found_detail
from api.errors import ServiceError


def _first_message(detail: Any, path: str = "") -> str:
    """The first validation message, prefixed with the field it is about."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = path if key == "non_field_errors" else (f"{path}.{key}" if path else str(key))
            return _first_message(value, name)
    if isinstance(detail, list) and detail:
        return _first_message(detail[0], path)
    text = str(detail)
    # Translators: a refused field and why, as in "code: This field may not be blank.".
    return _("%(field)s: %(message)s") % {"field": path, "message": text} if path else text


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response(exc.to_json(), status=exc.status, headers=exc.headers())
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"error": "invalid", "detail": _first_message(exc.detail), "fields": exc.detail}
    elif isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        response.data = {"error": code, "detail": _first_message(exc.detail)}
    return response


def error_response(code: str, detail: str, status_code: int) -> JsonResponse:
    return JsonResponse({"error": code, "detail": detail}, status=status_code)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """JSON under /api/, the ordinary page elsewhere."""
    if not is_api(request):
        return defaults.page_not_found(request, exception or Http404())
    return error_response("not_found", not_found_detail(request), status.HTTP_404_NOT_FOUND)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response("bad_request", _("the request could not be understood"), status.HTTP_400_BAD_REQUEST)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response("forbidden", _("you may not do this"), status.HTTP_403_FORBIDDEN)


def server_error(request: HttpRequest) -> HttpResponse:
    """JSON under /api/, the ordinary page elsewhere."""
    if not is_api(request):
        return defaults.server_error(request)
    code, detail = ERRORS[500]
    return error_response(code, str(detail), status.HTTP_500_INTERNAL_SERVER_ERROR)
