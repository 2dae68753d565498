"""Which host names a request may use to reach the server (the ``Host`` header), sans-I/O.

A browser sends the name it looked up in ``Host``. The Origin check
(`server.adapters.addresses.origin`) compares a page's origin with that name, so it cannot tell
the server's own page from a page of a site whose DNS name was re-pointed at the
server's address after the page loaded (*DNS rebinding*: ``rebind.example`` first
resolves to the attacker's server, then to 192.168.1.20): both say the same name. So
the name itself must be one the server knows. `host_allowed` accepts:

- no ``Host`` header (not a browser: every browser sends one);
- an IP literal (``192.168.1.20``, ``[fe80::1]``): nobody can re-point an address;
- ``localhost`` (and names under ``.localhost``, which browsers resolve to loopback);
- the host name of ``--public-url`` (where the server tells people to find it);
- a name listed in ``--allowed-hosts`` (a DNS name at home: ``war.home.arpa``), or a
  name under a listed ``.suffix`` (``.home.arpa``).

Names compare in lowercase, without a trailing dot; the port does not matter. Anything
else is refused with HTTP 403 (the page, its files and the WebSocket; ``/healthz`` is
answered to any name, for probes). `host_name` extracts the name of a ``Host`` value.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["host_allowed", "host_name", "normal_host"]

_LOCAL = "localhost"


def normal_host(text: str) -> str:
    """A host name (or ``.suffix``) in the form compared: lowercase, no trailing dot.

    Raises:
        ValueError: not a host name (empty, or with characters a DNS name has not).
    """
    name = text.strip().lower().rstrip(".")
    body = name[1:] if name.startswith(".") else name
    if not body or len(body) > 253 or any(not (c.isalnum() or c in "-.") for c in body):
        raise ValueError(f"not a host name: {text.strip()!r}")
    if not body.isascii() or ".." in body:
        raise ValueError(f"not a host name: {text.strip()!r}")
    return name


def host_name(value: str) -> str | None:
    """The host of a ``Host`` header value (``name[:port]``, ``[v6]:port``), lowercase
    and without a trailing dot; None if it is not one."""
    try:
        parts = urlsplit("//" + value.strip())
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        return None
    if parts.username is not None or parts.path or parts.query or parts.fragment:
        return None
    name = parts.hostname
    return name.rstrip(".") if name else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(value: str | None, public: str | None, allowed: Iterable[str]) -> bool:
    """Whether a request with ``Host: value`` (None: no header) may go on; ``public``: the
    host name of ``--public-url`` (None: none); ``allowed``: `normal_host` forms."""
    if value is None:
        return True
    name = host_name(value)
    if name is None:
        return False
    if _is_ip(name) or name == _LOCAL or name.endswith("." + _LOCAL):
        return True
    if public is not None and name == public.lower().rstrip("."):
        return True
    for listed in allowed:
        if name == listed or (listed.startswith(".") and name.endswith(listed)):
            return True
    return False
