"""The play-out queue: finishing rooms, played out a slice at a time, within budgets.

When every voter has voted to finish, a room enters the stage ``finishing``
(`server.core.room.phases`) and the rest of its game is played out here, never in one go: a
long game (tens of thousands of flips) would hold the event loop, and every other room,
for a tenth of a second or more. This queue owns everything about it:

- the slices: each `server.core.room.room.Room.play_slice` plays about ``play_out_slice``
  units of engine work (`server.engine.STEP_WORK`), under 2 ms; the first right after the
  vote, in the same hub call (`PlayOuts.start`), then one per `server.core.hub.hub.Hub.wake`;
- the turns: never more than one slice per hub call, whatever the number of rooms
  finishing; the room whose last slice is the oldest plays (`PlayOuts.choose`), the
  others stay due right after the wake's ``now`` (never at it: a wake that plays a slice
  sends nothing, yet always moves the earliest deadline on, which is how the app tells a
  wake that did its work from a stuck one);
- the budgets: the work is charged to the address of the connection whose message
  started the play-out (`server.core.budgets.WorkBudget`, ``play_out_rate`` units a second
  in bursts of ``play_out_burst``) and to the whole server (``play_out_server_rate``,
  ``play_out_server_burst``); past either budget, the room's next slice waits until it
  is paid off. Finishing and rematching a long game in a loop slows that address's own
  games; many addresses doing it at once slow every play-out (never the play itself)
  but cannot take more than the server's share of the processor.

A play-out that a finish started outside a message (a wake: a voter went out) is paid
by nobody's address, only the server's budget. A restart mid-finish rebuilds the room
from its record, which plays the rest out at once (`server.core.room.records.GameRecord`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from server.core.budgets import TokenBucket, WorkBudget
from server.core.settings import HubSettings

__all__ = ["MIN_PACE_SECONDS", "PlayOuts"]

MIN_PACE_SECONDS = 0.001
"""A slice held for its budget waits at least this long (a shorter wait counts as none,
so that a held room's deadline is always clearly after ``now``)."""


@dataclass(slots=True)
class _Finishing:
    payer: str
    """The address that asked for the play-out ("" for nobody's)."""
    due: float
    """No slice before this time."""
    first: bool = True
    """No slice has been played yet."""


class PlayOuts:
    """The finishing rooms, in turn order, and the budgets they are played out within."""

    def __init__(self, settings: HubSettings, now: float) -> None:
        self.slice = settings.play_out_slice
        """The engine work one slice may spend."""
        self._per_address = WorkBudget(settings.play_out_rate, settings.play_out_burst)
        self._per_server = TokenBucket(
            settings.play_out_server_rate, settings.play_out_server_burst, now
        )
        self._rooms: dict[str, _Finishing] = {}  # in turn order: the next to play first

    def holds(self, room_id: str) -> bool:
        """Whether room ``room_id`` is being played out."""
        return room_id in self._rooms

    def due(self, room_id: str) -> float | None:
        """When room ``room_id``'s next slice may be played (None: it is not queued)."""
        finishing = self._rooms.get(room_id)
        return None if finishing is None else finishing.due

    def first(self, room_id: str) -> bool:
        """No slice of room ``room_id`` has been played yet."""
        return self._rooms[room_id].first

    def start(self, room_id: str, payer: str, now: float) -> bool:
        """Room ``room_id`` entered its play-out, asked for by address ``payer``: queue it
        last; True if its first slice may be played now (else it waits for its budget)."""
        wait = self._wait(payer, now)
        self._rooms[room_id] = _Finishing(payer, now + wait)
        return wait == 0.0

    def enqueue(self, room_id: str, now: float) -> None:
        """Room ``room_id`` entered its play-out outside a message: queue it last, due
        now, paid by nobody's address."""
        self._rooms[room_id] = _Finishing("", now)

    def choose(self, due: list[str], now: float) -> str | None:
        """Of the queued rooms ``due`` at ``now``, the one whose slice is played now: the
        first in turn order whose budgets allow it, which goes to the back of the queue.
        The others are due again once their budget allows, or right after ``now``."""
        wanted = set(due)
        queued = [room_id for room_id in self._rooms if room_id in wanted]
        chosen = None
        later = math.nextafter(now, math.inf)
        for room_id in queued:
            finishing = self._rooms[room_id]
            wait = self._wait(finishing.payer, now)
            if wait > 0:  # its address, or the server, spent its budget meanwhile
                finishing.due = now + wait
            elif chosen is None:
                chosen = room_id
            else:  # due right after now: no deadline the caller saw is left
                finishing.due = later
        if chosen is not None:
            self._rooms[chosen] = self._rooms.pop(chosen)  # its turn: to the back
        return chosen

    def played(self, room_id: str, work: int, *, over: bool, woken: bool, now: float) -> None:
        """A slice of room ``room_id`` did ``work`` units at ``now``: charge them to its
        address and the server. ``over``: that was the last slice. Else the next one is
        due once the budgets allow, and (``woken``: played by a wake) not before just
        after ``now``."""
        finishing = self._rooms[room_id]
        self._per_address.charge(finishing.payer, work, now)
        self._per_server.charge(work, now)
        if over:
            del self._rooms[room_id]
            return
        finishing.first = False
        finishing.due = now + self._wait(finishing.payer, now)
        if woken:
            finishing.due = max(finishing.due, math.nextafter(now, math.inf))

    def drop(self, room_id: str) -> None:
        """Forget room ``room_id`` (removed, or rebuilt)."""
        self._rooms.pop(room_id, None)

    def _wait(self, payer: str, now: float) -> float:
        """Seconds before more may be played out for ``payer``: its budget and the
        server's (0.0: now; a wait under `MIN_PACE_SECONDS` counts as none)."""
        wait = max(self._per_address.wait(payer, now), self._per_server.wait(now))
        return wait if wait >= MIN_PACE_SECONDS else 0.0
