"""Where people can open the browser table: the addresses a room's invitation gives.

- `page_addresses`: the server's ``--public-url`` when one is set (behind a reverse proxy
  or TLS, the address people open is not the machine's); else ``http://ADDRESS:PORT/``
  (``https://`` when the server speaks TLS itself) for each address the listening
  sockets can be reached at but loopback and link-local ones (``127.0.0.1`` works only on
  this machine; ``fe80::`` needs a zone no link can carry). Empty when the server
  listens on loopback alone: nobody else can reach it.
- `told_addresses`: whether a connection may be told them (the wire's
  ``welcome.addresses``): only a page on the machine itself, whose TCP peer is loopback
  and whose handshake carries no proxy's header (``X-Forwarded-For``, ``Forwarded``,
  ``X-Real-IP``: a proxy on this machine relays people elsewhere, trusted or not) — the
  page opened at ``http://127.0.0.1:8765/`` must not build its links from that.
- `startup_lines`: what the server says at start: each address to open, or, on loopback
  alone, that relatives cannot reach it and how to start it for the home network, and the
  address to open on this machine (`here`: ``http://127.0.0.1:8765/``).

The machine's addresses come from `server.adapters.web.exposure.local_addresses` (the
kernel's own tables, no packet sent anywhere) and the sockets' bound addresses, or from
the ``machine_addresses`` setting, which tests give so that nothing depends on the
machine's real interfaces.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Mapping
from typing import Protocol

from server.adapters.addresses.forwarded import Address, ClientAddress, ip_of
from server.adapters.web import exposure as _exposure
from server.adapters.web.exposure import StartupWarning

__all__ = [
    "HOME_NETWORK_ADVICE",
    "LOCAL_ADVICE",
    "here",
    "invitation",
    "page_addresses",
    "startup_lines",
    "told_addresses",
]

HOME_NETWORK_ADVICE = (
    "this server listens on this machine alone: relatives' phones cannot reach it; "
    "for the home network start it with make run HOST=0.0.0.0 (war-server --host 0.0.0.0)"
)
"""What the server says at start when it listens on loopback alone."""
LOCAL_ADVICE = "open this in a browser on this machine"
"""What it says of the address to open on the machine itself."""


def _url(address: Address, port: int, *, tls: bool) -> str:
    host = f"[{address}]" if isinstance(address, ipaddress.IPv6Address) else str(address)
    return f"{'https' if tls else 'http'}://{host}:{port}/"


def page_addresses(
    reachable: Iterable[Address], *, port: int, tls: bool, public_url: str | None
) -> tuple[str, ...]:
    """The browser table's addresses another device can open: ``public_url`` if set,
    else one for each address the server can be ``reachable`` at (loopback and
    link-local left out), in that order."""
    if public_url is not None:
        return (public_url,)
    return tuple(
        _url(a, port, tls=tls) for a in reachable if not (a.is_loopback or a.is_link_local)
    )


class _Settings(Protocol):
    @property
    def public_url(self) -> str | None: ...
    @property
    def machine_addresses(self) -> tuple[str, ...] | None: ...
    @property
    def tls(self) -> bool: ...


class _Server(Protocol):
    @property
    def settings(self) -> _Settings: ...
    @property
    def sockets(self) -> tuple[socket.socket, ...]: ...
    @property
    def port(self) -> int: ...


def invitation(server: _Server) -> tuple[str, ...]:
    """The invitation's addresses of a started ``server`` (`server.adapters.ws.app.WarServer`):
    reachable at each address of the machine its sockets are bound to, or at the
    ``machine_addresses`` a test gives."""
    settings = server.settings
    given = settings.machine_addresses
    if given is None:
        bound = _exposure.bound_addresses(server.sockets)
        reachable = _exposure.reachable_addresses(bound, _exposure.local_addresses())
    else:
        reachable = [a for a in (ip_of(text) for text in given) if a is not None]
    return page_addresses(
        reachable, port=server.port, tls=settings.tls, public_url=settings.public_url
    )


PROXY_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP")
"""Headers a reverse proxy adds for the client it relays: a handshake that has one comes
from somewhere else, even through a proxy on this machine that is not trusted."""


def told_addresses(client: ClientAddress, headers: Mapping[str, str] | None) -> bool:
    """Whether the connection of ``client`` (its handshake's ``headers``) is from this
    machine itself: a loopback TCP peer, no address taken from a trusted proxy's header,
    and no proxy's header at all."""
    address = ip_of(client.address)
    if client.proxy is not None or address is None or not address.is_loopback:
        return False
    return headers is None or not any(name in headers for name in PROXY_HEADERS)


def here(server: _Server) -> str | None:
    """The browser table's address on this machine: at the first loopback address the
    listening sockets are bound to (None: they are bound to none, such as 0.0.0.0)."""
    for text in _exposure.bound_addresses(server.sockets):
        address = ip_of(text)
        if address is not None and address.is_loopback:
            return _url(address, server.port, tls=server.settings.tls)
    return None


def startup_lines(
    addresses: tuple[str, ...], *, public_url: bool, here: str | None = None
) -> list[StartupWarning]:
    """What the server says at start about its invitation (each a log line): the
    ``addresses`` to open; with none, that nobody else can reach it and, when it is bound
    to loopback, the address to open ``here`` on this machine."""
    if not addresses:
        lines = [StartupWarning("loopback_only", {"advice": HOME_NETWORK_ADVICE})]
        if here is not None:
            lines.append(StartupWarning("open", {"url": here, "advice": LOCAL_ADVICE}))
        return lines
    advice = (
        "the invitation's links are built from --public-url"
        if public_url
        else "open this on a phone or a computer on the same network"
    )
    return [StartupWarning("open", {"url": url, "advice": advice}) for url in addresses]
