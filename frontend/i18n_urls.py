"""The JavaScript catalog (Django's JavaScriptCatalog: the djangojs translations,
plural rule and formats of one language) at an address that names the language and
the catalog's version, so browsers keep it for a year and a new build is fetched."""

from __future__ import annotations

import functools
import hashlib

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

from accounts.languages import CODES

app_name = "i18n"

CATALOG = JavaScriptCatalog.as_view(domain="djangojs")


@functools.cache
def catalog_version() -> str:
    """A digest of the compiled JavaScript catalogs: changes with every translation."""
    digest = hashlib.sha256()
    for directory in settings.LOCALE_PATHS:
        for compiled in sorted(directory.glob("*/LC_MESSAGES/djangojs.mo")):
            digest.update(compiled.read_bytes())
    return digest.hexdigest()[:12]


@require_safe
def javascript_catalog(request: HttpRequest, language: str, version: str) -> HttpResponse:
    if language not in CODES:
        raise Http404("no such language")
    with translation.override(language):
        response = CATALOG(request)
    if version == catalog_version():
        patch_cache_control(response, public=True, max_age=365 * 24 * 3600, immutable=True)
    return response


urlpatterns = [
    path("catalog/<str:language>/<str:version>.js", javascript_catalog, name="catalog"),
]
