"""The hub's optional log lines: room events with the room id bound, never a secret."""

from __future__ import annotations

import dataclasses

import structlog
from structlog.testing import capture_logs

from protocol import CreateRoom, JoinRoom, Leave, ResumeSeat, VoteFinish
from server.core.hub import Hub, HubSettings
from server.core.records import MemoryStore
from tests.server.core._roomkit import Bench, SeededSource


def test_room_events_are_logged_without_codes_or_tokens() -> None:
    with capture_logs() as lines:
        bench = Bench()
        bench.hub = Hub(
            bench.store,
            bench.settings,
            now=bench.now,
            random=SeededSource(3),
            logger=structlog.get_logger(),
        )
        ann, ben = bench.connect(), bench.connect()
        bench.send(ann, CreateRoom(name="Ann", deal=5))
        bench.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
        bench.drop(ben)
        again = bench.connect()
        token = ben.welcome.token or ""
        bench.send(again, ResumeSeat(room=ann.welcome.state.room, token=token))
        for peer in (ann, again):
            bench.send(peer, VoteFinish())
        bench.send(ann, Leave())
        bench.send(again, Leave())
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
    bench = Bench(store=store)
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann"))
    (record,) = store.load_all()
    store.delete_room(record.room_id)
    store.create_room(dataclasses.replace(record, game=dataclasses.replace(record.game, deal=-1)))
    with capture_logs() as lines:
        hub = Hub(store, HubSettings(), now=bench.now, logger=structlog.get_logger())
    assert hub.rooms == 0
    assert [line["event"] for line in lines] == ["room_not_loaded"]
    assert lines[0]["room"] == record.room_id


def test_the_codes_of_a_room_that_did_not_rebuild_stay_reserved() -> None:
    store = MemoryStore()
    bench = Bench(store=store)
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann"))
    (record,) = store.load_all()
    store.delete_room(record.room_id)
    store.create_room(dataclasses.replace(record, game=dataclasses.replace(record.game, deal=-1)))
    hub = Hub(store, HubSettings(), now=bench.now)
    for code in (record.player_code, record.watch_code):
        assert hub._code_taken(code)
        assert hub._code_taken(code.lower().replace("-", ""))
    assert not hub._code_taken("2222-2222")
