"""Property: any sequence of client messages, from any connections, at any times, never
raises, never sends a bug report, never skips a seq, and never corrupts a game (each live
game equals the engine's replay of what the store recorded) — also when any write to the
store may fail: every room then stays what its store holds, and no seq goes backwards."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol import (
    AutoPlay,
    ClientMessage,
    CreateRoom,
    Error,
    ErrorCode,
    JoinRoom,
    Leave,
    ProtocolError,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    Resync,
    RulesSpec,
    SecondPathReady,
    SetAutoPlay,
    VoteFinish,
    WatchRoom,
)
from server.adapters.store.sqlite import Store
from server.core.room.phases import Stage
from server.core.room.records import RoomRecord, same_state
from server.core.settings import HubSettings
from server.engine import Game
from tests._kit.stores import FlakyStore
from tests.server.core._roomkit import Peer, RoomKit

CONNS = 5

_create = st.builds(
    lambda players, computers, limit, deal: CreateRoom(
        name="Host",
        rules=RulesSpec(players=players, round_limit=limit if limit and limit < 100 else None),
        computers=min(computers, players - 1),
        minutes=1 if limit == 100 else None,
        deal=deal,
    ),
    st.integers(2, 4),
    st.integers(0, 2),
    st.sampled_from([None, 3, 100]),
    st.none() | st.integers(0, 2**64 - 1),
)
# what a frame that did not decode can be refused with: the codec never says internal_error
_DECODE_ERRORS = [code for code in ErrorCode if code is not ErrorCode.INTERNAL_ERROR]

_op = st.one_of(
    st.tuples(st.just("create"), st.integers(0, CONNS - 1), _create),
    st.tuples(
        st.just("join"), st.integers(0, CONNS - 1), st.sampled_from(["player", "watch", "bogus"])
    ),
    st.tuples(
        st.just("watch"), st.integers(0, CONNS - 1), st.sampled_from(["player", "watch", "bogus"])
    ),
    st.tuples(st.just("resume"), st.integers(0, CONNS - 1), st.integers(0, 20)),
    st.tuples(st.just("ready"), st.integers(0, CONNS - 1), st.sampled_from([0, 0, 0, 0, -1, 1])),
    st.tuples(st.just("ready"), st.integers(0, CONNS - 1), st.just(0)),
    st.tuples(st.just("auto"), st.integers(0, CONNS - 1), st.sampled_from(list(AutoPlay))),
    st.tuples(st.just("finish"), st.integers(0, CONNS - 1), st.none()),
    st.tuples(st.just("rematch"), st.integers(0, CONNS - 1), st.sampled_from(list(RematchDeal))),
    st.tuples(st.just("leave"), st.integers(0, CONNS - 1), st.none()),
    st.tuples(st.just("resync"), st.integers(0, CONNS - 1), st.none()),
    st.tuples(st.just("drop"), st.integers(0, CONNS - 1), st.none()),
    st.tuples(st.just("garbage"), st.integers(0, CONNS - 1), st.sampled_from(_DECODE_ERRORS)),
    st.tuples(st.just("wait"), st.just(0), st.sampled_from([0.1, 0.3, 0.6, 1.5, 7.0, 61.0])),
)


class World:
    """Fake connections that reconnect when closed, and every code and token ever seen."""

    def __init__(self, store: Store | None = None) -> None:
        settings = HubSettings(away_timeout=5, max_failed_joins=1000)
        self.kit = RoomKit(settings, store=store)
        self.peers: list[Peer] = [self.kit.connect() for _ in range(CONNS)]
        self.everyone: list[Peer] = list(self.peers)
        self.tokens: list[tuple[str, str]] = []
        self.codes: dict[str, str] = {}

    def peer(self, index: int) -> Peer:
        if self.peers[index].closed is not None:
            self.peers[index] = self.kit.connect()
            self.everyone.append(self.peers[index])
        return self.peers[index]

    def learn(self) -> None:
        for peer in self.everyone:
            welcome = peer.last_welcome
            if welcome is None:
                continue
            if welcome.token is not None and (welcome.state.room, welcome.token) not in self.tokens:
                self.tokens.append((welcome.state.room, welcome.token))
            if welcome.player_code:
                self.codes["player"] = welcome.player_code
            if welcome.watch_code:
                self.codes["watch"] = welcome.watch_code

    def message(self, kind: str, peer: Peer, arg: Any) -> ClientMessage | None:
        where = self.kit.hub.where(peer.conn)
        room = self.kit.hub.room(where[0]) if where else None
        step = room.game.steps if room else 0
        if kind == "create":
            return arg  # type: ignore[no-any-return]
        if kind in ("join", "watch"):
            code = self.codes.get(arg, "ZZZZ-ZZZZ")
            return JoinRoom(code=code, name="Guest") if kind == "join" else WatchRoom(code=code)
        if kind == "resume":
            if not self.tokens:
                return ResumeSeat(room="nowhere", token="t" * 32)
            room_id, token = self.tokens[arg % len(self.tokens)]
            return ResumeSeat(room=room_id, token=token)
        if kind == "ready":
            return Ready(step=max(0, step + arg))
        simple: dict[str, ClientMessage] = {
            "finish": VoteFinish(),
            "leave": Leave(),
            "resync": Resync(),
        }
        if kind == "auto":
            return SetAutoPlay(mode=arg)
        if kind == "rematch":
            return Rematch(deal=arg)
        return simple.get(kind)


def _check_games(world: World) -> None:
    hub = world.kit.hub
    stored = {record.room_id: record for record in world.kit.store.load_all()}
    for room_id, record in stored.items():
        room = hub.room(room_id)
        assert room is not None
        assert record.game == room.game_record
        replay = record.game.replay(record.rules)
        live = room.game
        if record.game.stage is Stage.FINISHING:
            # A finish vote's play-out under way, a slice at a time: the record says the
            # rest is played out after the vote's step (a restart plays it at once); the
            # live game is on its way there, from that step, by the same steps.
            game = record.game
            assert live.steps >= game.steps and live.outcome is None
            so_far = Game.replay(record.rules, game.deal, live.steps, stop_step=game.stop_step)
            assert (so_far.counts, so_far.table) == (live.counts, live.table)
            live = Game.replay(
                record.rules, game.deal, live.steps, stop_step=game.stop_step, finished=True
            )
        assert (replay.steps, replay.counts, replay.table, replay.outcome) == (
            live.steps,
            live.counts,
            live.table,
            live.outcome,
        )
        assert replay.summary == live.summary
    assert set(stored) == {room_id for room_id in stored if hub.room(room_id)}
    assert hub.rooms == len(stored)


def _play(world: World, ops: list[tuple[str, int, Any]], check: Any = None) -> None:
    """Carry out ``ops`` (a "wait" moves the clock on); after each, no bug report, no seq
    gap, and ``check()``."""
    kit = world.kit
    for kind, index, arg in ops:
        if kind == "wait":
            kit.advance(arg)
        elif kind == "drop":
            peer = world.peer(index)
            kit.drop(peer)
        elif kind == "garbage":
            peer = world.peer(index)
            kit.apply(kit.hub.refuse(peer.conn, ProtocolError(arg, "bad frame"), kit.now))
        else:
            peer = world.peer(index)
            message = world.message(kind, peer, arg)
            assert message is not None
            kit.send(peer, message)
        world.learn()
        for someone in world.everyone:
            assert ErrorCode.INTERNAL_ERROR.value not in someone.errors()
            assert someone.gaps == [], someone.inbox
        if check is not None:
            check()


_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _opening(create: CreateRoom) -> list[tuple[str, int, Any]]:
    """Most runs start from a room with its seats filled, then anything may happen."""
    return [("create", 0, create)] + [("join", i, "player") for i in range(1, 4)]


@_SETTINGS
@given(create=_create, ops=st.lists(_op, max_size=80))
@example(  # a long play-out (933 steps) is still under way when the rooms are checked
    create=CreateRoom(name="Host", rules=RulesSpec(players=3), computers=2, deal=1),
    ops=[("finish", 0, None)],
)
def test_any_client_messages_never_break_a_room(
    create: CreateRoom, ops: list[tuple[str, int, Any]]
) -> None:
    world = World()
    _play(world, _opening(create) + ops)
    _check_games(world)
    world.kit.advance(600)  # every timer that is due runs without trouble
    _check_games(world)


def _check_stored(world: World, store: FlakyStore) -> None:
    """Every room is what its store holds (``last_active`` aside), and no connection
    ever got a seq above the one stored for its room."""
    hub = world.kit.hub
    stored: dict[str, RoomRecord] = {record.room_id: record for record in store.load_all()}
    for room_id, record in stored.items():
        room = hub.room(room_id)
        if room is not None:
            assert same_state(room.record(), record)
    for peer in world.everyone:
        welcome = peer.last_welcome
        held = None if welcome is None else stored.get(welcome.state.room)
        if held is not None:
            seqs = [m.seq for m in peer.inbox if not isinstance(m, Error | SecondPathReady)]
            assert max(seqs) <= held.seq


@_SETTINGS
@given(
    create=_create,
    ops=st.lists(_op, max_size=60),
    fails=st.lists(st.booleans(), min_size=1, max_size=40),
)
def test_any_write_may_fail(
    create: CreateRoom, ops: list[tuple[str, int, Any]], fails: list[bool]
) -> None:
    """Whichever writes fail (``fails``, cycled over the writes), rooms and store agree,
    nobody gets a bug report or a seq gap, and games replay from the store."""
    store = FlakyStore()
    writes = itertools.cycle(fails)
    store.fail_when = lambda record, before: next(writes)
    world = World(store)
    _play(world, _opening(create) + ops, lambda: _check_stored(world, store))
    store.fail_when = None
    world.kit.advance(600)
    _check_stored(world, store)
    hub = world.kit.hub
    for record in store.load_all():
        room = hub.room(record.room_id)
        if room is None:
            continue  # its delete failed: it comes back after a restart, then goes idle
        replay = record.game.replay(record.rules)
        assert (replay.steps, replay.counts, replay.outcome) == (
            room.game.steps,
            room.game.counts,
            room.game.outcome,
        )
