"""ASGI entry point (Daphne): HTTP via Django, WebSockets via Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Initialise Django (app registry) before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from accounts.ws_auth import AuthStack  # noqa: E402
from config.client_address import ClientAddressMiddleware  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# The real client (TRUSTED_PROXIES) before anything reads the scope.
application = ClientAddressMiddleware(ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthStack(URLRouter(websocket_urlpatterns))
        ),
    }
))
