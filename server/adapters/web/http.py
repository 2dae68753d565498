"""The HTTP side of the server's port: ``/healthz``, the browser table's files, and the
refusals before the WebSocket handshake.

websockets hands every request to `HttpFront.process_request` before its opening
handshake (its ``process_request`` hook); a request it could not read, a method other
than GET and HEAD, and a header sent twice were answered before that (400 or 405,
`server.adapters.web.screen`). ``GET /healthz`` answers 200 with JSON ``{"status": "ok"}``,
with ``"rooms"`` and ``"connections"`` for a loopback peer whose request names no
forwarded address (no proxy's header) or with ``--health-counts``,
or 503 with ``"status": "store_failing"`` while the store cannot write (a full disk: from
a failed commit until one succeeds again, `server.core.hub.hub.Hub.store_failing`); a host
name the server does not go by gets 403 (`server.adapters.addresses.hosts`: DNS rebinding); other
plain HTTP requests get the browser table's files (`server.adapters.web.files`; none with
``--no-web``); a WebSocket opened by another site's page gets 403
(`server.adapters.addresses.origin`); and per address
(`server.adapters.addresses.limits.ConnectionGate`, on
the app's monotonic clock), new connections at most ``--connect-rate`` a second in
bursts of ``--connect-burst``, and none for ``--abuse-penalty`` seconds (doubling on
repeats) after one of its connections was closed for abuse (4001, or 1008 for invalid
frames): HTTP 429 Too Many Requests with ``Retry-After``; plain requests (the page's
files, ``/healthz``) at most ``--page-rate`` a second in bursts of ``--page-burst``
(30, 240: a few devices of a household loading the page together, some 40 files each
without their cache), the same 429 past them. Anything else goes on to the handshake.
Every answer but the 101 carries the page's security headers
(`server.adapters.ws.connection` adds them to whatever is sent, websockets' own refusals
included). Every refusal is counted per address and
logged once a minute per kind (`server.adapters.web.edge`); nothing here raises (a bug
answers 400, never a traceback).
"""

from __future__ import annotations

import http
import json
import math
from collections.abc import Callable
from typing import Protocol
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.adapters.addresses.forwarded import ClientAddress, Network, client_address
from server.adapters.addresses.hosts import host_allowed
from server.adapters.addresses.limits import ConnectionGate, Throttle
from server.adapters.addresses.origin import origin_allowed
from server.adapters.settings.config import Settings
from server.adapters.web.edge import EdgeLog
from server.adapters.web.files import WebFiles
from server.adapters.web.invitation import told_addresses
from server.adapters.web.screen import Answer

__all__ = [
    "HEALTH_PATH",
    "Health",
    "HttpFront",
    "client_of",
    "headers_of",
    "peer_of",
]

HEALTH_PATH = "/healthz"


class Health(Protocol):
    """What ``/healthz`` reports of a server (`server.adapters.ws.app.WarServer` is one)."""

    @property
    def rooms(self) -> int: ...
    @property
    def store_failing(self) -> bool: ...
    @property
    def connection_count(self) -> int: ...


class HttpFront:
    """The answers to plain HTTP requests and the refusals before the handshake of
    ``server`` (see the module docstring). It owns the per-address `gate` (the app
    penalizes an address through it) and the browser table's files (`web`: set once they
    are loaded; None: ``--no-web``). ``edge`` counts and logs its refusals, on
    ``monotonic``."""

    def __init__(
        self,
        settings: Settings,
        *,
        server: Health,
        edge: EdgeLog,
        monotonic: Callable[[], float],
    ) -> None:
        self.settings = settings
        self._server = server
        self._edge = edge
        self._monotonic = monotonic
        self._public = urlsplit(settings.public_url).hostname if settings.public_url else None
        self.gate = ConnectionGate(
            settings.connect_rate,
            settings.connect_burst,
            penalty=settings.abuse_penalty,
            penalty_max=settings.abuse_penalty_max,
        )
        self.web: WebFiles | None = None
        self.pages = ConnectionGate(
            settings.page_rate, settings.page_burst, penalty=0.0, penalty_max=0.0
        )
        """The plain HTTP requests of each address (the page's files, /healthz)."""

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer /healthz and the browser table's files (`server.adapters.web.files`); refuse
        a host name not allowed (403), a WebSocket from another site's page (403) and a
        new connection its address may not open now (429); None lets the WebSocket
        handshake go on. Never raises: a request it cannot answer gets 400."""
        try:
            return self._answer(connection, request)
        except Exception as error:  # never a traceback in the log
            verdict = Answer(
                http.HTTPStatus.BAD_REQUEST,
                "bad_request",
                "not an HTTP request this server reads\n",
                f"{type(error).__name__}: {error}",
            )
            self._edge.request_refused(peer_of(connection), verdict)
            return connection.respond(verdict.status, verdict.text)

    def _answer(self, connection: ServerConnection, request: Request) -> Response | None:
        headers = request.headers
        client = client_of(connection, headers, self.settings.trusted_proxies)
        plain = self._plain(connection, client, request)
        if plain is not None:
            return plain
        host = headers.get("Host")
        if not host_allowed(host, self._public, self.settings.allowed_hosts):
            return self._other_host(connection, client.address, str(host))
        if self.web is not None and (page := self.web.respond(request)) is not None:
            return page  # the browser table's files (not a WebSocket upgrade)
        origin = headers.get("Origin")
        if not origin_allowed(origin, host, self.settings.allowed_origins):
            return self._other_site(connection, client.address, str(origin))
        refusal = self.gate.admit(client.address, self._monotonic())
        if refusal is None:
            return None
        return self._too_many_requests(connection, client.address, refusal)

    def _plain(
        self, connection: ServerConnection, client: ClientAddress, request: Request
    ) -> Response | None:
        """A plain request (not an upgrade: the page's files, /healthz) past its
        address's rate gets 429; /healthz is answered; None for the rest."""
        headers = request.headers
        if "websocket" not in str(headers.get("Upgrade", "")).lower():
            throttled = self.pages.admit(client.address, self._monotonic())
            if throttled is not None:
                return self._too_many_pages(connection, client.address, throttled)
        if request.path.split("?", 1)[0] == HEALTH_PATH:
            return self._health(connection, client, headers)
        return None

    def _other_host(self, connection: ServerConnection, peer: str, host: str) -> Response:
        """HTTP 403 for a host name the server does not go by (DNS rebinding)."""
        self._edge.refused("host_refused", peer, host=host, hint="see --allowed-hosts")
        return connection.respond(
            http.HTTPStatus.FORBIDDEN,
            "this server is not reached by that name (see --allowed-hosts)\n",
        )

    def _other_site(self, connection: ServerConnection, peer: str, origin: str) -> Response:
        """HTTP 403 for a browser WebSocket opened by another site's page."""
        self._edge.refused("origin_refused", peer, origin=origin)
        return connection.respond(
            http.HTTPStatus.FORBIDDEN,
            "a WebSocket from another site's page is refused (see --allowed-origins)\n",
        )

    def _health(
        self, connection: ServerConnection, client: ClientAddress, headers: Headers
    ) -> Response:
        """The status; the counts too for this machine itself (a loopback peer whose
        request names no forwarded address: `told_addresses`), or for anyone with
        --health-counts."""
        server = self._server
        failing = server.store_failing
        answer: dict[str, object] = {"status": "store_failing" if failing else "ok"}
        if self.settings.health_counts or told_addresses(client, headers):
            answer.update(rooms=server.rooms, connections=server.connection_count)
        status = http.HTTPStatus.SERVICE_UNAVAILABLE if failing else http.HTTPStatus.OK
        response = connection.respond(status, json.dumps(answer))
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "application/json"
        response.headers["Cache-Control"] = "no-store"
        return response

    def _too_many_pages(
        self, connection: ServerConnection, peer: str, refusal: Throttle
    ) -> Response:
        """HTTP 429 with Retry-After for plain requests past the address's rate."""
        seconds = max(1, math.ceil(refusal.retry_after))
        self._edge.refused("request_throttled", peer, retry_after=seconds)
        response = connection.respond(
            http.HTTPStatus.TOO_MANY_REQUESTS,
            f"too many requests from this address; retry after {seconds} s\n",
        )
        response.headers["Retry-After"] = str(seconds)
        return response

    def _too_many_requests(
        self, connection: ServerConnection, peer: str, refusal: Throttle
    ) -> Response:
        """HTTP 429 with Retry-After (whole seconds, at least 1), instead of the handshake."""
        seconds = max(1, math.ceil(refusal.retry_after))
        if refusal.penalized:
            why = "a connection from this address was closed for abuse"
        else:
            why = "too many new connections from this address"
        self._edge.refused(
            "connection_throttled",
            peer,
            reason="penalty" if refusal.penalized else "connect rate",
            retry_after=seconds,
        )
        response = connection.respond(
            http.HTTPStatus.TOO_MANY_REQUESTS, f"{why}; retry after {seconds} s\n"
        )
        response.headers["Retry-After"] = str(seconds)
        return response


def peer_of(ws: ServerConnection) -> str:
    address = ws.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address or "")


def client_of(
    ws: ServerConnection, headers: Headers | None, trusted: tuple[Network, ...]
) -> ClientAddress:
    """Who ``ws`` is from: the TCP peer, or from a trusted proxy what X-Forwarded-For
    (in ``headers``, the handshake request's) says."""
    forwarded = headers.get_all("X-Forwarded-For") if headers is not None and trusted else []
    return client_address(peer_of(ws), forwarded, trusted)


def headers_of(ws: ServerConnection) -> Headers | None:
    return ws.request.headers if ws.request is not None else None
