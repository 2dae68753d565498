"""A family's evening: who votes, an away player who no longer stalls the table (played
calmly after the away-timeout, a seat taken back from a new device), and the computer
keeping pace with the quickest person. All on the fake clock."""

from __future__ import annotations

from itertools import pairwise

import pytest

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CloseCode,
    ConnectionChanged,
    CreateRoom,
    FinishVoted,
    GameOver,
    GameStarted,
    JoinRoom,
    Leave,
    PlayerOut,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    RoomPhase,
    RulesSpec,
    SetAutoPlay,
    VoteFinish,
)
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequested,
    SeatRequestEnded,
)
from server.core.room.room import Room
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated


def phase(room: Room) -> RoomPhase:
    """The room's phase, read afresh (a property mypy would otherwise narrow)."""
    return room.phase


# Three players, three face down: Cy (seat 2) runs short in the war of step 6 and is out.
CY_OUT = {"players": 3, "deal": 7652, "rules": RulesSpec(players=3, face_down=3)}


def _until_cy_is_out(kit: RoomKit, peers: list[Peer]) -> None:
    room = kit.room(peers[0])
    while 2 in room.game.active:
        step = room.game.steps
        for seat in room.waiting_for():
            kit.send(peers[seat], Ready(step=step))
    assert peers[0].of(PlayerOut)[-1].seat == 2


# --- who votes (protocol.votes, the clients' rule) -----------------------------------------
def test_the_two_left_finish_the_game_after_one_left_and_one_went_out() -> None:
    kit = RoomKit()
    ann, ben, cy = seated(kit, **CY_OUT)  # type: ignore[arg-type]
    room = kit.room(ann)
    _until_cy_is_out(kit, [ann, ben, cy])
    assert phase(room) is RoomPhase.PLAYING
    kit.send(ben, Leave())  # the computer plays Ben's seat
    kit.send(ann, VoteFinish())  # the one person still in the game: that settles it
    assert phase(room) is RoomPhase.OVER  # 0.1 waited for Cy, who is out
    for peer in (ann, cy):
        assert peer.of(GameOver)[-1].counts == room.game.counts
        assert peer.gaps == []


def test_an_out_player_s_vote_is_welcome_but_not_needed() -> None:
    kit = RoomKit()
    ann, ben, cy = seated(kit, **CY_OUT)  # type: ignore[arg-type]
    room = kit.room(ann)
    _until_cy_is_out(kit, [ann, ben, cy])
    kit.send(cy, VoteFinish())
    assert ann.of(FinishVoted)[-1].seat == 2
    kit.send(ann, VoteFinish())
    assert phase(room) is RoomPhase.PLAYING  # Ben is still in and present
    kit.send(ben, VoteFinish())
    assert phase(room) is RoomPhase.OVER


def test_a_finish_vote_completes_when_the_one_still_to_vote_goes_out() -> None:
    kit = RoomKit()
    ann, ben, cy = seated(kit, **CY_OUT)  # type: ignore[arg-type]
    room = kit.room(ann)
    kit.send(ann, VoteFinish())
    kit.send(ben, VoteFinish())
    assert phase(room) is RoomPhase.PLAYING  # Cy is still in and has not voted
    _until_cy_is_out(kit, [ann, ben, cy])
    assert phase(room) is RoomPhase.OVER  # her going out completed the vote
    messages = ann.room_messages()
    out = next(i for i, m in enumerate(messages) if isinstance(m, PlayerOut))
    assert isinstance(messages[-2], GameOver) and out < len(messages) - 2


def test_an_away_seat_does_not_hold_a_vote_up() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.send(ann, VoteFinish())
    assert phase(room) is RoomPhase.PLAYING
    kit.drop(ben)  # Ben's laptop closes: Ann's vote is every vote there is
    assert phase(room) is RoomPhase.OVER
    kit.send(ann, Rematch(deal=RematchDeal.SAME))
    assert room.game_record.number == 2  # Ben, away, does not hold the rematch up either
    # ... but a vote Ann alone cast never replays the deal she has seen: a new, hidden one
    assert ann.of(GameStarted)[-1].deal is None
    assert not room.game_record.revealed


def test_a_rematch_by_those_present_is_the_same_deal_only_if_every_vote_says_so() -> None:
    kit = RoomKit()
    ann, ben, cy = seated(kit, players=3)
    room = kit.room(ann)
    for peer in (ann, ben, cy):
        kit.send(peer, VoteFinish())
    deal = room.game_record.deal
    kit.send(ann, Rematch(deal=RematchDeal.SAME))
    kit.send(ben, Rematch(deal=RematchDeal.NEW))
    assert room.game_record.number == 1  # Cy has not voted
    kit.drop(cy)  # ... and now she is away: the two votes given decide
    assert room.game_record.number == 2
    assert room.game_record.deal != deal  # one asked for a new deal


def test_nobody_present_means_no_vote_is_complete() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.send(ann, VoteFinish())
    kit.drop(ann)  # Ann's vote stands; Ben, present, has not voted
    assert phase(room) is RoomPhase.PLAYING
    kit.drop(ben)  # nobody is present: a vote needs someone to vote
    assert phase(room) is RoomPhase.PLAYING
    back = kit.come_back(ben)
    kit.send(back, VoteFinish())  # Ann is away: Ben's vote is all it takes
    assert phase(room) is RoomPhase.OVER


# --- an away player no longer stalls the table -----------------------------------------------
def test_the_server_plays_an_away_seat_calmly_after_two_minutes_by_default() -> None:
    kit = RoomKit()  # the default settings: a 120 s away-timeout
    assert kit.settings.away_timeout == 120
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    kit.drop(ben)
    kit.advance(119.9)
    assert room.game.steps == 0 and ann.of(AutoPlayChanged) == []
    kit.advance(0.1)
    told = ann.of(AutoPlayChanged)
    assert told == [AutoPlayChanged(seq=room.seq, seat=1, mode=AutoPlay.CALM, away=True)]
    assert room.state(kit.now).seats[1].auto is AutoPlay.CALM
    kit.advance(1.5)
    assert room.game.steps == 1  # Ben's seat readied at the calm pace
    step_at = kit.now
    kit.send(ann, Ready(step=1))
    kit.run_until(kit.now + 10, stop=lambda: room.game.steps == 2)
    assert kit.now - step_at == pytest.approx(1.5)
    back = kit.come_back(ben)
    assert back.inbox[-1] == AutoPlayChanged(seq=room.seq, seat=1, mode=AutoPlay.OFF, away=True)
    kit.send(ann, Ready(step=2))
    kit.advance(60)
    assert room.game.steps == 2  # Ben plays himself again: the game waits for him


def test_an_away_timeout_of_0_never_plays_for_anyone() -> None:
    kit = RoomKit(HubSettings(away_timeout=0))
    ann, ben = seated(kit)
    kit.drop(ben)
    kit.advance(24 * 3600)
    assert kit.room(ann).game.steps == 0
    assert ann.of(AutoPlayChanged) == []


def test_a_seat_on_auto_play_is_not_played_for_and_keeps_its_own_pace() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.send(ben, SetAutoPlay(mode=AutoPlay.QUICK))
    kit.drop(ben)
    kit.advance(300)
    assert [m.away for m in ann.of(AutoPlayChanged)] == [False]  # Ben's own quick
    assert kit.room(ann).state(kit.now).seats[1].auto is AutoPlay.QUICK


# --- taking an away seat back from another device ---------------------------------------------
def _asks(kit: RoomKit, code: str, name: str, address: str = "10.0.0.9") -> Peer:
    """A new device (at ``address``: another household than the table's, which may answer
    it) asks for the seat of ``name`` with the player code."""
    device = kit.connect(address)
    kit.send(device, JoinRoom(code=code, name=name))
    return device


def test_a_player_who_lost_the_token_takes_the_away_seat_back_by_code_and_name() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    old_token = ben.welcome.token or ""
    kit.drop(ben)
    tablet = _asks(kit, ann.welcome.player_code or "", "P1")
    asked = ann.inbox[-1]
    assert asked == SeatRequested(seq=room.seq, seat=1, seconds=60)
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    welcome = tablet.welcome
    assert welcome.seat == 1
    assert welcome.token not in (None, old_token)
    assert welcome.state.seats[1].connected
    assert ConnectionChanged(seq=welcome.seq, seat=1, connected=True, rejoined=True) in ann.inbox
    ended = SeatRequestEnded(
        seq=room.seq, seat=1, outcome=RequestOutcome.ALLOWED, by=0, reclaim=600
    )
    assert ann.inbox[-1] == ended, asked
    assert tablet.inbox[-1] == ended  # the new device is told the old one may take it back
    kit.send(tablet, Ready(step=0))
    assert room.state(kit.now).seats[1].ready
    # past the way back, the lost device's token is told plainly what happened
    kit.advance(601)
    stale = kit.connect()
    assert error_codes(kit.send(stale, ResumeSeat(room=room.room_id, token=old_token))) == [
        "seat_taken"
    ]
    assert "taken on another device" in str(stale.inbox[-1])
    assert tablet.closed is None


def test_taking_back_a_seat_played_for_while_away_stops_that() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    kit.drop(ben)
    kit.advance(120)
    tablet = _asks(kit, ann.welcome.player_code or "", "P1")
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert tablet.welcome.state.seats[1].auto is AutoPlay.CALM
    assert AutoPlayChanged(seq=room.seq - 1, seat=1, mode=AutoPlay.OFF, away=True) in tablet.inbox


def test_before_the_start_a_returning_name_asks_for_its_own_seat_back() -> None:
    kit = RoomKit()
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3)))
    code = ann.welcome.player_code or ""
    kit.send(ben, JoinRoom(code=code, name="Ben"))
    kit.drop(ben)
    again = _asks(kit, code, "Ben")
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert again.welcome.seat == 1  # not a second Ben in seat 2
    assert kit.room(ann).state(kit.now).seats[2].name is None


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ann", "seat_in_use"),  # a seat that is present: never taken over, and no guess
        ("Nobody", "room_full"),
    ],
)
def test_a_present_seat_or_no_seat_of_that_name_is_refused(name: str, code: str) -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    thief = kit.connect()
    actions = kit.send(thief, JoinRoom(code=ann.welcome.player_code or "", name=name))
    assert error_codes(actions) == [code]
    assert thief.closed == CloseCode.REFUSED
    assert not kit.room(ann).state(kit.now).seats[1].connected


def test_wrong_names_count_as_failed_attempts() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=3))
    ann, ben = seated(kit)
    kit.drop(ben)
    code = ann.welcome.player_code or ""
    for guess in ("Ben", "Bob", "P2"):
        kit.send(kit.connect("10.0.0.9"), JoinRoom(code=code, name=guess))
    last = kit.connect("10.0.0.9")
    actions = kit.send(last, JoinRoom(code=code, name="P1"))  # right, but too late
    assert error_codes(actions) == ["too_many_failures"]
    kit.advance(60)
    later = _asks(kit, code, "P1")
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert later.welcome.seat == 1


def test_a_full_waiting_room_never_exists_and_a_late_joiner_is_not_counted() -> None:
    """Before the start a join with a new name takes an open seat: no failure to count."""
    kit = RoomKit(HubSettings(max_failed_joins=1))
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3)))
    code = ann.welcome.player_code or ""
    for name in ("Ben", "Cy"):
        peer = kit.connect()
        kit.send(peer, JoinRoom(code=code, name=name))
        assert peer.welcome.seat is not None


# --- the computer keeps pace ------------------------------------------------------------------
def _vs_computer(kit: RoomKit, **create: object) -> Peer:
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=11, computers=1, **create))  # type: ignore[arg-type]
    return ann


def _step_times(kit: RoomKit, ann: Peer, steps: int) -> list[float]:
    room = kit.room(ann)
    times = []
    for step in range(room.game.steps, room.game.steps + steps):

        def stepped(after: int = step) -> bool:
            return room.game.steps != after

        kit.run_until(kit.now + 10, stop=stepped)
        assert room.game.steps == step + 1
        times.append(kit.now)
    return times


def test_quick_auto_play_against_the_computer_is_quick() -> None:
    kit = RoomKit()
    ann = _vs_computer(kit)
    kit.send(ann, SetAutoPlay(mode=AutoPlay.QUICK))
    start = kit.now
    times = _step_times(kit, ann, 5)
    gaps = [round(b - a, 6) for a, b in pairwise([start, *times])]
    assert gaps == [0.3] * 5  # not the computer's 0.6


def test_a_person_who_readies_never_waits_for_the_computer() -> None:
    kit = RoomKit()
    ann = _vs_computer(kit)
    room = kit.room(ann)
    for step in range(5):
        kit.advance(0.05)
        kit.send(ann, Ready(step=step))  # a quick press, well before 0.6 s
        assert room.game.steps == step + 1  # flips at once
    kit.advance(2)
    assert room.waiting_for() == (0,)  # the computer readied at 0.6 s and waits for Ann


def test_calm_auto_play_keeps_the_computer_s_own_pace() -> None:
    kit = RoomKit()
    ann = _vs_computer(kit)
    kit.send(ann, SetAutoPlay(mode=AutoPlay.CALM))
    start = kit.now
    times = _step_times(kit, ann, 3)
    assert [round(b - a, 6) for a, b in pairwise([start, *times])] == [1.5] * 3


def test_with_two_people_the_computer_waits_for_both() -> None:
    kit = RoomKit()
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3), computers=1, deal=11))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room = kit.room(ann)
    kit.send(ann, Ready(step=0))
    assert room.game.steps == 0  # Ben has not readied
    kit.send(ben, Ready(step=0))
    assert room.game.steps == 1  # the computer does not make them wait
