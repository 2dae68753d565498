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
    ResumeSeat,
    Resync,
    RoomPhase,
    RulesSpec,
    Snapshot,
    WatchRoom,
)
from server.core.hub import HubSettings, HubStats
from server.core.records import MemoryStore
from server.errors import StoreError
from tests.server.core._roomkit import Bench, error_codes
from tests.server.core.test_room_play import seated


def test_the_password_guards_room_creation() -> None:
    bench = Bench(HubSettings(password="open sesame"))
    nobody, wrong, right = bench.connect(), bench.connect(), bench.connect()
    assert error_codes(bench.send(nobody, CreateRoom(name="Ann"))) == ["password_required"]
    assert error_codes(bench.send(wrong, CreateRoom(name="Ann", password="open"))) == [
        "bad_password"
    ]
    assert nobody.closed == wrong.closed == CloseCode.REFUSED
    bench.send(right, CreateRoom(name="Ann", password="open sesame"))
    assert right.welcome.seat == 0
    # joining needs the player code, never the password
    ben = bench.connect()
    bench.send(ben, JoinRoom(code=right.welcome.player_code or "", name="Ben"))
    assert ben.welcome.seat == 1


def test_codes_differ_and_a_watch_code_never_grants_a_seat() -> None:
    bench = Bench()
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann"))
    player, watch = ann.welcome.player_code or "", ann.welcome.watch_code or ""
    assert player != watch
    sneaky = bench.connect()
    assert error_codes(bench.send(sneaky, JoinRoom(code=watch, name="Eve"))) == ["unknown_code"]
    assert sneaky.closed == CloseCode.REFUSED
    peek = bench.connect()
    assert error_codes(bench.send(peek, WatchRoom(code=player))) == ["unknown_code"]
    ben = bench.connect()
    bench.send(ben, JoinRoom(code=player.lower().replace("-", ""), name="Ben"))
    assert ben.welcome.seat == 1  # case and hyphens do not matter when read aloud


def test_a_full_room_refuses_a_join() -> None:
    bench = Bench()
    ann, _ = seated(bench)
    late = bench.connect()
    actions = bench.send(late, JoinRoom(code=ann.welcome.player_code or "", name="Cy"))
    assert error_codes(actions) == ["room_full"]
    assert late.closed == CloseCode.REFUSED


def test_max_rooms_and_max_spectators() -> None:
    bench = Bench(HubSettings(max_rooms=1, max_spectators=1))
    ann, extra = bench.connect(), bench.connect()
    bench.send(ann, CreateRoom(name="Ann"))
    assert error_codes(bench.send(extra, CreateRoom(name="Bob"))) == ["too_many_rooms"]
    assert extra.closed == CloseCode.TRY_AGAIN_LATER
    one, two = bench.connect(), bench.connect()
    bench.send(one, WatchRoom(code=ann.welcome.watch_code or ""))
    assert error_codes(bench.send(two, WatchRoom(code=ann.welcome.watch_code or ""))) == [
        "spectators_full"
    ]
    assert two.closed == CloseCode.TRY_AGAIN_LATER
    assert bench.hub.stats() == HubStats(
        rooms=1, connections=2, players=1, spectators=1, games_playing=0
    )


def test_failed_attempts_are_throttled_per_address_for_a_minute() -> None:
    bench = Bench(HubSettings(max_failed_joins=3))
    ann = bench.connect("10.0.0.1")
    bench.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=4)))
    code = ann.welcome.player_code or ""
    for guess in ("AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC"):
        peer = bench.connect("192.0.2.9")
        assert error_codes(bench.send(peer, JoinRoom(code=guess, name="Eve"))) == ["unknown_code"]
    blocked = bench.connect("192.0.2.9")
    assert error_codes(bench.send(blocked, JoinRoom(code=code, name="Eve"))) == [
        "too_many_failures"
    ]
    assert blocked.closed == CloseCode.POLICY_VIOLATION
    other = bench.connect("198.51.100.7")  # another address is not affected
    bench.send(other, JoinRoom(code=code, name="Ben"))
    assert other.welcome.seat == 1
    bench.advance(60)
    later = bench.connect("192.0.2.9")
    bench.send(later, JoinRoom(code=code, name="Eve"))
    assert later.welcome.seat == 2


def test_messages_out_of_order_on_a_connection() -> None:
    bench = Bench()
    early = bench.connect()
    assert error_codes(bench.send(early, Ready(step=0))) == ["not_in_room"]
    assert early.closed == CloseCode.REFUSED
    ann = bench.connect()
    bench.send(ann, CreateRoom(name="Ann"))
    assert error_codes(bench.send(ann, CreateRoom(name="Ann"))) == ["already_in_room"]
    assert ann.closed is None
    assert bench.hub.rooms == 1
    bench.send(ann, Resync())
    (snapshot,) = ann.of(Snapshot)
    assert snapshot.state == bench.room(ann).state(bench.now)
    assert snapshot.seq == bench.room(ann).seq


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
    bench = Bench()
    fresh = bench.connect()
    bench.apply(bench.hub.refuse(fresh.conn, ProtocolError(code, "nope"), bench.now))
    assert fresh.errors() == [code.value]
    assert fresh.closed == opening_close
    ann, ben = seated(bench)
    bench.apply(bench.hub.refuse(ben.conn, ProtocolError(code, "nope"), bench.now))
    assert ben.errors() == [code.value]
    assert ben.closed == in_room_close
    room = bench.room(ann)
    assert room.state(bench.now).seats[1].connected is (in_room_close is None)
    if in_room_close is not None:  # the seat is away, and everyone was told
        assert ann.inbox[-1] == ConnectionChanged(seq=room.seq, seat=1, connected=False)


def test_idle_rooms_are_removed_but_not_while_someone_is_there() -> None:
    bench = Bench(HubSettings(idle_room_seconds=100))
    ann, ben = seated(bench)
    lonely = bench.connect()
    bench.send(lonely, CreateRoom(name="Lo"))
    bench.advance(500)
    assert bench.hub.rooms == 2  # people are connected to both
    bench.drop(lonely)
    bench.advance(99)
    assert bench.hub.rooms == 2
    bench.advance(1)
    assert bench.hub.rooms == 1
    assert bench.room(ann).phase is RoomPhase.PLAYING
    bench.drop(ann)
    bench.drop(ben)
    assert bench.hub.next_deadline() == pytest.approx(bench.now + 100)
    bench.advance(100)
    assert bench.hub.rooms == 0
    assert bench.store.load_all() == []


def test_stats_and_where() -> None:
    bench = Bench()
    ann, ben = seated(bench)
    watcher = bench.connect()
    bench.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    idle = bench.connect()
    room_id = ann.welcome.state.room
    assert bench.hub.where(ann.conn) == (room_id, 0)
    assert bench.hub.where(ben.conn) == (room_id, 1)
    assert bench.hub.where(watcher.conn) == (room_id, None)
    assert bench.hub.where(idle.conn) is None
    assert bench.hub.stats() == HubStats(
        rooms=1, connections=4, players=2, spectators=1, games_playing=1
    )
    assert (bench.hub.rooms, bench.hub.connections) == (1, 4)


def test_a_create_that_skipped_the_codec_is_still_checked() -> None:
    bench = Bench()
    peer = bench.connect()
    actions = bench.send(peer, CreateRoom(name="Ann", computers=2))
    assert error_codes(actions) == ["bad_value"]
    assert peer.closed == CloseCode.REFUSED
    assert bench.hub.rooms == 0


class _BrokenDisk(MemoryStore):
    """A store whose step writes fail (a full disk) until ``healthy``."""

    healthy = True

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        if not self.healthy:
            raise StoreError("disk full")
        super().record_steps(room_id, steps, seq)


def test_nothing_is_announced_unless_it_was_stored() -> None:
    store = _BrokenDisk()
    bench = Bench(store=store)
    ann, ben = seated(bench)
    room = bench.room(ann)
    bench.send(ann, Ready(step=0))
    store.healthy = False
    mark = len(ann.inbox)
    actions = bench.send(ben, Ready(step=0))
    assert error_codes(actions) == ["internal_error"]
    assert ben.closed == CloseCode.INTERNAL_ERROR
    assert [m.TYPE for m in ann.inbox[mark:]] == ["connection_changed"]  # no cards turned
    assert room.game.steps == 0  # the game went back to what the store holds
    assert room.state(bench.now).seats[0].ready
    store.healthy = True
    back = bench.connect()
    bench.send(back, ResumeSeat(room=room.room_id, token=ben.welcome.token or ""))
    bench.send(back, Ready(step=0))
    assert room.game.steps == 1
    assert store.load_all()[0].game.steps == 1
