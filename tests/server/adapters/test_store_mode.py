"""A store, -wal or -shm file that other users may read is made 0600 at start, with a
warning saying so; one that is already 0600 is left alone, without a word."""

from __future__ import annotations

import stat
from pathlib import Path

from structlog.testing import capture_logs

from server.adapters.serving import open_store
from server.adapters.settings.config import Settings


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_store_readable_by_others_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    open_store(Settings(db=db)).close()
    for suffix in ("", "-wal", "-shm"):
        file = db.with_name(db.name + suffix)
        file.touch()
        file.chmod(0o644)  # as `cp` from a backup leaves it
    with capture_logs() as logs:
        store = open_store(Settings(db=db))
    try:
        lines = [entry for entry in logs if entry["event"] == "store_mode_tightened"]
        assert sorted(entry["file"] for entry in lines) == sorted(
            str(db.with_name(db.name + suffix)) for suffix in ("", "-wal", "-shm")
        )
        assert {entry["was"] for entry in lines} == {"0o644"}
        for suffix in ("", "-wal", "-shm"):
            assert mode(db.with_name(db.name + suffix)) == 0o600
    finally:
        store.close()


def test_a_private_store_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    open_store(Settings(db=db)).close()
    db.chmod(0o600)
    with capture_logs() as logs:
        open_store(Settings(db=db)).close()
    assert [entry for entry in logs if entry["event"].startswith("store_mode")] == []
    assert mode(db) == 0o600
