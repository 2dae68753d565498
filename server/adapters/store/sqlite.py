"""Where rooms survive a restart: the `Store` interface, and `SqliteStore`, its SQLite form.

The hub never calls a store: it returns the room rows to write and delete
(`server.core.room.actions.Change`), and the app's batch (`server.adapters.ws.batch`) hands a
batch of them to `Store.apply`, which stores them in one transaction, all or nothing,
before any message of the batch goes out ("persist, then broadcast"); a failure (a full
disk, a clash, an unknown room) raises `StoreError` and leaves the store as it was.
`Store.load_all` gives the records a hub is built from. A store is used by one thread
(the event loop's); it is not shared between processes: a server holds `StoreLock` on
it for its whole life, and a second one refuses to start.

Opening (`SqliteStore`): a store that does not exist is made whole, and migrated if it
is older (`server.adapters.store.schema.create`, `server.adapters.store.schema.MIGRATIONS`). A file
that exists must be a War store: an empty (0-byte) file, a damaged one (``PRAGMA
quick_check``), another program's SQLite file or a ``-wal`` without its store is refused
with one line naming the file, and left as it was; the server never starts empty over a
file that held rooms. One room whose row does not parse is skipped and logged by
`SqliteStore.load_all`; its row stays in the file, so its id and codes (unique columns)
are never given to a new room.

`SqliteStore` keeps one connection in WAL mode with ``synchronous=NORMAL``: a committed
write survives a kill -9 of the process (not necessarily a power cut). A room is one row
of ``rooms`` (its codes and rules, its current game, its seq, and the seats' ready flags
and votes), one row of ``seats`` per seat, and rows of its own for its talk, its evening
and the token hashes of devices its seats were taken from. `SqliteStore.apply` writes only what
changed since the record each `Write` names as ``before``: a ready or a step is one
``UPDATE`` of four columns of the room's row (its steps, ready flags, seq and
``last_active``), any other change of the room's game one of the whole row; a seat row
is written only when that seat changed (a join, a new token, auto-play, a leave). One
``BEGIN IMMEDIATE`` … ``COMMIT`` holds every change of a batch.

Its layout, its migrations and the rows a room is stored as are `server.adapters.store.schema`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from protocol import TalkSetting
from server.adapters.logs import get_logger
from server.adapters.store.displaced import DisplacedRows, displaced_statements
from server.adapters.store.schema import (
    INSERT_ROOM,
    INSERT_SEAT,
    MIGRATIONS,
    MODE,
    RESTORE,
    SCHEMA_VERSION,
    SELECT_ROOMS,
    TABLES,
    UPDATE_PLAY,
    UPDATE_ROOM,
    UPDATE_SEAT,
    WAL_CHECKPOINT_BYTES,
    create,
    game_of,
    play_only,
    play_row,
    seat_row,
    state_row,
)
from server.adapters.store.talkrows import TalkRows, talk_only, talk_statements
from server.core.room.actions import Change, Delete
from server.core.room.records import RoomRecord, SeatRecord
from server.engine import Rules
from server.errors import StoreError

__all__ = [
    "SqliteStore",
    "Store",
    "StoreLock",
    "check_same_room",
]


class Store(Protocol):
    """Where the rooms of a hub are kept.

    Codes are compared as the hub compares them: normalized
    (`server.core.codes.normalize_code`), player and watch codes together.
    """

    def apply(self, changes: Sequence[Change]) -> None:
        """Store ``changes`` in order, all or nothing: once this returns they are
        durable. A `server.core.room.actions.Write` names the record the store holds before
        it (None: a new room), exactly what the last stored write of that room was
        given; an implementation may write only what differs.

        Raises `StoreError` if any of them cannot be stored (a full disk; a new room
        whose id or a code is in use; a ``before`` whose room the store does not hold);
        the store then holds what it held before the call.
        """
        ...

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        ...

    def close(self) -> None:
        """Flush and release the store; later calls are errors."""
        ...


def check_same_room(record: RoomRecord, before: RoomRecord) -> None:
    """Raise `StoreError` unless ``record`` is a later state of the room ``before`` holds
    (same id, codes, rules, time limit, creation time and number of seats)."""
    if record is before:
        return
    if (
        record.room_id != before.room_id
        or record.player_code != before.player_code
        or record.watch_code != before.watch_code
        or record.minutes != before.minutes
        or record.created != before.created
        or len(record.seats) != len(before.seats)
        or (record.rules is not before.rules and record.rules != before.rules)
    ):
        raise StoreError(f"room {record.room_id!r} is not a later state of {before.room_id!r}")


_Statement = tuple[str, tuple[object, ...], str | None]
"""SQL, its parameters, and for an ``UPDATE`` the room whose row it must change."""


def _inserts(record: RoomRecord) -> list[_Statement]:
    """The ``INSERT`` statements of a new room: its row and one per seat."""
    room = (
        record.room_id,
        record.player_code,
        record.watch_code,
        json.dumps(record.rules.to_dict(), sort_keys=True),
        record.minutes,
        record.created,
        *state_row(record),
        record.talk_setting,
    )
    statements: list[_Statement] = [(INSERT_ROOM, room, None)]
    for index, seat in enumerate(record.seats):
        statements.append((INSERT_SEAT, (record.room_id, index, *seat_row(seat)), None))
    return statements + talk_statements(record, None) + displaced_statements(record, None)


def _updates(record: RoomRecord, before: RoomRecord) -> list[_Statement]:
    """The ``UPDATE`` statements that take the stored ``before`` to ``record`` (none if
    nothing differs). Raises `StoreError` if ``record`` is not a later state of it."""
    check_same_room(record, before)
    room_id = record.room_id
    statements: list[_Statement] = []
    if (
        record.seq != before.seq
        or record.last_active != before.last_active
        or (record.game is not before.game and record.game != before.game)
    ) and not talk_only(record, before):
        if play_only(record.game, before.game):  # a ready or a step: four columns
            statements.append((UPDATE_PLAY, play_row(record), room_id))
        else:
            statements.append((UPDATE_ROOM, (*state_row(record), room_id), room_id))
    if record.seats is not before.seats:
        for index, (seat, was) in enumerate(zip(record.seats, before.seats, strict=True)):
            if seat != was:
                statements.append((UPDATE_SEAT, (*seat_row(seat), room_id, index), room_id))
    return statements + talk_statements(record, before) + displaced_statements(record, before)


class SqliteStore:
    """A `Store` in one SQLite file (WAL, synchronous=NORMAL, one connection).

    ``SqliteStore(path)`` creates the parent directory and a new store if none is there
    (see the module docstring), and migrates a store of an older schema version (in one
    transaction: all or nothing). Raises `StoreError` if the file is not a sound War
    store (empty, damaged, another program's), holds a schema version this code does
    not know (a newer server's), or if the migration fails (the file is then left as it
    was).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            create(self.path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._check()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
            self._db.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_BYTES // page_size}")
            if self._version() != SCHEMA_VERSION:
                self._migrate()
        except BaseException:
            self._db.close()
            raise

    def _check(self) -> None:
        """Refuse a file that is not a sound War store (see the module docstring).

        Raises:
            StoreError: one line naming the file and what to do.
        """
        where = str(self.path)
        try:
            version = self._version()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"store {where!r} has schema version {version}, "
                    f"this server knows {SCHEMA_VERSION}"
                )
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
            if not tables and self.path.stat().st_size == 0:
                raise StoreError(
                    f"store {where!r} exists but is empty (0 bytes): {RESTORE} if it held "
                    "games; if it is new, delete it"
                )
            if version == 0 or not tables >= TABLES:
                raise StoreError(
                    f"store {where!r} is not a War store (an SQLite file without its "
                    "tables): give --db another file"
                )
            verdict = self._db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"store {where!r} is damaged or not a War store ({error}): {RESTORE}, or "
                "move it away to start with no rooms"
            ) from None
        if verdict != "ok":
            raise StoreError(
                f"store {where!r} is damaged ({str(verdict)[:80]}): {RESTORE}, or move "
                "it away to start with no rooms"
            )

    def _version(self) -> int:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _migrate(self) -> None:
        """Bring an older store up to `SCHEMA_VERSION` in one transaction (all or nothing).

        Raises `StoreError` for a version this code does not know, or a failed step.
        """
        with self._transaction():
            version = self._version()  # again, now that the file is locked
            if version not in MIGRATIONS and version != SCHEMA_VERSION:
                raise StoreError(
                    f"store {str(self.path)!r} has schema version {version}, "
                    f"this server knows {SCHEMA_VERSION}"
                )
            start = version
            try:
                while version < SCHEMA_VERSION:
                    for step in MIGRATIONS[version]:
                        if isinstance(step, str):
                            self._db.execute(step)
                        else:
                            step(self._db)
                    version += 1
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except sqlite3.Error as error:
                raise StoreError(
                    f"cannot migrate store {str(self.path)!r} from schema version {start} "
                    f"to {SCHEMA_VERSION}: {error}"
                ) from None

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def apply(self, changes: Sequence[Change]) -> None:
        """Store ``changes`` (see `Store.apply`), writing only what differs from each
        write's ``before``: one statement by itself (a ready or a step), several in one
        ``BEGIN IMMEDIATE`` … ``COMMIT``, nothing at all if nothing differs.

        Raises `StoreError` if the id or a code of a new room is in use, if a room is not
        stored, or if SQLite fails (a full disk: ``database or disk is full``); the
        transaction is then rolled back and the file is as it was.
        """
        statements: list[_Statement] = []
        for change in changes:
            if isinstance(change, Delete):
                statements.append(("DELETE FROM rooms WHERE room_id = ?", (change.room_id,), None))
            elif change.before is None:
                statements += _inserts(change.record)
            else:
                statements += _updates(change.record, change.before)
        if not statements:
            return
        try:
            if len(statements) == 1:
                self._execute(*statements[0])  # one statement commits by itself
            else:
                with self._transaction():
                    for statement in statements:
                        self._execute(*statement)
        except sqlite3.IntegrityError as error:
            raise StoreError(f"a room clashes with a stored one: {error}") from None
        except sqlite3.Error as error:
            raise StoreError(f"cannot save the rooms: {error}") from None

    def _execute(self, sql: str, params: tuple[object, ...], room_id: str | None) -> None:
        """Run one statement; for an ``UPDATE`` (``room_id`` given), raise `StoreError`
        unless it changed one row."""
        if self._db.execute(sql, params).rowcount != 1 and room_id is not None:
            raise StoreError(f"no stored room {room_id!r}")

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first; a row that does not parse is logged
        (``room_not_loaded``) and left out (it stays in the file, keeping its codes)."""
        seats: dict[str, list[SeatRecord]] = {}
        for room_id, name, token_hash, computer, auto, left, previous in self._db.execute(
            "SELECT room_id, name, token_hash, computer, auto, left_room, previous_token_hash "
            "FROM seats ORDER BY room_id, seat"
        ):
            seats.setdefault(room_id, []).append(
                SeatRecord(name, token_hash, bool(computer), auto, bool(left), previous)
            )
        records = []
        talk = TalkRows(self._db)
        displaced = DisplacedRows(self._db)
        for row in self._db.execute(SELECT_ROOMS):
            room_id, player_code, watch_code, rules, minutes, created, last_active, seq = row[:8]
            seq, last_active = talk.room_seq(room_id, seq, last_active)
            try:
                game = game_of(row[8:20])
                room_rules = Rules.from_dict(json.loads(rules))
                lines, evening = talk.of(room_id)
                talk_setting = TalkSetting(row[20]).value
            except (TypeError, ValueError) as error:  # RulesError is a ValueError
                # one bad row must not keep every family out; the row stays, with its codes
                get_logger().error(
                    "room_not_loaded", room=room_id, error=f"stored row does not parse: {error}"
                )
                continue
            records.append(
                RoomRecord(
                    room_id=room_id,
                    player_code=player_code,
                    watch_code=watch_code,
                    rules=room_rules,
                    minutes=minutes,
                    seats=tuple(seats.get(room_id, ())),
                    game=game,
                    created=created,
                    last_active=last_active,
                    seq=seq,
                    talk_setting=talk_setting,
                    talk=lines,
                    evening=evening,
                    displaced=displaced.of(room_id),
                )
            )
        return records

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close the connection."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()


class StoreLock:
    """An exclusive lock on ``STORE.lock`` beside the store, held until `release` (or the
    process ends: the kernel drops it even after a kill -9).

    Two servers on one store would each overwrite the other's seat tokens, and players
    would later be refused. ``fcntl.flock`` on a file of its own: SQLite's own locks
    are POSIX record locks on the store, which ``flock`` neither sees nor disturbs.
    The file holds the locking process's id, for the refusal's message.
    """

    def __init__(self, store: str | Path) -> None:
        """Take the lock.

        Raises:
            StoreError: another process holds it (the message names the store and it).
            OSError: the lock file cannot be made.
        """
        self.store = Path(store)
        self.path = Path(f"{self.store}.lock")
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, MODE)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(self._fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(self._fd)
            self._fd = None
            raise StoreError(
                f"store {str(self.store)!r} is in use by another war-server (process "
                f"{holder}): stop that one first, or give this one another --db"
            ) from None
        except BaseException:
            os.close(self._fd)
            self._fd = None
            raise
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Give the lock up (the file stays: removing it would race with a new holder)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


class _Transaction:
    """``with``: BEGIN IMMEDIATE … COMMIT, or ROLLBACK if the block raises (or the COMMIT
    fails: a full disk can refuse it)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None:
            try:
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        if self._db.in_transaction:  # SQLite may have rolled it back already (a full disk)
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
