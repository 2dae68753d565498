"""The HTTP edge's settings: which names and pages may reach the server, and what
``/healthz`` tells (a part of `server.adapters.settings.config.Settings`, declared the same way)."""

from __future__ import annotations

from dataclasses import dataclass

from server.adapters.settings.values import hosts, origins, public_url, switch
from server.core.settings import HubSettings, Setting, setting

__all__ = ["EdgeSettings", "InvitationSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class InvitationSettings(HubSettings):
    """The invitation's settings (`server.adapters.settings.config.Settings` extends them)."""

    public_url: str | None = setting(
        None,
        Setting(
            help="the address people open the browser table at, when it is not this "
            "machine's (behind a reverse proxy or TLS), e.g. https://war.example.org/: the "
            "invitation's links are built from it, and its host name is allowed (see "
            "--allowed-hosts); http:// or https://, a host, no #fragment",
            parse=public_url,
            metavar="URL",
            shown="none: http://ADDRESS:PORT/ for each network address of this machine",
        ),
    )
    machine_addresses: tuple[str, ...] | None = setting(
        None,
        Setting(
            help="the addresses this server can be reached at, for the invitation (None: "
            "the machine's, where its sockets listen; tests give their own, never the "
            "machine's real interfaces)",
            flag=False,
        ),
    )


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
