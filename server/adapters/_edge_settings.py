"""The HTTP edge's settings: which names and pages may reach the server, and what
``/healthz`` tells (a part of `server.adapters.config.Settings`, declared the same way)."""

from __future__ import annotations

from dataclasses import dataclass

from server.adapters._invitation import InvitationSettings
from server.adapters._values import hosts, origins, switch
from server.core.settings import Setting, setting

__all__ = ["EdgeSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeSettings(InvitationSettings):
    """The room core's settings, the invitation's and the HTTP edge's (the host name of
    ``public_url`` is allowed, as ``allowed_hosts`` are)."""

    allowed_origins: tuple[str, ...] = setting(
        (),
        Setting(
            help="web pages (origins such as https://example.org, comma-separated) whose browser "
            "WebSockets are accepted besides the server's own page; a WebSocket from any "
            "other page is refused with HTTP 403 (clients that send no Origin header, such "
            "as war-client, are not affected)",
            parse=origins,
            metavar="LIST",
        ),
    )
    allowed_hosts: tuple[str, ...] = setting(
        (),
        Setting(
            help="host names (comma-separated; .example.org for every name under it) a browser "
            "may use to reach the server besides IP addresses, localhost and the --public-url's; "
            "a request for any other name gets HTTP 403 (DNS rebinding)",
            parse=hosts,
            metavar="LIST",
        ),
    )
    health_counts: bool = setting(
        False,
        Setting(
            help="GET /healthz tells anyone the number of rooms and connections (they are "
            "always told to loopback); WAR_HEALTH_COUNTS takes 1/true/yes/on or 0/false/no/off",
            parse=switch,
            shown="off: only to loopback",
            switch=True,
        ),
    )
