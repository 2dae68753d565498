"""The ledger: what the hub knows of the store, which it never calls.

The hub hands the store's owner (the app's batch, `server.adapters.ws.batch`) the room rows
it wrote or deleted (`server.core.room.actions.Change`) and is told later whether they were
committed. Meanwhile the ledger keeps:

- each room's latest record as written (`Ledger.latest`), the ``before`` of its next
  `server.core.room.actions.Write`: the store writes only what differs from it;
- for each room written since the last commit, the record the store held before
  (`Ledger.failed` gives them back: the rooms are rebuilt from them) and the connections
  a call closed meanwhile (a leave, a replaced seat: told to come back too, with those
  in the room, when the commit fails);
- the changes of the hub call under way (`Ledger.take`);
- whether the store is failing (from a failed commit until one with a write succeeds).

A write whose record equals the latest one but for ``last_active`` is skipped:
``last_active`` changes with every message and goes along with the next real change.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.core.room.actions import Change, ConnId, Delete, Write
from server.core.room.records import RoomRecord, same_state

__all__ = ["Ledger"]


class Ledger:
    """See the module docstring."""

    def __init__(self) -> None:
        self._latest: dict[str, RoomRecord] = {}
        self._unsettled: dict[str, RoomRecord | None] = {}  # what the store held before
        self._seen: dict[str, set[ConnId]] = {}  # rooms: who a call took out of them
        self._changes: list[Change] = []
        self.failing = False
        """A commit failed, and none with a write has succeeded since."""

    def latest(self, room_id: str) -> RoomRecord | None:
        """Room ``room_id``'s record as last written (or loaded), or None."""
        return self._latest.get(room_id)

    def unsettled(self, room_id: str) -> bool:
        """Whether room ``room_id`` was written since the last commit."""
        return room_id in self._unsettled

    def loaded(self, record: RoomRecord) -> None:
        """``record`` is what the store holds for its room (loaded from it)."""
        self._latest[record.room_id] = record

    def write(self, record: RoomRecord) -> bool:
        """Write ``record`` unless the store holds it (``last_active`` aside) or will;
        True if it was written."""
        room_id = record.room_id
        before = self._latest.get(room_id)
        if before is not None and (record is before or same_state(record, before)):
            return False
        if room_id not in self._unsettled:
            self._unsettled[room_id] = before
        self._changes.append(Write(record, before))
        self._latest[room_id] = record
        return True

    def delete(self, room_id: str) -> None:
        """Delete room ``room_id`` from the store, if it was ever written."""
        self._note(room_id)
        if self._latest.pop(room_id, None) is not None:
            self._changes.append(Delete(room_id))

    def forget(self, room_id: str) -> RoomRecord | None:
        """Forget room ``room_id``'s latest record (to rebuild the room from it); return it."""
        return self._latest.pop(room_id, None)

    def saw(self, room_id: str, conns: Iterable[ConnId]) -> None:
        """``conns`` were in room ``room_id`` until a call since the last commit closed
        them."""
        self._seen.setdefault(room_id, set()).update(conns)

    def take(self) -> list[Change]:
        """The changes since the last `take` (those of the hub call that ends)."""
        changes, self._changes = self._changes, []
        return changes

    def committed(self) -> list[str]:
        """Every change taken so far is stored: the rooms written since the last commit."""
        rooms = list(self._unsettled)
        if rooms:
            self.failing = False
        self._unsettled.clear()
        self._seen.clear()
        return rooms

    def failed(self) -> list[tuple[str, RoomRecord | None, set[ConnId]]]:
        """None of the changes taken since the last commit is stored: for each room
        written since, the record the store holds (None: none, the room was new) and
        the connections a call closed meanwhile. Those records are the latest again."""
        unsettled, self._unsettled = self._unsettled, {}
        seen, self._seen = self._seen, {}
        if unsettled:
            self.failing = True
        rooms = []
        for room_id, stored in unsettled.items():
            if stored is None:
                self._latest.pop(room_id, None)
            else:
                self._latest[room_id] = stored
            rooms.append((room_id, stored, seen.get(room_id, set())))
        return rooms

    def _note(self, room_id: str) -> None:
        """Before the first write of ``room_id`` since the last commit, note what the
        store holds."""
        if room_id not in self._unsettled:
            self._unsettled[room_id] = self._latest.get(room_id)
