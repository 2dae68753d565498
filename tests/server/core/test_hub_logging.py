"""The hub's optional log lines: room events with the room id bound, never a secret."""

from __future__ import annotations

import dataclasses

import structlog
from structlog.testing import capture_logs

from protocol import CreateRoom, JoinRoom, Leave, ResumeSeat, VoteFinish
from server.core.hub.hub import Hub
from server.core.room.actions import Delete, Write
from server.core.settings import HubSettings
from tests._kit.stores import FlakyStore, MemoryStore
from tests.server.core._roomkit import RoomKit


def test_room_events_are_logged_without_codes_or_tokens() -> None:
    with capture_logs() as lines:
        kit = RoomKit(seed=3, logger=structlog.get_logger())
        ann, ben = kit.connect(), kit.connect()
        kit.send(ann, CreateRoom(name="Ann", deal=5))
        kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
        kit.drop(ben)
        again = kit.connect()
        token = ben.welcome.token or ""
        kit.send(again, ResumeSeat(room=ann.welcome.state.room, token=token))
        for peer in (ann, again):
            kit.send(peer, VoteFinish())
        kit.send(ann, Leave())
        kit.send(again, Leave())
    events = [line["event"] for line in lines]
    assert events == [
        "room_created",
        "seat_joined",
        "game_started",
        "seat_away",
        "seat_resumed",
        "game_over",
        "seat_left",
        "seat_left",
        "room_removed",
    ]
    room_id = ann.welcome.state.room
    assert all(line["room"] == room_id for line in lines)
    secrets = {
        ann.welcome.player_code,
        ann.welcome.watch_code,
        ann.welcome.token,
        token,
        again.welcome.token,
    }
    text = repr(lines)
    for secret in secrets:
        assert secret and secret not in text


def test_a_stored_room_that_does_not_rebuild_is_skipped_and_logged() -> None:
    store = MemoryStore()
    kit = RoomKit(store=store)
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    (record,) = store.load_all()
    bad = dataclasses.replace(record, game=dataclasses.replace(record.game, deal=-1))
    store.apply([Delete(record.room_id), Write(bad, None)])
    with capture_logs() as lines:
        hub = Hub(store.load_all(), HubSettings(), now=kit.now, logger=structlog.get_logger())
    assert hub.rooms == 0
    assert [line["event"] for line in lines] == ["room_not_loaded"]
    assert lines[0]["room"] == record.room_id


def test_the_codes_of_a_room_that_did_not_rebuild_stay_reserved() -> None:
    store = MemoryStore()
    kit = RoomKit(store=store)
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    (record,) = store.load_all()
    bad = dataclasses.replace(record, game=dataclasses.replace(record.game, deal=-1))
    store.apply([Delete(record.room_id), Write(bad, None)])
    hub = Hub(store.load_all(), HubSettings(), now=kit.now)
    for code in (record.player_code, record.watch_code):
        assert hub.directory.code_taken(code)
        assert hub.directory.code_taken(code.lower().replace("-", ""))
    assert not hub.directory.code_taken("2222-2222")


def test_a_failed_write_is_logged_once_with_its_room_and_no_secret() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store, logger=structlog.get_logger())
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    store.broken = True
    with capture_logs() as lines:
        kit.send(kit.connect(), JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    failed = [line for line in lines if line["log_level"] == "error"]
    assert [line["event"] for line in failed] == ["store_failed"]
    assert failed[0]["room"] == ann.welcome.state.room
    assert failed[0]["error"] == "database or disk is full"
    text = repr(lines)
    for secret in (ann.welcome.player_code, ann.welcome.watch_code, ann.welcome.token):
        assert secret and secret not in text
