"""Which addresses are whose: shared (carrier-grade NAT) addresses, the default gateway,
this machine's LAN and global IPv6 addresses. The parsers are pure; `default_gateway`,
`lan_address` and `global_ipv6_addresses` read the running system (Linux's /proc)."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from pathlib import Path

SHARED_NETWORKS = (
    IPv4Network("100.64.0.0/10"),  # RFC 6598: carrier-grade NAT's shared address space
    IPv4Network("10.0.0.0/8"),  # RFC 1918
    IPv4Network("172.16.0.0/12"),
    IPv4Network("192.168.0.0/16"),
    IPv4Network("169.254.0.0/16"),  # link-local: no address at all
    IPv4Network("0.0.0.0/8"),
    IPv4Network("127.0.0.0/8"),
)
"""A router whose own external address is in one of these has none of its own. Python's
``ipaddress`` is no help here: it calls 203.0.113.2 (a documentation address, public for
this purpose) private, and 100.64.0.2 neither private nor global."""

_NOT_GLOBAL6 = (
    IPv6Network("fc00::/7"),  # unique local
    IPv6Network("fe80::/10"),  # link-local
    IPv6Network("::/128"),
    IPv6Network("::1/128"),
    IPv6Network("::ffff:0:0/96"),
    IPv6Network("ff00::/8"),
)

_IFA_F_TEMPORARY = 0x01
_IFA_F_DADFAILED = 0x08
_IFA_F_DEPRECATED = 0x20
_IFA_F_TENTATIVE = 0x40
_MAX_PROC = 1 << 20


def is_shared(address: IPv4Address) -> bool:
    """Whether a router's external `address` is shared (not the line's own)."""
    return any(address in network for network in SHARED_NETWORKS)


def parse_default_gateway(route_table: str) -> IPv4Address | None:
    """The IPv4 default gateway in Linux's /proc/net/route text (its lowest metric), or None."""
    best: tuple[int, IPv4Address] | None = None
    for line in route_table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 7:
            continue
        try:
            destination, gateway, flags = (int(fields[i], 16) for i in (1, 2, 3))
            metric = int(fields[6])
        except ValueError:
            continue
        if destination != 0 or gateway == 0 or not flags & 0x2:  # RTF_GATEWAY
            continue
        address = IPv4Address(int.from_bytes(gateway.to_bytes(4, "little"), "big"))
        if best is None or metric < best[0]:
            best = (metric, address)
    return best[1] if best else None


def parse_default_gateway6(route_table: str) -> tuple[IPv6Address, str] | None:
    """The IPv6 default gateway and its interface in /proc/net/ipv6_route text, or None."""
    best: tuple[int, IPv6Address, str] | None = None
    for line in route_table.splitlines():
        fields = line.split()
        if len(fields) != 10 or fields[0] != "0" * 32 or fields[1] != "00":
            continue
        try:
            gateway = IPv6Address(bytes.fromhex(fields[4]))
            metric = int(fields[5], 16)
        except ValueError:
            continue
        if gateway == IPv6Address("::") or fields[9] == "lo":
            continue
        if best is None or metric < best[0]:
            best = (metric, gateway, fields[9])
    return (best[1], best[2]) if best else None


def parse_global_ipv6(if_inet6: str) -> list[IPv6Address]:
    """This machine's global, stable IPv6 addresses in /proc/net/if_inet6 text (no temporary,
    deprecated, tentative, unique-local or link-local one)."""
    found: list[IPv6Address] = []
    for line in if_inet6.splitlines():
        fields = line.split()
        if len(fields) != 6 or len(fields[0]) != 32:
            continue
        try:
            address = IPv6Address(bytes.fromhex(fields[0]))
            scope, flags = int(fields[3], 16), int(fields[4], 16)
        except ValueError:
            continue
        unusable = _IFA_F_TEMPORARY | _IFA_F_DADFAILED | _IFA_F_DEPRECATED | _IFA_F_TENTATIVE
        if scope != 0 or flags & unusable or any(address in n for n in _NOT_GLOBAL6):
            continue
        found.append(address)
    return found


def _proc_net(name: str) -> str:
    """/proc/thread-self/net/NAME (the calling thread's network namespace), else /proc/net."""
    for folder in ("/proc/thread-self/net", "/proc/net"):
        path = Path(folder) / name
        try:
            with path.open() as stream:
                return stream.read(_MAX_PROC)
        except OSError:
            continue
    return ""


def default_gateway() -> IPv4Address | None:
    """The IPv4 default gateway of this machine (Linux), or None."""
    return parse_default_gateway(_proc_net("route"))


def default_gateway6() -> tuple[IPv6Address, str] | None:
    """The IPv6 default gateway and its interface (Linux), or None."""
    return parse_default_gateway6(_proc_net("ipv6_route"))


def global_ipv6_addresses() -> list[IPv6Address]:
    """This machine's global IPv6 addresses (Linux)."""
    return parse_global_ipv6(_proc_net("if_inet6"))


def lan_address(toward: IPv4Address) -> IPv4Address:
    """The address this machine speaks from toward `toward` (a UDP socket's choice; no
    packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((str(toward), 9))
        return IPv4Address(probe.getsockname()[0])
