"""The SQLite store's layout: its schema, its migrations, and a room as rows.

The schema version is ``PRAGMA user_version``; an older store is migrated when it is
opened, in one transaction (`MIGRATIONS`: version 1 → 2: the seats' ``previous_token_hash``
column, empty; 2 → 3: codes unique in their normalized form, `CODES_UNIQUE`; 3 → 4: the
ready flags and the finish and rematch votes, none; 4 → 5: every stored room's rules name
the rules it was played by, ``fixed_order: seat0`` and ``both_short: end``, see
`_OLD_RULES`; 5 → 6: each room's stage is stored, worked out for a room stored before
from its flags and its replayed game, and the ``started`` flag it replaces is dropped,
see `_derive_stages`; 6 → 7: each room's ``talk`` setting, ``players`` for the rooms
stored before, and the tables ``talk`` and ``evening``, empty; 7 → 8: the ``fairness``
column, a fair deal's seeds and commitments as JSON, empty for every room stored before,
which plays on as it was dealt; 8 → 9: the table ``displaced``, empty: a store of 8 kept
the tokens of devices whose seat was taken in memory only, so their way back ended with
that server). A room is one row of ``rooms`` (its codes and rules,
its current game with its stage and its fair deal, its seq, and the seats' ready flags
and votes, one bit per seat), one row of ``seats`` per seat, one row of ``talk`` per
message or reaction it keeps (the last 50), one row of ``evening`` per finished game
it remembers (the last 100) and one row of ``displaced`` per device a seat was taken
from while its token is remembered (`DISPLACED_TABLE`), all deleted with the room
(``ON DELETE CASCADE``). The
deal is stored as text because it may exceed SQLite's signed 64-bit integers; the rules
as the JSON of the engine's ``Rules.to_dict()``.

Codes are unique on the form the hub compares them in (`server.core.codes.normalize_code`:
upper case, no hyphens), among player and watch codes together, exactly as the hub
checks a new code: two expression indexes and a trigger (`CODES_UNIQUE`) refuse a room
whose player or watch code equals, once normalized, any code of another room, or whose
two codes are one.

A new store is made whole under a temporary name, readable by its owner only (0600;
SQLite gives its ``-wal`` and ``-shm`` the same mode), and renamed into place
(`create`), so a crash never leaves a half-made file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import operator
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from server.core.room.fairdeal import FairRecord
from server.core.room.phases import Stage
from server.core.room.records import GameRecord, RoomRecord, SeatRecord
from server.engine import Game, Rules
from server.errors import StoreError

__all__ = [
    "CODES_UNIQUE",
    "DISPLACED_TABLE",
    "INSERT_ROOM",
    "INSERT_SEAT",
    "MIGRATIONS",
    "MODE",
    "PAGE_SIZE",
    "RESTORE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SELECT_ROOMS",
    "TABLES",
    "TALK_TABLES",
    "UPDATE_PLAY",
    "UPDATE_ROOM",
    "UPDATE_SEAT",
    "WAL_CHECKPOINT_BYTES",
    "create",
    "game_of",
    "play_only",
    "play_row",
    "seat_row",
    "state_row",
]

SCHEMA_VERSION = 9
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
CODES_UNIQUE = (
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


TALK_TABLES = (
    """CREATE TABLE talk (
    room_id   TEXT NOT NULL REFERENCES rooms(room_id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    at        REAL NOT NULL,
    seat      INTEGER,
    text      TEXT,
    reaction  TEXT,
    PRIMARY KEY (room_id, seq)
) STRICT, WITHOUT ROWID""",
    """CREATE TABLE evening (
    room_id     TEXT NOT NULL REFERENCES rooms(room_id) ON DELETE CASCADE,
    game        INTEGER NOT NULL,
    deal        TEXT NOT NULL,
    winner      INTEGER,
    termination TEXT NOT NULL,
    rounds      INTEGER NOT NULL,
    names       TEXT NOT NULL,
    PRIMARY KEY (room_id, game)
) STRICT, WITHOUT ROWID""",
)
"""Version 7: a room's talk (one row per line, the seq of its message) and its evening
(one row per finished game; ``names`` the JSON list of the seats' names then)."""


DISPLACED_TABLE = """CREATE TABLE displaced (
    room_id     TEXT NOT NULL REFERENCES rooms(room_id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    token_hash  TEXT,
    previous_token_hash TEXT,
    until       REAL NOT NULL,
    by_seat     INTEGER,
    PRIMARY KEY (room_id, position)
) STRICT, WITHOUT ROWID"""
"""Version 9: the token hashes a seat had when it was taken over on another device
(`server.core.room.records.DisplacedRecord`: hashes, never tokens), ``position`` their order
(oldest first), ``until`` the wall-clock end of their way back; ``by_seat`` the seat that
allowed it (NULL: nobody was there to ask)."""


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


SCHEMA = f"""
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
    stage        TEXT NOT NULL DEFAULT 'waiting' CHECK (stage IN ({_STAGE_VALUES})),
    talk         TEXT NOT NULL DEFAULT 'players',
    fairness     TEXT NOT NULL DEFAULT ''
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
""" + "".join(statement + ";\n" for statement in (*CODES_UNIQUE, *TALK_TABLES, DISPLACED_TABLE))
# Each entry brings a store from the version it is keyed by to the next one, with the
# statements run in order inside the one migration transaction. A new column is added
# last, so a migrated store and a new one have the same columns in the same order: to
# change the layout, change `SCHEMA`, add the step here and raise `SCHEMA_VERSION`.
MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
    1: ("ALTER TABLE seats ADD COLUMN previous_token_hash TEXT",),
    2: CODES_UNIQUE,
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
    6: ("ALTER TABLE rooms ADD COLUMN talk TEXT NOT NULL DEFAULT 'players'", *TALK_TABLES),
    7: ("ALTER TABLE rooms ADD COLUMN fairness TEXT NOT NULL DEFAULT ''",),
    8: (DISPLACED_TABLE,),
}

MODE = 0o600  # the store holds room codes and deal numbers
TABLES = frozenset({"rooms", "seats"})
RESTORE = 'restore a backup (docs/hosting.md, "Back up the store")'

INSERT_ROOM = (
    "INSERT INTO rooms (room_id, player_code, watch_code, rules, minutes, created, "
    "last_active, seq, game_number, deal, revealed, steps, stop_step, finished, "
    "deadline, ready, finish_votes, rematch_votes, stage, fairness, talk) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
UPDATE_ROOM = (
    "UPDATE rooms SET last_active = ?, seq = ?, game_number = ?, deal = ?, revealed = ?, "
    "steps = ?, stop_step = ?, finished = ?, deadline = ?, ready = ?, "
    "finish_votes = ?, rematch_votes = ?, stage = ?, fairness = ? WHERE room_id = ?"
)
UPDATE_PLAY = "UPDATE rooms SET last_active = ?, seq = ?, steps = ?, ready = ? WHERE room_id = ?"
"""`UPDATE_ROOM` narrowed to what a ready or a step changes (`play_only`): a third less
of SQLite's time than the whole row's statement (docs/performance.md, "Room writes")."""
SELECT_ROOMS = (
    "SELECT room_id, player_code, watch_code, rules, minutes, created, last_active, seq, "
    "game_number, deal, revealed, steps, stop_step, finished, deadline, ready, "
    "finish_votes, rematch_votes, stage, fairness, talk FROM rooms ORDER BY created, room_id"
)
INSERT_SEAT = (
    "INSERT INTO seats (room_id, seat, name, token_hash, computer, auto, left_room, "
    "previous_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
UPDATE_SEAT = (
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


def state_row(record: RoomRecord) -> tuple[object, ...]:
    """The columns of ``record`` that change after it is created, ``last_active`` to
    ``fairness`` (as in `UPDATE_ROOM` and `SELECT_ROOMS`)."""
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
        _fairness_text(game),
    )


_NOT_PLAYED = operator.attrgetter(
    *(f.name for f in dataclasses.fields(GameRecord) if f.name not in {"steps", "ready"})
)
"""Every field of a game but the two a ready or a step changes (a field added to
`GameRecord` is in it by itself)."""


def play_only(game: GameRecord, before: GameRecord) -> bool:
    """Whether ``game`` differs from ``before`` at most in its steps and ready flags: a
    ready or a step, stored by `UPDATE_PLAY` (`play_row`)."""
    return _NOT_PLAYED(game) == _NOT_PLAYED(before)


def play_row(record: RoomRecord) -> tuple[object, ...]:
    """The parameters of `UPDATE_PLAY` for ``record``."""
    game = record.game
    return (record.last_active, record.seq, game.steps, _bits(game.ready), record.room_id)


def _fairness_text(game: GameRecord) -> str:
    """A game's fair deal, the commitments of its rematch votes and the evening's voids
    per seat, as JSON ("": none of them)."""
    fair = game.fair
    if fair is None and not game.rematch_commitments and not game.voids:
        return ""
    value: dict[str, object] = {"rematch": [list(c) for c in game.rematch_commitments]}
    if game.voids:
        value["voids"] = list(game.voids)
    if fair is not None:
        value |= {
            "server_seed": fair.server_seed,
            "commitments": list(fair.commitments),
            "seeds": list(fair.seeds),
            "settled": fair.settled,
        }
        if fair.collecting:
            value["collecting"] = True
    return json.dumps(value, separators=(",", ":"))


_Fairness = tuple[FairRecord | None, tuple[tuple[int, str], ...], tuple[int, ...]]


def _fairness_of(text: str) -> _Fairness:
    """`_fairness_text` read back. Raises ValueError (or TypeError, KeyError)."""
    if not text:
        return None, (), ()
    value = json.loads(text)
    try:
        rematch = tuple((int(seat), str(c)) for seat, c in value["rematch"])
        voids = tuple(value.get("voids", ()))
        if not all(type(n) is int and n >= 0 for n in voids):
            raise TypeError(f"voids must be counts, not {voids!r}")
        if "server_seed" not in value:
            return None, rematch, voids
        fair = FairRecord(
            server_seed=value["server_seed"],
            commitments=tuple(value["commitments"]),
            seeds=tuple(value["seeds"]),
            settled=value["settled"] is True,
            collecting=value.get("collecting") is True,
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"the fair deal {text[:80]!r} does not parse: {error!r}") from None
    return fair, rematch, voids


def seat_row(seat: SeatRecord) -> tuple[object, ...]:
    return (
        seat.name,
        seat.token_hash,
        int(seat.computer),
        seat.auto,
        int(seat.left),
        seat.previous_token_hash,
    )


def game_of(row: Sequence[Any]) -> GameRecord:
    """The `GameRecord` of the game columns of a room's row (``game_number`` on).

    Raises ValueError (or TypeError) for values that do not parse.
    """
    number, deal, revealed, steps, stop_step, finished, deadline = row[:7]
    ready, finish_votes, rematch_votes, stage, fairness = row[7:]
    fair, rematch_commitments, voids = _fairness_of(fairness)
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
        fair=fair,
        rematch_commitments=rematch_commitments,
        voids=voids,
    )


def create(path: Path) -> None:
    """Make a new, empty store at ``path``, whole or not at all, readable by its owner only.

    Raises:
        StoreError: a ``-wal`` file is there without its store.
        sqlite3.Error, OSError: the store cannot be made (nothing is left behind).
    """
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"store {str(path)!r} is missing but {str(wal)!r} is there: {RESTORE}, or "
            "move the -wal file away to start with no rooms"
        )
    temporary = path.with_name(f".{path.name}.new-{os.getpid()}")
    for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
        leftover.unlink(missing_ok=True)
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE))
        os.chmod(temporary, MODE)  # whatever the umask took away
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(f"BEGIN;{SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
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
