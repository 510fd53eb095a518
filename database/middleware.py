"""HTTP answers during a database outage: 503 with ``Retry-After``, JSON in the API's
error shape under /api/ and a plain page elsewhere, one log line and no traceback.

A view's exception (DRF re-raises what its handler does not answer) reaches
``process_exception`` here; this middleware is last in MIDDLEWARE, so it is asked
first. The page is a fixed text: rendering a template could run context processors
that read the user, and so the database."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from api.error_middleware import API_PREFIX
from api.texts import localized
from database.outage import DatabaseBusy, DatabaseOutage, classify, record_refusal

PAGE = """<!doctype html>
<html lang="{language}"><head><meta charset="utf-8"><title>{title} · Klondike</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{retry_after}"></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
<h1>{title}</h1>
<p>{detail}.</p>
<p>{again}</p>
</body></html>
"""


def page(outage: DatabaseOutage) -> str:
    """The outage page in the active language (the request's, when LocaleMiddleware
    has run; English for a request refused before it)."""
    detail = localized(outage.detail)
    seconds = outage.retry_after
    # Translators: keep the link's markup as it is: <a href="">…</a> reloads the page.
    again = ngettext('This page will try again in %(seconds)s second, or <a href="">reload it</a> yourself.',
                     'This page will try again in %(seconds)s seconds, or <a href="">reload it</a> yourself.',
                     seconds) % {"seconds": seconds}
    return PAGE.format(language=translation.get_language() or "en", title=_("Back in a moment"),
                       detail=detail[0].upper() + detail[1:], retry_after=seconds, again=again)


def outage_response(request: HttpRequest, outage: DatabaseOutage) -> HttpResponse:
    return answer(outage, request.method or "GET", request.path_info)


def busy_response(method: str, path_info: str) -> HttpResponse:
    """For a request that waited too long for its turn (config/http_handler.py, which
    adds the headers the middleware would have: it is answered before they run)."""
    return answer(DatabaseBusy(), method, path_info)


def answer(outage: DatabaseOutage, method: str, path_info: str) -> HttpResponse:
    if path_info.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse(outage.to_json(), status=503)
    else:
        response = HttpResponse(page(outage), status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(outage.retry_after)
    response["Cache-Control"] = "no-store"
    # The refusal is logged once, below: not again by Django as "Service Unavailable".
    response._has_been_logged = True  # type: ignore[attr-defined]
    record_refusal(outage, f"{method} {path_info}")
    return response


class DatabaseOutageMiddleware(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        outage = classify(exception)
        return outage_response(request, outage) if outage is not None else None
