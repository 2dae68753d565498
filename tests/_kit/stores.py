"""Stores for tests: `MemoryStore` (a `server.adapters.store.sqlite.Store` in a dict) and
`FlakyStore`, whose commits fail as a full disk's do; `ROOM`, a room record to store."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server import engine
from server.adapters.store.sqlite import check_same_room
from server.core.codes import normalize_code
from server.core.room.actions import Change, Delete
from server.core.room.records import GameRecord, RoomRecord, SeatRecord
from server.errors import StoreError

__all__ = ["ROOM", "FlakyStore", "MemoryStore"]

ROOM = RoomRecord(
    room_id="r1",
    player_code="PPPP-PPPP",
    watch_code="WWWW-WWWW",
    rules=engine.Rules(),
    minutes=None,
    seats=(SeatRecord("Ann"), SeatRecord()),
    game=GameRecord(number=1, deal=1, revealed=False),
    created=0.0,
    last_active=0.0,
)
"""A room waiting for its second player, for tests that store one."""


class MemoryStore:
    """A `Store` in a dict: every `apply` is one commit, all or nothing."""

    def __init__(self) -> None:
        self._rooms: dict[str, RoomRecord] = {}
        self.writes = 0
        """How many writes and deletes were stored (tests check persist-before-broadcast)."""
        self.commits = 0
        """How many `apply` calls stored something."""
        self.closed = False

    def apply(self, changes: Sequence[Change]) -> None:
        """Store ``changes``; raises `StoreError` for a clash (codes compared normalized,
        player and watch codes together, as the hub does) or an unknown room, and then
        holds what it held before."""
        rooms = dict(self._rooms)
        for change in changes:
            if isinstance(change, Delete):
                rooms.pop(change.room_id, None)
            else:
                _check(rooms, change.record, change.before)
                rooms[change.record.room_id] = change.record
        self._rooms = rooms
        self.writes += len(changes)
        self.commits += 1

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        return sorted(self._rooms.values(), key=lambda record: (record.created, record.room_id))

    def close(self) -> None:
        """Nothing to release."""
        self.closed = True


def _check(rooms: dict[str, RoomRecord], record: RoomRecord, before: RoomRecord | None) -> None:
    if before is not None:
        check_same_room(record, before)
        if record.room_id not in rooms:
            raise StoreError(f"no stored room {record.room_id!r}")
        return
    codes = {normalize_code(record.player_code), normalize_code(record.watch_code)}
    if len(codes) == 1:
        raise StoreError(f"room {record.room_id!r} has one code for players and watchers")
    for other in rooms.values():
        taken = {normalize_code(other.player_code), normalize_code(other.watch_code)}
        if other.room_id == record.room_id or taken & codes:
            raise StoreError(f"room {record.room_id!r} clashes with {other.room_id!r}")


class FlakyStore(MemoryStore):
    """A `MemoryStore` whose commits fail as a full disk's do (`StoreError`, nothing stored).

    An `apply` fails while ``broken`` is true, and whenever ``fail_when(record, before)``
    says so for one of its changes (``(None, None)`` for a delete). ``failures`` counts
    the commits that failed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.broken = False
        self.fail_when: Callable[[RoomRecord | None, RoomRecord | None], bool] | None = None
        self.failures = 0

    def apply(self, changes: Sequence[Change]) -> None:
        fail_when = self.fail_when
        failing = fail_when is not None and any(
            fail_when(None, None) if isinstance(c, Delete) else fail_when(c.record, c.before)
            for c in changes
        )
        if self.broken or failing:
            self.failures += 1
            raise StoreError("database or disk is full")
        super().apply(changes)
