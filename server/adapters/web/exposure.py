"""Who can reach the server, for the warnings it gives at start (`startup_warnings`).

- **No password on a non-loopback address**: anyone who reaches the address can create
  rooms (up to ``--max-rooms``), so the family may find the server full.
- **Plain ws:// on a public address, with no trusted proxy**: players would type the
  password and room codes over the internet unencrypted. Public means a global address
  (`ipaddress` ``is_global``: not private, loopback, link-local, shared CGNAT space or
  documentation ranges). The server listening on every address (``0.0.0.0``, ``::``)
  counts as listening on each address of the machine, read from the kernel
  (`local_addresses`). Behind a trusted proxy the proxy is expected to do TLS; a machine
  with only private addresses whose router forwards the port cannot be told apart from
  a home-network server, which is why docs/hosting.md makes TLS the documented way
  beyond the home network.

Sans-I/O but for `local_addresses`, which reads two Linux files (nothing elsewhere).
"""

from __future__ import annotations

import ipaddress
import itertools
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from server.adapters.addresses.forwarded import Address, ip_of

__all__ = [
    "StartupWarning",
    "bound_addresses",
    "local_addresses",
    "reachable_addresses",
    "startup_warnings",
]

_FIB_TRIE = Path("/proc/net/fib_trie")
_IF_INET6 = Path("/proc/net/if_inet6")


@dataclass(frozen=True, slots=True)
class StartupWarning:
    """One log line: its event name and key-values."""

    event: str
    fields: dict[str, object]


def local_addresses() -> set[Address]:
    """The machine's own IPv4 and IPv6 addresses (Linux ``/proc``); empty elsewhere."""
    found: set[Address] = set()
    try:
        lines = _FIB_TRIE.read_text(encoding="ascii").splitlines()
    except OSError:
        lines = []
    for previous, line in itertools.pairwise(lines):
        if line.strip() == "/32 host LOCAL":
            address = ip_of(previous.strip().removeprefix("|--").strip())
            if address is not None:
                found.add(address)
    try:
        rows = _IF_INET6.read_text(encoding="ascii").splitlines()
    except OSError:
        rows = []
    for row in rows:
        hexa = row.split()[0] if row.split() else ""
        if len(hexa) == 32:
            found.add(ipaddress.IPv6Address(int(hexa, 16)))
    return found


def reachable_addresses(bound: Iterable[str], local: Iterable[Address]) -> list[Address]:
    """The addresses clients can reach the listening sockets ``bound`` at."""
    own = list(local)
    reachable: list[Address] = []
    for text in bound:
        address = ip_of(text)
        if address is None:
            continue
        if address.is_unspecified:
            wanted = type(address)
            dual = isinstance(address, ipaddress.IPv6Address)  # "::" takes IPv4 too on Linux
            reachable += [a for a in own if isinstance(a, wanted) or dual]
        else:
            reachable.append(address)
    return sorted(set(reachable), key=lambda a: (a.version, int(a)))


def startup_warnings(
    bound: Iterable[str],
    *,
    tls: bool,
    password: bool,
    behind_proxy: bool,
    local: Iterable[Address] | None = None,
) -> list[StartupWarning]:
    """What to warn about for a server listening on ``bound`` (socket addresses as
    text); ``local``: the machine's addresses (default: `local_addresses`)."""
    bound = list(bound)
    own = local_addresses() if local is None else set(local)
    reachable = reachable_addresses(bound, own)
    warnings: list[StartupWarning] = []
    outside_loopback = [b for b in bound if (a := ip_of(b)) is None or not a.is_loopback]
    if not password and outside_loopback:
        warnings.append(
            StartupWarning(
                "no_password",
                {
                    "addresses": outside_loopback,
                    "advice": "anyone who can reach this server can create rooms until "
                    "it is full: set WAR_PASSWORD (docs/hosting.md)",
                },
            )
        )
    public = [a for a in reachable if a.is_global]
    if public and not tls and not behind_proxy:
        warnings.append(
            StartupWarning(
                "public_without_tls",
                {
                    "addresses": [str(a) for a in public],
                    "advice": "players would send the password and room codes over the "
                    "internet unencrypted: serve wss:// (--certfile and --keyfile, or "
                    "the Caddy profile; docs/hosting.md) and keep plain ws:// for the "
                    "home network",
                },
            )
        )
    return warnings


def bound_addresses(sockets: Iterable[socket.socket]) -> list[str]:
    """The addresses listening sockets are bound to, as text."""
    return [str(sock.getsockname()[0]) for sock in sockets]
