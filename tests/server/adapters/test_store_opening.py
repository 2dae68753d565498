"""Opening the store: new stores are private and made whole or not at all; a damaged,
empty or foreign file is refused with one line and left as it was; one bad room is
skipped, not fatal; `StoreLock` keeps a second server off the same store."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from server import engine
from server.adapters.store import schema as _schema
from server.adapters.store.sqlite import SqliteStore, StoreLock
from server.core.hub.hub import Hub
from server.core.room.actions import Write
from server.core.room.records import GameRecord, RoomRecord, SeatRecord
from server.core.settings import HubSettings
from server.errors import StoreError


def _record(room_id: str, **changes: object) -> RoomRecord:
    record = RoomRecord(
        room_id=room_id,
        player_code=f"P{room_id}",
        watch_code=f"W{room_id}",
        rules=engine.Rules(),
        minutes=None,
        seats=(SeatRecord("Ann", "ab" * 32), SeatRecord()),
        game=GameRecord(number=1, deal=7, revealed=False),
        created=100.0,
        last_active=100.0,
    )
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """A umask that would make files readable by everyone (a common default)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- new stores ----------------------------------------------------------------------------
@pytest.mark.usefixtures("loose_umask")
def test_a_new_store_and_its_wal_and_shm_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    store.apply([Write(_record("room1"), None)])
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    assert wal.exists()
    assert shm.exists()
    assert (_mode(path), _mode(wal), _mode(shm)) == (0o600, 0o600, 0o600)
    store.close()


def test_a_store_that_fails_to_be_made_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "war.sqlite3"
    monkeypatch.setattr(_schema, "SCHEMA", "CREATE TABLE broken (")
    with pytest.raises(sqlite3.Error):
        SqliteStore(path)
    assert list(tmp_path.iterdir()) == []  # neither the store nor a half-made one


def test_a_new_store_opens_again_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    SqliteStore(path).close()
    assert path.stat().st_size > 0
    again = SqliteStore(path)
    assert again.load_all() == []
    again.close()


# --- files that are not a store, or no longer one ------------------------------------------
def _refused(path: Path) -> str:
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        SqliteStore(path)
    assert path.read_bytes() == before, "a refused store must be left as it was"
    message = str(refused.value)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_an_empty_file_is_refused_not_started_empty(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    path.write_bytes(b"")
    message = _refused(path)
    assert "empty" in message
    assert "restore a backup" in message


def test_a_garbage_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    path.write_bytes(os.urandom(8192))
    assert "not a War store" in _refused(path)


def test_a_truncated_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    for n in range(300):
        store.apply([Write(_record(f"room{n}", watch_code=f"W{n}{'x' * 30}"), None)])
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert "restore a backup" in _refused(path)


def test_another_programs_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (name TEXT)")
    db.commit()
    db.close()
    assert "not a War store" in _refused(path)


def test_a_wal_without_its_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    Path(f"{path}-wal").write_bytes(b"x" * 100)
    with pytest.raises(StoreError, match="-wal"):
        SqliteStore(path)
    assert not path.exists()


# --- one bad room ---------------------------------------------------------------------------
def _damage(path: Path, room_id: str, column: str, value: str) -> None:
    db = sqlite3.connect(path)
    db.execute(f"UPDATE rooms SET {column} = ? WHERE room_id = ?", (value, room_id))
    db.commit()
    db.close()


def test_a_room_that_does_not_parse_is_skipped_logged_and_keeps_its_codes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    for room_id in ("good", "badjson", "baddeal"):
        store.apply([Write(_record(room_id), None)])
    store.close()
    _damage(path, "badjson", "rules", "{not json")
    _damage(path, "baddeal", "deal", "seven")
    store = SqliteStore(path)
    with capture_logs() as logs:
        loaded = store.load_all()
    assert [r.room_id for r in loaded] == ["good"]
    skipped = [e for e in logs if e["event"] == "room_not_loaded"]
    assert sorted(e["room"] for e in skipped) == ["baddeal", "badjson"]
    assert all(e["log_level"] == "error" for e in skipped)
    # the skipped rooms stay in the file; their id and codes are never given again
    fresh = _record("fresh")
    for clash in ({"room_id": "badjson"}, {"player_code": "Pbaddeal"}, {"watch_code": "Wbadjson"}):
        with pytest.raises(StoreError):
            store.apply([Write(dataclasses.replace(fresh, **clash), None)])  # type: ignore[arg-type]
    store.close()


def test_a_hub_starts_with_the_rooms_that_load(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    store.apply([Write(_record("good"), None)])
    store.apply([Write(_record("bad"), None)])
    store.close()
    _damage(path, "bad", "rules", "[")
    store = SqliteStore(path)
    hub = Hub(store.load_all(), HubSettings(), now=200.0)
    assert hub.rooms == 1
    store.close()


# --- the lock ------------------------------------------------------------------------------
def test_a_second_lock_on_the_same_store_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    first = StoreLock(path)
    with pytest.raises(StoreError) as refused:
        StoreLock(path)
    message = str(refused.value)
    assert "\n" not in message
    assert str(path) in message
    assert f"process {os.getpid()}" in message
    first.release()
    StoreLock(path).release()  # free again once released
    assert _mode(Path(f"{path}.lock")) == 0o600
