"""{% javascript_catalog_url %}: the address of the page language's JavaScript catalog."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils import translation

from frontend.i18n_urls import catalog_version

register = template.Library()


@register.simple_tag
def javascript_catalog_url() -> str:
    return reverse("i18n:catalog", args=[translation.get_language() or "en", catalog_version()])
