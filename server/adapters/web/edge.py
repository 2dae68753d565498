"""The refusals before the WebSocket, counted per address and logged at most once a
period per kind: `EdgeLog`.

A request refused at the HTTP edge (a malformed or duplicated header: 400; a method
other than GET or HEAD: 405; a host name not allowed: 403; a page of another site: 403;
too many new connections: 429; too many handshakes at once) costs the server a few
microseconds, but a log line per refusal would let one address (or many) fill the disk
with lines. So each *kind* of refusal is logged once per ``period`` (a minute): the first
one with its address and what was wrong (each value cut to `SHOWN_CHARS`), the first one
after the period with how many were refused since (``also_refused``), from how many
addresses, and the address refused most (``top_peer``, ``top_count``). The kinds are a
fixed set (`KINDS`), so the log grows by at most one line of a few hundred bytes per
kind per minute under any flood, from one address or many; the addresses counted are
bounded too (`MAX_ADDRESSES` per kind and period; more are counted but not told apart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from server.adapters.logs import LogThrottle, get_logger
from server.adapters.web.screen import Answer
from server.core.budgets import address_key

__all__ = ["KINDS", "MAX_ADDRESSES", "SHOWN_CHARS", "EdgeLog"]

KINDS = frozenset(
    {
        "bad_request",  # 400: not an HTTP request we can read, or a header sent twice
        "method_not_allowed",  # 405: POST, PUT, ... (or a body)
        "host_refused",  # 403: a Host name not allowed (DNS rebinding)
        "origin_refused",  # 403: a WebSocket opened by another site's page
        "connection_throttled",  # 429: new connections too fast, or penalized
        "request_throttled",  # 429: plain HTTP requests (the page, /healthz) too fast
        "handshake_refused",  # too many connections in the handshake at once
    }
)
"""Every kind of refusal before the WebSocket, each its own log line's event name."""

SHOWN_CHARS = 100
"""Of any value a client sent (a header, a method), at most this much is logged."""
MAX_ADDRESSES = 1024
"""Addresses told apart per kind and period (bounds the memory under a flood)."""


class EdgeLog:
    """Count and log the refusals before the WebSocket (see the module docstring), on
    ``clock`` (monotonic seconds)."""

    __slots__ = ("_clock", "_handshake_limit", "_peers", "_quiet", "totals")

    def __init__(self, period: float, clock: Callable[[], float], handshake_limit: int) -> None:
        self._quiet = LogThrottle(period)
        self._clock = clock
        self._handshake_limit = handshake_limit
        self._peers: dict[str, Counter[str]] = {}  # kind -> address key -> refusals
        self.totals: Counter[str] = Counter()
        """refusals of each kind since the start"""

    def refused(self, kind: str, peer: str, **detail: object) -> None:
        """One refusal of ``kind`` (one of `KINDS`) of a request from address ``peer``;
        ``detail``: what to log about it (client text is cut to `SHOWN_CHARS`)."""
        if kind not in KINDS:
            raise ValueError(f"not a kind of refusal: {kind!r}")
        self.totals[kind] += 1
        key = address_key(peer)
        peers = self._peers.setdefault(kind, Counter())
        if key in peers or len(peers) < MAX_ADDRESSES:
            peers[key] += 1
        suppressed = self._quiet.allow(kind, self._clock())
        if suppressed is None:
            return
        shown = {name: _shown(value) for name, value in detail.items()}
        if suppressed:
            top, count = peers.most_common(1)[0]
            shown.update(
                also_refused=suppressed, addresses=len(peers), top_peer=top, top_count=count
            )
        self._peers[kind] = Counter()
        get_logger().warning(kind, peer=peer, **shown)

    def handshake_refused(self, key: str) -> None:
        """Address ``key`` has as many connections in the handshake as it may."""
        self.refused(
            "handshake_refused",
            key,
            reason="too many connections in the opening handshake",
            limit=self._handshake_limit,
        )

    def request_refused(self, peer: str, verdict: Answer) -> None:
        """A request from ``peer`` was refused before it was read (`server.adapters.web.screen`)."""
        self.refused(verdict.kind, peer, status=verdict.status.value, why=verdict.detail)


def _shown(value: object) -> object:
    """``value`` as logged: client text cut to `SHOWN_CHARS`, numbers as they are."""
    if isinstance(value, int | float | bool) or value is None:
        return value
    return str(value)[:SHOWN_CHARS]
