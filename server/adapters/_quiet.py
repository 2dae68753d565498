"""One log line per key per period, with how many were left out since: `LogThrottle`.

An attacker who makes the server refuse or fail something thousands of times a minute
(connections past a limit, accepts failing for lack of file descriptors) must not turn
the log into thousands of lines: the first occurrence of a key is logged, the next ones
within ``period`` seconds are only counted, and the first one after that is logged with
the count. Sans-I/O: the caller passes the time.
"""

from __future__ import annotations

from collections.abc import Hashable

__all__ = ["LogThrottle"]

_PRUNE_AT = 4096  # keys held before stale ones are dropped (bounds the memory)


class LogThrottle:
    """Say whether to log an occurrence of a key now (see the module docstring)."""

    __slots__ = ("_keys", "period")

    def __init__(self, period: float) -> None:
        self.period = period
        self._keys: dict[Hashable, tuple[float, int]] = {}  # key -> (logged at, left out)

    def allow(self, key: Hashable, now: float) -> int | None:
        """None: do not log this one (it is counted). Otherwise log it, with the returned
        number of occurrences left out since the key's last line."""
        entry = self._keys.get(key)
        if entry is not None and now - entry[0] < self.period:
            self._keys[key] = (entry[0], entry[1] + 1)
            return None
        if entry is None and len(self._keys) >= _PRUNE_AT:
            self._prune(now)
        self._keys[key] = (now, 0)
        return 0 if entry is None else entry[1]

    def _prune(self, now: float) -> None:
        for key, (logged, _) in list(self._keys.items()):
            if now - logged >= self.period:
                del self._keys[key]
