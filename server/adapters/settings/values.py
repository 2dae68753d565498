"""Readers of the server's settings given as text (flags and ``WAR_*`` variables).

Each takes the text and returns the value, or raises ValueError with a lowercase sentence
that shows what was wrong (`server.adapters.settings.config` adds the flag or variable). Numbers
are read by `server.core.settings.whole` and `server.core.settings.seconds`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from server.adapters.addresses.forwarded import Network
from server.adapters.addresses.hosts import normal_host
from server.adapters.addresses.origin import normal_origin

__all__ = [
    "LETS_ENCRYPT",
    "MAX_PUBLIC_URL",
    "MIN_PUBLIC_PROXY_PREFIX",
    "OUTSIDE_CHECK_MAX",
    "OUTSIDE_CHECK_MIN",
    "OUTSIDE_CHECK_SECONDS",
    "acme_url",
    "bounded_seconds",
    "choice",
    "existing_file",
    "host",
    "hosts",
    "networks",
    "origins",
    "path",
    "public_url",
    "switch",
]

MAX_PUBLIC_URL = 200
"""The longest --public-url: the wire's ``welcome.addresses`` entries hold no more"""
MIN_PUBLIC_PROXY_PREFIX = {4: 8, 6: 16}
"""A trusted proxy network with public addresses needs at least this prefix length"""
OUTSIDE_CHECK_SECONDS = 300.0
"""--outside-check's default: seconds between asking the router for its public address"""
OUTSIDE_CHECK_MIN = 1.0
"""--outside-check's least: a home router answers a question a second without effort"""
OUTSIDE_CHECK_MAX = 3600.0
"""--outside-check's most: the mapping's lease (an hour) is renewed at half anyway"""
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_PRIVATE_V6 = (ipaddress.IPv6Network("fc00::/7"), ipaddress.IPv6Network("fe80::/10"))


def bounded_seconds(low: float, high: float) -> Callable[[str], float]:
    """A number of seconds in ``low .. high``."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {text!r}") from None
        if not low <= value <= high:  # (NaN is in no range)
            raise ValueError(f"{text.strip()} is out of range {low:g}..{high:g} seconds")
        return value

    return parse


def host(text: str) -> str:
    host = text.strip()
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"not a host name or address: {text!r}")
    return host


def public_url(text: str) -> str:
    """The address people open the browser table at behind a proxy or TLS: ``http://`` or
    ``https://``, a host, an optional port and path; no user, query or fragment (the page
    puts a room's codes in the fragment); printable ASCII of at most `MAX_PUBLIC_URL`
    characters (what the wire's ``welcome.addresses`` hold). A bare host gets the path
    ``/``, so that a link is the URL and ``#join=CODE``."""
    url = text.strip()
    if len(url) > MAX_PUBLIC_URL or not all("!" <= c <= "~" for c in url):
        raise ValueError(
            f"not a URL of printable ASCII up to {MAX_PUBLIC_URL} characters: {text!r}"
        )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not url.startswith(f"{parts.scheme}://"):
        raise ValueError(f"the URL must start with http:// or https://, not {text!r}")
    try:
        parts.port  # noqa: B018 (read to check it)
    except ValueError:
        raise ValueError(f"not a valid port in {text!r}") from None
    if not parts.hostname or "@" in parts.netloc:
        raise ValueError(f"the URL must name a host (and no user): {text!r}")
    if "#" in url or "?" in url:
        raise ValueError(f"the URL must have no ?query and no #fragment: {text!r}")
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", ""))


LETS_ENCRYPT = "https://acme-v02.api.letsencrypt.org/directory"
"""Let's Encrypt's production ACME directory: the default ``--acme-directory``."""


def acme_url(text: str) -> str:
    """An ACME directory's URL: ``https://`` (the CA's replies must be authentic), a
    host, at most 2,048 printable ASCII characters."""
    url = text.strip()
    if len(url) > 2048 or not all("!" <= c <= "~" for c in url):
        raise ValueError(f"not a URL of printable ASCII up to 2048 characters: {text!r}")
    parts = urlsplit(url)
    if parts.scheme != "https" or not url.startswith("https://"):
        raise ValueError(f"the ACME directory must be an https:// URL, not {text!r}")
    try:
        parts.port  # noqa: B018 (read to check it)
    except ValueError:
        raise ValueError(f"not a valid port in {text!r}") from None
    if not parts.hostname or "@" in parts.netloc or "#" in url:
        raise ValueError(f"the URL must name a host (no user, no #fragment): {text!r}")
    return url


def path(text: str) -> Path:
    if not text.strip():
        raise ValueError("an empty path")
    return Path(text).expanduser()


def existing_file(text: str) -> Path:
    found = path(text)
    if not found.is_file():
        raise ValueError(f"no such file: {str(found)!r}")
    return found


def networks(text: str) -> tuple[Network, ...]:
    if text.strip().lower() in {"", "none"}:
        return ()
    networks: list[Network] = []
    for item in text.split(","):
        entry = item.strip()
        if not entry:
            raise ValueError(f"an empty entry in the list {text.strip()!r}")
        try:
            network = ipaddress.ip_network(entry)
        except ValueError as error:
            raise ValueError(f"not an IP address or network: {entry!r} ({error})") from None
        if _too_wide(network):
            v4, v6 = MIN_PUBLIC_PROXY_PREFIX[4], MIN_PUBLIC_PROXY_PREFIX[6]
            raise ValueError(
                f"{entry} would let anyone on the internet choose the address the limits "
                f"count (X-Forwarded-For); trust only your proxy's own address or network "
                f"(a public network needs a prefix of at least /{v4} for IPv4, /{v6} for IPv6)"
            )
        networks.append(network)
    return tuple(networks)


def _too_wide(network: Network) -> bool:
    """True if trusting ``network`` as a proxy would trust a large part of the internet.

    IPv4 needs a prefix of at least /8 (10.0.0.0/8 is the largest private block). IPv6
    needs /16 unless it is unique-local (fc00::/7) or link-local (fe80::/10); its
    IPv4-mapped part (::ffff:0:0/96) counts as the IPv4 network it maps, since a trusted
    mapped network trusts the same IPv4 peers (`server.adapters.addresses.forwarded`).
    """
    if isinstance(network, ipaddress.IPv4Network):
        return network.prefixlen < MIN_PUBLIC_PROXY_PREFIX[4]
    if network.overlaps(_MAPPED):
        if not network.subnet_of(_MAPPED):
            return True  # it holds every IPv4-mapped address
        return network.prefixlen - _MAPPED.prefixlen < MIN_PUBLIC_PROXY_PREFIX[4]
    if any(network.subnet_of(private) for private in _PRIVATE_V6):
        return False
    return network.prefixlen < MIN_PUBLIC_PROXY_PREFIX[6]


def _listed(text: str, read: Callable[[str], str]) -> tuple[str, ...]:
    """A comma-separated list (``none`` or nothing: empty), each entry ``read``, each once."""
    if text.strip().lower() in {"", "none"}:
        return ()
    items: list[str] = []
    for item in text.split(","):
        if not item.strip():
            raise ValueError(f"an empty entry in the list {text.strip()!r}")
        items.append(read(item))
    return tuple(dict.fromkeys(items))


def origins(text: str) -> tuple[str, ...]:
    """A comma-separated list of origins (`normal_origin`)."""
    return _listed(text, normal_origin)


def hosts(text: str) -> tuple[str, ...]:
    """A comma-separated list of host names or ``.suffix`` entries (`normal_host`)."""
    return _listed(text, normal_host)


_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"0", "false", "no", "off"})


def switch(text: str) -> bool:
    """A yes/no setting: ``1 true yes on`` or ``0 false no off`` (any case)."""
    word = text.strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ValueError(f"{text!r} is not one of 1, true, yes, on, 0, false, no, off")


def choice(enum: type[StrEnum]) -> Callable[[str], Any]:
    def parse(text: str) -> StrEnum:
        try:
            return enum(text.strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            raise ValueError(f"{text!r} is not one of {allowed}") from None

    return parse
