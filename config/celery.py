"""The Celery application of the solver's workers (games/tasks.py):

    celery -A config worker -Q solver --concurrency 2

Settings come from Django's, prefixed CELERY_ (config/settings.py); the broker is
SOLVER_BROKER_URL, the Redis the service already runs."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("klondike")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["games"])
