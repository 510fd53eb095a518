"""The service's ASGI application with Django's stock ASGI handler for HTTP, as it was
before #34 (a thread started per request, the middleware chain in async mode): the
"before" of ``bench/load.py --handlers service stock``, measured in the same run."""

from django.core.handlers.asgi import ASGIHandler

from config.asgi import application

application.app.app.application_mapping["http"] = ASGIHandler()  # inside ClientAddressMiddleware, RequestTelemetry
