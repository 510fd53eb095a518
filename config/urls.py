from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.language_views import choose_language
from config.health import healthz, metrics_view, readyz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its set-up script from ?script= instead of inline (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="frontend/api_docs.html"),
         name="docs"),
    path("api/", include("games.urls")),
    path("api/", include("races.urls")),
    path("api/", include("realtime.urls")),
    path("api/", include("accounts.urls")),
    path("api/", include("leaderboards.urls")),
    path("api/", include("matchmaking.urls")),
    # The switcher's form (a POST with the CSRF token; back to the page it came from).
    path("language/", choose_language, name="choose-language"),
    path("i18n/", include("frontend.i18n_urls", namespace="i18n")),
    path("", include("frontend.urls")),
]

handler400 = "api.error_responses.bad_request"
handler403 = "api.error_responses.permission_denied"
handler404 = "api.error_responses.not_found"
handler500 = "api.error_responses.server_error"
