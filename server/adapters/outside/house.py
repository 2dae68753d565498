"""Who is in the house: with ``--outside`` and no ``WAR_PASSWORD``, only the house creates
rooms (a visitor from elsewhere is told to ask the host for an invitation).

The house is loopback and the networks this machine's own interfaces are on
(`house_networks`: the kernel's directly connected IPv4 routes, ``/proc/net/route``, and
each IPv6 address with its prefix, ``/proc/net/if_inet6``) — not "any private address":
a visitor the router forwards keeps their own source address, which is in none of them,
and a private address elsewhere (another home's 192.168.1.0/24, a carrier's 100.64/10)
is not this house's.

`in_house` judges one connection: its client's address (`server.adapters.addresses.forwarded`:
the TCP peer, or from a ``--trusted-proxies`` peer the address its X-Forwarded-For
names) must be in the house, and a connection that carries a proxy's header
(``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) from a peer that is not a trusted
proxy is never the house: a proxy on this machine relays people from anywhere, and a
header anyone can write proves nothing.

Sans-I/O but for `house_networks`, which reads two Linux files.
"""

from __future__ import annotations

import ipaddress
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from server.adapters.addresses.forwarded import ClientAddress, Network, ip_of

__all__ = [
    "LOOPBACK",
    "PROXY_HEADERS",
    "house_networks",
    "in_house",
    "parse_if_inet6",
    "parse_route",
]

LOOPBACK: tuple[Network, ...] = (
    ipaddress.IPv4Network("127.0.0.0/8"),
    ipaddress.IPv6Network("::1/128"),
)
PROXY_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP")
_ROUTE = Path("/proc/net/route")
_IF_INET6 = Path("/proc/net/if_inet6")
_MAX_LINES = 4096


def parse_route(text: str) -> list[Network]:
    """The directly connected IPv4 networks of a ``/proc/net/route`` table (no gateway,
    not the default route)."""
    found: list[Network] = []
    for row in text.splitlines()[1:_MAX_LINES]:
        fields = row.split()
        if len(fields) < 8:
            continue
        try:
            destination, gateway, mask = (int(fields[i], 16) for i in (1, 2, 7))
        except ValueError:
            continue
        if gateway != 0 or mask == 0:
            continue
        # the kernel prints the address's four bytes as one number in the machine's order
        net = ipaddress.IPv4Address(destination.to_bytes(4, sys.byteorder))
        bits = bin(mask).count("1")
        try:
            found.append(ipaddress.IPv4Network(f"{net}/{bits}", strict=False))
        except ValueError:
            continue
    return found


def parse_if_inet6(text: str) -> list[Network]:
    """The IPv6 networks of a ``/proc/net/if_inet6`` table (each address's prefix)."""
    found: list[Network] = []
    for row in text.splitlines()[:_MAX_LINES]:
        fields = row.split()
        if len(fields) < 3 or len(fields[0]) != 32:
            continue
        try:
            address = ipaddress.IPv6Address(int(fields[0], 16))
            prefix = int(fields[2], 16)
            found.append(ipaddress.IPv6Network(f"{address}/{prefix}", strict=False))
        except ValueError:
            continue
    return found


def house_networks() -> tuple[Network, ...]:
    """Loopback and the networks of this machine's interfaces (Linux ``/proc``; loopback
    alone elsewhere)."""
    found: list[Network] = list(LOOPBACK)
    for path, parse in ((_ROUTE, parse_route), (_IF_INET6, parse_if_inet6)):
        try:
            text = path.read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        found += [n for n in parse(text) if n not in found]
    return tuple(found)


def in_house(
    client: ClientAddress, headers: Mapping[str, str] | None, networks: Iterable[Network]
) -> bool:
    """Whether the connection of ``client`` (its handshake's ``headers``) is from the
    house (see the module docstring)."""
    relayed = headers is not None and any(name in headers for name in PROXY_HEADERS)
    if client.proxy is None and relayed:
        return False
    address = ip_of(client.address)
    if address is None:
        return False
    return any(address.version == n.version and address in n for n in networks)
