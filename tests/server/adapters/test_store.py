"""The store: every write read back, both implementations, a file that survives, writes
of only what changed, a full disk, and the migrations of older files."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import CreateRoom, JoinRoom, Ready, ResumeSeat, RulesSpec
from server import engine
from server.adapters.store.schema import (
    CODES_UNIQUE,
    PAGE_SIZE,
    SCHEMA_VERSION,
    WAL_CHECKPOINT_BYTES,
)
from server.adapters.store.sqlite import SqliteStore, Store
from server.core.codes import hash_token, normalize_code
from server.core.room.actions import Delete, Write
from server.core.room.phases import Stage
from server.core.room.records import DisplacedRecord, GameRecord, RoomRecord, SeatRecord
from server.errors import StoreError
from tests._kit.stores import MemoryStore
from tests.server.core._roomkit import RoomKit


def _record(room_id: str = "room1", **changes: object) -> RoomRecord:
    record = RoomRecord(
        room_id=room_id,
        player_code=f"P{room_id}",
        watch_code=f"W{room_id}",
        rules=engine.Rules(face_down=3),
        minutes=30,
        seats=(SeatRecord("Ann", "ab" * 32), SeatRecord()),
        game=GameRecord(number=1, deal=2**64 - 1, revealed=True),
        created=100.5,
        last_active=101.25,
        seq=3,
    )
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made: Store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "w.db")
    yield made
    made.close()


def _save_all(store: Store, *records: RoomRecord) -> RoomRecord:
    """Store the first record as a new room and each next one over the one before it."""
    before: RoomRecord | None = None
    for record in records:
        store.apply([Write(record, before)])
        before = record
    assert before is not None
    return before


def test_create_and_load_round_trip(store: Store) -> None:
    store.apply([Write(_record(), None)])
    store.apply([Write(_record("room0", created=50.0), None)])
    assert store.load_all() == [_record("room0", created=50.0), _record()]


def test_every_change_is_read_back(store: Store) -> None:
    first = _record()
    game = GameRecord(number=2, deal=7, revealed=False, stage=Stage.PLAYING, deadline=900.0)
    started = dataclasses.replace(first, game=game, seq=10)
    played = dataclasses.replace(
        started, game=dataclasses.replace(game, steps=42, stop_step=40, finished=True), seq=230
    )
    ready = dataclasses.replace(played, game=dataclasses.replace(played.game, ready=(1,)))
    seats = (
        SeatRecord("Ann", None, False, "calm", True),
        SeatRecord("Ben", "cd" * 32, previous_token_hash="ef" * 32),
    )
    seated = dataclasses.replace(ready, seats=seats)  # only the seats change
    touched = dataclasses.replace(seated, last_active=555.0, seq=232)
    before: RoomRecord | None = None
    for record in (first, started, played, ready, seated, touched):
        store.apply([Write(record, before)])
        assert store.load_all() == [record]
        before = record


def test_flags_and_votes_are_stored(store: Store) -> None:
    first = _record(seats=(SeatRecord("Ann", "ab" * 32),) * 4)
    game = GameRecord(
        number=3,
        deal=9,
        revealed=True,
        stage=Stage.PLAYING,
        steps=12,
        ready=(0, 3),
        finish_votes=(1, 2, 3),
        rematch_votes=((0, "same"), (3, "new")),
    )
    last = _save_all(store, first, dataclasses.replace(first, game=game, seq=99))
    assert store.load_all() == [last]


def test_delete_forgets_the_room_and_its_seats(store: Store) -> None:
    store.apply([Write(_record(), None)])
    store.apply([Delete("room1")])
    store.apply([Delete("room1")])  # already gone: no error
    assert store.load_all() == []
    store.apply([Write(_record(), None)])  # the id and codes are free again
    assert len(store.load_all()) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"seq": 4},
        {"game": GameRecord(1, 1, False, stage=Stage.PLAYING)},
        {"seats": (SeatRecord("Ann", "ab" * 32), SeatRecord("Ben"))},
    ],
)
def test_a_change_to_an_unknown_room_raises(store: Store, change: dict[str, object]) -> None:
    before = _record("nope")
    with pytest.raises(StoreError, match="nope"):
        store.apply([Write(dataclasses.replace(before, **change), before)])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "other",
    [
        {"room_id": "room2"},
        {"player_code": "P2"},
        {"rules": engine.Rules(players=3)},
        {"minutes": 5},
    ],
)
def test_a_change_must_be_of_the_same_room(store: Store, other: dict[str, object]) -> None:
    before = _save_all(store, _record())
    with pytest.raises(StoreError, match="not a later state"):
        store.apply([Write(dataclasses.replace(before, seq=9, **other), before)])  # type: ignore[arg-type]
    assert store.load_all() == [before]


@pytest.mark.parametrize(
    "clash", [{"room_id": "room1"}, {"player_code": "Proom1"}, {"watch_code": "Wroom1"}]
)
def test_an_id_or_code_in_use_is_refused(store: Store, clash: dict[str, str]) -> None:
    store.apply([Write(_record(), None)])
    with pytest.raises(StoreError):
        store.apply([Write(dataclasses.replace(_record("room2"), **clash), None)])  # type: ignore[arg-type]
    assert len(store.load_all()) == 1


def test_sqlite_writes_only_what_changed(tmp_path: Path) -> None:
    """A step or a ready is one UPDATE of the room's row, committed by itself; a seat row
    is written only when that seat changed."""
    store = SqliteStore(tmp_path / "w.db")
    first = _save_all(store, _record())
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    step = dataclasses.replace(first, game=dataclasses.replace(first.game, steps=1), seq=4)
    store.apply([Write(step, first)])
    assert [sql.split(" SET")[0] for sql in statements] == ["UPDATE rooms"]
    statements.clear()
    ben = dataclasses.replace(step, seats=(step.seats[0], SeatRecord("Ben", "cd" * 32)), seq=5)
    store.apply([Write(ben, step)])
    assert [sql.split(" SET")[0] for sql in statements] == [
        "BEGIN IMMEDIATE",
        "UPDATE rooms",
        "UPDATE seats",
        "COMMIT",
    ]
    assert "WHERE room_id = 'room1' AND seat = 1" in statements[2]
    statements.clear()
    token = dataclasses.replace(ben, seats=(ben.seats[0], SeatRecord("Ben", "ef" * 32)))
    store.apply([Write(token, ben)])  # a new token, nothing else
    assert [sql.split(" SET")[0] for sql in statements] == ["UPDATE seats"]
    statements.clear()
    store.apply([Write(token, token)])  # nothing changed: nothing written
    assert statements == []
    store._db.set_trace_callback(None)
    assert store.load_all() == [token]
    store.close()


def test_a_full_disk_is_a_store_error_and_changes_nothing(tmp_path: Path) -> None:
    """SQLite's own "database or disk is full" (a page limit stands in for the disk)."""
    store = SqliteStore(tmp_path / "w.db")
    first = _save_all(store, _record())
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    crowd = [_record(f"room{n}", seats=(SeatRecord("x" * 200),) * 4) for n in range(100, 140)]
    saved: list[RoomRecord] = []
    with pytest.raises(StoreError, match="database or disk is full"):
        for record in crowd:
            store.apply([Write(record, None)])
            saved.append(record)
    assert store.load_all() == [first, *saved]  # not the room that did not fit
    step = dataclasses.replace(first, seq=first.seq + 1)
    store.apply([Write(step, first)])  # a change in place needs no new page
    store._db.execute(f"PRAGMA max_page_count = {pages * 1000}")  # room on the disk again
    store.apply([Write(crowd[-1], None)])
    assert store.load_all()[-1] == crowd[-1]
    store.close()


def test_sqlite_file_settings_and_parent_directory(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "war.sqlite3"
    store = SqliteStore(path)
    store.apply([Write(_record(), None)])
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    db.close()
    reopened = SqliteStore(path)
    assert reopened.load_all() == [_record()]
    checkpoint = reopened._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert checkpoint * PAGE_SIZE == WAL_CHECKPOINT_BYTES
    reopened.close()


def test_sqlite_refuses_an_unknown_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SqliteStore(path)


def test_a_committed_write_is_visible_to_another_connection_at_once(tmp_path: Path) -> None:
    """Committed means on disk for a kill -9: another process reads it without a close."""
    path = tmp_path / "w.db"
    store = SqliteStore(path)
    first = _save_all(store, _record())
    store.apply([Write(dataclasses.replace(first, game=GameRecord(1, 2, True, steps=17)), first)])
    other = SqliteStore(path)  # a second connection, as a restarted process would open
    assert other.load_all()[0].game.steps == 17
    other.close()
    store.close()


def test_reopening_the_file_rebuilds_identical_games(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    kit = RoomKit(store=SqliteStore(path))
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(face_down=3), deal=1234))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room = kit.room(ann)
    for _ in range(60):
        step = room.game.steps
        for peer in (ann, ben):
            if room.seat_of(peer.conn) in room.waiting_for():
                kit.send(peer, Ready(step=step))
    before = room.state(kit.now)
    assert before.step >= 60
    kit.store.close()

    again = RoomKit(store=SqliteStore(path), now=kit.now)
    rebuilt = again.hub.room(before.room)
    assert rebuilt is not None
    after = rebuilt.state(again.now)
    connected_off = tuple(dataclasses.replace(s, connected=False) for s in before.seats)
    assert after == dataclasses.replace(before, seats=connected_off)
    assert rebuilt.game.counts == room.game.counts
    assert rebuilt.game.table == room.game.table
    # and the next steps are the same steps
    assert rebuilt.game.step() == room.game.step()
    again.store.close()


# The layout of schema version 1, as the server wrote it before seats kept the previous
# token's hash (kept here verbatim: stores of that version exist and must keep working).
_SCHEMA_V1 = """
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
    PRIMARY KEY (room_id, seat)
) STRICT;
PRAGMA user_version = 1;
"""
_ANN, _BEN = "ann-token-" * 3, "ben-token-" * 3


def _as_0_1(rules: dict[str, object]) -> dict[str, object]:
    """Rules as versions up to 0.1 stored them: without ``fixed_order`` and ``both_short``."""
    return {key: value for key, value in rules.items() if key not in ("fixed_order", "both_short")}


def _v1_store(path: Path) -> None:
    """A version-1 file holding one 2-player room, 5 steps into its game."""
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V1)
    rules = json.dumps(_as_0_1(engine.Rules().to_dict()), sort_keys=True)
    db.execute(
        "INSERT INTO rooms VALUES (?, ?, ?, ?, NULL, 10.0, 20.0, 12, 1, ?, 1, 1, 5, NULL, 0, NULL)",
        ("oldroom", "PCODE", "WCODE", rules, str(2**64 - 2)),
    )
    for seat, (name, token) in enumerate((("Ann", _ANN), ("Ben", _BEN))):
        db.execute(
            "INSERT INTO seats VALUES ('oldroom', ?, ?, ?, 0, 'off', 0)",
            (seat, name, hash_token(token)),
        )
    db.commit()
    db.close()


def test_a_version_1_store_is_migrated_and_keeps_working(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _v1_store(path)
    store = SqliteStore(path)
    (record,) = store.load_all()
    assert record.seats == (
        SeatRecord("Ann", hash_token(_ANN)),
        SeatRecord("Ben", hash_token(_BEN)),
    )
    assert (record.game.steps, record.game.deal, record.seq) == (5, 2**64 - 2, 12)
    store.close()
    assert _layout(path) == _layout(tmp_path / "fresh.db")

    # a server on the migrated file: the seats resume with their version-1 tokens
    kit = RoomKit(store=SqliteStore(path), now=100.0)
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, ResumeSeat(room="oldroom", token=_ANN))
    kit.send(ben, ResumeSeat(room="oldroom", token=_BEN))
    assert (ann.welcome.seat, ben.welcome.seat) == (0, 1)
    assert ann.welcome.state.step == 5
    for peer in (ann, ben):
        kit.send(peer, Ready(step=5))
    assert kit.room(ann).game.steps == 6
    kit.store.close()
    reopened = SqliteStore(path)  # the current version now: opened as it is
    (record,) = reopened.load_all()
    assert record.game.steps == 6
    assert record.seats[1].token_hash == hash_token(ben.welcome.token or "")
    reopened.close()


def test_a_failed_migration_leaves_the_version_1_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _v1_store(path)
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE seats ADD COLUMN previous_token_hash TEXT")  # in the way
    db.commit()
    db.close()
    with pytest.raises(
        StoreError, match=f"from schema version 1 to {SCHEMA_VERSION}: duplicate column"
    ):
        SqliteStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def _layout(path: Path) -> tuple[int, list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The schema version and the columns (name, type, not null, default) of a store's
    tables; a fresh store is made at ``path`` if there is none."""
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    rooms, seats = (
        [row[1:5] for row in db.execute(f"PRAGMA table_info({table})")]
        for table in ("rooms", "seats")
    )
    db.close()
    return version, rooms, seats


# Schema version 2, as the server wrote it before ready flags and votes were stored (kept
# verbatim: stores of that version exist and must keep working).
_SCHEMA_V2 = _SCHEMA_V1.replace(
    "    left_room   INTEGER NOT NULL,\n",
    "    left_room   INTEGER NOT NULL,\n    previous_token_hash TEXT,\n",
).replace("PRAGMA user_version = 1;", "PRAGMA user_version = 2;")
_CY = "cy-token-" * 4


def _old_store(path: Path, version: int) -> None:
    """A file of schema ``version`` (2, or 3: the normalized-code indexes added): a 3-player
    room 7 steps into its game (seq 30), Ben's seat resumed with an unconfirmed token, Cy
    on quick auto-play."""
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V2)
    if version == 3:
        for statement in CODES_UNIQUE:
            db.execute(statement)
        db.execute("PRAGMA user_version = 3")
    rules = json.dumps(_as_0_1(engine.Rules(players=3).to_dict()), sort_keys=True)
    db.execute(
        "INSERT INTO rooms VALUES (?, ?, ?, ?, NULL, 10.0, 20.0, 30, 1, '4242', 0, 1, 7, NULL, "
        "0, NULL)",
        ("room2", "PCODE-2", "WCODE-2", rules),
    )
    seats = [
        ("Ann", hash_token(_ANN), "off", None),
        ("Ben", hash_token(_BEN), "off", hash_token("ben-before-" * 3)),
        ("Cy", hash_token(_CY), "quick", None),
    ]
    for seat, (name, token_hash, auto, previous) in enumerate(seats):
        db.execute(
            "INSERT INTO seats VALUES ('room2', ?, ?, ?, 0, ?, 0, ?)",
            (seat, name, token_hash, auto, previous),
        )
    db.commit()
    db.close()


@pytest.mark.parametrize("version", [2, 3])
def test_an_older_store_is_migrated_and_its_flags_survive_from_then_on(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / f"v{version}.db"
    _old_store(path, version)
    store = SqliteStore(path)
    (record,) = store.load_all()
    store.close()
    assert record.game == GameRecord(
        number=1, deal=4242, revealed=False, stage=Stage.PLAYING, steps=7
    )
    assert record.seats == (
        SeatRecord("Ann", hash_token(_ANN)),
        SeatRecord("Ben", hash_token(_BEN), previous_token_hash=hash_token("ben-before-" * 3)),
        SeatRecord("Cy", hash_token(_CY), auto="quick"),
    )
    assert record.seq == 30
    assert _layout(path) == _layout(tmp_path / "fresh.db")

    # a server on the migrated file: Ann readies, the server is killed (-9), and her
    # ready is still there after the restart; seq goes on from where it was
    kit = RoomKit(store=SqliteStore(path), now=100.0)
    ann, ben = kit.resume("room2", _ANN), kit.resume("room2", _BEN)
    assert ann.welcome.state.step == 7
    assert ann.welcome.seq >= 30
    kit.send(ann, Ready(step=7))
    assert kit.room(ann).state(kit.now).seats[0].ready
    last_seq = ann.inbox[-1].seq  # type: ignore[union-attr]
    again = RoomKit(store=SqliteStore(path), now=kit.now + 1)
    room = again.hub.room("room2")
    assert room is not None
    assert room.state(again.now).seats[0].ready
    assert room.waiting_for() == (1, 2)
    assert room.seq >= last_seq
    ben2 = again.come_back(ben)
    assert ben2.welcome.seq >= last_seq
    again.send(ben2, Ready(step=7))
    again.advance(1)  # Cy's quick auto-play
    assert room.game.steps == 8
    again.store.close()


# --- codes are unique in the form the hub compares them in ------------------------------
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"player_code": "K7MX-QD4R"}, {"player_code": "k7mxqd4r"}),
        ({"watch_code": "ABCD-EFGH"}, {"watch_code": "abcd-efgh"}),
        ({"player_code": "K7MX-QD4R"}, {"watch_code": "K7MXQD4R"}),
        ({"watch_code": "ABCD-EFGH"}, {"player_code": "ab-cd-ef-gh"}),
    ],
)
def test_a_code_taken_in_another_form_is_refused(
    store: Store, first: dict[str, str], second: dict[str, str]
) -> None:
    store.apply([Write(_record("room1", **first), None)])
    with pytest.raises(StoreError):
        store.apply([Write(_record("room2", **second), None)])
    assert [r.room_id for r in store.load_all()] == ["room1"]


def test_a_room_whose_two_codes_are_one_is_refused(store: Store) -> None:
    with pytest.raises(StoreError):
        store.apply([Write(_record(player_code="K7MX-QD4R", watch_code="k7mxqd4r"), None)])
    assert store.load_all() == []


def test_different_codes_are_all_accepted(store: Store) -> None:
    store.apply([Write(_record("room1", player_code="K7MX-QD4R", watch_code="ABCD-EFGH"), None)])
    store.apply([Write(_record("room2", player_code="K7MX-QD4S", watch_code="ABCD-EFGJ"), None)])
    assert len(store.load_all()) == 2


@given(st.from_regex(r"[A-Za-z0-9-]{4,32}", fullmatch=True))
def test_sqlite_normalizes_codes_as_normalize_code_does(code: str) -> None:
    """The SQL of the unique indexes is `normalize_code`, for every code the wire allows."""
    db = sqlite3.connect(":memory:")
    (normal,) = db.execute("SELECT upper(replace(?, '-', ''))", (code,)).fetchone()
    db.close()
    assert normal == normalize_code(code)


def _v2_store_with_twin_codes(path: Path) -> None:
    """A version-2 file holding two rooms whose codes differ only in case and hyphens, as
    a version-2 server's store may (it never wrote such)."""
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V2)
    rules = json.dumps(_as_0_1(engine.Rules().to_dict()), sort_keys=True)
    for room_id, code in (("room1", "K7MX-QD4R"), ("room2", "k7mxqd4r")):
        db.execute(
            "INSERT INTO rooms VALUES (?, ?, ?, ?, NULL, 10.0, 20.0, 0, 1, '7', 0, 0, 0, NULL, "
            "0, NULL)",
            (room_id, code, f"W-{room_id}", rules),
        )
    db.commit()
    db.close()


def test_a_version_2_store_is_migrated_to_normalized_codes(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    _v2_store_with_twin_codes(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM rooms WHERE room_id = 'room2'")
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert [r.room_id for r in store.load_all()] == ["room1"]
    with pytest.raises(StoreError):
        store.apply([Write(_record("room3", player_code="k7mx-qd4r"), None)])
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_a_failed_migration_leaves_the_version_2_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    _v2_store_with_twin_codes(path)
    with pytest.raises(
        StoreError, match=f"from schema version 2 to {SCHEMA_VERSION}: UNIQUE constraint"
    ):
        SqliteStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM rooms").fetchone()[0] == 2
    db.close()


_OLD = {"fixed_order": "seat0", "both_short": "end"}


def _v4_store(path: Path, rules: dict[str, object]) -> None:
    """A version-4 file (version 3 with the ready flags and the votes) holding room ``r4``
    with ``rules`` as stored."""
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V2)
    for statement in (
        *CODES_UNIQUE,
        "ALTER TABLE rooms ADD COLUMN ready INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN finish_votes INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN rematch_votes TEXT NOT NULL DEFAULT '[]'",
        "PRAGMA user_version = 4",
    ):
        db.execute(statement)
    db.execute(
        "INSERT INTO rooms (room_id, player_code, watch_code, rules, minutes, created, "
        "last_active, seq, game_number, deal, revealed, started, steps, stop_step, finished, "
        "deadline) VALUES ('r4', 'PC4', 'WC4', ?, NULL, 1.0, 2.0, 0, 1, '7', 0, 0, 0, NULL, 0, "
        "NULL)",
        (json.dumps(rules, sort_keys=True),),
    )
    db.execute("INSERT INTO seats VALUES ('r4', 0, 'Ann', NULL, 0, 'off', 0, NULL)")
    db.commit()
    db.close()


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_rooms_stored_before_version_5_keep_the_rules_they_were_played_by(
    tmp_path: Path, version: int
) -> None:
    """Versions up to 0.1 played fixed returns from seat 0 and ended a game when everyone
    in a war ran short: the migration writes those values into every stored room, whatever
    else its rules say; a room created afterwards gets today's defaults."""
    path = tmp_path / f"v{version}.db"
    if version == 1:
        _v1_store(path)
    elif version == 4:
        _v4_store(path, {"players": 4, "won_cards": "fixed", "round_limit": 50})
    else:
        _old_store(path, version)
    store = SqliteStore(path)
    (old,) = store.load_all()
    assert old.rules == engine.Rules.from_dict({**_rules_as_stored(path, old.room_id), **_OLD})
    assert (old.rules.fixed_order, old.rules.both_short) == (
        engine.FixedOrder.SEAT0,
        engine.BothShort.END,
    )
    new = _record("new", rules=engine.Rules(players=3, won_cards=engine.WonCards.FIXED))
    store.apply([Write(new, None)])
    store.close()
    reopened = SqliteStore(path)  # version 5 now: opened as it is, nothing rewritten
    rules = {record.room_id: record.rules for record in reopened.load_all()}
    reopened.close()
    assert rules[old.room_id] == old.rules
    assert (rules["new"].fixed_order, rules["new"].both_short) == (
        engine.FixedOrder.WINNER,
        engine.BothShort.PLAY_ON,
    )


def _rules_as_stored(path: Path, room_id: str) -> dict[str, object]:
    """The rules JSON of a stored room, without the two settings the migration sets."""
    db = sqlite3.connect(path)
    (text,) = db.execute("SELECT rules FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
    db.close()
    data: dict[str, object] = json.loads(text)
    return {key: value for key, value in data.items() if key not in _OLD}


def test_a_batch_is_stored_all_or_nothing(store: Store) -> None:
    """Group commit: the changes of one `apply` become durable together, or none of them
    (here the last one clashes, and the step and the new room before it are not stored)."""
    first = _save_all(store, _record())
    step = dataclasses.replace(first, seq=first.seq + 1)
    other = _record("room2", created=200.0)
    clash = _record("room3", created=300.0, player_code=other.watch_code)
    with pytest.raises(StoreError):
        store.apply([Write(step, first), Write(other, None), Write(clash, None)])
    assert store.load_all() == [first]
    store.apply([Write(step, first), Write(other, None), Delete("room9")])
    assert store.load_all() == [step, other]


def test_a_batch_is_one_transaction(tmp_path: Path) -> None:
    """Many changes, one ``BEGIN IMMEDIATE`` … ``COMMIT``: one commit for the batch."""
    store = SqliteStore(tmp_path / "w.db")
    first = _save_all(store, _record())
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    step = dataclasses.replace(first, seq=first.seq + 1)
    store.apply([Write(step, first), Write(_record("room2"), None), Delete("room1")])
    store._db.set_trace_callback(None)
    assert statements[0] == "BEGIN IMMEDIATE"
    assert statements[-1] == "COMMIT"
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 1
    assert store.load_all() == [_record("room2")]
    store.close()


def test_a_full_disk_in_a_batch_stores_none_of_it(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" in the middle of a batch: nothing of it, before
    or after the write that did not fit, is stored, and the store takes writes again once
    there is room."""
    store = SqliteStore(tmp_path / "w.db")
    first = _save_all(store, _record())
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    step = dataclasses.replace(first, seq=first.seq + 1)
    crowd = [_record(f"room{n}", seats=(SeatRecord("x" * 200),) * 4) for n in range(100, 140)]
    later = dataclasses.replace(step, seq=step.seq + 1)
    batch = [Write(step, first), *(Write(record, None) for record in crowd), Write(later, step)]
    with pytest.raises(StoreError, match="database or disk is full"):
        store.apply(batch)
    assert store.load_all() == [first]
    store.apply([Write(step, first)])  # a change in place needs no new page
    store._db.execute(f"PRAGMA max_page_count = {pages * 1000}")
    store.apply(batch[1:])
    assert store.load_all() == [later, *crowd]
    store.close()


def test_displaced_tokens_are_stored_changed_and_dropped(store: Store) -> None:
    first = DisplacedRecord(1, "cd" * 32, None, 700.5, by=0)
    second = DisplacedRecord(1, "ef" * 32, "01" * 32, 900.25)
    saved = _save_all(store, _record(), _record(displaced=(first,)))
    assert store.load_all() == [saved]
    later = _record(displaced=(first, second))
    store.apply([Write(later, saved)])
    assert store.load_all()[0].displaced == (first, second)
    store.apply([Write(_record(displaced=(second,)), later)])
    assert store.load_all()[0].displaced == (second,)
    store.apply([Delete("room1")])
    assert store.load_all() == []


def test_a_new_room_s_displaced_rows_go_with_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "w.db")
    displaced = (DisplacedRecord(0, "cd" * 32, None, 700.5),)
    store.apply([Write(_record(displaced=displaced), None)])
    assert store.load_all()[0].displaced == displaced
    store.apply([Delete("room1")])
    store.close()
    db = sqlite3.connect(tmp_path / "w.db")
    assert db.execute("SELECT count(*) FROM displaced").fetchone()[0] == 0
    db.close()


def test_a_ready_or_a_step_writes_four_columns_anything_else_the_row(tmp_path: Path) -> None:
    """`UPDATE_PLAY` for a change of the steps and ready flags alone; the whole row for
    any other change of the game (a vote, the stage, the deadline), and each reads back."""
    store = SqliteStore(tmp_path / "w.db")
    first = _save_all(store, _record())
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)

    def play(record: RoomRecord, **game: Any) -> RoomRecord:
        changed = dataclasses.replace(record, game=dataclasses.replace(record.game, **game))
        changed = dataclasses.replace(changed, seq=record.seq + 1, last_active=record.seq + 9.5)
        statements.clear()
        store.apply([Write(changed, record)])
        written[:] = statements
        assert store.load_all() == [changed]
        return changed

    written: list[str] = []
    ready = play(first, ready=(1,))
    assert written == [
        f"UPDATE rooms SET last_active = {ready.last_active}, seq = {ready.seq}, steps = 0, "
        "ready = 2 WHERE room_id = 'room1'"
    ]
    step = play(ready, ready=(), steps=1)
    assert len(written) == 1 and ", steps = 1, ready = 0 WHERE" in written[0]
    for change in (
        {"finish_votes": (0,)},
        {"deadline": 1234.5},
        {"rematch_votes": ((0, "new"),), "steps": 2},
        {"stop_step": 1},
    ):
        step = play(step, **change)
        assert len(written) == 1 and "finish_votes = " in written[0], change
    store._db.set_trace_callback(None)
    store.close()
