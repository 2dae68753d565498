"""Where rooms survive a restart: the `Store` interface, and `SqliteStore`, its SQLite form.

The hub never calls a store: it returns the room rows to write and delete
(`server.core.actions.Change`), and the app's batch (`server.adapters.batch`) hands a
batch of them to `Store.apply`, which stores them in one transaction, all or nothing,
before any message of the batch goes out ("persist, then broadcast"); a failure (a full
disk, a clash, an unknown room) raises `StoreError` and leaves the store as it was.
`Store.load_all` gives the records a hub is built from. A store is used by one thread
(the event loop's); it is not shared between processes: a server holds `StoreLock` on
it for its whole life, and a second one refuses to start.

Opening (`SqliteStore`): a store that does not exist is made whole under a temporary
name, readable by its owner only (0600; SQLite gives its ``-wal`` and ``-shm`` the same
mode), and renamed into place, so a crash never leaves a half-made file. A file that
exists must be a War store: an empty (0-byte) file, a damaged one (``PRAGMA
quick_check``), another program's SQLite file or a ``-wal`` without its store is refused
with one line naming the file, and left as it was; the server never starts empty over a
file that held rooms. One room whose row does not parse is skipped and logged by
`SqliteStore.load_all`; its row stays in the file, so its id and codes (unique columns)
are never given to a new room.

`SqliteStore` keeps one connection in WAL mode with ``synchronous=NORMAL``: a committed
write survives a kill -9 of the process (not necessarily a power cut). A room is one row
of ``rooms`` (its codes and rules, its current game, its seq, and the seats' ready flags
and votes) and one row of ``seats`` per seat. `SqliteStore.apply` writes only what
changed since the record each `Write` names as ``before``: a ready or a step is one
``UPDATE`` of the room's row; a seat row is written only when that seat changed (a
join, a new token, auto-play, a leave). One ``BEGIN IMMEDIATE`` … ``COMMIT`` holds every
change of a batch.

The schema version is ``PRAGMA user_version``; an older store is migrated when it is
opened, in one transaction (version 1 → 2: the seats' ``previous_token_hash`` column,
empty; 2 → 3: codes unique in their normalized form, below; 3 → 4: the ready flags and
the finish and rematch votes, none; 4 → 5: every stored room's rules name the rules it
was played by, ``fixed_order: seat0`` and ``both_short: end``, see `_OLD_RULES`; 5 → 6:
each room's stage is stored, worked out for a room stored before from its flags and its
replayed game, and the ``started`` flag it replaces is dropped, see `_derive_stages`). The
deal is stored as text because it may exceed SQLite's signed 64-bit integers; the rules
as the JSON of the engine's ``Rules.to_dict()``.

Codes are unique on the form the hub compares them in (`server.core.codes.normalize_code`:
upper case, no hyphens), among player and watch codes together, exactly as the hub
checks a new code: two expression indexes and a trigger (``_CODES_UNIQUE``) refuse a room
whose player or watch code equals, once normalized, any code of another room, or whose
two codes are one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from server.adapters.logs import get_logger
from server.core.actions import Change, Delete
from server.core.phases import Stage
from server.core.records import GameRecord, RoomRecord, SeatRecord
from server.engine import Game, Rules
from server.errors import StoreError

__all__ = [
    "PAGE_SIZE",
    "SCHEMA_VERSION",
    "WAL_CHECKPOINT_BYTES",
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
        durable. A `server.core.actions.Write` names the record the store holds before
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


SCHEMA_VERSION = 6
"""The store layout this code writes; older stores (from 1) are migrated on opening."""
PAGE_SIZE = 1024
"""Bytes per page of a new store (SQLite's default is 4096). Every commit appends the
pages it changed to the WAL, and a ready or a step changes one: a quarter of the bytes
to write makes each commit cheaper, and so is each checkpoint (docs/performance.md). A
store created with another page size keeps it."""
WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024
"""The WAL is copied back into the main file (a checkpoint: one fsync, a few ms on the
event loop) each time it holds this many bytes of pages — SQLite's default of 1000
pages of 4 KiB, whatever the page size."""

# `server.core.codes.normalize_code` in SQL is upper(replace(code, '-', '')): codes are
# ASCII (the protocol's ``code`` field), which SQLite's upper() folds as Python's does.
_CODES_UNIQUE = (
    "CREATE UNIQUE INDEX rooms_player_code_normal ON rooms (upper(replace(player_code, '-', '')))",
    "CREATE UNIQUE INDEX rooms_watch_code_normal ON rooms (upper(replace(watch_code, '-', '')))",
    """CREATE TRIGGER rooms_codes_distinct BEFORE INSERT ON rooms
WHEN upper(replace(NEW.player_code, '-', '')) = upper(replace(NEW.watch_code, '-', ''))
    OR EXISTS (SELECT 1 FROM rooms WHERE upper(replace(watch_code, '-', ''))
                                         = upper(replace(NEW.player_code, '-', '')))
    OR EXISTS (SELECT 1 FROM rooms WHERE upper(replace(player_code, '-', ''))
                                         = upper(replace(NEW.watch_code, '-', '')))
BEGIN
    SELECT RAISE(ABORT, 'a code of this room is already in use');
END""",
)
"""Version 3: codes unique in their normalized form across both kinds (see above)."""


_STAGE_VALUES = ", ".join(f"'{stage.value}'" for stage in Stage)


def _derive_stages(db: sqlite3.Connection) -> None:
    """Version 6: the stage of each game a store of version 5 holds as ``playing`` (it
    had started, and no finish vote had played it out) is its replayed game's: ``over``
    if its steps (and its time stop) ended it. A room stored mid-finish is ``over``:
    its record says ``finished``, and a restart plays the rest out at once, as 0.2 did. A
    row that does not parse is left as it is (it is skipped when loaded, and logged)."""
    rows = db.execute(
        "SELECT room_id, rules, deal, steps, stop_step FROM rooms WHERE stage = 'playing'"
    ).fetchall()
    for room_id, rules, deal, steps, stop_step in rows:
        try:
            game = Game.replay(
                Rules.from_dict(json.loads(rules)), int(deal), steps, stop_step=stop_step
            )
        except (TypeError, ValueError):  # RulesError and DealError are ValueErrors
            continue
        if game.outcome is not None:
            db.execute("UPDATE rooms SET stage = 'over' WHERE room_id = ?", (room_id,))


_OLD_RULES = (
    "UPDATE rooms SET rules = json_set(rules, '$.fixed_order', 'seat0', '$.both_short', 'end')"
)
"""Version 5: every room stored before keeps the rules it was played by. Versions up to
0.1 put won cards under in seat order from seat 0 (``fixed_order`` ``seat0``) and ended a
3–4 player game when everyone in a war ran short (``both_short`` ``end``); the engine's
defaults changed, so a room stored then is given those values explicitly and replays
exactly as it was played (docs/rules.md, "Changing a rule")."""


_SCHEMA = f"""
CREATE TABLE rooms (
    room_id      TEXT PRIMARY KEY,
    player_code  TEXT NOT NULL UNIQUE,
    watch_code   TEXT NOT NULL UNIQUE,
    rules        TEXT NOT NULL,
    minutes      INTEGER,
    created      REAL NOT NULL,
    last_active  REAL NOT NULL,
    seq          INTEGER NOT NULL,
    game_number  INTEGER NOT NULL,
    deal         TEXT NOT NULL,
    revealed     INTEGER NOT NULL,
    steps        INTEGER NOT NULL,
    stop_step    INTEGER,
    finished     INTEGER NOT NULL,
    deadline     REAL,
    ready        INTEGER NOT NULL DEFAULT 0,
    finish_votes INTEGER NOT NULL DEFAULT 0,
    rematch_votes TEXT NOT NULL DEFAULT '[]',
    stage        TEXT NOT NULL DEFAULT 'waiting' CHECK (stage IN ({_STAGE_VALUES}))
) STRICT;
CREATE TABLE seats (
    room_id     TEXT NOT NULL REFERENCES rooms(room_id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    name        TEXT,
    token_hash  TEXT,
    computer    INTEGER NOT NULL,
    auto        TEXT NOT NULL,
    left_room   INTEGER NOT NULL,
    previous_token_hash TEXT,
    PRIMARY KEY (room_id, seat)
) STRICT;
""" + "".join(statement + ";\n" for statement in _CODES_UNIQUE)
# Each entry brings a store from the version it is keyed by to the next one, with the
# statements run in order inside the one migration transaction. A new column is added
# last, so a migrated store and a new one have the same columns in the same order: to
# change the layout, change `_SCHEMA`, add the step here and raise `SCHEMA_VERSION`.
_MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
    1: ("ALTER TABLE seats ADD COLUMN previous_token_hash TEXT",),
    2: _CODES_UNIQUE,
    3: (
        # ready flags and finish votes: one bit per seat; rematch votes: [[seat, deal]]
        "ALTER TABLE rooms ADD COLUMN ready INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN finish_votes INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN rematch_votes TEXT NOT NULL DEFAULT '[]'",
    ),
    4: (_OLD_RULES,),
    5: (
        "ALTER TABLE rooms ADD COLUMN stage TEXT NOT NULL DEFAULT 'waiting' "
        f"CHECK (stage IN ({_STAGE_VALUES}))",
        "UPDATE rooms SET stage = CASE WHEN started = 0 THEN 'waiting' "
        "WHEN finished = 1 THEN 'over' ELSE 'playing' END",
        _derive_stages,
        "ALTER TABLE rooms DROP COLUMN started",
    ),
}

_MODE = 0o600  # the store holds room codes and deal numbers
_TABLES = frozenset({"rooms", "seats"})
_RESTORE = 'restore a backup (docs/hosting.md, "Back up the store")'

_INSERT_ROOM = (
    "INSERT INTO rooms (room_id, player_code, watch_code, rules, minutes, created, "
    "last_active, seq, game_number, deal, revealed, steps, stop_step, finished, "
    "deadline, ready, finish_votes, rematch_votes, stage) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_ROOM = (
    "UPDATE rooms SET last_active = ?, seq = ?, game_number = ?, deal = ?, revealed = ?, "
    "steps = ?, stop_step = ?, finished = ?, deadline = ?, ready = ?, "
    "finish_votes = ?, rematch_votes = ?, stage = ? WHERE room_id = ?"
)
_SELECT_ROOMS = (
    "SELECT room_id, player_code, watch_code, rules, minutes, created, last_active, seq, "
    "game_number, deal, revealed, steps, stop_step, finished, deadline, ready, "
    "finish_votes, rematch_votes, stage FROM rooms ORDER BY created, room_id"
)
_INSERT_SEAT = (
    "INSERT INTO seats (room_id, seat, name, token_hash, computer, auto, left_room, "
    "previous_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_SEAT = (
    "UPDATE seats SET name = ?, token_hash = ?, computer = ?, auto = ?, left_room = ?, "
    "previous_token_hash = ? WHERE room_id = ? AND seat = ?"
)


def _bits(seats: Iterable[int]) -> int:
    """Seat numbers as one bit each."""
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask


def _seats_of(mask: int) -> tuple[int, ...]:
    """The seat numbers of a `_bits` mask."""
    return tuple(seat for seat in range(mask.bit_length()) if mask >> seat & 1)


def _state_row(record: RoomRecord) -> tuple[object, ...]:
    """The columns of ``record`` that change after it is created, ``last_active`` to
    ``stage`` (as in `_UPDATE_ROOM` and `_SELECT_ROOMS`)."""
    game = record.game
    votes = game.rematch_votes
    return (
        record.last_active,
        record.seq,
        game.number,
        str(game.deal),
        int(game.revealed),
        game.steps,
        game.stop_step,
        int(game.finished),
        game.deadline,
        _bits(game.ready),
        _bits(game.finish_votes),
        json.dumps([[seat, deal] for seat, deal in votes]) if votes else "[]",
        game.stage.value,
    )


def _seat_row(seat: SeatRecord) -> tuple[object, ...]:
    return (
        seat.name,
        seat.token_hash,
        int(seat.computer),
        seat.auto,
        int(seat.left),
        seat.previous_token_hash,
    )


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
        *_state_row(record),
    )
    statements: list[_Statement] = [(_INSERT_ROOM, room, None)]
    for index, seat in enumerate(record.seats):
        statements.append((_INSERT_SEAT, (record.room_id, index, *_seat_row(seat)), None))
    return statements


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
    ):
        statements.append((_UPDATE_ROOM, (*_state_row(record), room_id), room_id))
    if record.seats is not before.seats:
        for index, (seat, was) in enumerate(zip(record.seats, before.seats, strict=True)):
            if seat != was:
                statements.append((_UPDATE_SEAT, (*_seat_row(seat), room_id, index), room_id))
    return statements


def _game(row: Sequence[Any]) -> GameRecord:
    """The `GameRecord` of the game columns of a room's row (``game_number`` on).

    Raises ValueError (or TypeError) for values that do not parse.
    """
    number, deal, revealed, steps, stop_step, finished, deadline = row[:7]
    ready, finish_votes, rematch_votes, stage = row[7:]
    votes = json.loads(rematch_votes)
    if not isinstance(votes, list) or not all(
        isinstance(vote, list)
        and len(vote) == 2
        and isinstance(vote[0], int)
        and isinstance(vote[1], str)
        for vote in votes
    ):
        raise ValueError(f"rematch votes {rematch_votes!r} are not [[seat, deal], …]")
    return GameRecord(
        number=number,
        deal=int(deal),
        revealed=bool(revealed),
        stage=Stage(stage),
        steps=steps,
        stop_step=stop_step,
        finished=bool(finished),
        deadline=deadline,
        ready=_seats_of(ready),
        finish_votes=_seats_of(finish_votes),
        rematch_votes=tuple((seat, deal) for seat, deal in votes),
    )


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
            _create(self.path)
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
                    f"store {where!r} exists but is empty (0 bytes): {_RESTORE} if it held "
                    "games; if it is new, delete it"
                )
            if version == 0 or not tables >= _TABLES:
                raise StoreError(
                    f"store {where!r} is not a War store (an SQLite file without its "
                    "tables): give --db another file"
                )
            verdict = self._db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"store {where!r} is damaged or not a War store ({error}): {_RESTORE}, or "
                "move it away to start with no rooms"
            ) from None
        if verdict != "ok":
            raise StoreError(
                f"store {where!r} is damaged ({str(verdict)[:80]}): {_RESTORE}, or move "
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
            if version not in _MIGRATIONS and version != SCHEMA_VERSION:
                raise StoreError(
                    f"store {str(self.path)!r} has schema version {version}, "
                    f"this server knows {SCHEMA_VERSION}"
                )
            start = version
            try:
                while version < SCHEMA_VERSION:
                    for step in _MIGRATIONS[version]:
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
        for row in self._db.execute(_SELECT_ROOMS):
            room_id, player_code, watch_code, rules, minutes, created, last_active, seq = row[:8]
            try:
                game = _game(row[8:])
                room_rules = Rules.from_dict(json.loads(rules))
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
                )
            )
        return records

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close the connection."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()


def _create(path: Path) -> None:
    """Make a new, empty store at ``path``, whole or not at all, readable by its owner only.

    Raises:
        StoreError: a ``-wal`` file is there without its store.
        sqlite3.Error, OSError: the store cannot be made (nothing is left behind).
    """
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"store {str(path)!r} is missing but {str(wal)!r} is there: {_RESTORE}, or "
            "move the -wal file away to start with no rooms"
        )
    temporary = path.with_name(f".{path.name}.new-{os.getpid()}")
    for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
        leftover.unlink(missing_ok=True)
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _MODE))
        os.chmod(temporary, _MODE)  # whatever the umask took away
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(f"BEGIN;{_SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
        finally:
            db.close()  # the last connection: the WAL is checkpointed into the file
        with contextlib.suppress(FileExistsError):  # made meanwhile: that one is opened
            os.link(temporary, path)
        _sync_folder(path.parent)
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            leftover.unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    """Make a new name in ``folder`` survive a power cut (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, _MODE)
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
