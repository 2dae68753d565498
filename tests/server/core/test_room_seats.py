"""Seats over time: away and back, resume tokens, replaced connections, away-timeout, leave."""

from __future__ import annotations

import dataclasses

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CloseCode,
    ConnectionChanged,
    CreateRoom,
    JoinRoom,
    Leave,
    PlayerJoined,
    PlayerLeft,
    Ready,
    ResumeSeat,
    RoomPhase,
    RulesSpec,
    SpectatorsChanged,
    WatchRoom,
)
from server.core.room.fairdeal import FairRecord
from server.core.room.phases import Stage
from server.core.room.play import played
from server.core.room.records import GameRecord
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated


def _resume(kit: RoomKit, peer: Peer) -> Peer:
    welcome = peer.welcome
    assert welcome.token is not None
    again = kit.connect()
    kit.send(again, ResumeSeat(room=welcome.state.room, token=welcome.token))
    return again


def test_away_then_resume_with_a_new_token_and_the_old_one_is_refused() -> None:
    kit = RoomKit(HubSettings(away_timeout=0))  # 0: the game waits for Ben
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    kit.drop(ben)
    assert ann.inbox[-1] == ConnectionChanged(seq=room.seq, seat=1, connected=False)
    state = room.state(kit.now)
    assert state.waiting_for == (1,)
    assert not state.seats[1].connected
    kit.advance(3600)
    assert room.game.steps == 0  # the game waits for Ben
    old_token = ben.welcome.token
    back = _resume(kit, ben)
    welcome = back.welcome
    assert (welcome.seat, welcome.player_code) == (1, ann.welcome.player_code)
    assert welcome.token not in (None, old_token)
    assert welcome.state.seats[1].connected
    assert welcome.state.seats[0].ready  # Ann's ready survived the wait
    assert welcome.seq == room.seq
    assert ann.inbox[-1] == ConnectionChanged(seq=room.seq, seat=1, connected=True)
    kit.send(back, Ready(step=welcome.state.step))
    assert room.game.steps == 1
    assert back.gaps == []
    # the old token is refused, and the refusal closes that connection only
    thief = kit.connect()
    actions = kit.send(thief, ResumeSeat(room=room.room_id, token=old_token or ""))
    assert error_codes(actions) == ["bad_token"]
    assert thief.closed == CloseCode.REFUSED
    assert back.closed is None
    assert room.seat_of(back.conn) == 1


def test_resume_on_a_new_connection_replaces_the_old_one() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    mark = len(ann.inbox)
    second = _resume(kit, ben)
    assert ben.closed == CloseCode.REPLACED
    assert second.welcome.seat == 1
    assert ann.inbox[mark:] == []  # nobody saw Ben go away: the seat never was
    assert room.state(kit.now).seats[1].connected
    kit.drop(ben)  # the app reports the replaced connection's end: harmless
    assert ann.inbox[mark:] == []
    assert room.seat_of(second.conn) == 1


def test_resume_with_a_wrong_room_or_a_garbage_token() -> None:
    kit = RoomKit()
    ann, _ = seated(kit)
    for room_id, token in [("nosuchroom", ann.welcome.token), (ann.welcome.state.room, "x" * 32)]:
        peer = kit.connect()
        assert error_codes(kit.send(peer, ResumeSeat(room=room_id, token=token or ""))) == [
            "bad_token"
        ]
        assert peer.closed == CloseCode.REFUSED


def test_away_timeout_puts_an_absent_seat_on_calm_auto_play() -> None:
    kit = RoomKit(HubSettings(away_timeout=30))
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.drop(ben)
    kit.advance(29.9)
    assert room.state(kit.now).seats[1].auto is AutoPlay.OFF
    kit.advance(0.1)
    assert ann.of(AutoPlayChanged)[-1] == AutoPlayChanged(
        seq=ann.of(AutoPlayChanged)[-1].seq, seat=1, mode=AutoPlay.CALM, away=True
    )  # away: the server's doing, not Ben's
    kit.send(ann, Ready(step=0))
    kit.advance(1.5)
    assert room.game.steps == 1  # Ben's seat readied by itself
    back = _resume(kit, ben)
    assert back.welcome.state.seats[1].auto is AutoPlay.CALM  # what was in force
    # ... until Ben is back: then he plays himself again, and everyone hears so
    told = AutoPlayChanged(seq=room.seq, seat=1, mode=AutoPlay.OFF, away=True)
    assert back.inbox[-1] == told
    assert ann.inbox[-1] == told
    assert room.record().seats[1].auto == "off"  # never stored as Ben's choice


def test_a_seat_back_before_the_away_timeout_stays_off_auto() -> None:
    kit = RoomKit(HubSettings(away_timeout=30))
    ann, ben = seated(kit)
    kit.drop(ben)
    kit.advance(10)
    back = _resume(kit, ben)
    kit.advance(100)
    assert kit.room(ann).state(kit.now).seats[1].auto is AutoPlay.OFF
    assert back.closed is None


def test_leave_while_waiting_frees_the_seat() -> None:
    kit = RoomKit()
    cy, di = kit.connect(), kit.connect()
    kit.send(cy, CreateRoom(name="Cy", rules=RulesSpec(players=3)))
    code = cy.welcome.player_code or ""
    kit.send(di, JoinRoom(code=code, name="Di"))
    kit.send(di, Leave())
    assert di.closed == CloseCode.NORMAL
    assert cy.of(PlayerLeft)[-1].seat == 1
    room = kit.room(cy)
    assert room.state(kit.now).seats[1].name is None
    assert room.phase is RoomPhase.WAITING
    ed = kit.connect()
    kit.send(ed, JoinRoom(code=code, name="Ed"))
    assert ed.welcome.seat == 1
    assert cy.of(PlayerJoined)[-1].name == "Ed"
    thief = kit.connect()
    actions = kit.send(thief, ResumeSeat(room=room.room_id, token=di.welcome.token or ""))
    assert error_codes(actions) == ["bad_token"]
    assert cy.gaps == []


def test_leave_during_a_game_hands_the_seat_to_the_computer() -> None:
    kit = RoomKit()
    ann, ben = seated(kit, deal=31)
    room = kit.room(ann)
    kit.send(ben, Leave())
    assert ben.closed == CloseCode.NORMAL
    kinds = [m.TYPE for m in ann.inbox[-2:]]
    assert kinds == ["player_left", "auto_play_changed"]
    seat = room.state(kit.now).seats[1]
    assert (seat.name, seat.computer, seat.connected) == ("P1", True, False)
    kit.send(ann, Ready(step=0))
    kit.advance(0.6)
    assert room.game.steps == 1
    token = ben.welcome.token or ""
    thief = kit.connect()
    assert error_codes(kit.send(thief, ResumeSeat(room=room.room_id, token=token))) == ["bad_token"]


def test_when_every_player_left_the_room_is_removed_and_watchers_are_told() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    assert ann.of(SpectatorsChanged)[-1].count == 1
    kit.send(ann, Leave())
    assert kit.hub.rooms == 1
    kit.send(ben, Leave())
    assert kit.hub.rooms == 0
    assert watcher.closed == CloseCode.ROOM_CLOSED
    assert kit.store.load_all() == []


def test_a_spectator_leaving_or_dropping_is_counted() -> None:
    kit = RoomKit()
    ann, _ = seated(kit)
    one, two = kit.connect(), kit.connect()
    for peer in (one, two):
        kit.send(peer, WatchRoom(code=ann.welcome.watch_code or ""))
    assert one.welcome.player_code is None and one.welcome.token is None
    assert two.welcome.state.spectators == 2
    kit.send(one, Leave())
    assert one.closed == CloseCode.NORMAL
    kit.drop(two)
    assert [m.count for m in ann.of(SpectatorsChanged)] == [1, 2, 1, 0]


def test_a_connection_can_only_act_for_its_own_seat() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    state = room.state(kit.now)
    assert [s.ready for s in state.seats] == [True, False]
    # a second opening on a seated connection cannot take another seat, even with its token
    steal = ResumeSeat(room=room.room_id, token=ann.welcome.token or "")
    assert error_codes(kit.send(ben, steal)) == ["already_in_room"]
    assert room.seat_of(ben.conn) == 1 and room.seat_of(ann.conn) == 0
    assert error_codes(kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="X"))) == [
        "already_in_room"
    ]
    assert ben.closed is None and ann.closed is None
    assert room.state(kit.now) == state


def test_the_fast_game_record_of_a_step_keeps_every_other_field() -> None:
    every = GameRecord(
        number=3,
        deal=2**64 - 1,
        revealed=True,
        stage=Stage.PLAYING,
        steps=9,
        stop_step=8,
        finished=True,
        deadline=123.5,
        ready=(1,),
        finish_votes=(0, 2),
        rematch_votes=((1, "same"),),
        fair=FairRecord("ab" * 32, ("cd" * 32, None, None), (None, None, None), settled=True),
        rematch_commitments=((0, "ef" * 32),),
        voids=(0, 2, 1),
    )
    unset = {f.name for f in dataclasses.fields(GameRecord) if getattr(every, f.name) == f.default}
    assert unset == set()  # a new field of GameRecord must be given a value here too
    assert played(every, 10, (0, 3)) == dataclasses.replace(every, steps=10, ready=(0, 3))
