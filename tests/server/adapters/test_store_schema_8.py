"""A store of schema 8 opens with the table of displaced tokens (schema 9), and its rooms
come back as they were and play on.

``stored_schema_8/store.sqlite3`` was written by the room core of schema 8
(``stored_schema_8/make.py``): a room whose seat was taken over on another device, one that
talked under a fair deal, one with an evening. Schema 8 kept the tokens of the device a
seat was taken from in memory only, so the migration has none to add: that device's way
back ended with that server (it gets ``bad_token``, as it did), while every seat's own
token resumes it. ``expected.json`` holds what each room was then and its seats' tokens.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from protocol import JoinRoom, ResumeSeat
from protocol.seat_requests import AnswerSeatRequest
from server.adapters.store.schema import SCHEMA_VERSION
from server.adapters.store.sqlite import SqliteStore
from server.core.room.phases import Stage
from tests.server.core._roomkit import Peer, RoomKit

FIXTURE = Path(__file__).parent / "stored_schema_8"


def _rooms() -> dict[str, dict[str, Any]]:
    data = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    return {room["label"]: room for room in data["rooms"]}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    copy = tmp_path / "store.sqlite3"
    shutil.copyfile(FIXTURE / "store.sqlite3", copy)
    return copy


def _tables(path: Path, uri: bool = False) -> tuple[int, set[str]]:
    db = sqlite3.connect(f"file:{path}?immutable=1" if uri else path, uri=uri)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.close()
    return version, tables


def test_the_fixture_is_a_store_of_schema_8_without_displaced_tokens() -> None:
    version, tables = _tables(FIXTURE / "store.sqlite3", uri=True)
    assert version == 8
    assert {"rooms", "seats", "talk", "evening"} <= tables
    assert "displaced" not in tables


def test_opening_adds_the_table_and_every_room_comes_back(path: Path) -> None:
    store = SqliteStore(path)
    records = {record.room_id: record for record in store.load_all()}
    store.close()
    version, tables = _tables(path)
    assert version == SCHEMA_VERSION == 9
    assert "displaced" in tables
    rooms = _rooms()
    assert set(records) == {room["room"] for room in rooms.values()}
    for label, room in rooms.items():
        record = records[room["room"]]
        assert record.displaced == (), label
        assert record.game.stage is Stage(room["stage"]), label
        assert record.seq == room["seq"], label
        assert [line.text or line.reaction for line in record.talk] == room["talk"], label
        assert [entry.game for entry in record.evening] == room["evening"], label


def _resumed(kit: RoomKit, room: dict[str, Any]) -> list[Peer]:
    peers = []
    for token in room["tokens"]:
        peer = kit.connect()
        kit.send(peer, ResumeSeat(room=room["room"], token=token))
        assert peer.closed is None, peer.errors()
        peers.append(peer)
    return peers


def test_their_people_resume_and_play_on(path: Path) -> None:
    kit = RoomKit(store=SqliteStore(path), now=3_000_000.0)
    rooms = _rooms()

    taken = rooms["taken"]
    ann, phone = _resumed(kit, taken)
    assert phone.welcome.seat == 1
    laptop = kit.connect()
    kit.send(laptop, ResumeSeat(room=taken["room"], token=taken["displaced"]))
    assert laptop.errors() == ["bad_token"]  # schema 8 kept no way back across a restart
    kit.drop(phone)  # and a takeover from now on is stored
    again = kit.connect("10.0.0.9")  # another household: Ann may answer it
    kit.send(again, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert kit.room(ann).record().displaced[0].seat == 1

    fair = rooms["fair"]
    ann, ben = _resumed(kit, fair)
    assert ann.welcome.state.deal_commitment == fair["commitment"]
    assert [line.text or line.reaction for line in ann.welcome.state.talk] == fair["talk"]

    evening = rooms["evening"]
    ann, ben = _resumed(kit, evening)
    assert [game.game for game in ann.welcome.state.evening] == evening["evening"]
    kit.play_round_robin([ann, ben], max_steps=5)
    assert kit.room(ann).game.steps == evening["steps"] + 5
    for peer in kit.peers.values():
        assert peer.gaps == []
    kit.store.close()
