"""Where rooms survive a restart: the `Store` interface, `SqliteStore` and `MemoryStore`.

A room is stored as what it takes to rebuild it, never as a game's inner state: its codes,
rules, time limit, seats (names, token *hashes* — the latest and, until the latest is
confirmed, the one it replaced —, computer, auto-play, left) and its current
game as rules + deal number + steps played (+ the step at which the time limit stopped it,
+ whether it was played out by a finish vote). `server.room` replays the engine from that.

Every write method commits before it returns ("persist, then broadcast"). A store is
used by one thread (the event loop's); it is not shared between processes.

`SqliteStore` keeps one connection in WAL mode with ``synchronous=NORMAL``: a committed
write survives a kill -9 of the process (not necessarily a power cut). The schema version
is ``PRAGMA user_version``; an older store is migrated when it is opened (version 1 → 2:
the seats' ``previous_token_hash`` column, empty). The deal is stored as text because it
may exceed SQLite's signed 64-bit integers.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from server.errors import StoreError

__all__ = [
    "SCHEMA_VERSION",
    "GameRecord",
    "MemoryStore",
    "RoomRecord",
    "SeatRecord",
    "SqliteStore",
    "Store",
]

SCHEMA_VERSION = 2
"""The store layout this code writes; older stores (from 1) are migrated on opening."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: ``name`` None = open; ``auto`` is "off", "calm" or "quick".

    ``token_hash``: the hash of the seat's latest token. ``previous_token_hash``: the hash
    of the token the seat was last resumed with, still accepted while the latest one is
    unconfirmed (its ``welcome`` may have been lost); None once the latest is confirmed,
    and for a seat never resumed. See `server.room.Room.resume`.
    """

    name: str | None = None
    token_hash: str | None = None
    computer: bool = False
    auto: str = "off"
    left: bool = False
    previous_token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The room's current game.

    ``started`` false: the room still waits for players (nothing was played). ``steps``:
    engine steps played one by one. ``stop_step``: the step count at which
    ``stop_by_time()`` was called, or None. ``finished``: ``finish()`` played the rest out
    after those steps. ``deadline``: the wall-clock time the time limit runs out, or None.
    """

    number: int
    deal: int
    revealed: bool
    started: bool = False
    steps: int = 0
    stop_step: int | None = None
    finished: bool = False
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """Everything needed to rebuild one room. ``rules`` is the engine's ``Rules.to_dict()``."""

    room_id: str
    player_code: str
    watch_code: str
    rules: dict[str, object]
    minutes: int | None
    seats: tuple[SeatRecord, ...]
    game: GameRecord
    created: float
    last_active: float
    seq: int = 0


class Store(Protocol):
    """The persistence a hub needs. Every write commits before returning.

    Writes to an unknown room raise `StoreError`; so does a second `create_room` with an
    id or code already in use.
    """

    def create_room(self, record: RoomRecord) -> None:
        """Store a new room."""
        ...

    def record_game(self, room_id: str, game: GameRecord, seq: int) -> None:
        """Replace the room's current game (a game starts, or a rematch)."""
        ...

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        """The current game has now played ``steps`` steps."""
        ...

    def record_stop(self, room_id: str, stop_step: int) -> None:
        """The time limit stopped the current game when ``stop_step`` steps were played."""
        ...

    def record_finish(self, room_id: str, seq: int) -> None:
        """The current game was played out at once (a finish vote)."""
        ...

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        """Replace every seat of the room."""
        ...

    def touch(self, room_id: str, now: float, seq: int) -> None:
        """The room was active at ``now``."""
        ...

    def delete_room(self, room_id: str) -> None:
        """Forget the room (no error if it is already gone)."""
        ...

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        ...

    def close(self) -> None:
        """Flush and release the store; later calls are errors."""
        ...


class MemoryStore:
    """A `Store` in a dict, for tests (and a server that need not survive restarts)."""

    def __init__(self) -> None:
        self._rooms: dict[str, RoomRecord] = {}
        self.writes = 0
        """How many write calls succeeded (tests check persist-before-broadcast)."""

    def _get(self, room_id: str) -> RoomRecord:
        try:
            return self._rooms[room_id]
        except KeyError:
            raise StoreError(f"no stored room {room_id!r}") from None

    def _put(self, record: RoomRecord) -> None:
        self._rooms[record.room_id] = record
        self.writes += 1

    def create_room(self, record: RoomRecord) -> None:
        """Store a new room; raises `StoreError` if its id or a code is taken."""
        for other in self._rooms.values():
            taken = {other.room_id, other.player_code, other.watch_code}
            if taken & {record.room_id, record.player_code, record.watch_code}:
                raise StoreError(f"room {record.room_id!r} clashes with {other.room_id!r}")
        self._put(record)

    def record_game(self, room_id: str, game: GameRecord, seq: int) -> None:
        """Replace the room's current game."""
        self._put(dataclasses.replace(self._get(room_id), game=game, seq=seq))

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        """The current game has played ``steps`` steps."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, steps=steps)
        self._put(dataclasses.replace(record, game=game, seq=seq))

    def record_stop(self, room_id: str, stop_step: int) -> None:
        """The time limit stopped the game at ``stop_step`` steps."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, stop_step=stop_step)
        self._put(dataclasses.replace(record, game=game))

    def record_finish(self, room_id: str, seq: int) -> None:
        """The game was played out at once."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, finished=True)
        self._put(dataclasses.replace(record, game=game, seq=seq))

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        """Replace every seat."""
        self._put(dataclasses.replace(self._get(room_id), seats=seats, seq=seq))

    def touch(self, room_id: str, now: float, seq: int) -> None:
        """The room was active at ``now``."""
        self._put(dataclasses.replace(self._get(room_id), last_active=now, seq=seq))

    def delete_room(self, room_id: str) -> None:
        """Forget the room."""
        if self._rooms.pop(room_id, None) is not None:
            self.writes += 1

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        return sorted(self._rooms.values(), key=lambda record: (record.created, record.room_id))

    def close(self) -> None:
        """Nothing to release."""


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
                rules_dict = json.loads(rules)
            except ValueError as error:
                raise StoreError(f"stored room {room_id!r} does not parse: {error}") from None
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
