"""The store: every write read back, both implementations, and a file that survives."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import CreateRoom, JoinRoom, Ready, ResumeSeat, RulesSpec
from server import engine
from server.adapters.store import SCHEMA_VERSION, SqliteStore
from server.core.codes import hash_token, normalize_code
from server.core.records import GameRecord, MemoryStore, RoomRecord, SeatRecord, Store
from server.errors import StoreError
from tests.server.core._roomkit import Bench


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


def test_create_and_load_round_trip(store: Store) -> None:
    store.create_room(_record())
    store.create_room(_record("room0", created=50.0))
    assert store.load_all() == [_record("room0", created=50.0), _record()]


def test_every_write_is_read_back(store: Store) -> None:
    store.create_room(_record())
    game = GameRecord(number=2, deal=7, revealed=False, started=True, deadline=900.0)
    store.record_game("room1", game, seq=10)
    store.record_steps("room1", 42, seq=200)
    store.record_stop("room1", 40)
    store.record_finish("room1", seq=230)
    seats = (
        SeatRecord("Ann", None, False, "calm", True),
        SeatRecord("Computer", None, True),
        SeatRecord("Ben", "cd" * 32, previous_token_hash="ef" * 32),
    )
    store.update_seats("room1", seats, seq=231)
    store.touch("room1", 555.0, seq=232)
    (loaded,) = store.load_all()
    assert loaded.game == dataclasses.replace(game, steps=42, stop_step=40, finished=True)
    assert loaded.seats == seats
    assert (loaded.last_active, loaded.seq) == (555.0, 232)


def test_delete_forgets_the_room_and_its_seats(store: Store) -> None:
    store.create_room(_record())
    store.delete_room("room1")
    store.delete_room("room1")  # already gone: no error
    assert store.load_all() == []
    store.create_room(_record())  # the id and codes are free again
    assert len(store.load_all()) == 1


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.record_steps("nope", 1, 1),
        lambda s: s.record_stop("nope", 1),
        lambda s: s.record_finish("nope", 1),
        lambda s: s.touch("nope", 1.0, 1),
        lambda s: s.update_seats("nope", (), 1),
        lambda s: s.record_game("nope", GameRecord(1, 1, False), 1),
    ],
)
def test_writes_to_an_unknown_room_raise(store: Store, write: object) -> None:
    with pytest.raises(StoreError, match="nope"):
        write(store)  # type: ignore[operator]


@pytest.mark.parametrize(
    "clash", [{"room_id": "room1"}, {"player_code": "Proom1"}, {"watch_code": "Wroom1"}]
)
def test_an_id_or_code_in_use_is_refused(store: Store, clash: dict[str, str]) -> None:
    store.create_room(_record())
    with pytest.raises(StoreError):
        store.create_room(dataclasses.replace(_record("room2"), **clash))  # type: ignore[arg-type]
    assert len(store.load_all()) == 1


def test_sqlite_file_settings_and_parent_directory(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "war.sqlite3"
    store = SqliteStore(path)
    store.create_room(_record())
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    reopened = SqliteStore(path)
    assert reopened.load_all() == [_record()]
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
    store.create_room(_record())
    store.record_steps("room1", 17, seq=90)
    other = SqliteStore(path)  # a second connection, as a restarted process would open
    assert other.load_all()[0].game.steps == 17
    other.close()
    store.close()


def test_reopening_the_file_rebuilds_identical_games(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    bench = Bench(store=SqliteStore(path))
    ann, ben = bench.connect(), bench.connect()
    bench.send(ann, CreateRoom(name="Ann", rules=RulesSpec(face_down=3), deal=1234))
    bench.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room = bench.room(ann)
    for _ in range(60):
        step = room.game.steps
        for peer in (ann, ben):
            if room.seat_of(peer.conn) in room.waiting_for():
                bench.send(peer, Ready(step=step))
    before = room.state(bench.now)
    assert before.step >= 60
    bench.hub.close()

    again = Bench(store=SqliteStore(path), now=bench.now)
    rebuilt = again.hub.room(before.room)
    assert rebuilt is not None
    after = rebuilt.state(again.now)
    connected_off = tuple(dataclasses.replace(s, connected=False) for s in before.seats)
    assert after == dataclasses.replace(before, seats=connected_off)
    assert rebuilt.game.counts == room.game.counts
    assert rebuilt.game.table == room.game.table
    # and the next steps are the same steps
    assert rebuilt.game.step() == room.game.step()
    again.hub.close()


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


def _v1_store(path: Path) -> None:
    """A version-1 file holding one 2-player room, 5 steps into its game."""
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_V1)
    rules = json.dumps(engine.Rules().to_dict(), sort_keys=True)
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
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    columns = [row[1] for row in db.execute("PRAGMA table_info(seats)")]
    db.close()
    assert columns[-1] == "previous_token_hash"

    # a server on the migrated file: the seats resume with their version-1 tokens
    bench = Bench(store=SqliteStore(path), now=100.0)
    ann, ben = bench.connect(), bench.connect()
    bench.send(ann, ResumeSeat(room="oldroom", token=_ANN))
    bench.send(ben, ResumeSeat(room="oldroom", token=_BEN))
    assert (ann.welcome.seat, ben.welcome.seat) == (0, 1)
    assert ann.welcome.state.step == 5
    for peer in (ann, ben):
        bench.send(peer, Ready(step=5))
    assert bench.room(ann).game.steps == 6
    bench.hub.close()
    reopened = SqliteStore(path)  # version 3 now: opened as it is
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
    with pytest.raises(StoreError, match="from schema version 1 to 3: duplicate column"):
        SqliteStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


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
    store.create_room(_record("room1", **first))
    with pytest.raises(StoreError):
        store.create_room(_record("room2", **second))
    assert [r.room_id for r in store.load_all()] == ["room1"]


def test_a_room_whose_two_codes_are_one_is_refused(store: Store) -> None:
    with pytest.raises(StoreError):
        store.create_room(_record(player_code="K7MX-QD4R", watch_code="k7mxqd4r"))
    assert store.load_all() == []


def test_different_codes_are_all_accepted(store: Store) -> None:
    store.create_room(_record("room1", player_code="K7MX-QD4R", watch_code="ABCD-EFGH"))
    store.create_room(_record("room2", player_code="K7MX-QD4S", watch_code="ABCD-EFGJ"))
    assert len(store.load_all()) == 2


@given(st.from_regex(r"[A-Za-z0-9-]{4,32}", fullmatch=True))
def test_sqlite_normalizes_codes_as_normalize_code_does(code: str) -> None:
    """The SQL of the unique indexes is `normalize_code`, for every code the wire allows."""
    db = sqlite3.connect(":memory:")
    (normal,) = db.execute("SELECT upper(replace(?, '-', ''))", (code,)).fetchone()
    db.close()
    assert normal == normalize_code(code)


def _v2_store(path: Path) -> None:
    """A version-2 file (no normalized-code indexes) holding two rooms whose codes differ
    only in case and hyphens, as a version-2 server's store may (it never wrote such)."""
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TRIGGER rooms_codes_distinct; DROP INDEX rooms_player_code_normal; "
        "DROP INDEX rooms_watch_code_normal; PRAGMA user_version = 2;"
    )
    rules = json.dumps(engine.Rules().to_dict(), sort_keys=True)
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
    _v2_store(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM rooms WHERE room_id = 'room2'")
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert [r.room_id for r in store.load_all()] == ["room1"]
    with pytest.raises(StoreError):
        store.create_room(_record("room3", player_code="k7mx-qd4r"))
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    db.close()


def test_a_failed_migration_leaves_the_version_2_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    _v2_store(path)
    with pytest.raises(StoreError, match="from schema version 2 to 3: UNIQUE constraint"):
        SqliteStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM rooms").fetchone()[0] == 2
    db.close()
