"""The tokens of devices whose seat was taken, as rows of their own (``displaced``: schema 9).

A room holds few of them (at most `server.core.room.takeover.MAX_DISPLACED`) and they change
rarely (a seat taken over, taken back, or forgotten a day after its way back), so a
change rewrites the room's rows: one ``DELETE`` and one ``INSERT`` per record it keeps.
Only hashes are stored, as for the seats' tokens.
"""

from __future__ import annotations

import sqlite3

from server.core.room.records import DisplacedRecord, RoomRecord

__all__ = ["DisplacedRows", "displaced_statements"]

Statement = tuple[str, tuple[object, ...], str | None]

_INSERT = (
    "INSERT INTO displaced (room_id, position, seat, token_hash, previous_token_hash, until, "
    "by_seat) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_DROP = "DELETE FROM displaced WHERE room_id = ?"


def displaced_statements(record: RoomRecord, before: RoomRecord | None) -> list[Statement]:
    """The statements that take the stored displaced tokens of ``before`` (None: a new
    room) to ``record``'s (none if they are the same)."""
    old = () if before is None else before.displaced
    if record.displaced is old or record.displaced == old:
        return []
    room_id = record.room_id
    statements: list[Statement] = [(_DROP, (room_id,), None)] if old else []
    for position, d in enumerate(record.displaced):
        row = (room_id, position, d.seat, d.token_hash, d.previous_token_hash, d.until, d.by)
        statements.append((_INSERT, row, None))
    return statements


class DisplacedRows:
    """Every room's stored displaced tokens, read once when the store is loaded (the
    table's STRICT types have checked each value's type)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._rooms: dict[str, list[DisplacedRecord]] = {}
        for room_id, seat, token_hash, previous, until, by in db.execute(
            "SELECT room_id, seat, token_hash, previous_token_hash, until, by_seat "
            "FROM displaced ORDER BY room_id, position"
        ):
            record = DisplacedRecord(seat, token_hash, previous, float(until), by)
            self._rooms.setdefault(room_id, []).append(record)

    def of(self, room_id: str) -> tuple[DisplacedRecord, ...]:
        """The displaced tokens of ``room_id``, oldest first (the room checks their seats)."""
        return tuple(self._rooms.get(room_id, ()))
