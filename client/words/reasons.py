"""Why connecting to the server failed, in words: the ``unreachable`` section's keys.

:func:`client.net.failure.why_unreachable` names the reason of a failed connection as a
:class:`~client.words.catalog.Said` of one of these keys (with its values: the server's
host name, an HTTP status, the system's own text for anything else), and the viewer's
catalog says it inside "cannot reach the server: …" or "cannot connect to …: …". A
reason that hints at a ``ws://``/``wss://`` mix-up wraps the reason it hints about
(:data:`TRY_WS`, :data:`TRY_WSS`). :func:`unreachable_key` finds the reason's key again
for ``--json``, whose last line and reconnect lines carry it for scripts.
"""

from __future__ import annotations

from client.words.catalog import Said

__all__ = [
    "BAD_ANSWER",
    "BAD_URL",
    "CLOSED",
    "EXPIRED",
    "HINTS",
    "HTTP_REFUSED",
    "NO_NAME",
    "NO_NETWORK",
    "OTHER",
    "REFUSED",
    "RESET",
    "TIMEOUT",
    "TLS_FAILED",
    "TRY_WS",
    "TRY_WSS",
    "UNTRUSTED",
    "UNTRUSTED_CAFILE",
    "WRONG_NAME",
    "unreachable_key",
]

REFUSED = "unreachable.refused"
"""Nothing listens at the address (the server is not running there)."""
TIMEOUT = "unreachable.timeout"
"""No answer within the handshake's time."""
NO_NAME = "unreachable.no_name"
"""The server's name (``host``) was not found (DNS)."""
NO_NETWORK = "unreachable.no_network"
"""No network, or no route to the server's computer."""
RESET = "unreachable.reset"
"""The connection was reset during the handshake."""
CLOSED = "unreachable.closed"
"""The connection was closed during the handshake (no answer at all)."""
BAD_ANSWER = "unreachable.bad_answer"
"""What came back was not a WebSocket handshake."""
TLS_FAILED = "unreachable.tls_failed"
"""The TLS handshake failed (not a certificate check)."""
UNTRUSTED = "unreachable.untrusted"
"""The certificate is not trusted: pass ``--cafile``."""
UNTRUSTED_CAFILE = "unreachable.untrusted_cafile"
"""The certificate is not trusted although ``--cafile`` was given: check that file."""
WRONG_NAME = "unreachable.wrong_name"
"""The certificate is for another host name or address."""
EXPIRED = "unreachable.expired"
"""The certificate has expired or is not valid yet."""
HTTP_REFUSED = "unreachable.http_refused"
"""The server answered the handshake with an HTTP ``status`` (403, 426, 503…)."""
BAD_URL = "unreachable.bad_url"
"""Not a ``ws://`` or ``wss://`` address."""
OTHER = "unreachable.other"
"""Anything else: the system's own text (``problem``) in a translated frame."""
TRY_WS = "unreachable.try_ws"
"""A hint around a reason (``problem``): a ``wss://`` url, a server without TLS?"""
TRY_WSS = "unreachable.try_wss"
"""A hint around a reason (``problem``): a ``ws://`` url, a server with TLS?"""
HINTS = frozenset({TRY_WS, TRY_WSS})
"""The keys that wrap a reason rather than name one."""


def unreachable_key(reason: Said) -> str | None:
    """The key of why connecting failed within ``reason`` (a reconnect line's reason, or
    an end's "cannot connect …" or "gave up reconnecting: …"), the reason a hint wraps
    rather than the hint; None when ``reason`` is not about a failed connection."""
    if reason.key.startswith("unreachable.") and reason.key not in HINTS:
        return reason.key
    for value in reason.values.values():
        if isinstance(value, Said):
            found = unreachable_key(value)
            if found is not None:
                return found
    return None
