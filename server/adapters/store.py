"""Where rooms survive a restart: `SqliteStore`, the SQLite `Store` of `server.core.records`.

Every write method commits before it returns ("persist, then broadcast"). A store is
used by one thread (the event loop's); it is not shared between processes.

`SqliteStore` keeps one connection in WAL mode with ``synchronous=NORMAL``: a committed
write survives a kill -9 of the process (not necessarily a power cut). The schema version
is ``PRAGMA user_version``; an older store is migrated when it is opened (version 1 → 2:
the seats' ``previous_token_hash`` column, empty; 2 → 3: codes unique in their
normalized form, below). The deal is stored as text because it may exceed SQLite's
signed 64-bit integers; the rules as the JSON of the engine's ``Rules.to_dict()``.

Codes are unique on the form the hub compares them in (`server.core.codes.normalize_code`:
upper case, no hyphens), among player and watch codes together, exactly as the hub
checks a new code: two expression indexes and a trigger (``_CODES_UNIQUE``) refuse a room
whose player or watch code equals, once normalized, any code of another room, or whose
two codes are one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from server.core.records import GameRecord, RoomRecord, SeatRecord
from server.engine import Rules
from server.errors import StoreError

__all__ = ["SCHEMA_VERSION", "SqliteStore"]

SCHEMA_VERSION = 3
"""The store layout this code writes; older stores (from 1) are migrated on opening."""

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
""" + "".join(statement + ";\n" for statement in _CODES_UNIQUE)
# Each step brings a store from the version it is keyed by to the next one (its statements
# run in order, in the opening's one transaction). A new column is added last, so a
# migrated store and a new one have the same columns in the same order.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE seats ADD COLUMN previous_token_hash TEXT",),
    2: _CODES_UNIQUE,
}

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
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        version = self._version()
        if version == 0:
            self._db.executescript(f"BEGIN;{_SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
        elif version != SCHEMA_VERSION:
            try:
                self._migrate()
            except BaseException:
                self._db.close()
                raise

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
                    for statement in _MIGRATIONS[version]:
                        self._db.execute(statement)
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
                        json.dumps(record.rules.to_dict(), sort_keys=True),
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
        """Every stored room, oldest first. Raises `StoreError` for a row that does not parse."""
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
                room_rules = Rules.from_dict(json.loads(rules))
            except ValueError as error:  # RulesError is a ValueError
                raise StoreError(f"stored room {room_id!r} does not parse: {error}") from None
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
