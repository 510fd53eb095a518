"""Every answer under /api/ is JSON in the error shape, whoever wrote it: Django's own
404, 405 and 500 (its debug pages under DEBUG), a failure in a middleware. And no
slash redirects under /api/: a redirect drops a POST's body (under DEBUG it raises)."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware import common
from django.urls import is_valid_path
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _, gettext_lazy

API_PREFIX = "/api/"

# The code and sentence of an error response that did not come as JSON (the sentence
# lazy: str() it in the request's language).
ERRORS = {
    400: ("bad_request", gettext_lazy("the request could not be understood")),
    403: ("forbidden", gettext_lazy("you may not do this")),
    404: ("not_found", gettext_lazy("there is nothing at this address")),
    405: ("method_not_allowed", gettext_lazy("this method is not allowed here")),
    # Translators: Accept is the name of an HTTP header, JSON a format: keep them.
    406: ("not_acceptable", gettext_lazy("the Accept header excludes JSON")),
    413: ("too_large", gettext_lazy("the request is too large")),
    # Translators: application/json is a media type: keep it.
    415: ("unsupported_media_type", gettext_lazy("send the body as application/json")),
    429: ("throttled", gettext_lazy("too many requests: wait and try again")),
    500: ("server_error", gettext_lazy("something went wrong on our side")),
}
OTHER_ERROR = ("error", gettext_lazy("the request failed"))


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def not_found_detail(request: HttpRequest) -> str:
    """Names the address with a slash when only that one exists (no redirect under /api/)."""
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/") and is_valid_path(f"{path}/", getattr(request, "urlconf", None)):
        return _("there is nothing at this address; %(path)s (with the slash) exists") % {"path": f"{request.path}/"}
    return str(ERRORS[404][1])


def error_detail(request: HttpRequest, response: HttpResponseBase) -> tuple[str, str]:
    code, sentence = ERRORS.get(response.status_code, OTHER_ERROR)
    detail = str(sentence)
    if response.status_code == 404:
        detail = not_found_detail(request)
    elif response.status_code == 405:
        if response.has_header("Allow"):
            # Translators: %(method)s is an HTTP method (POST), %(allowed)s those the address takes (GET, HEAD, OPTIONS).
            detail = _("%(method)s is not allowed here; allowed: %(allowed)s") % {
                "method": request.method, "allowed": response["Allow"]}
        else:
            # Translators: %(method)s is an HTTP method (POST).
            detail = _("%(method)s is not allowed here") % {"method": request.method}
    return code, detail


class JsonApiErrorsMiddleware(MiddlewareMixin):
    """Rewrites an error answer under /api/ that is not JSON into the error shape.

    The response object is kept (only its body and type change), so headers set on it
    on the way out (Allow, Retry-After, cookies, the security headers) stay."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if (response.status_code < 400 or not is_api(request) or response.streaming
                or response.get("Content-Type", "").startswith("application/json")):
            return response
        code, detail = error_detail(request, response)
        response.content = json.dumps({"error": code, "detail": detail}).encode()
        response["Content-Type"] = "application/json"
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response


class CommonMiddleware(common.CommonMiddleware):
    """Django's, without the slash redirect under /api/: there the 404 says which
    address exists instead (see :func:`not_found_detail`)."""

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        return not is_api(request) and super().should_redirect_with_slash(request)
