"""The way back survives a restart: the token hashes of a device whose seat was taken are
stored with the room (hashes, never tokens), their deadline is wall-clock time, and they
are dropped a day after it. A new Hub on the same SQLite file, on the fake clock."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import structlog
from structlog.testing import capture_logs

from protocol import CloseCode, JoinRoom, ResumeSeat
from protocol.seat_requests import AnswerSeatRequest
from server.adapters.store.sqlite import SqliteStore
from server.core.codes import hash_token
from server.core.hub.hub import Hub
from server.core.room.actions import Delete, Write
from server.core.room.records import DisplacedRecord
from server.core.room.takeover import TOLD_SECONDS
from server.core.settings import HubSettings
from tests._kit.stores import MemoryStore
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated

RECLAIM = HubSettings().reclaim_seconds


def _taken(path: Path) -> tuple[RoomKit, Peer, Peer, Peer]:
    """Ann and P1 play; P1's phone locks and a stranger asks for P1's seat by name; Ann
    allows it. Returns the kit, Ann, P1's old device and the stranger."""
    kit = RoomKit(store=SqliteStore(path), now=1_000_000.0)
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = kit.connect("10.0.0.9")  # another household
    kit.send(stranger, JoinRoom(code=ann.welcome.player_code or "", name="P1"))
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert stranger.welcome.seat == 1
    return kit, ann, ben, stranger


def _restart(kit: RoomKit, path: Path, after: float) -> RoomKit:
    """kill -9 and a new server on the same store, ``after`` seconds later."""
    return RoomKit(store=SqliteStore(path), now=kit.now + after, seed=1)


def _resume(kit: RoomKit, room_id: str, token: str | None) -> Peer:
    peer = kit.connect()
    kit.send(peer, ResumeSeat(room=room_id, token=token or ""))
    return peer


def test_within_the_way_back_the_old_token_wins_the_seat_back_after_a_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.sqlite3"
    first, ann, ben, stranger = _taken(path)
    room_id = ann.welcome.state.room
    second = _restart(first, path, RECLAIM / 2)
    taker = _resume(second, room_id, stranger.welcome.token)  # the new device is back first
    assert taker.welcome.seat == 1
    grandma = _resume(second, room_id, ben.welcome.token)
    assert grandma.welcome.seat == 1
    assert taker.errors() == ["seat_taken_back"]
    assert taker.closed == CloseCode.REPLACED
    # the way back is spent: the stored tokens are gone, across the next restart too
    third = _restart(second, path, 1)
    assert error_codes(
        third.send(third.connect(), ResumeSeat(room=room_id, token=ben.welcome.token or ""))
    ) == ["bad_token"]


def test_after_the_way_back_a_restart_still_says_seat_taken_not_bad_token(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.sqlite3"
    first, ann, ben, stranger = _taken(path)
    room_id = ann.welcome.state.room
    second = _restart(first, path, RECLAIM + 1)
    lost = _resume(second, room_id, ben.welcome.token)
    assert lost.errors() == ["seat_taken"]
    assert lost.closed == CloseCode.REFUSED
    assert _resume(second, room_id, stranger.welcome.token).welcome.seat == 1


def test_a_restart_neither_extends_nor_shortens_the_way_back(tmp_path: Path) -> None:
    path = tmp_path / "war.sqlite3"
    first, ann, ben, _ = _taken(path)
    room_id = ann.welcome.state.room
    second = _restart(first, path, RECLAIM - 5)  # the way back runs on while it is down
    second.advance(4)
    assert _resume(second, room_id, ben.welcome.token).welcome.seat == 1
    first2, ann2, ben2, _ = _taken(tmp_path / "other.sqlite3")
    later = _restart(first2, tmp_path / "other.sqlite3", RECLAIM - 5)
    later.advance(6)
    assert _resume(later, ann2.welcome.state.room, ben2.welcome.token).errors() == ["seat_taken"]


def test_only_hashes_are_stored_and_they_are_dropped_a_day_after_the_way_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.sqlite3"
    first, ann, ben, _ = _taken(path)
    old = ben.welcome.token or ""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seat, token_hash, by_seat FROM displaced").fetchall()
    text = " ".join(str(cell) for row in db.execute("SELECT * FROM displaced") for cell in row)
    db.close()
    assert rows == [(1, hash_token(old), 0)]
    assert old not in text
    second = _restart(first, path, RECLAIM + TOLD_SECONDS + 1)
    second.advance(0)  # the room wakes for it
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM displaced").fetchone()[0] == 0
    db.close()
    room_id = ann.welcome.state.room
    assert _resume(second, room_id, old).errors() == ["bad_token"]


def test_a_stored_displaced_token_of_no_seat_of_the_room_is_not_loaded() -> None:
    store = MemoryStore()
    kit = RoomKit(store=store)
    seated(kit)
    (record,) = store.load_all()
    beyond = DisplacedRecord(
        seat=5, token_hash=hash_token("x" * 32), previous_token_hash=None, until=1.0
    )
    store.apply(
        [Delete(record.room_id), Write(dataclasses.replace(record, displaced=(beyond,)), None)]
    )
    with capture_logs() as lines:
        hub = Hub(store.load_all(), HubSettings(), now=kit.now, logger=structlog.get_logger())
    assert hub.rooms == 0
    assert [line["event"] for line in lines] == ["room_not_loaded"]
