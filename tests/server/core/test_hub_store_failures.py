"""A write that fails (a full disk) never leaves a room differing from its store.

Whatever the write (a join that fills the room, a step, a ready, a new token, its
confirmation, a leave, auto-play, a finish or rematch vote, the time limit, a
disconnection, a spectator), the room is rebuilt from what the store holds, nothing of
the failed call is announced, everyone in the room is told ``store_unavailable`` and
closed with 1013, and once the store works again they resume and the game goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from protocol import (
    AutoPlay,
    CloseCode,
    CreateRoom,
    Error,
    ErrorCode,
    JoinRoom,
    Leave,
    Ready,
    Rematch,
    RematchDeal,
    Resync,
    RoomPhase,
    RulesSpec,
    SecondPathReady,
    SetAutoPlay,
    VoteFinish,
    WatchRoom,
)
from server import engine
from server.core.hub.rooms import STORE_RETRY_SECONDS
from server.core.room.records import same_state
from server.core.room.room import Room
from server.core.settings import HubSettings
from tests._kit.stores import FlakyStore
from tests.server.core._roomkit import (
    Peer,
    RoomKit,
    expected_events,
    game_events,
    seated,
    stored_record,
)


def _room(kit: RoomKit, room_id: str) -> Room:
    room = kit.hub.room(room_id)
    assert room is not None
    return room


def _told_to_come_back(peer: Peer, mark: int) -> None:
    """Since ``mark``, ``peer`` got only ``store_unavailable`` (with the sentence for
    people) and was closed with 1013."""
    assert [m.TYPE for m in peer.inbox[mark:]] == ["error"], peer.inbox[mark:]
    (error,) = peer.inbox[mark:]
    assert isinstance(error, Error)
    assert error.code == ErrorCode.STORE_UNAVAILABLE
    assert "cannot save games right now" in error.message
    assert "bug" not in error.message
    assert peer.closed == CloseCode.TRY_AGAIN_LATER


def _seq_seen(peers: list[Peer]) -> int:
    return max(
        (m.seq for p in peers for m in p.inbox if not isinstance(m, Error | SecondPathReady)),
        default=0,
    )


def test_a_failed_write_as_the_second_player_fills_the_room() -> None:
    """The reproduction: the write of the join that fills the room (and starts the game)
    fails. Before, the joiner was closed 1011 without a token while the room played in
    memory and waited on disk, for ever."""
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=90210))
    code = ann.welcome.player_code or ""
    room_id = ann.welcome.state.room
    store.fail_when = lambda record, before: record is not None and record.game.started
    ben = kit.connect()
    mark = len(ann.inbox)
    kit.send(ben, JoinRoom(code=code, name="Ben"))
    _told_to_come_back(ben, 0)  # no welcome, no token
    _told_to_come_back(ann, mark)
    room = _room(kit, room_id)
    assert same_state(room.record(), stored_record(store, room_id))
    assert room.phase is RoomPhase.WAITING
    assert room.record().seats[1].name is None
    assert room.connections == ()
    assert kit.hub.store_failing

    store.fail_when = None
    ann2 = kit.come_back(ann)
    assert not kit.hub.store_failing
    assert ann2.welcome.seq >= _seq_seen([ann])
    ben2 = kit.connect()
    kit.send(ben2, JoinRoom(code=code, name="Ben"))  # the joiner joins again
    assert ben2.welcome.seat == 1
    room = _room(kit, room_id)
    assert room.phase is RoomPhase.PLAYING
    assert stored_record(store, room_id).game.started
    kit.play_round_robin([ann2, ben2])
    assert room.phase is RoomPhase.OVER
    assert game_events(ann2) == game_events(ben2) == expected_events(engine.Rules(), 90210)
    assert ann2.gaps == ben2.gaps == []
    assert same_state(room.record(), stored_record(store, room_id))


def test_a_room_nobody_comes_back_to_is_still_removed_when_idle() -> None:
    store = FlakyStore()
    kit = RoomKit(HubSettings(idle_room_minutes=10), store=store)
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    store.broken = True
    kit.send(kit.connect(), JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    assert ann.closed == CloseCode.TRY_AGAIN_LATER
    store.broken = False
    kit.advance(600)
    assert kit.hub.rooms == 0
    assert store.load_all() == []


def test_a_failed_create_leaves_no_room() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    store.broken = True
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", computers=1))
    _told_to_come_back(ann, 0)
    assert kit.hub.rooms == 0
    assert store.load_all() == []
    store.broken = False
    again = kit.connect()
    kit.send(again, CreateRoom(name="Ann", computers=1))
    assert again.welcome.seat == 0
    assert kit.hub.rooms == 1


def test_a_failed_delete_forgets_the_room_in_memory_only() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann"))
    store.broken = True
    kit.send(ann, Leave())
    assert ann.closed == CloseCode.NORMAL
    assert kit.hub.rooms == 0
    assert kit.hub.store_failing
    assert len(store.load_all()) == 1  # back after a restart, removed again when idle


# --- every kind of write -------------------------------------------------------------


@dataclass
class Case:
    """A room brought to just before a write (``setup``), the call that writes (``act``,
    on the room's peers in seat order then spectators), and what the write does, seen in
    the room (``done``)."""

    setup: Callable[[RoomKit], list[Peer]]
    act: Callable[[RoomKit, list[Peer]], object]
    done: Callable[[Room], bool]
    settings: HubSettings = field(default_factory=HubSettings)


def _two(kit: RoomKit) -> list[Peer]:
    return seated(kit, deal=4242)


def _two_ann_ready(kit: RoomKit) -> list[Peer]:
    peers = _two(kit)
    kit.send(peers[0], Ready(step=0))
    return peers


def _three(kit: RoomKit) -> list[Peer]:
    return seated(kit, players=3, deal=4242)


def _ben_away(kit: RoomKit) -> list[Peer]:
    peers = _two(kit)
    kit.drop(peers[1])
    return peers


def _ben_resumed(kit: RoomKit) -> list[Peer]:
    ann, ben = _two(kit)
    return [ann, kit.come_back(ben)]


def _ann_voted_finish(kit: RoomKit) -> list[Peer]:
    peers = _two(kit)
    kit.send(peers[0], VoteFinish())
    return peers


def _over(kit: RoomKit) -> list[Peer]:
    peers = _two(kit)
    for peer in peers:
        kit.send(peer, VoteFinish())
    return peers


def _over_ann_voted(kit: RoomKit) -> list[Peer]:
    peers = _over(kit)
    kit.send(peers[0], Rematch(deal=RematchDeal.SAME))
    return peers


def _timed(kit: RoomKit) -> list[Peer]:
    return seated(kit, deal=4242, minutes=1)


def _computer(kit: RoomKit) -> list[Peer]:
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=4242, computers=1))
    return [ann]


def _watched(kit: RoomKit) -> list[Peer]:
    peers = _two(kit)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=peers[0].welcome.watch_code or ""))
    return [*peers, watcher]


def _two_of_three(kit: RoomKit) -> list[Peer]:
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3)))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    return [ann, ben]


def _live(room: Room) -> bool:
    """Seat 0 is connected (a rebuilt room has nobody until they come back)."""
    return room.seat_of(room.connections[0]) == 0 if room.connections else False


CASES = {
    "step": Case(
        _two_ann_ready, lambda k, p: k.send(p[1], Ready(step=0)), lambda r: r.game.steps == 1
    ),
    "first ready": Case(
        _two, lambda k, p: k.send(p[0], Ready(step=0)), lambda r: r.game_record.ready == (0,)
    ),
    "auto-play": Case(
        _two,
        lambda k, p: k.send(p[0], SetAutoPlay(mode=AutoPlay.QUICK)),
        lambda r: r.record().seats[0].auto == "quick",
    ),
    "leave before the start": Case(
        _two_of_three,
        lambda k, p: k.send(p[1], Leave()),
        lambda r: r.record().seats[1].name is None,
    ),
    "leave a started game": Case(
        _three, lambda k, p: k.send(p[2], Leave()), lambda r: r.record().seats[2].left
    ),
    "a finish vote": Case(
        _two, lambda k, p: k.send(p[0], VoteFinish()), lambda r: r.game_record.finish_votes == (0,)
    ),
    "the finish": Case(
        _ann_voted_finish,
        lambda k, p: k.send(p[1], VoteFinish()),
        lambda r: r.phase is RoomPhase.OVER,
    ),
    "a rematch vote": Case(
        _over,
        lambda k, p: k.send(p[1], Rematch(deal=RematchDeal.NEW)),
        lambda r: r.game_record.rematch_votes == ((1, "new"),),
    ),
    "the rematch": Case(
        _over_ann_voted,
        lambda k, p: k.send(p[1], Rematch(deal=RematchDeal.SAME)),
        lambda r: r.game_record.number == 2,
    ),
    "time up": Case(_timed, lambda k, p: k.advance(60), lambda r: r.game_record.stop_step == 0),
    "the computer's ready": Case(
        _computer, lambda k, p: k.advance(0.6), lambda r: r.game_record.ready == (1,)
    ),
    "a new token": Case(
        _ben_away,
        lambda k, p: k.come_back(p[1]),
        lambda r: r.record().seats[1].previous_token_hash is not None,
    ),
    "a token confirmed": Case(
        _ben_resumed,
        lambda k, p: k.send(p[1], Resync()),
        lambda r: r.record().seats[1].previous_token_hash is None,
    ),
    "a disconnection": Case(
        _two, lambda k, p: k.drop(p[1]), lambda r: _live(r) and len(r.connections) == 1
    ),
    "a spectator arrives": Case(
        _two,
        lambda k, p: k.send(k.connect(), WatchRoom(code=p[0].welcome.watch_code or "")),
        lambda r: r.spectators == 1,
    ),
    "a spectator leaves": Case(
        _watched, lambda k, p: k.drop(p[2]), lambda r: _live(r) and r.spectators == 0
    ),
    "away-timeout": Case(
        _ben_away,
        lambda k, p: k.advance(30),
        # the server plays the seat calmly (its stored auto stays Ben's own: off)
        lambda r: r.state(r.last_active).seats[1].auto is AutoPlay.CALM,
        HubSettings(away_timeout=30),
    ),
}


def _come_back(kit: RoomKit, peers: list[Peer]) -> list[Peer]:
    """Everyone told to come back (1013) does: players resume, spectators watch again."""
    back = []
    for peer in peers:
        welcome = peer.last_welcome
        if peer.closed != CloseCode.TRY_AGAIN_LATER or welcome is None:
            back.append(peer)
        elif welcome.token is not None:
            back.append(kit.come_back(peer))
        else:
            watcher = kit.connect()
            kit.send(watcher, WatchRoom(code=welcome.watch_code or ""))
            back.append(watcher)
    return back


def _players(kit: RoomKit, room: Room, peers: list[Peer]) -> list[Peer]:
    """A connection on every human seat: the ones there, and the others resumed."""
    players = [
        p for p in kit.peers.values() if p.closed is None and room.seat_of(p.conn) is not None
    ]
    held = {room.seat_of(p.conn) for p in players}
    seats = room.state(kit.now).seats
    for peer in peers:
        seat = peer.welcome.seat
        if seat is not None and seat not in held and not seats[seat].computer:
            players.append(kit.come_back(peer))
            held.add(seat)
    return players


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_kind_of_write_can_fail_and_the_game_goes_on(name: str) -> None:
    case = CASES[name]
    store = FlakyStore()
    kit = RoomKit(case.settings, store=store)
    peers = case.setup(kit)
    room_id = peers[0].welcome.state.room
    assert not case.done(_room(kit, room_id))
    before = stored_record(store, room_id)
    marks = {peer.conn: len(peer.inbox) for peer in peers}
    open_before = [peer for peer in peers if peer.closed is None]
    seq_sent = _seq_seen(peers)

    store.broken = True
    case.act(kit, peers)
    assert store.failures >= 1
    room = _room(kit, room_id)
    assert same_state(room.record(), stored_record(store, room_id))
    assert stored_record(store, room_id) == before  # the store holds what it held
    assert not case.done(room)
    assert room.connections == ()
    assert room.seq >= seq_sent
    for peer in open_before:
        if peer.closed != 1006:  # a dropped connection hears nothing
            _told_to_come_back(peer, marks[peer.conn])
    assert kit.hub.store_failing

    store.broken = False
    kit.advance(STORE_RETRY_SECONDS)  # a rebuilt room's timers wait a little
    back = _come_back(kit, peers)
    assert not kit.hub.store_failing
    for peer in back:
        if peer not in peers:
            assert peer.welcome.seq >= seq_sent
    case.act(kit, back)
    room = _room(kit, room_id)
    assert case.done(room)
    assert same_state(room.record(), stored_record(store, room_id))
    players = _players(kit, room, peers)
    if room.phase is RoomPhase.PLAYING:
        kit.play_round_robin(players)
        assert room.phase is RoomPhase.OVER
    for peer in back:
        assert peer.gaps == []
        assert ErrorCode.INTERNAL_ERROR not in peer.errors()
    assert same_state(room.record(), stored_record(store, room_id))


def test_a_rebuilt_room_waits_before_its_timers_try_the_store_again() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    (ann,) = _computer(kit)
    room_id = ann.welcome.state.room
    store.broken = True
    kit.advance(0.6)
    assert store.failures == 1
    kit.advance(STORE_RETRY_SECONDS - 0.1)
    assert store.failures == 1  # not every 0.6 s
    kit.advance(0.1)
    assert store.failures == 2
    store.broken = False
    kit.advance(STORE_RETRY_SECONDS)
    assert _room(kit, room_id).game_record.ready == (1,)  # the computer's ready came
    assert not kit.hub.store_failing


def test_ready_flags_and_seq_survive_a_restart() -> None:
    """A ready pressed before a kill -9 is still pressed after it; seq goes on."""
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann, ben, cy = seated(kit, players=3)
    kit.send(ann, Ready(step=0))
    kit.send(cy, VoteFinish())
    seq = _seq_seen([ann, ben, cy])
    again = RoomKit(store=store, now=kit.now + 5)  # the old hub is simply abandoned
    room = _room(again, ann.welcome.state.room)
    state = room.state(again.now)
    assert [seat.ready for seat in state.seats] == [True, False, False]
    assert [seat.finish_vote for seat in state.seats] == [False, False, True]
    assert room.waiting_for() == (1, 2)
    ben2 = again.come_back(ben)
    assert ben2.welcome.seq >= seq
    again.send(ben2, Ready(step=0))
    assert ben2.inbox[-1].seq > seq  # type: ignore[union-attr]


def test_rematch_votes_survive_a_restart() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann, ben = _over(kit)
    kit.send(ann, Rematch(deal=RematchDeal.NEW))
    again = RoomKit(store=store, now=kit.now + 5)
    room = _room(again, ann.welcome.state.room)
    assert room.state(again.now).seats[0].rematch_vote is RematchDeal.NEW
    ben2 = again.come_back(ben)
    again.send(ben2, Rematch(deal=RematchDeal.SAME))
    assert room.game_record.number == 2
    assert room.game_record.revealed is False  # one vote for a new deal: a new deal


def test_a_spectator_refused_a_command_is_not_a_write() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    peers = _watched(kit)
    writes = store.writes
    kit.send(peers[2], Ready(step=0))
    kit.send(peers[2], Resync())
    assert store.writes == writes
