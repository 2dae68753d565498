"""Per-connection and per-address limits, sans-I/O: the caller passes ``now`` (seconds).

- `TokenBucket`: ``rate`` tokens per second up to ``burst``; a message takes one.
- `RateLimiter`: one per connection (``--rate-limit``, burst 2×). Says, for each incoming
  message, whether to handle it, refuse it with a ``rate_limited`` error, drop it
  silently (an error was already sent in this flood), or close the connection (4001).
- `AddressSlots`: connections at once per address (``--max-connections-per-ip``). IPv6
  addresses count per /64, the block one household gets, so a client cannot dodge the
  limit by hopping addresses inside its own network.

Nothing here reads a clock: tests drive it with plain numbers.
"""

from __future__ import annotations

import ipaddress
from enum import Enum

__all__ = ["AddressSlots", "RateLimiter", "TokenBucket", "Verdict", "address_key"]

BURST_FACTOR = 2.0
"""A connection may send ``BURST_FACTOR × rate`` messages at once after a quiet spell."""


class TokenBucket:
    """Holds up to ``burst`` tokens and gains ``rate`` per second; starts full."""

    __slots__ = ("_burst", "_rate", "_stamp", "_tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        """Raise ValueError unless ``rate > 0`` and ``burst >= 1``."""
        if not rate > 0:
            raise ValueError(f"rate must be greater than 0, not {rate!r}")
        if not burst >= 1:
            raise ValueError(f"burst must be at least 1, not {burst!r}")
        self._rate = float(rate)
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp = now

    @property
    def burst(self) -> float:
        """The most tokens the bucket holds."""
        return self._burst

    def tokens(self, now: float) -> float:
        """How many tokens are available at ``now`` (without taking any)."""
        self._refill(now)
        return self._tokens

    def take(self, now: float) -> bool:
        """Take one token if there is one; return whether one was taken.

        A clock that goes backwards adds nothing (and takes nothing away).
        """
        self._refill(now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def _refill(self, now: float) -> None:
        elapsed = now - self._stamp
        if elapsed > 0:
            self._tokens = min(self._burst, self._tokens + elapsed * self._rate)
            self._stamp = now


class Verdict(Enum):
    """What to do with one incoming message."""

    ACCEPT = "accept"
    """Handle it."""
    REFUSE = "refuse"
    """Drop it and send ``rate_limited`` (the first message dropped in a flood)."""
    DROP = "drop"
    """Drop it silently (``rate_limited`` was already sent in this flood)."""
    CLOSE = "close"
    """The flood went on for a whole burst more: close with 4001."""


class RateLimiter:
    """The rate limit of one connection: ``rate`` messages per second, bursts of 2×.

    A flood is a run of dropped messages; it ends when a message is accepted again. The
    first dropped message of a flood is `Verdict.REFUSE`, the next ones `Verdict.DROP`,
    and once more than a burst's worth have been dropped, `Verdict.CLOSE`.
    """

    __slots__ = ("_bucket", "_dropped")

    def __init__(self, rate: float, now: float) -> None:
        """Raise ValueError unless ``rate > 0``."""
        self._bucket = TokenBucket(rate, max(1.0, BURST_FACTOR * rate), now)
        self._dropped = 0

    def check(self, now: float) -> Verdict:
        """Account for one message arriving at ``now`` and say what to do with it."""
        if self._bucket.take(now):
            self._dropped = 0
            return Verdict.ACCEPT
        self._dropped += 1
        if self._dropped == 1:
            return Verdict.REFUSE
        if self._dropped > self._bucket.burst:
            return Verdict.CLOSE
        return Verdict.DROP


def address_key(peer: str) -> str:
    """The key an address counts under: IPv4 as is, IPv6 as its /64, others verbatim.

    IPv4-mapped IPv6 addresses (``::ffff:1.2.3.4``) count as the IPv4 address. Anything
    that is not an IP address (a Unix socket path, an empty string) is its own key.
    """
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return peer
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class AddressSlots:
    """At most ``limit`` connections at once per address key (see `address_key`)."""

    __slots__ = ("_held", "_limit")

    def __init__(self, limit: int) -> None:
        """Raise ValueError unless ``limit >= 1``."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit!r}")
        self._limit = limit
        self._held: dict[str, int] = {}

    def acquire(self, peer: str) -> bool:
        """Take a slot for ``peer``; False (and nothing taken) if its address is full."""
        key = address_key(peer)
        held = self._held.get(key, 0)
        if held >= self._limit:
            return False
        self._held[key] = held + 1
        return True

    def release(self, peer: str) -> None:
        """Give back a slot taken by `acquire`.

        Raises:
            ValueError: ``peer``'s address holds no slot (a bug in the caller).
        """
        key = address_key(peer)
        held = self._held.get(key, 0)
        if held <= 0:
            raise ValueError(f"no connection slot held for {key!r}")
        if held == 1:
            del self._held[key]
        else:
            self._held[key] = held - 1

    def held(self, peer: str) -> int:
        """How many slots ``peer``'s address holds."""
        return self._held.get(address_key(peer), 0)

    @property
    def total(self) -> int:
        """Slots held over every address."""
        return sum(self._held.values())
