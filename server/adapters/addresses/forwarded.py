"""The client's address behind trusted reverse proxies (``X-Forwarded-For``), sans-I/O.

Behind a reverse proxy (Caddy, nginx) the TCP peer of every connection is the proxy.
The proxy names the client in ``X-Forwarded-For``: it appends the address it saw to the
list the request arrived with (nginx), or replaces the list with it (Caddy). Everything
to the left of what a trusted proxy added was written by someone we do not trust.

The rule (the standard "rightmost untrusted" one), in `client_address`:

- a peer outside ``trusted`` is the client, whatever its header says;
- from a trusted peer, walk the header's entries from the right and take the first
  address that is not itself trusted;
- if every entry is trusted, the leftmost one (the farthest hop the proxies saw);
- a missing or empty header, an entry that is not an IP address before the answer is
  found, or more than `MAX_HOPS` trusted entries: the TCP peer, with the reason.

Entries to the left of the answer are never looked at, so junk a client prepends cannot
change its address. Addresses come back in ``ipaddress``'s normal form, IPv4-mapped IPv6
(``::ffff:1.2.3.4``) as plain IPv4.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "MAX_HOPS",
    "Address",
    "ClientAddress",
    "Network",
    "client_address",
    "ip_of",
    "is_trusted_peer",
]

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
Address: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_HOPS = 16
"""Trusted entries walked over at most; a longer chain is not believed (bounds the work)."""

_SHOWN_CHARS = 40  # of a bad entry, in the reason (it is client text: keep it short)


@dataclass(frozen=True, slots=True)
class ClientAddress:
    """Who a connection is from, as far as the server can tell."""

    address: str
    """The client's address: from ``X-Forwarded-For``, or the TCP peer."""
    proxy: str | None = None
    """The TCP peer (a trusted proxy) when ``address`` came from the header; else None."""
    ignored: str | None = None
    """Why a trusted peer's header was not used (lowercase, shows the value); else None."""


def ip_of(text: str) -> Address | None:
    """``text`` as an IP address (IPv4-mapped IPv6 as IPv4), or None if it is not one.

    A zone (``fe80::1%eth0``) is dropped: a peer address may carry one.
    """
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _entry(text: str) -> Address | None:
    """One ``X-Forwarded-For`` entry: ``1.2.3.4``, ``2001:db8::1``, with an optional port
    as ``1.2.3.4:5678`` or ``[2001:db8::1]:5678``; None for anything else."""
    entry = text.strip(" \t")
    if "%" in entry:
        return None
    if entry.startswith("["):
        host, bracket, port = entry[1:].partition("]")
        if not bracket or (port and not (port[:1] == ":" and port[1:].isdigit())):
            return None
        address = ip_of(host)
        return address if isinstance(address, ipaddress.IPv6Address) else None
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        if not port.isdigit():
            return None
        address = ip_of(host)
        return address if isinstance(address, ipaddress.IPv4Address) else None
    return ip_of(entry)


def _is_trusted(address: Address, trusted: Iterable[Network]) -> bool:
    """True if ``address`` is in a trusted network.

    Addresses are normalised to IPv4 when IPv4-mapped, so an IPv4 address is also looked
    up in its mapped IPv6 form: trusting ``::ffff:10.0.0.0/104`` trusts ``10.0.0.1``.
    """
    forms: tuple[Address, ...] = (address,)
    if isinstance(address, ipaddress.IPv4Address):
        forms = (address, ipaddress.IPv6Address(f"::ffff:{address}"))
    return any(form in network for form in forms for network in trusted)


def is_trusted_peer(peer: str, trusted: Sequence[Network]) -> bool:
    """True if the TCP peer ``peer`` is one of the ``trusted`` proxies."""
    address = ip_of(peer)
    return address is not None and _is_trusted(address, trusted)


def client_address(
    peer: str, forwarded_for: Sequence[str], trusted: Sequence[Network]
) -> ClientAddress:
    """The client of a connection from TCP peer ``peer`` (see the module's rule).

    ``forwarded_for`` holds the values of every ``X-Forwarded-For`` header line, in the
    order received (several lines read as one comma-separated list). Never raises: a
    header it cannot use gives ``peer`` with the reason in `ClientAddress.ignored`.
    """
    if not trusted or not is_trusted_peer(peer, trusted):
        return ClientAddress(peer)
    entries = [entry for value in forwarded_for for entry in value.split(",")]
    if not "".join(entries).strip(" \t"):
        return ClientAddress(peer, ignored="no X-Forwarded-For header")
    return _rightmost_untrusted(peer, entries, trusted)


def _rightmost_untrusted(
    peer: str, entries: list[str], trusted: Sequence[Network]
) -> ClientAddress:
    """The client that the X-Forwarded-For ``entries`` (not all empty) name, read from the
    right past the ``trusted`` proxies, from the trusted peer ``peer``."""
    leftmost: Address | None = None
    for hops, raw in enumerate(reversed(entries)):
        if hops == MAX_HOPS:
            return ClientAddress(peer, ignored=f"more than {MAX_HOPS} trusted X-Forwarded-For hops")
        address = _entry(raw)
        if address is None:
            shown = raw.strip(" \t")[:_SHOWN_CHARS]
            return ClientAddress(peer, ignored=f"not an address in X-Forwarded-For: {shown!r}")
        if not _is_trusted(address, trusted):
            return ClientAddress(str(address), proxy=peer)
        leftmost = address
    assert leftmost is not None  # entries is not empty
    return ClientAddress(str(leftmost), proxy=peer)
