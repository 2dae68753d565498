"""The room directory: every room held, found by id, player code or watch code.

Codes are looked up in their normalized form (`server.core.codes.normalize_code`: case
and hyphens do not matter), and a watch code only among watch codes (it never grants a
seat). The ids and codes of rooms the store holds but the directory does not (a record
that did not rebuild, a room whose removal was not stored) are *reserved*: no new room
gets them, since the store would refuse it. Looking a code up, or checking that a new
one is free, costs O(1), not a copy of every code in use (docs/performance.md, finding
F2).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from server.core.codes import RandomSource, new_code, new_room_id, normalize_code
from server.core.room.records import RoomRecord
from server.core.room.room import Room

__all__ = ["Directory"]


class Directory:
    """The rooms held, by id and by code, and the reserved ids and codes."""

    def __init__(self) -> None:
        self._rooms: dict[str, Room] = {}
        self._by_player_code: dict[str, str] = {}
        self._by_watch_code: dict[str, str] = {}
        self._reserved: set[str] = set()  # ids of stored rooms that are not held
        self._reserved_codes: set[str] = set()  # their codes, normalized

    def __len__(self) -> int:
        return len(self._rooms)

    def __iter__(self) -> Iterator[Room]:
        """The rooms held (do not add or drop rooms meanwhile)."""
        return iter(self._rooms.values())

    def get(self, room_id: str) -> Room | None:
        """The room with this id, or None."""
        return self._rooms.get(room_id)

    def by_player_code(self, code: str) -> Room | None:
        """The room whose player code is ``code`` (in any case, hyphens or not), or None."""
        room_id = self._by_player_code.get(normalize_code(code))
        return None if room_id is None else self._rooms[room_id]

    def by_watch_code(self, code: str) -> Room | None:
        """The room whose watch code is ``code`` (in any case, hyphens or not), or None."""
        room_id = self._by_watch_code.get(normalize_code(code))
        return None if room_id is None else self._rooms[room_id]

    def add(self, room: Room) -> None:
        """Hold ``room``."""
        self._rooms[room.room_id] = room
        self._by_player_code[normalize_code(room.player_code)] = room.room_id
        self._by_watch_code[normalize_code(room.watch_code)] = room.room_id

    def drop(self, room: Room) -> None:
        """Hold ``room`` no longer (the store is not the directory's business)."""
        self._rooms.pop(room.room_id, None)
        self._by_player_code.pop(normalize_code(room.player_code), None)
        self._by_watch_code.pop(normalize_code(room.watch_code), None)

    def reserve(self, record: RoomRecord) -> None:
        """Keep the id and codes of ``record``, stored but not held, from new rooms."""
        self._reserved.add(record.room_id)
        self._reserved_codes |= {
            normalize_code(record.player_code),
            normalize_code(record.watch_code),
        }

    def code_taken(self, code: str) -> bool:
        """True if ``code`` (in any case, with or without hyphens) belongs to a room held
        or is reserved."""
        key = normalize_code(code)
        return (
            key in self._by_player_code or key in self._by_watch_code or key in self._reserved_codes
        )

    def id_taken(self, room_id: str) -> bool:
        """True if a room held has the id ``room_id``, or it is reserved."""
        return room_id in self._rooms or room_id in self._reserved

    def fresh_code(self, random: RandomSource, *, other_than: str | None = None) -> str:
        """A new room's player or watch code: free, and not ``other_than`` (its other code)."""
        other = None if other_than is None else normalize_code(other_than)
        return _fresh(
            lambda: new_code(random),
            lambda code: normalize_code(code) == other or self.code_taken(code),
        )

    def fresh_id(self, random: RandomSource, taken: Collection[str]) -> str:
        """A new room id that is free and not one of ``taken`` either."""
        return _fresh(
            lambda: new_room_id(random),
            lambda room_id: self.id_taken(room_id) or room_id in taken,
        )


def _fresh(make: Callable[[], str], taken: Callable[[str], bool]) -> str:
    """A value from ``make`` for which ``taken`` is false."""
    while True:
        value = make()
        if not taken(value):
            return value
