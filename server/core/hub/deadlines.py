"""Deadlines: when each room next needs a `server.core.hub.hub.Hub.wake`, kept incrementally.

The app asks for the earliest deadline after every message, so `Deadlines.next` and
`Deadlines.due` cost O(log R), not O(R), per call: each room's earliest deadline, a heap
of (deadline, room id) whose stale entries are dropped lazily. The deadlines are values
the rooms' owner (`server.core.hub.rooms.Rooms`) sets: it works out again, before the next
look, the deadline of each room a call touched (its timers, its slice of a play-out, its
idle removal). Nothing here calls back.
"""

from __future__ import annotations

import heapq

__all__ = ["Deadlines"]

_STALE_SLACK = 64  # stale heap entries tolerated beyond twice the live ones


class Deadlines:
    """Each room's next deadline, as `set`."""

    def __init__(self) -> None:
        self._deadline: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    def set(self, room_id: str, due: float | None) -> None:
        """Room ``room_id``'s next deadline is ``due`` (None: nothing to do, or gone)."""
        if due is None:
            self._deadline.pop(room_id, None)
        elif self._deadline.get(room_id) != due:
            self._deadline[room_id] = due
            heapq.heappush(self._heap, (due, room_id))
            if len(self._heap) > 2 * len(self._deadline) + _STALE_SLACK:  # too many stale
                self._heap = [(due, room_id) for room_id, due in self._deadline.items()]
                heapq.heapify(self._heap)

    def next(self) -> float | None:
        """The earliest deadline of any room, or None."""
        heap = self._heap
        while heap:
            due, room_id = heap[0]
            if self._deadline.get(room_id) == due:
                return due
            heapq.heappop(heap)
        return None

    def due(self, now: float) -> list[str]:
        """The rooms whose deadline is at or before ``now``, earliest first; their
        deadlines are forgotten (the caller sets them again after the wake)."""
        due: list[str] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            when, room_id = heapq.heappop(heap)
            if self._deadline.get(room_id) != when:
                continue  # stale
            del self._deadline[room_id]
            due.append(room_id)
        return due
