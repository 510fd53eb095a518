"""Choosing the language: the API's POST /api/accounts/language (the web app's
switcher, and API clients) and the switcher's plain form, which works without
JavaScript. Both go through accounts.languages.choose."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import languages
from api.input import StrictSerializer
from api.schema import ErrorSerializer
from games.api import validated


class LanguageSerializer(StrictSerializer):
    language = serializers.ChoiceField(choices=languages.CODES)


class LanguageView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Choose the language", description="Sets the `language` cookie and, for a signed-in "
                   "player, the account's language (a sign-in on another device brings it along). Without a "
                   "choice, Accept-Language decides. Error codes are the same in every language; `detail` "
                   "sentences are in the request's language.",
                   request=LanguageSerializer, responses={200: LanguageSerializer, 400: ErrorSerializer})
    def post(self, request: Request) -> Response:
        code = validated(LanguageSerializer, request.data)["language"]
        response = Response({"language": code})
        languages.choose(request, response, code)
        return response


@require_POST
def choose_language(request: HttpRequest) -> HttpResponse:
    """The header's switcher: back to the page it was on, in the new language."""
    target: Any = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = "/"
    response = HttpResponseRedirect(target)
    code = request.POST.get("language")
    if code in languages.CODES:
        languages.choose(request, response, code)
    return response
