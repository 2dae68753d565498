"""A restart (a new Hub on the same SQLite file) continues every room exactly where it was."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from protocol import (
    AutoPlay,
    CreateRoom,
    GameOver,
    JoinRoom,
    Leave,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    RoomPhase,
    RulesSpec,
    SetAutoPlay,
    Termination,
    TimeUp,
    VoteFinish,
)
from server import engine
from server.adapters.store.sqlite import SqliteStore
from tests.server.core._roomkit import Peer, RoomKit, error_codes, expected_events, game_events


def _open(path: Path, now: float, seed: int = 0) -> RoomKit:
    return RoomKit(store=SqliteStore(path), now=now, seed=seed)


def _resume(kit: RoomKit, old: Peer) -> Peer:
    welcome = old.welcome
    again = kit.connect()
    kit.send(again, ResumeSeat(room=welcome.state.room, token=welcome.token or ""))
    return again


def _ready_all(kit: RoomKit, peers: list[Peer]) -> None:
    room = kit.room(peers[0])
    step = room.game.steps
    for peer in peers:
        if room.seat_of(peer.conn) in room.waiting_for():
            kit.send(peer, Ready(step=step))


def test_a_restart_mid_war_continues_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    first = _open(path, now=1000.0)
    ann, ben = first.connect(), first.connect()
    first.send(ann, CreateRoom(name="Ann", rules=RulesSpec(face_down=3)))  # hidden deal
    first.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room = first.room(ann)
    while not (room.game.phase is engine.Phase.WAR and room.game.steps > 5):
        _ready_all(first, [ann, ben])
        assert room.phase is RoomPhase.PLAYING, "no war in this game; pick another seed"
    first.send(ann, SetAutoPlay(mode=AutoPlay.CALM))
    before = room.state(first.now)
    deal = room.game_record.deal
    # kill -9: the old hub and its store are simply abandoned, never closed

    second = _open(path, now=first.now + 5, seed=1)
    rebuilt = second.hub.room(before.room)
    assert rebuilt is not None
    away = tuple(dataclasses.replace(s, connected=False) for s in before.seats)
    assert rebuilt.state(second.now) == dataclasses.replace(before, seats=away)
    assert rebuilt.game.table == room.game.table
    ann2, ben2 = _resume(second, ann), _resume(second, ben)
    assert ann2.welcome.state.step == before.step
    assert ann2.welcome.state.seats[0].auto is AutoPlay.CALM
    second.send(ann2, SetAutoPlay(mode=AutoPlay.OFF))
    second.play_round_robin([ann2, ben2])
    for old in (ann, ben):  # both resumed seats have played on: the earlier tokens are spent
        thief = second.connect()
        actions = second.send(thief, ResumeSeat(room=before.room, token=old.welcome.token or ""))
        assert error_codes(actions) == ["bad_token"]
    events = game_events(ann) + game_events(ann2)
    assert events == expected_events(engine.Rules(face_down=3), deal)
    assert ann2.gaps == ben2.gaps == []


def test_a_time_limit_that_ran_out_while_the_server_was_down(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    first = _open(path, now=5000.0)
    ann, ben = first.connect(), first.connect()
    first.send(ann, CreateRoom(name="Ann", minutes=1, deal=8))
    first.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    first.advance(20)
    first.store.close()

    second = _open(path, now=5000.0 + 300)
    room_id = ann.welcome.state.room
    room = second.hub.room(room_id)
    assert room is not None
    assert room.phase is RoomPhase.PLAYING
    assert room.state(second.now).seconds_left == 0
    due = second.hub.next_deadline()
    assert due is not None
    assert due == 5060.0
    watcher = _resume(second, ann)
    second.advance(0)
    assert watcher.of(TimeUp) != []
    (over,) = watcher.of(GameOver)
    assert over.termination is Termination.TIME_LIMIT
    assert room.game_record.stop_step == 0
    second.store.close()
    third = _open(path, now=second.now + 1)
    again = third.hub.room(room_id)
    assert again is not None
    assert again.phase is RoomPhase.OVER
    assert again.game.outcome == room.game.outcome


def test_finished_games_votes_and_left_seats_survive(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    first = _open(path, now=10.0)
    ann, ben, cy = first.connect(), first.connect(), first.connect()
    first.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3), deal=99, computers=0))
    for peer, name in ((ben, "Ben"), (cy, "Cy")):
        first.send(peer, JoinRoom(code=ann.welcome.player_code or "", name=name))
    first.send(cy, Leave())
    for peer in (ann, ben):
        first.send(peer, VoteFinish())
    room = first.room(ann)
    assert room.phase is RoomPhase.OVER
    result = room.state(first.now).result
    first.store.close()

    second = _open(path, now=20.0)
    rebuilt = second.hub.room(room.room_id)
    assert rebuilt is not None
    state = rebuilt.state(second.now)
    assert (state.phase, state.result, state.deal) == (RoomPhase.OVER, result, 99)
    assert state.seats[2].computer and state.seats[2].name == "Cy"
    ann2, ben2 = _resume(second, ann), _resume(second, ben)
    for peer in (ann2, ben2):
        second.send(peer, Rematch(deal=RematchDeal.SAME))
    assert rebuilt.state(second.now).game == 2
    assert rebuilt.game_record.deal == 99
    second.play_round_robin([ann2, ben2], max_steps=30)
    assert rebuilt.game.steps == 30
    second.store.close()

    third = _open(path, now=30.0)
    final = third.hub.room(room.room_id)
    assert final is not None
    assert (final.game_record.number, final.game.steps) == (2, 30)
    assert final.game.counts == rebuilt.game.counts
