"""Schema 7: a 0.2 store and a store of schema 6 open with the talk setting, the talk and
the evening tables; a room's talk and evening survive a reopening and go with the room."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from protocol import React, Reaction, Say, TalkSetting, VoteFinish
from server.adapters.store.schema import SCHEMA_VERSION
from server.adapters.store.sqlite import SqliteStore
from tests.server.core._roomkit import RoomKit, seated

FIXTURE = Path(__file__).parent / "stored_0_2" / "store.sqlite3"


def _tables(path: Path) -> tuple[int, set[str], list[str]]:
    db = sqlite3.connect(path)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    columns = [row[1] for row in db.execute("PRAGMA table_info(rooms)")]
    db.close()
    return version, tables, columns


def test_a_0_2_store_opens_with_talk_and_evening(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    shutil.copyfile(FIXTURE, path)
    store = SqliteStore(path)
    records = store.load_all()
    store.close()
    assert records
    for record in records:
        assert (record.talk_setting, record.talk, record.evening) == ("players", (), ())
    version, tables, columns = _tables(path)
    assert version == SCHEMA_VERSION == 9
    assert {"talk", "evening"} <= tables
    assert columns[-2:] == ["talk", "fairness"]  # added in the order of the migrations


def _as_schema_6(path: Path) -> None:
    """Take a new store back to the layout of schema 6 (no talk column, no talk tables,
    no fairness column, no displaced table)."""
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE displaced; DROP TABLE talk; DROP TABLE evening;"
        "ALTER TABLE rooms DROP COLUMN fairness;"
        "ALTER TABLE rooms DROP COLUMN talk; PRAGMA user_version = 6;"
    )
    db.close()


def test_a_schema_6_store_opens_and_its_rooms_play_and_talk_on(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    kit = RoomKit(store=store)
    ann, _ = seated(kit)
    store.close()
    _as_schema_6(path)
    reopened = SqliteStore(path)
    (record,) = reopened.load_all()
    assert record.talk_setting == TalkSetting.PLAYERS.value
    later = RoomKit(store=reopened)
    back = later.come_back(ann)
    later.send(back, Say(text="we are back"))
    later.send(back, React(reaction=Reaction.PARTY))
    reopened.close()
    third = SqliteStore(path)
    (record,) = third.load_all()
    third.close()
    assert [(line.text, line.reaction) for line in record.talk] == [
        ("we are back", None),
        (None, "party"),
    ]
    assert _tables(path)[0] == SCHEMA_VERSION


def test_the_evening_is_stored_once_per_game_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    store = SqliteStore(path)
    kit = RoomKit(store=store)
    ann, ben = seated(kit, deal=11)
    kit.send(ann, VoteFinish())
    kit.send(ben, VoteFinish())
    kit.run_until(kit.now + 5, stop=lambda: kit.room(ann).phase == "over")
    store.close()
    db = sqlite3.connect(path)
    rows = db.execute("SELECT game, deal, names FROM evening").fetchall()
    db.close()
    assert rows == [(1, "11", '["Ann", "P1"]')]
    again = SqliteStore(path)
    later = RoomKit(store=again)
    back = later.come_back(ben)
    assert [entry.game for entry in back.welcome.state.evening] == [1]
    assert back.welcome.state.talk == ()

    again.close()
