"""Playing a game through the hub with a fake clock: ready, steps, wars, spectators, computer."""

from __future__ import annotations

from itertools import pairwise

import pytest

from protocol import (
    AutoPlay,
    CardsTurned,
    ClientMessage,
    CreateRoom,
    Error,
    GameOver,
    GameStarted,
    JoinRoom,
    Ready,
    ReadyChanged,
    RoomPhase,
    SetAutoPlay,
    WaitingFor,
    WarDeclared,
    WatchRoom,
)
from server import engine
from server.core.room.room import Room
from tests.server.core._roomkit import (
    Peer,
    RoomKit,
    error_codes,
    expected_events,
    game_events,
    seated,
)


def test_full_two_player_game_matches_the_engine_and_everyone_sees_it() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=90210)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    started = ann.of(GameStarted)
    assert started == [GameStarted(seq=started[0].seq, game=1, counts=(26, 26), deal=90210)]
    kit.play_round_robin([ann, ben])
    room = kit.room(ann)
    assert room.phase is RoomPhase.OVER
    expected = expected_events(engine.Rules(), 90210)
    assert game_events(ann) == expected
    assert game_events(ben) == expected
    assert game_events(watcher) == expected
    # the same room messages, in the same order, from the watcher's welcome on
    since = watcher.welcome.seq
    tail = [m for m in ann.room_messages() if m.seq > since]
    assert watcher.room_messages() == tail
    assert ben.room_messages() == [m for m in ann.room_messages() if m.seq > ben.welcome.seq]
    for peer in (ann, ben, watcher):
        assert peer.gaps == []
        assert peer.errors() == []
    assert ann.inbox[-1] == WaitingFor(seq=room.seq, seats=())
    assert isinstance(ann.inbox[-2], GameOver)


def test_the_ready_sequence_of_the_protocol_document() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    assert [m.TYPE for m in ann.take()[-3:]] == ["player_joined", "game_started", "waiting_for"]
    ben.take()
    kit.send(ann, Ready(step=0))
    seq = kit.room(ann).seq
    assert ann.take() == [
        ReadyChanged(seq=seq - 1, seat=0, ready=True),
        WaitingFor(seq=seq, seats=(1,)),
    ]
    ben.take()
    kit.send(ben, Ready(step=0))
    after = ben.take()
    assert isinstance(after[0], CardsTurned)
    assert after[0].step == 1
    assert not any(isinstance(m, ReadyChanged) for m in after)  # the last ready just steps
    assert isinstance(after[-1], WaitingFor)
    assert after[-1].seats == (0, 1)
    assert kit.room(ann).state(kit.now).seats[0].ready is False


def test_refused_readies_harm_nobody() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    for peer in (ann, ben, watcher):
        peer.take()
    before = room.state(kit.now)
    refused: list[tuple[Peer, ClientMessage, str]] = [
        (ann, Ready(step=0), "already_ready"),
        (ann, Ready(step=5), "stale"),
        (ben, Ready(step=1), "stale"),
        (watcher, Ready(step=0), "not_seated"),
        (watcher, SetAutoPlay(mode=AutoPlay.QUICK), "not_seated"),
    ]
    for peer, message, code in refused:
        actions = kit.send(peer, message)
        assert error_codes(actions) == [code]
        assert peer.closed is None
    assert room.state(kit.now) == before
    assert ann.errors() == ["already_ready", "stale"]
    assert ben.errors() == ["stale"]
    assert watcher.errors() == ["not_seated", "not_seated"]
    for peer in (ann, ben, watcher):  # each got its own error and nothing else
        assert all(isinstance(m, Error) for m in peer.inbox)
    # and the game goes on: a ready from a stale tap after the step is refused, never doubled
    kit.send(ben, Ready(step=0))
    assert room.game.steps == 1
    assert error_codes(kit.send(ben, Ready(step=0))) == ["stale"]
    assert room.game.steps == 1


def test_ready_before_the_seats_are_filled_and_after_game_over() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=3))
    assert error_codes(kit.send(ann, Ready(step=0))) == ["game_not_started"]
    ben = kit.connect()
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    kit.play_round_robin([ann, ben])
    room = kit.room(ann)
    assert error_codes(kit.send(ann, Ready(step=room.game.steps))) == ["game_over"]
    assert error_codes(kit.send(ann, SetAutoPlay(mode=AutoPlay.CALM))) == ["game_over"]


def _three_way_war_deal() -> int:
    """The first deal whose first flip ties three of four players (searched, bounded)."""
    for deal in range(20_000):
        events = engine.Game(engine.Rules(players=4), deal).step()
        if any(isinstance(e, engine.WarDeclared) and len(e.seats) == 3 for e in events):
            return deal
    raise AssertionError("no three-way war in the first 20,000 deals")


def test_four_players_with_a_three_way_war() -> None:
    deal = _three_way_war_deal()
    kit = RoomKit()
    peers = seated(kit, players=4, deal=deal)
    room = kit.room(peers[0])
    for peer in peers:
        kit.send(peer, Ready(step=0))
    war = [m for m in peers[0].inbox if isinstance(m, WarDeclared)]
    assert len(war) == 1
    assert len(war[0].seats) == 3
    (outside,) = set(range(4)) - set(war[0].seats)
    state = room.state(kit.now)
    assert (state.war_depth, state.war_seats) == (1, war[0].seats)
    assert state.waiting_for == war[0].seats
    assert error_codes(kit.send(peers[outside], Ready(step=1))) == ["not_needed"]
    for seat in war[0].seats:
        kit.send(peers[seat], Ready(step=1))
    assert room.game.steps == 2
    kit.play_round_robin(peers)
    assert game_events(peers[3]) == expected_events(engine.Rules(players=4), deal)
    for peer in peers:
        assert peer.gaps == []


def test_a_computer_opponent_readies_after_its_delay_and_plays_a_whole_game() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=11, computers=1))
    room = kit.room(ann)
    state = ann.welcome.state
    assert state.phase is RoomPhase.WAITING  # the welcome is before the start
    assert state.seats[1].computer and state.seats[1].name == "Computer"
    assert room.phase is RoomPhase.PLAYING
    start = kit.now
    assert kit.hub.next_deadline() == pytest.approx(start + 0.6)
    kit.advance(0.5)
    assert room.waiting_for() == (0, 1)
    kit.advance(0.1)
    assert room.waiting_for() == (0,)
    kit.send(ann, Ready(step=0))
    assert room.game.steps == 1
    kit.send(ann, SetAutoPlay(mode=AutoPlay.QUICK))
    kit.run_until(kit.now + 100_000, stop=lambda: room.phase is RoomPhase.OVER)
    assert game_events(ann) == expected_events(engine.Rules(), 11)
    assert ann.gaps == []


def test_auto_play_paces_calm_and_quick() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=5)
    room = kit.room(ann)
    kit.send(ann, SetAutoPlay(mode=AutoPlay.QUICK))
    kit.send(ben, SetAutoPlay(mode=AutoPlay.CALM))
    times = []
    for _ in range(4):
        _run_one_step(kit, room)
        times.append(kit.now)
    gaps = [round(b - a, 6) for a, b in pairwise(times)]
    assert gaps == [1.5, 1.5, 1.5]  # the calm seat sets the pace
    kit.send(ben, SetAutoPlay(mode=AutoPlay.QUICK))
    mark = kit.now
    _run_one_step(kit, room)
    assert kit.now - mark == pytest.approx(0.3)
    kit.send(ann, SetAutoPlay(mode=AutoPlay.OFF))
    step = room.game.steps
    kit.advance(60)
    assert room.game.steps == step  # the game waits for Ann now
    assert room.waiting_for() == (0,)


def _run_one_step(kit: RoomKit, room: Room) -> None:
    step = room.game.steps
    kit.run_until(kit.now + 10, stop=lambda: room.game.steps != step)
    assert room.game.steps == step + 1
