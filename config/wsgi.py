"""WSGI entry point (HTTP only; WebSockets need ASGI/Daphne)."""

import os

from django.core.wsgi import get_wsgi_application

from config.client_address import WSGIClientAddress

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = WSGIClientAddress(get_wsgi_application())
