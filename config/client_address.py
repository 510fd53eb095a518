"""The client's address, from configuration rather than from the request.

A request can claim any ``X-Forwarded-For``; only the proxies named by the
``TRUSTED_PROXIES`` setting may vouch for one. With none configured (the default)
the client is the socket's own peer and forwarding headers are ignored. The result
replaces the ASGI scope's ``client`` (so ``REMOTE_ADDR``, the REST throttles, the
WebSocket scope and the access log all see the same address), and the forwarding
headers are removed so that nothing downstream can read the raw claim.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

FORWARDED_FOR = b"x-forwarded-for"
FORWARDED_PROTO = b"x-forwarded-proto"


@dataclass(frozen=True)
class TrustedProxies:
    """Either a count of proxies in front (each appends the address it saw to
    ``X-Forwarded-For``) or the networks they live in; neither: none."""

    count: int = 0
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str | None) -> TrustedProxies:
        """``""``/unset: none; ``"2"``: two proxies; ``"10.0.0.0/8, 127.0.0.1"``: networks."""
        text = (text or "").strip()
        if not text:
            return cls()
        if text.isdigit():
            return cls(count=int(text))
        networks = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ImproperlyConfigured(
                    f"TRUSTED_PROXIES: {item!r} is neither a number of proxies nor an address or network "
                    "(e.g. 10.0.0.0/8)") from None
        return cls(networks=tuple(networks))

    @property
    def configured(self) -> bool:
        return bool(self.count or self.networks)

    def trusts(self, address: str) -> bool:
        """Whether ``address`` is one of the proxies (always true for a count: the
        count says how many hops in front are ours)."""
        if self.count:
            return True
        parsed = _ip(address)
        return parsed is not None and any(parsed in network for network in self.networks)

    def client(self, peer: str, forwarded_for: Iterable[str]) -> str:
        """The client's address, given the socket's peer and the ``X-Forwarded-For``
        entries (left to right, already split)."""
        if not self.configured or not self.trusts(peer):
            return peer
        chain = [entry for entry in (e.strip() for e in forwarded_for) if entry]
        if self.count:
            # The last ``count`` entries were appended by our proxies; the one they
            # were given is the client. A shorter chain: a proxy did not forward.
            return _normalised(chain[-self.count]) if len(chain) >= self.count else peer
        for entry in reversed(chain):
            if not self.trusts(entry):
                return _normalised(entry)
        return _normalised(chain[0]) if chain else peer


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def _normalised(entry: str) -> str:
    """An address as a proxy wrote it; anything that is not an address stays as it
    is (it still identifies the client for throttles) but bounded in length."""
    parsed = _ip(entry)
    return str(parsed) if parsed is not None else entry[:64]


def _split_header(headers: list[tuple[bytes, bytes]], name: bytes) -> list[str]:
    values: list[str] = []
    for key, value in headers:
        if key.lower() == name:
            values.extend(value.decode("latin-1").split(","))
    return values


def resolve_scope(scope: dict[str, Any], proxies: TrustedProxies) -> dict[str, Any]:
    """A copy of an HTTP or WebSocket scope with the real client and scheme, and no
    forwarding headers."""
    headers = scope.get("headers") or []
    peer, port = (scope.get("client") or ("", 0))[:2]
    client = proxies.client(peer, _split_header(headers, FORWARDED_FOR))
    scheme = scope.get("scheme")
    if proxies.configured and proxies.trusts(peer):
        proto = [p.strip().lower() for p in _split_header(headers, FORWARDED_PROTO)]
        if proto and proto[0] in ("http", "https"):
            secure = proto[0] == "https"
            scheme = ("wss" if secure else "ws") if scope["type"] == "websocket" else proto[0]
    kept = [(k, v) for k, v in headers if k.lower() not in (FORWARDED_FOR, FORWARDED_PROTO)]
    resolved = {**scope, "headers": kept, "client": (client, port if client == peer else 0)}
    if scheme:
        resolved["scheme"] = scheme
    return resolved


class ClientAddressMiddleware:
    """ASGI middleware around the whole application (HTTP and WebSockets): the real
    client and scheme in the scope."""

    def __init__(self, app: Any, proxies: TrustedProxies | None = None) -> None:
        self.app = app
        self.proxies = proxies

    def _proxies(self) -> TrustedProxies:
        if self.proxies is None:
            from django.conf import settings

            self.proxies = TrustedProxies.parse(getattr(settings, "TRUSTED_PROXIES", ""))
        return self.proxies

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        return await self.app(resolve_scope(scope, self._proxies()), receive, send)


class WSGIClientAddress:
    """The same for the WSGI entry point (HTTP only)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.proxies: TrustedProxies | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.proxies is None:  # parsed once, as the ASGI middleware does
            from django.conf import settings

            self.proxies = TrustedProxies.parse(getattr(settings, "TRUSTED_PROXIES", ""))
        proxies = self.proxies
        peer = environ.get("REMOTE_ADDR", "")
        environ["REMOTE_ADDR"] = proxies.client(peer, environ.get("HTTP_X_FORWARDED_FOR", "").split(","))
        if proxies.configured and proxies.trusts(peer):
            proto = environ.get("HTTP_X_FORWARDED_PROTO", "").split(",")[0].strip().lower()
            if proto in ("http", "https"):
                environ["wsgi.url_scheme"] = proto
        environ.pop("HTTP_X_FORWARDED_FOR", None)
        environ.pop("HTTP_X_FORWARDED_PROTO", None)
        return self.app(environ, start_response)
