"""A seat belongs to its person: taking an away seat by its name is a request the table
answers (or, with nobody to ask, needs the seat away long); the device it was taken from
keeps a way back; names that look alike, show nothing or are the clients' words are
refused. All on the fake clock."""

from __future__ import annotations

import pytest

from protocol import (
    CloseCode,
    CreateRoom,
    JoinRoom,
    Leave,
    Ready,
    ResumeSeat,
    Resync,
    RulesSpec,
    Snapshot,
    WatchRoom,
)
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequest,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated


def ask(kit: RoomKit, host: Peer, name: str = "P1", address: str = "10.0.0.9") -> Peer:
    """A device of another household (``address``) asks for the seat named ``name``."""
    device = kit.connect(address)
    kit.send(device, JoinRoom(code=host.welcome.player_code or "", name=name))
    return device


def ended(peer: Peer) -> list[SeatRequestEnded]:
    return peer.of(SeatRequestEnded)


def test_the_asker_waits_and_sees_nothing_of_the_room_until_allowed() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    assert stranger.inbox == [SeatRequestWaiting(seq=kit.room(ann).seq, seat=1, seconds=60)]
    assert ann.of(SeatRequested)[-1].seat == 1
    kit.send(ann, Ready(step=0))  # the table plays on meanwhile
    assert len(stranger.inbox) == 1
    assert error_codes(kit.send(stranger, Ready(step=0))) == ["not_seated"]
    assert stranger.closed is None


def test_refused_the_asker_is_told_and_closed_and_the_table_knows_who() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    kit.send(ann, AnswerSeatRequest(seat=1, allow=False))
    assert stranger.errors() == ["seat_request_refused"]
    assert stranger.closed == CloseCode.REFUSED
    assert ended(ann)[-1].outcome is RequestOutcome.REFUSED
    assert ended(ann)[-1].by == 0
    assert not kit.room(ann).state(kit.now).seats[1].connected


def test_nobody_answers_the_request_expires() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    kit.advance(59)
    assert stranger.closed is None
    kit.advance(2)
    assert stranger.errors() == ["seat_request_expired"]
    assert stranger.closed == CloseCode.REFUSED
    assert ended(ann)[-1].outcome is RequestOutcome.EXPIRED


def test_a_second_request_meanwhile_is_refused() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    ask(kit, ann)
    second = ask(kit, ann)
    assert second.errors() == ["seat_request_pending"]
    assert second.closed == CloseCode.REFUSED


@pytest.mark.parametrize("how", ["drop", "leave"])
def test_the_asker_going_away_withdraws_the_request(how: str) -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    if how == "drop":
        kit.drop(stranger)
    else:
        kit.send(stranger, Leave())
        assert stranger.closed == CloseCode.NORMAL
    assert ended(ann)[-1].outcome is RequestOutcome.WITHDRAWN
    assert error_codes(kit.send(ann, AnswerSeatRequest(seat=1, allow=True))) == ["no_seat_request"]
    assert ask(kit, ann).of(SeatRequestWaiting)  # the next one may ask


def test_the_owner_coming_back_by_token_ends_the_request() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    back = kit.come_back(ben)
    assert back.welcome.seat == 1
    assert stranger.errors() == ["seat_in_use"]
    assert ended(ann)[-1].outcome is RequestOutcome.RETURNED


def test_a_spectator_cannot_answer() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    ask(kit, ann)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    assert error_codes(kit.send(watcher, AnswerSeatRequest(seat=1, allow=True))) == ["not_seated"]


def test_with_nobody_to_ask_the_seat_must_be_away_for_the_away_timeout() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=2))
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", computers=1, deal=5))
    kit.drop(ann)
    for _ in range(3):  # refused, but not counted against the address: the name was right
        early = ask(kit, ann, "Ann")
        assert early.errors() == ["seat_away_too_briefly"]
        assert early.closed == CloseCode.REFUSED
    kit.advance(120)
    late = ask(kit, ann, "Ann")
    assert late.welcome.seat == 0
    assert ended(late)[-1].outcome is RequestOutcome.AWAY_LONG
    assert ended(late)[-1].by is None


def test_the_device_the_seat_was_taken_from_takes_it_back_and_the_taker_is_told() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    assert stranger.welcome.seat == 1
    kit.advance(300)  # within the way back
    grandma = kit.come_back(ben)
    assert grandma.welcome.seat == 1
    assert stranger.errors() == ["seat_taken_back"]
    assert stranger.closed == CloseCode.REPLACED
    # the stranger's token no longer takes it (it is told the seat was taken back, not
    # counted as a guess); nor does the way back work twice
    assert error_codes(
        kit.send(
            kit.connect(),
            ResumeSeat(room=kit.room(ann).room_id, token=stranger.welcome.token or ""),
        )
    ) == ["seat_taken"]


def test_the_owner_s_failed_recoveries_are_not_counted_as_guesses() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=2))
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann, address="10.0.0.9")
    kit.send(ann, AnswerSeatRequest(seat=1, allow=True))
    kit.advance(700)  # past the way back
    room_id = kit.room(ann).room_id
    for _ in range(3):
        lost = kit.connect("10.0.0.1")
        kit.send(lost, ResumeSeat(room=room_id, token=ben.welcome.token or ""))
        assert lost.errors() == ["seat_taken"]
        by_name = ask(kit, ann, "P1", address="10.0.0.1")
        assert by_name.errors() == ["seat_in_use"]  # the stranger holds it: no guess
    assert stranger.closed is None


# --- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Ann", "name_taken"),
        ("ANN", "name_taken"),
        ("Ann\u034f", "name_taken"),
        ("\u0410nn", "name_taken"),  # Cyrillic А
        ("\u3164", "name_invisible"),
        ("\u2800\u2800", "name_invisible"),
        ("\u034f", "name_invisible"),
        ("you", "name_reserved"),
        ("COMPUTER", "name_reserved"),
        ("Y\u043eu", "name_reserved"),  # Cyrillic о
    ],
)
def test_names_that_would_be_confused_are_refused(name: str, code: str) -> None:
    kit = RoomKit(HubSettings(max_failed_joins=1))
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3)))
    peer = ask(kit, ann, name)
    assert peer.errors() == [code]
    assert peer.closed == CloseCode.REFUSED
    assert ask(kit, ann, "Ben").welcome.seat == 1  # not counted as a failed attempt


@pytest.mark.parametrize("name", ["\u3164", "you", "Computer"])
def test_a_creator_s_name_is_checked_too(name: str) -> None:
    kit = RoomKit()
    creator = kit.connect()
    kit.send(creator, CreateRoom(name=name))
    assert creator.errors()[0] in ("name_invisible", "name_reserved")


# --- a player who comes in while the table is asked -----------------------------------------
def test_a_player_who_resumes_during_a_request_is_asked_and_may_allow_it() -> None:
    kit = RoomKit()
    ann, ben, cy = seated(kit, players=3)
    kit.drop(ben)
    stranger = ask(kit, ann)
    kit.drop(cy)  # her page reloads while the table is asked
    kit.advance(20)
    back = kit.come_back(cy)
    assert back.welcome.state.seat_request == SeatRequest(seat=1, seconds=40)
    kit.send(back, AnswerSeatRequest(seat=1, allow=True))
    assert stranger.welcome.seat == 1
    assert ended(back)[-1].outcome is RequestOutcome.ALLOWED
    assert ended(back)[-1].by == 2
    assert kit.come_back(ann).welcome.state.seat_request is None  # it is over


def test_a_newcomer_s_welcome_and_a_snapshot_carry_the_open_request() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    ask(kit, ann)
    kit.advance(15)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    assert watcher.welcome.state.seat_request == SeatRequest(seat=1, seconds=45)
    kit.send(ann, Resync())
    (snapshot,) = ann.of(Snapshot)
    assert snapshot.state.seat_request == SeatRequest(seat=1, seconds=45)
    kit.advance(46)  # expired
    kit.send(ann, Resync())
    assert ann.of(Snapshot)[-1].state.seat_request is None


def test_the_owner_s_own_return_ends_the_request_its_welcome_showed() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    kit.drop(ben)
    stranger = ask(kit, ann)
    back = kit.come_back(ben)
    assert stranger.errors() == ["seat_in_use"]
    assert ended(back)[-1].outcome is RequestOutcome.RETURNED  # after the welcome, in order
