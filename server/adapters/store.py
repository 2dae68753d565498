"""Where rooms survive a restart: `SqliteStore`, the SQLite `Store` of `server.core.records`.

Every write method commits before it returns ("persist, then broadcast"). A store is
used by one thread (the event loop's); it is not shared between processes: a server
holds `StoreLock` on it for its whole life, and a second one refuses to start.

Opening (`SqliteStore`): a store that does not exist is made whole under a temporary
name, readable by its owner only (0600; SQLite gives its ``-wal`` and ``-shm`` the same
mode), and renamed into place, so a crash never leaves a half-made file. A file that
exists must be a War store: an empty (0-byte) file, a damaged one (``PRAGMA
quick_check``), another program's SQLite file or a ``-wal`` without its store is refused
with one line naming the file, and left as it was; the server never starts empty over a
file that held rooms. One room whose row does not parse is skipped and logged by
`SqliteStore.load_all`; its row stays in the file, so its id and codes (UNIQUE columns)
are never given to a new room.

`SqliteStore` keeps one connection in WAL mode with ``synchronous=NORMAL``: a committed
write survives a kill -9 of the process (not necessarily a power cut). The schema version
is ``PRAGMA user_version``; an older store is migrated when it is opened (version 1 → 2:
the seats' ``previous_token_hash`` column, empty). The deal is stored as text because it
may exceed SQLite's signed 64-bit integers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from pathlib import Path

from server.adapters.logs import get_logger
from server.core.records import GameRecord, RoomRecord, SeatRecord
from server.errors import StoreError

__all__ = ["SCHEMA_VERSION", "SqliteStore", "StoreLock"]

SCHEMA_VERSION = 2
"""The store layout this code writes; older stores (from 1) are migrated on opening."""


_SCHEMA = """
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
    started      INTEGER NOT NULL,
    steps        INTEGER NOT NULL,
    stop_step    INTEGER,
    finished     INTEGER NOT NULL,
    deadline     REAL
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
"""
# Each step brings a store from the version it is keyed by to the next one. A new column
# is added last, so a migrated store and a new one have the same columns in the same order.
_MIGRATIONS = {
    1: "ALTER TABLE seats ADD COLUMN previous_token_hash TEXT",
}

_MODE = 0o600  # the store holds room codes and deal numbers
_TABLES = frozenset({"rooms", "seats"})
_RESTORE = 'restore a backup (docs/hosting.md, "Back up the store")'

_INSERT_ROOM = (
    "INSERT INTO rooms (room_id, player_code, watch_code, rules, minutes, created, "
    "last_active, seq, game_number, deal, revealed, started, steps, stop_step, finished, "
    "deadline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_GAME = (
    "UPDATE rooms SET game_number = ?, deal = ?, revealed = ?, started = ?, steps = ?, "
    "stop_step = ?, finished = ?, deadline = ?, seq = ? WHERE room_id = ?"
)
_SELECT_ROOMS = (
    "SELECT room_id, player_code, watch_code, rules, minutes, created, last_active, seq, "
    "game_number, deal, revealed, started, steps, stop_step, finished, deadline "
    "FROM rooms ORDER BY created, room_id"
)


def _game_row(game: GameRecord) -> tuple[object, ...]:
    return (
        game.number,
        str(game.deal),
        int(game.revealed),
        int(game.started),
        game.steps,
        game.stop_step,
        int(game.finished),
        game.deadline,
    )


class SqliteStore:
    """A `Store` in one SQLite file (WAL, synchronous=NORMAL, one connection).

    ``SqliteStore(path)`` creates the parent directory and the schema if needed, and
    migrates a store of an older schema version (in one transaction: all or nothing).
    Raises `StoreError` if the file holds a schema version this code does not know (a
    newer server's), or if the migration fails (the file is then left as it was).
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
                    self._db.execute(_MIGRATIONS[version])
                    version += 1
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except sqlite3.Error as error:
                raise StoreError(
                    f"cannot migrate store {str(self.path)!r} from schema version {start} "
                    f"to {SCHEMA_VERSION}: {error}"
                ) from None

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def _update(self, room_id: str, sql: str, params: tuple[object, ...]) -> None:
        with self._transaction():
            cursor = self._db.execute(sql, (*params, room_id))
            if cursor.rowcount != 1:
                raise StoreError(f"no stored room {room_id!r}")

    def _write_seats(self, room_id: str, seats: tuple[SeatRecord, ...]) -> None:
        self._db.execute("DELETE FROM seats WHERE room_id = ?", (room_id,))
        self._db.executemany(
            "INSERT INTO seats (room_id, seat, name, token_hash, computer, auto, left_room, "
            "previous_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    room_id,
                    index,
                    s.name,
                    s.token_hash,
                    int(s.computer),
                    s.auto,
                    int(s.left),
                    s.previous_token_hash,
                )
                for index, s in enumerate(seats)
            ],
        )

    def create_room(self, record: RoomRecord) -> None:
        """Store a new room; raises `StoreError` if its id or a code is taken."""
        try:
            with self._transaction():
                self._db.execute(
                    _INSERT_ROOM,
                    (
                        record.room_id,
                        record.player_code,
                        record.watch_code,
                        json.dumps(record.rules, sort_keys=True),
                        record.minutes,
                        record.created,
                        record.last_active,
                        record.seq,
                        *_game_row(record.game),
                    ),
                )
                self._write_seats(record.room_id, record.seats)
        except sqlite3.IntegrityError as error:
            raise StoreError(f"room {record.room_id!r} clashes: {error}") from None

    def record_game(self, room_id: str, game: GameRecord, seq: int) -> None:
        """Replace the room's current game."""
        self._update(room_id, _UPDATE_GAME, (*_game_row(game), seq))

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        """The current game has played ``steps`` steps."""
        self._update(room_id, "UPDATE rooms SET steps = ?, seq = ? WHERE room_id = ?", (steps, seq))

    def record_stop(self, room_id: str, stop_step: int) -> None:
        """The time limit stopped the game at ``stop_step`` steps."""
        self._update(room_id, "UPDATE rooms SET stop_step = ? WHERE room_id = ?", (stop_step,))

    def record_finish(self, room_id: str, seq: int) -> None:
        """The game was played out at once."""
        self._update(room_id, "UPDATE rooms SET finished = 1, seq = ? WHERE room_id = ?", (seq,))

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        """Replace every seat."""
        with self._transaction():
            cursor = self._db.execute("UPDATE rooms SET seq = ? WHERE room_id = ?", (seq, room_id))
            if cursor.rowcount != 1:
                raise StoreError(f"no stored room {room_id!r}")
            self._write_seats(room_id, seats)

    def touch(self, room_id: str, now: float, seq: int) -> None:
        """The room was active at ``now``."""
        self._update(
            room_id, "UPDATE rooms SET last_active = ?, seq = ? WHERE room_id = ?", (now, seq)
        )

    def delete_room(self, room_id: str) -> None:
        """Forget the room (its seats go with it)."""
        with self._transaction():
            self._db.execute("DELETE FROM rooms WHERE room_id = ?", (room_id,))

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
            (room_id, player_code, watch_code, rules, minutes, created, last_active, seq) = row[:8]
            number, deal, revealed, started, steps, stop_step, finished, deadline = row[8:]
            try:
                game = GameRecord(
                    number=number,
                    deal=int(deal),
                    revealed=bool(revealed),
                    started=bool(started),
                    steps=steps,
                    stop_step=stop_step,
                    finished=bool(finished),
                    deadline=deadline,
                )
                rules_dict = json.loads(rules)
            except (ValueError, TypeError) as error:  # one bad row must not keep every family out
                get_logger().error(
                    "room_not_loaded", room=room_id, error=f"stored row does not parse: {error}"
                )
                continue
            records.append(
                RoomRecord(
                    room_id=room_id,
                    player_code=player_code,
                    watch_code=watch_code,
                    rules=rules_dict,
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
    """``with``: BEGIN IMMEDIATE … COMMIT, or ROLLBACK if the block raises."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if not self._db.in_transaction:
            return
        if kind is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
