"""One log line per key per period, with how many were left out since: `LogThrottle`.

An attacker who makes the server refuse or fail something thousands of times a minute
(connections past a limit, accepts failing for lack of file descriptors) must not turn
the log into thousands of lines: the first occurrence of a key is logged, the next ones
within ``period`` seconds are only counted, and the first one after that is logged with
the count (the caller passes the time). `route_accept_errors` puts the event loop's
failed accepts under one.
"""

from __future__ import annotations

import asyncio
import os
import resource
from collections.abc import Callable, Hashable
from typing import Any

from server.adapters.logs import get_logger

__all__ = ["LogThrottle", "route_accept_errors"]

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


def route_accept_errors(
    loop: asyncio.AbstractEventLoop, quiet: LogThrottle, clock: Callable[[], float]
) -> Callable[[], None]:
    """Route ``loop``'s failed accepts (out of file descriptors: EMFILE, ENFILE, ENOBUFS,
    ENOMEM) to one ``accept_failed`` log line per kind of failure per ``quiet``'s period
    (with how many were left out), anything else to the handler it had; return the
    function that puts that handler back.

    asyncio logs every failed ``accept()`` with a traceback and tries again a second
    later; with descriptors used up by an attacker that was 40,000 lines in 20 s.
    """
    previous = loop.get_exception_handler()

    def failed(error: OSError) -> None:
        suppressed = quiet.allow(("accept_failed", error.errno), clock())
        if suppressed is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            get_logger().error(
                "accept_failed",
                error=os.strerror(error.errno) if error.errno else str(error),
                errno=error.errno,
                also_failed=suppressed,
                open_files_limit=soft,
                hard_limit=hard,
                period=quiet.period,
            )

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        message = str(context.get("message", ""))
        if isinstance(error, OSError) and message.startswith("socket.accept()"):
            failed(error)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)

    def restore() -> None:
        loop.set_exception_handler(previous)

    return restore
