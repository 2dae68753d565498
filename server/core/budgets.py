"""Budgets of the room core, sans-I/O: the caller passes ``now`` (seconds).

- `TokenBucket`: ``rate`` tokens per second up to ``burst``; it may be charged into debt.
- `WorkBudget`: work per address (the engine steps a finish vote plays out), charged
  after it is done; an address in debt waits until it is paid off. Its table forgets
  idle addresses and holds at most `MAX_TRACKED_ADDRESSES`.
- `address_key`: the key an address counts under (IPv6 per /64, the block one household
  gets, so a client cannot dodge a limit by hopping addresses inside its own network).

The limits of one connection (its message rate, connections per address, new connections
per address) are the transport's: `server.adapters.addresses.limits`, built on the same bucket and
keys. Nothing here reads a clock: tests drive it with plain numbers.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict

__all__ = [
    "MAX_TRACKED_ADDRESSES",
    "SWEEP_PER_CALL",
    "TokenBucket",
    "WorkBudget",
    "address_key",
]


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

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until a token is available (0.0 if one is)."""
        self._refill(now)
        return max(0.0, (1.0 - self._tokens) / self._rate)

    def charge(self, amount: float, now: float) -> None:
        """Take ``amount`` tokens for work already done: the bucket may go into debt
        (below zero), and `wait` then says when it is paid off."""
        self._refill(now)
        self._tokens -= amount

    def _refill(self, now: float) -> None:
        elapsed = now - self._stamp
        if elapsed > 0:
            self._tokens = min(self._burst, self._tokens + elapsed * self._rate)
            self._stamp = now


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


MAX_TRACKED_ADDRESSES = 10_000
"""The most addresses a `ConnectionGate` remembers; beyond, the least recently seen goes.

An entry is about 400 bytes, so the table stays under a few MiB whatever a spray of
addresses does. Only a client holding more than this many addresses (or /64 blocks) at
once could push its own entry out early: such a client is beyond what one server
process can defend against anyway."""

SWEEP_PER_CALL = 2
"""Entries of an address table looked at (oldest first) on each call: more than one is
added, so a table of idle addresses drains while it is used."""


class WorkBudget:
    """Work per address key (`address_key`): ``rate`` units a second, ``burst`` at once.

    `charge` counts work done on an address's behalf; `wait` says how long that address
    must now wait before more is done for it (0.0 while it is within its budget). The
    table forgets an address whose bucket is full again (two entries looked at per
    call, as `ConnectionGate` does) and holds at most ``max_addresses``, dropping the
    least recently charged beyond.
    """

    __slots__ = ("_burst", "_entries", "_max_addresses", "_rate")

    def __init__(
        self, rate: float, burst: float, *, max_addresses: int = MAX_TRACKED_ADDRESSES
    ) -> None:
        """Raise ValueError unless ``rate > 0``, ``burst >= 1`` and ``max_addresses >= 1``."""
        TokenBucket(rate, burst, 0.0)  # the same checks as every bucket here
        if max_addresses < 1:
            raise ValueError(f"max_addresses must be at least 1, not {max_addresses!r}")
        self._rate = float(rate)
        self._burst = float(burst)
        self._max_addresses = max_addresses
        self._entries: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        """How many addresses are remembered now."""
        return len(self._entries)

    def charge(self, peer: str, amount: float, now: float) -> float:
        """Count ``amount`` units done for ``peer`` at ``now``; return `wait`."""
        self._sweep(now)
        key = address_key(peer)
        bucket = self._entries.get(key)
        if bucket is None:
            bucket = self._entries[key] = TokenBucket(self._rate, self._burst, now)
            if len(self._entries) > self._max_addresses:
                self._entries.popitem(last=False)
        else:
            self._entries.move_to_end(key)
        bucket.charge(amount, now)
        return bucket.wait(now)

    def wait(self, peer: str, now: float) -> float:
        """Seconds before more work may be done for ``peer`` (0.0: now)."""
        bucket = self._entries.get(address_key(peer))
        return 0.0 if bucket is None else bucket.wait(now)

    def _sweep(self, now: float) -> None:
        for _ in range(min(SWEEP_PER_CALL, len(self._entries))):
            key, bucket = next(iter(self._entries.items()))
            if bucket.tokens(now) >= bucket.burst:
                del self._entries[key]
            else:
                self._entries.move_to_end(key)
