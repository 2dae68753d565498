"""Deadlines: when each room next needs a `server.core.hub.hub.Hub.wake`, kept incrementally.

The app asks for the earliest deadline after every message, so `Deadlines.next` and
`Deadlines.due` cost O(log R), not O(R), per call: each room's earliest deadline (worked
out by the hub: its timers, its slice of a play-out, its idle removal), a heap of
(deadline, room id) whose stale entries are dropped lazily, and the rooms touched since
the last look, whose deadline is worked out again before the next one.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

__all__ = ["Deadlines"]

_STALE_SLACK = 64  # stale heap entries tolerated beyond twice the live ones


class Deadlines:
    """Each room's next deadline. ``deadline_of(room_id)`` works one out (None: nothing
    to do); it is asked again for every room `touch` ed since the last look."""

    def __init__(self, deadline_of: Callable[[str], float | None]) -> None:
        self._deadline_of = deadline_of
        self._deadline: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []
        self._dirty: set[str] = set()

    def touch(self, room_id: str) -> None:
        """Room ``room_id`` changed (or is gone): work its deadline out again."""
        self._dirty.add(room_id)

    def next(self) -> float | None:
        """The earliest deadline of any room, or None."""
        self._refresh()
        heap = self._heap
        while heap:
            due, room_id = heap[0]
            if self._deadline.get(room_id) == due:
                return due
            heapq.heappop(heap)
        return None

    def due(self, now: float) -> list[str]:
        """The rooms whose deadline is at or before ``now``, earliest first; each is
        touched (its deadline is worked out again after the wake)."""
        self._refresh()
        due: list[str] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            when, room_id = heapq.heappop(heap)
            if self._deadline.get(room_id) != when:
                continue  # stale
            del self._deadline[room_id]
            self._dirty.add(room_id)
            due.append(room_id)
        return due

    def _refresh(self) -> None:
        """Work out the deadline of every room touched since the last look."""
        for room_id in self._dirty:
            due = self._deadline_of(room_id)
            if due is None:
                self._deadline.pop(room_id, None)
            elif self._deadline.get(room_id) != due:
                self._deadline[room_id] = due
                heapq.heappush(self._heap, (due, room_id))
        self._dirty.clear()
        if len(self._heap) > 2 * len(self._deadline) + _STALE_SLACK:  # too many stale entries
            self._heap = [(due, room_id) for room_id, due in self._deadline.items()]
            heapq.heapify(self._heap)
