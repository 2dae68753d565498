"""Which web pages may open a WebSocket to the server (the ``Origin`` header), sans-I/O.

A browser tells the server which page opened a WebSocket in its ``Origin`` header, and
lets any page open one to any server: without a check, a page on another site could
play, watch or guess codes from the visitor's own address (cross-site WebSocket
hijacking). `origin_allowed` accepts:

- no ``Origin`` header at all: not a browser (war-client, scripts, proxies' probes);
- the server's own page: an origin whose host and port are those of the request's
  ``Host`` header (a missing port on both sides counts as the same: behind a TLS proxy
  the browser says ``https://name`` and the proxy passes ``Host: name``);
- an origin listed in ``--allowed-origins``, compared in `normal_origin` form.

Everything else, ``null`` (sandboxed frames, ``file:`` pages) included unless listed, is
refused by the app with HTTP 403 before the handshake.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import SplitResult, urlsplit

__all__ = ["normal_origin", "origin_allowed"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_NULL = "null"


def _split(text: str) -> SplitResult | None:
    """``text`` as an http(s) URL with a host and a valid port, or None."""
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 (raises ValueError for a port out of range)
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    return parts


def _serialize(parts: SplitResult) -> str:
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def normal_origin(text: str) -> str:
    """``text`` as an origin in normal form: ``scheme://host[:port]``, lowercase, the
    scheme's default port left out; or ``"null"``.

    Raises:
        ValueError: ``text`` is not an http or https origin (or has a path, query or
            fragment); the message shows it.
    """
    stripped = text.strip()
    if stripped.lower() == _NULL:
        return _NULL
    parts = _split(stripped)
    if parts is None:
        raise ValueError(f"not an origin (scheme://host[:port]): {stripped!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"an origin has no path: {stripped!r}")
    return _serialize(parts)


def _same_host(origin: SplitResult, host_header: str) -> bool:
    """True if ``origin`` names the host and port of the request's ``Host`` header."""
    try:
        host = urlsplit("//" + host_header.strip())
        host_port = host.port
    except ValueError:
        return False
    if not host.hostname or host.hostname.lower() != (origin.hostname or "").lower():
        return False
    if host_port is None:
        return origin.port is None
    scheme = origin.scheme.lower()
    return host_port == (origin.port or _DEFAULT_PORTS[scheme])


def origin_allowed(origin: str | None, host_header: str | None, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket whose request carries ``Origin: origin`` (None: no header)
    and ``Host: host_header`` may go on; ``allowed`` holds `normal_origin` forms."""
    if origin is None:
        return True
    listed = set(allowed)
    if origin.strip().lower() == _NULL:
        return _NULL in listed
    parts = _split(origin)
    if parts is None or parts.path or parts.query or parts.fragment:
        return False
    if host_header is not None and _same_host(parts, host_header):
        return True
    return _serialize(parts) in listed
