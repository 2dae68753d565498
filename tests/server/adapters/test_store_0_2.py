"""A store written by release 0.2 opens with each room's stage worked out, and its people
play on.

``stored_0_2/store.sqlite3`` was written by 0.2's own room core (``stored_0_2/make.py``),
schema 5, which stored no stage: 0.2 worked it out from the record's flags and the
replayed game. Opening it migrates it (schema 6): the stage is stored, derived from the
flags and, for a game that had started and was not played out, from its replay; a room
stored in the middle of a finish vote's play-out is over (its record says finished, and
a restart plays the rest out at once, as 0.2 did). ``expected.json`` holds what each room
was at the table then, and its seats' tokens.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from protocol import JoinRoom, Ready, Rematch, RematchDeal, ResumeSeat, RoomPhase
from server import engine
from server.adapters.store.schema import SCHEMA_VERSION
from server.adapters.store.sqlite import SqliteStore
from server.core.room.actions import Write
from server.core.room.phases import Stage
from tests.server.core._roomkit import Peer, RoomKit

FIXTURE = Path(__file__).parent / "stored_0_2"
# what a restart makes of each stage 0.2 had in memory
AFTER_RESTART = {"waiting": "waiting", "playing": "playing", "finishing": "over", "over": "over"}


def _rooms() -> dict[str, dict[str, Any]]:
    data = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    return {room["label"]: room for room in data["rooms"]}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    copy = tmp_path / "store.sqlite3"
    shutil.copyfile(FIXTURE / "store.sqlite3", copy)
    return copy


def test_the_fixture_is_a_0_2_store_without_stages() -> None:
    db = sqlite3.connect(f"file:{FIXTURE / 'store.sqlite3'}?immutable=1", uri=True)
    columns = [row[1] for row in db.execute("PRAGMA table_info(rooms)")]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    assert version == 5
    assert "stage" not in columns and "started" in columns


def test_opening_stores_every_room_s_stage(path: Path) -> None:
    store = SqliteStore(path)
    records = {record.room_id: record for record in store.load_all()}
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    stored = dict(db.execute("SELECT room_id, stage FROM rooms").fetchall())
    columns = [row[1] for row in db.execute("PRAGMA table_info(rooms)")]
    db.close()
    assert "started" not in columns
    rooms = _rooms()
    assert set(records) == {room["room"] for room in rooms.values()}
    for label, room in rooms.items():
        assert stored[room["room"]] == AFTER_RESTART[room["stage"]], label
        game = records[room["room"]].game
        assert game.stage is Stage(AFTER_RESTART[room["stage"]]), label
        assert (game.finished, game.stop_step) == (room["finished"], room["stop_step"]), label
        if not room["finished"]:  # else 0.2 counted the steps played out; a record does not
            assert game.steps == room["steps"], label
        assert list(game.ready) == room["ready"], label
        assert list(game.finish_votes) == room["finish_votes"], label
        assert [list(vote) for vote in game.rematch_votes] == room["rematch_votes"], label


def test_every_room_comes_back_where_it_was(path: Path) -> None:
    kit = RoomKit(store=SqliteStore(path), now=3_000_000.0)
    for label, room in _rooms().items():
        rebuilt = kit.hub.room(room["room"])
        assert rebuilt is not None, label
        assert rebuilt.stage is Stage(AFTER_RESTART[room["stage"]]), label
        assert rebuilt.seq == room["seq"], label
        assert rebuilt.game_record.number == room["game"], label
        if label == "finishing":  # the play-out was finished by the restart
            assert rebuilt.game.outcome is not None
            assert rebuilt.game.steps > room["steps"]
            continue
        assert rebuilt.game.steps == room["steps"], label
        assert list(rebuilt.game.counts) == room["counts"], label
    kit.store.close()


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

    waiting = rooms["waiting"]
    _resumed(kit, waiting)
    cy = kit.connect()
    kit.send(cy, JoinRoom(code=_player_code(kit, waiting), name="Cy"))
    assert kit.room(cy).stage is Stage.PLAYING

    playing = rooms["playing"]
    ann, ben = _resumed(kit, playing)
    assert ann.welcome.state.seats[0].ready  # Ann's ready of 0.2 still stands
    kit.send(ben, Ready(step=30))
    assert kit.room(ann).game.steps == 31

    over = rooms["over"]
    ann, ben = _resumed(kit, over)
    assert ann.welcome.state.phase is RoomPhase.OVER
    kit.send(ben, Rematch(deal=RematchDeal.SAME))  # Ann's vote of 0.2 still stands
    room = kit.room(ann)
    assert (room.stage, room.game_record.number) == (Stage.PLAYING, 2)

    rematched = rooms["rematched"]
    peers = _resumed(kit, rematched)
    kit.play_round_robin(peers)
    assert kit.room(peers[0]).stage is Stage.OVER
    for peer in kit.peers.values():
        assert peer.gaps == []
    kit.store.close()


def _player_code(kit: RoomKit, room: dict[str, Any]) -> str:
    """The player code of ``room`` (stored: the fixture keeps only the tokens)."""
    rebuilt = kit.hub.room(room["room"])
    assert rebuilt is not None
    return rebuilt.player_code


def test_its_rooms_take_cards_back_as_laid_and_today_s_as_won(path: Path) -> None:
    """0.2 stored every rule setting of its day, and ``taken_back`` came later: a room's
    rules without the key are read as the rule its games were played by (``as_laid``,
    ``Rules.from_dict``), so no migration is needed; a room created today is stored with
    ``as_won`` (docs/rules.md, "Changing a rule")."""
    store = SqliteStore(path)
    old = store.load_all()
    assert old and {record.rules.taken_back for record in old} == {engine.TakenBack.AS_LAID}
    new = dataclasses.replace(
        old[0],
        room_id="new",
        player_code="NEWP-CODE",
        watch_code="NEWW-CODE",
        rules=dataclasses.replace(old[0].rules, taken_back=engine.TakenBack.AS_WON),
    )
    store.apply([Write(new, None)])
    store.close()
    db = sqlite3.connect(path)
    stored = dict(db.execute("SELECT room_id, rules FROM rooms").fetchall())
    db.close()
    assert json.loads(stored["new"])["taken_back"] == "as_won"
    assert all("taken_back" not in json.loads(text) for key, text in stored.items() if key != "new")
