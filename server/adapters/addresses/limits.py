"""The limits of connections, sans-I/O: the caller passes ``now`` (seconds).

- `RateLimiter`: one per connection (``--rate-limit``, burst 2×). Says, for each incoming
  message, whether to handle it, refuse it with a ``rate_limited`` error, drop it
  silently (an error was already sent in this flood), or close the connection (4001).
- `AddressSlots`: connections at once per address (``--max-connections-per-ip``). IPv6
  addresses count per /64 (`server.core.budgets.address_key`).
- `ConnectionGate`: new connections per address (``--connect-rate``, ``--connect-burst``)
  and a refusal of an address for a while after one of its connections was closed for
  abuse (``--abuse-penalty``, doubling on repeats up to ``--abuse-penalty-max``). Same
  address keys as `AddressSlots`; its table forgets idle addresses and holds at most
  `server.core.budgets.MAX_TRACKED_ADDRESSES`.

They are the transport's (the app and `server.adapters.ws.connection` use them); the room
core's own budgets are `server.core.budgets`. Nothing here reads a clock.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum

from server.core.budgets import MAX_TRACKED_ADDRESSES, SWEEP_PER_CALL, TokenBucket, address_key

__all__ = [
    "AddressSlots",
    "ConnectionGate",
    "Handling",
    "RateLimiter",
    "Throttle",
]

BURST_FACTOR = 2.0
"""A connection may send ``BURST_FACTOR × rate`` messages at once after a quiet spell."""


class Handling(Enum):
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
    first dropped message of a flood is `Handling.REFUSE`, the next ones `Handling.DROP`,
    and once more than a burst's worth have been dropped, `Handling.CLOSE`.
    """

    __slots__ = ("_bucket", "_dropped")

    def __init__(self, rate: float, now: float) -> None:
        """Raise ValueError unless ``rate > 0``."""
        self._bucket = TokenBucket(rate, max(1.0, BURST_FACTOR * rate), now)
        self._dropped = 0

    def check(self, now: float) -> Handling:
        """Account for one message arriving at ``now`` and say what to do with it."""
        if self._bucket.take(now):
            self._dropped = 0
            return Handling.ACCEPT
        self._dropped += 1
        if self._dropped == 1:
            return Handling.REFUSE
        if self._dropped > self._bucket.burst:
            return Handling.CLOSE
        return Handling.DROP


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


_EVICT_LOOKS = 4  # at the cap, entries looked at for one that remembers no penalty


@dataclass(frozen=True, slots=True)
class Throttle:
    """Why a new connection is refused, and when to come back."""

    retry_after: float
    """seconds until the address may connect again (> 0)"""
    penalized: bool
    """True: the address is serving a penalty for abuse; False: it connects too fast"""
    first: bool
    """True for the first refusal since the address was last admitted (log it once)"""


class _Entry:
    """What a `ConnectionGate` remembers of one address key."""

    __slots__ = ("bucket", "refusing", "since", "strikes", "until")

    def __init__(self, bucket: TokenBucket) -> None:
        self.bucket = bucket
        self.strikes = 0
        self.since = -math.inf  # the current (or last) penalty: [since, until)
        self.until = -math.inf
        self.refusing = False

    def penalized(self, now: float) -> bool:
        # A clock that went back before the penalty began lifts it (lenient, never stuck).
        return self.since <= now < self.until


class ConnectionGate:
    """Which new connections each address may open, decided before the handshake.

    - A token bucket per address key (`address_key`: IPv4 as is, IPv6 per /64): ``rate``
      new connections per second, ``burst`` at once.
    - `penalize` after a connection was closed for abuse: the address's new connections
      are refused for ``penalty`` seconds, twice as long each time it happens again
      (up to ``penalty_max``). Closes of connections opened before the penalty do not
      count again while it runs. An address that stays out of trouble for
      ``penalty_max`` seconds after its last penalty ended starts over at ``penalty``.
    - Memory: each call looks at the two oldest entries; one whose bucket is full again
      and whose strikes are forgotten is dropped, one still in use goes to the back. At
      most ``max_addresses`` are kept: beyond, the oldest entry that remembers no
      penalty is dropped, so a spray of fresh addresses does not wipe out penalties.
    """

    __slots__ = ("_burst", "_entries", "_max_addresses", "_penalty", "_penalty_max", "_rate")

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        penalty: float,
        penalty_max: float,
        max_addresses: int = MAX_TRACKED_ADDRESSES,
    ) -> None:
        """Raise ValueError unless ``rate > 0``, ``burst >= 1``, ``0 <= penalty <=
        penalty_max`` (both finite) and ``max_addresses >= 1``."""
        TokenBucket(rate, burst, 0.0)  # the same checks as every bucket of this gate
        if not (math.isfinite(penalty_max) and 0 <= penalty <= penalty_max):
            raise ValueError(
                f"penalty must be between 0 and penalty_max, not {penalty!r} "
                f"(penalty_max {penalty_max!r})"
            )
        if max_addresses < 1:
            raise ValueError(f"max_addresses must be at least 1, not {max_addresses!r}")
        self._rate = float(rate)
        self._burst = burst
        self._penalty = float(penalty)
        self._penalty_max = float(penalty_max)
        self._max_addresses = max_addresses
        self._entries: OrderedDict[str, _Entry] = OrderedDict()

    def __len__(self) -> int:
        """How many addresses are remembered now."""
        return len(self._entries)

    def admit(self, peer: str, now: float) -> Throttle | None:
        """Account for a new connection from ``peer`` at ``now``: None to let it in (a
        token was taken), else why not and for how long."""
        entry = self._entry(address_key(peer), now)
        if entry.penalized(now):
            retry_after, penalized = entry.until - now, True
        elif entry.bucket.take(now):
            entry.refusing = False
            return None
        else:
            retry_after, penalized = entry.bucket.wait(now), False
        first = not entry.refusing
        entry.refusing = True
        return Throttle(retry_after, penalized, first)

    def penalize(self, peer: str, now: float) -> float:
        """A connection from ``peer`` was closed for abuse at ``now``: start a penalty.

        Returns its length in seconds, or 0.0 if none was started (penalties are off,
        or the address is already serving one).
        """
        if self._penalty <= 0:
            return 0.0
        entry = self._entry(address_key(peer), now)
        if entry.penalized(now):
            return 0.0
        if now >= entry.until + self._penalty_max:
            entry.strikes = 0  # out of trouble long enough: forgiven
        entry.strikes += 1
        length = min(self._penalty * 2.0 ** min(entry.strikes - 1, 60), self._penalty_max)
        entry.since, entry.until = now, now + length
        return length

    def _entry(self, key: str, now: float) -> _Entry:
        self._sweep(now)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return entry
        entry = _Entry(TokenBucket(self._rate, self._burst, now))
        self._entries[key] = entry
        if len(self._entries) > self._max_addresses:
            self._evict(key, now)
        return entry

    def _remembers_a_penalty(self, entry: _Entry, now: float) -> bool:
        return entry.strikes > 0 and now < entry.until + self._penalty_max

    def _evict(self, keep: str, now: float) -> None:
        """Drop one entry, the oldest that remembers no penalty (of the first few)."""
        for _ in range(_EVICT_LOOKS):
            key, entry = next(iter(self._entries.items()))
            if key == keep or self._remembers_a_penalty(entry, now):
                self._entries.move_to_end(key)
            else:
                del self._entries[key]
                return
        self._entries.popitem(last=False)  # penalties all round: the oldest goes anyway

    def _sweep(self, now: float) -> None:
        """Look at the oldest entries: drop those that remember nothing a fresh entry
        would not; send the others to the back (still in use: keep them longest)."""
        for _ in range(min(SWEEP_PER_CALL, len(self._entries))):
            key, entry = next(iter(self._entries.items()))
            if not self._remembers_a_penalty(entry, now) and entry.bucket.tokens(now) >= (
                entry.bucket.burst
            ):
                del self._entries[key]
            else:
                self._entries.move_to_end(key)
