"""Who votes: one rule for the server and every client (protocol.votes)."""

from __future__ import annotations

from protocol import (
    RematchDeal,
    RoomPhase,
    SeatState,
    finish_voters,
    rematch_voters,
    still_to_vote,
)

SEATS = (
    SeatState(seat=0, name="Ann", connected=True, finish_vote=True),
    SeatState(seat=1, name="Ben", connected=True),
    SeatState(seat=2, name="Cy", connected=True, out=True),
    SeatState(seat=3, name="Dot", connected=False),
)


def test_a_finish_vote_waits_for_present_people_still_in_the_game() -> None:
    assert finish_voters(SEATS) == (0, 1), "Cy is out, Dot is away"
    assert still_to_vote(RoomPhase.PLAYING, SEATS) == (1,)


def test_the_computer_and_open_seats_never_vote() -> None:
    seats = (
        SeatState(seat=0, name="Ann", connected=True),
        SeatState(seat=1, name="Computer", computer=True),
        SeatState(seat=2, name="Ben", computer=True),  # left the game: the computer plays
        SeatState(seat=3),
    )
    assert finish_voters(seats) == rematch_voters(seats) == (0,)


def test_a_rematch_waits_for_every_present_person_out_or_not() -> None:
    seats = (SEATS[0], SEATS[1], SeatState(seat=2, name="Cy", connected=True, out=True,
             rematch_vote=RematchDeal.SAME), SEATS[3])  # fmt: skip
    assert rematch_voters(seats) == (0, 1, 2)
    assert still_to_vote(RoomPhase.OVER, seats) == (0, 1)
    assert still_to_vote(RoomPhase.WAITING, seats) == ()
