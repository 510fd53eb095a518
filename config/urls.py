from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

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
    path("", include("frontend.urls")),
]

handler400 = "api.error_responses.bad_request"
handler403 = "api.error_responses.permission_denied"
handler404 = "api.error_responses.not_found"
handler500 = "api.error_responses.server_error"
