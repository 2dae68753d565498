"""The hub's door: create/join/watch/resume, the password, limits, throttling, idle rooms."""

from __future__ import annotations

import pytest

from protocol import (
    CloseCode,
    ConnectionChanged,
    CreateRoom,
    ErrorCode,
    JoinRoom,
    ProtocolError,
    Ready,
    Resync,
    RoomPhase,
    RulesSpec,
    Snapshot,
    WatchRoom,
)
from server.core.hub.hub import HubStats
from server.core.settings import HubSettings
from tests._kit.stores import FlakyStore
from tests.server.core._roomkit import RoomKit, error_codes, seated


def test_the_password_guards_room_creation() -> None:
    kit = RoomKit(HubSettings(password="open sesame"))
    nobody, wrong, right = kit.connect(), kit.connect(), kit.connect()
    assert error_codes(kit.send(nobody, CreateRoom(name="Ann"))) == ["password_required"]
    assert error_codes(kit.send(wrong, CreateRoom(name="Ann", password="open"))) == ["bad_password"]
    assert nobody.closed == wrong.closed == CloseCode.REFUSED
    kit.send(right, CreateRoom(name="Ann", password="open sesame"))
    assert right.welcome.seat == 0
    # joining needs the player code, never the password
    ben = kit.connect()
    kit.send(ben, JoinRoom(code=right.welcome.player_code or "", name="Ben"))
    assert ben.welcome.seat == 1


def test_codes_differ_and_a_watch_code_never_grants_a_seat() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    player, watch = ann.welcome.player_code or "", ann.welcome.watch_code or ""
    assert player != watch
    sneaky = kit.connect()
    # the page offers to watch instead ("That is a watch code: watch instead?")
    assert error_codes(kit.send(sneaky, JoinRoom(code=watch, name="Eve"))) == ["watch_code"]
    assert sneaky.closed == CloseCode.REFUSED
    peek = kit.connect()
    assert error_codes(kit.send(peek, WatchRoom(code=player))) == ["unknown_code"]
    ben = kit.connect()
    kit.send(ben, JoinRoom(code=player.lower().replace("-", ""), name="Ben"))
    assert ben.welcome.seat == 1  # case and hyphens do not matter when read aloud


def test_a_full_room_refuses_a_join() -> None:
    kit = RoomKit()
    ann, _ = seated(kit)
    late = kit.connect()
    actions = kit.send(late, JoinRoom(code=ann.welcome.player_code or "", name="Cy"))
    assert error_codes(actions) == ["room_full"]
    assert late.closed == CloseCode.REFUSED


def test_max_rooms_and_max_spectators() -> None:
    kit = RoomKit(HubSettings(max_rooms=1, max_spectators=1))
    ann, extra = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    assert error_codes(kit.send(extra, CreateRoom(name="Bob"))) == ["too_many_rooms"]
    assert extra.closed == CloseCode.TRY_AGAIN_LATER
    one, two = kit.connect(), kit.connect()
    kit.send(one, WatchRoom(code=ann.welcome.watch_code or ""))
    assert error_codes(kit.send(two, WatchRoom(code=ann.welcome.watch_code or ""))) == [
        "spectators_full"
    ]
    assert two.closed == CloseCode.TRY_AGAIN_LATER
    assert kit.hub.stats() == HubStats(
        rooms=1, connections=2, players=1, spectators=1, games_playing=0
    )


def test_failed_attempts_are_throttled_per_address_for_a_minute() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=3))
    ann = kit.connect("10.0.0.1")
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=4)))
    code = ann.welcome.player_code or ""
    for guess in ("AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC"):
        peer = kit.connect("192.0.2.9")
        assert error_codes(kit.send(peer, JoinRoom(code=guess, name="Eve"))) == ["unknown_code"]
    blocked = kit.connect("192.0.2.9")
    assert error_codes(kit.send(blocked, JoinRoom(code=code, name="Eve"))) == ["too_many_failures"]
    assert blocked.closed == CloseCode.POLICY_VIOLATION
    other = kit.connect("198.51.100.7")  # another address is not affected
    kit.send(other, JoinRoom(code=code, name="Ben"))
    assert other.welcome.seat == 1
    kit.advance(60)
    later = kit.connect("192.0.2.9")
    kit.send(later, JoinRoom(code=code, name="Eve"))
    assert later.welcome.seat == 2


def test_messages_out_of_order_on_a_connection() -> None:
    kit = RoomKit()
    early = kit.connect()
    assert error_codes(kit.send(early, Ready(step=0))) == ["not_in_room"]
    assert early.closed == CloseCode.REFUSED
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    assert error_codes(kit.send(ann, CreateRoom(name="Ann"))) == ["already_in_room"]
    assert ann.closed is None
    assert kit.hub.rooms == 1
    kit.send(ann, Resync())
    (snapshot,) = ann.of(Snapshot)
    assert snapshot.state == kit.room(ann).state(kit.now)
    assert snapshot.seq == kit.room(ann).seq


@pytest.mark.parametrize(
    ("code", "in_room_close", "opening_close"),
    [
        (ErrorCode.MALFORMED, None, CloseCode.REFUSED),
        (ErrorCode.BAD_VALUE, None, CloseCode.REFUSED),
        (
            ErrorCode.UNSUPPORTED_VERSION,
            CloseCode.UNSUPPORTED_VERSION,
            CloseCode.UNSUPPORTED_VERSION,
        ),
        (ErrorCode.BINARY_ONLY, CloseCode.UNSUPPORTED_DATA, CloseCode.UNSUPPORTED_DATA),
        (ErrorCode.TOO_LARGE, CloseCode.MESSAGE_TOO_BIG, CloseCode.MESSAGE_TOO_BIG),
    ],
)
def test_undecodable_frames_get_an_error_and_the_documented_close(
    code: ErrorCode, in_room_close: int | None, opening_close: int
) -> None:
    kit = RoomKit()
    fresh = kit.connect()
    kit.apply(kit.hub.refuse(fresh.conn, ProtocolError(code, "nope"), kit.now))
    assert fresh.errors() == [code.value]
    assert fresh.closed == opening_close
    ann, ben = seated(kit)
    kit.apply(kit.hub.refuse(ben.conn, ProtocolError(code, "nope"), kit.now))
    assert ben.errors() == [code.value]
    assert ben.closed == in_room_close
    room = kit.room(ann)
    assert room.state(kit.now).seats[1].connected is (in_room_close is None)
    if in_room_close is not None:  # the seat is away, and everyone was told
        assert ann.inbox[-1] == ConnectionChanged(seq=room.seq, seat=1, connected=False)


def test_idle_rooms_are_removed_but_not_while_someone_is_there() -> None:
    kit = RoomKit(HubSettings(idle_room_minutes=100 / 60))
    ann, ben = seated(kit)
    lonely = kit.connect()
    kit.send(lonely, CreateRoom(name="Lo"))
    kit.advance(500)
    assert kit.hub.rooms == 2  # people are connected to both
    kit.drop(lonely)
    kit.advance(99)
    assert kit.hub.rooms == 2
    kit.advance(1)
    assert kit.hub.rooms == 1
    assert kit.room(ann).phase is RoomPhase.PLAYING
    kit.drop(ann)
    kit.drop(ben)
    assert kit.hub.next_deadline() == pytest.approx(kit.now + 100)
    kit.advance(100)
    assert kit.hub.rooms == 0
    assert kit.store.load_all() == []


def test_stats_and_where() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    idle = kit.connect()
    room_id = ann.welcome.state.room
    assert kit.hub.where(ann.conn) == (room_id, 0)
    assert kit.hub.where(ben.conn) == (room_id, 1)
    assert kit.hub.where(watcher.conn) == (room_id, None)
    assert kit.hub.where(idle.conn) is None
    assert kit.hub.stats() == HubStats(
        rooms=1, connections=4, players=2, spectators=1, games_playing=1
    )
    assert (kit.hub.rooms, kit.hub.connections) == (1, 4)


def test_a_create_that_skipped_the_codec_is_still_checked() -> None:
    kit = RoomKit()
    peer = kit.connect()
    actions = kit.send(peer, CreateRoom(name="Ann", computers=2))
    assert error_codes(actions) == ["bad_value"]
    assert peer.closed == CloseCode.REFUSED
    assert kit.hub.rooms == 0


def test_nothing_is_announced_unless_it_was_stored() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    kit.send(ann, Ready(step=0))
    store.broken = True
    mark = len(ann.inbox)
    actions = kit.send(ben, Ready(step=0))
    assert error_codes(actions) == ["store_unavailable", "store_unavailable"]
    assert ann.closed == ben.closed == CloseCode.TRY_AGAIN_LATER
    assert [m.TYPE for m in ann.inbox[mark:]] == ["error"]  # no cards turned
    room = kit.hub.room(room_id)
    assert room is not None
    assert room.game.steps == 0  # the room is what the store holds
    assert room.state(kit.now).seats[0].ready
    store.broken = False
    back = kit.come_back(ben)
    kit.come_back(ann)
    kit.send(back, Ready(step=0))
    assert room.game.steps == 1
    assert store.load_all()[0].game.steps == 1
