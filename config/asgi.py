"""ASGI entry point (Daphne): HTTP via Django, WebSockets via Channels."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Initialise Django (app registry) before importing anything that touches models.
from config.http_handler import get_http_application  # noqa: E402

django_asgi_app = get_http_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from realtime.socket_auth import AuthStack  # noqa: E402
from config.client_address import ClientAddressMiddleware, TrustedProxies  # noqa: E402
from config.request_telemetry import RequestTelemetry  # noqa: E402
from database.asgi import RefuseHandshakeDuringOutage  # noqa: E402
from config.security_headers import WebSocketSecurityHeaders, forward_accept_headers_in_daphne  # noqa: E402
from realtime.routing import websocket_urlpatterns  # noqa: E402

from django.conf import settings  # noqa: E402

forward_accept_headers_in_daphne()

# The real client and scheme (TRUSTED_PROXIES) before anything reads the scope; then
# the request id, the access log line and the metrics of each request and socket.
application = ClientAddressMiddleware(RequestTelemetry(ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # The origin check stays outermost: a foreign page's socket is refused first.
        "websocket": AllowedHostsOriginValidator(
            WebSocketSecurityHeaders(RefuseHandshakeDuringOutage(AuthStack(URLRouter(websocket_urlpatterns))))
        ),
    }
), trust_request_id=TrustedProxies.parse(settings.TRUSTED_PROXIES).configured))
