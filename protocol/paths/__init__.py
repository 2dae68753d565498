"""The second path's merge: two copies of one stream of messages, each delivered once, in order.

A connection may have a second path (PROTOCOL.md §11): another TCP connection that carries
the same messages as the first, so that a packet lost on one does not hold a message up
(the other copy arrives). Each side counts the messages the other sent on the first
connection from its opening: index 0, 1, 2, ... The second connection's messages are
numbered from its ``after`` (how many the sender had sent on the first before it began
sending on both). A receiver keeps `PathMerge.next`, the index it delivers next:

- a message whose index is ``next`` is delivered, then any held ones that now follow;
- a message whose index is lower is a duplicate (its other copy was delivered): dropped;
- a message whose index is higher (only on the second path, while the first
  connection's earlier messages are still on the way) is held, at most `MOST_HELD`
  messages and `MOST_HELD_BYTES` bytes; past that, `PathOverflowError` (the second path fell
  out of step: it is detached, and the server closes it with 4006).

The first connection brings every message, so whatever the second path held when it
detaches is dropped without loss. Pure: no I/O, no clock. The server's adapter
(`server.adapters.ws.paths`) merges each first connection's frames with it, any Python
client may; the browser's ``client/web/js/paths.js`` is a port, and both are checked
against the shared vectors ``tests/vectors/paths.json`` (``make vectors``).
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Final, Generic, TypeVar

__all__ = [
    "FIRST",
    "MAX_AFTER",
    "MOST_HELD",
    "MOST_HELD_BYTES",
    "PATH_KEY_CHARS",
    "SECOND",
    "PathMerge",
    "PathOverflowError",
]

FIRST: Final = 0
"""The first connection (the one that opened the room)."""
SECOND: Final = 1
"""The second path."""
MOST_HELD: Final = 16
"""Messages the second path may bring ahead of the first's before it is out of step."""
MOST_HELD_BYTES: Final = 64 * 1024
"""Bytes the second path may bring ahead of the first's before it is out of step."""
MAX_AFTER: Final = 2**31 - 1
"""The largest ``after`` of ``second_path`` and ``second_path_ready``."""
PATH_KEY_CHARS: Final = 22
"""A ``path_key``'s length: 16 random bytes, base64url without padding."""

T = TypeVar("T", bound=Sized)


class PathOverflowError(Exception):
    """The second path brought more than the bounds allow ahead of the first."""


class PathMerge(Generic[T]):
    """The merge of one first connection and its second path (if any), for one direction.

    ``most_messages`` and ``most_bytes``: the bounds of what the second path may hold
    ahead (`MOST_HELD`, `MOST_HELD_BYTES`); a message's size is its ``len``.
    """

    __slots__ = ("_counts", "_held", "_held_bytes", "_most_bytes", "_most_messages", "next")

    def __init__(
        self, *, most_messages: int = MOST_HELD, most_bytes: int = MOST_HELD_BYTES
    ) -> None:
        self.next = 0
        """The index of the message delivered next (how many were delivered)."""
        self._counts: list[int | None] = [0, None]
        self._held: dict[int, T] = {}
        self._held_bytes = 0
        self._most_messages = most_messages
        self._most_bytes = most_bytes

    @property
    def attached(self) -> bool:
        """Whether a second path is attached."""
        return self._counts[SECOND] is not None

    @property
    def held(self) -> int:
        """How many messages the second path holds ahead."""
        return len(self._held)

    def index(self, path: int) -> int | None:
        """The index the next message on ``path`` has (None: no second path attached)."""
        return self._counts[path]

    def attach(self, after: int) -> None:
        """A second path starts; its first message has index ``after``. One attached
        before is replaced (what it held is dropped: the first connection brings it)."""
        if not 0 <= after <= MAX_AFTER:
            raise ValueError(f"after must be in 0..{MAX_AFTER}, not {after}")
        self.detach()
        self._counts[SECOND] = after

    def detach(self) -> None:
        """The second path ended: drop what it held (the first connection brings it)."""
        self._counts[SECOND] = None
        self._held.clear()
        self._held_bytes = 0

    def receive(self, path: int, message: T) -> list[T]:
        """``message`` arrived on ``path`` (`FIRST` or `SECOND`): the messages now
        delivered, in order (none, or it and those it let through).

        Raises:
            PathOverflowError: the second path holds more than its bounds (it is detached).
            RuntimeError: a message on the second path while none is attached.
        """
        counts = self._counts
        index = counts[path]
        if index is None:
            raise RuntimeError("a message on the second path, which is not attached")
        counts[path] = index + 1
        if index < self.next:
            return []  # its other copy was delivered
        if index > self.next:
            return self._hold(index, message)
        self.next = index + 1
        if not self._held:
            return [message]
        delivered = [message]
        while self.next in self._held:
            held = self._held.pop(self.next)
            self._held_bytes -= len(held)
            delivered.append(held)
            self.next += 1
        return delivered

    def _hold(self, index: int, message: T) -> list[T]:
        size = len(message)
        if len(self._held) >= self._most_messages or self._held_bytes + size > self._most_bytes:
            self.detach()
            raise PathOverflowError(
                f"the second path is more than {self._most_messages} messages or "
                f"{self._most_bytes} bytes ahead of the first"
            )
        self._held[index] = message
        self._held_bytes += size
        return []
