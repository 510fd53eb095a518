from django.contrib import admin
from django.http import JsonResponse
from django.urls import path


def healthz(request):
    """Liveness probe: the process is up and routing requests."""
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
