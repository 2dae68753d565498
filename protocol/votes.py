"""Who votes: the seats a finish vote or a rematch vote waits for, from the room's seats.

One definition for the server (which decides when a vote is complete) and every client
(which shows who still has to vote), so a table never tells a family to wait for a vote
the server does not wait for. Pure functions of the seat records everyone sees
(:class:`protocol.state.SeatState`, kept up to date by the room's messages).

- A seat votes when a person holds it and is present: it has a name, the computer does
  not play it (chosen at creation, or its player left the started game), and it is
  connected. An away seat does not hold a vote up.
- A finish vote also leaves out seats that are out of the game.
- A vote is complete when every seat that votes has voted (and at least one seat
  votes); a rematch starts with the same deal only if every vote given was for it and
  every seat a person holds, away or not, gave one (a lone vote while the others are
  away never replays a known deal: the server picks a new one).
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.fields import RoomPhase
from protocol.state import SeatState

__all__ = ["finish_voters", "rematch_voters", "still_to_vote"]


def _present(seat: SeatState) -> bool:
    return seat.name is not None and not seat.computer and seat.connected


def finish_voters(seats: Iterable[SeatState]) -> tuple[int, ...]:
    """The seats whose vote a finish vote waits for: present people still in the game."""
    return tuple(seat.seat for seat in seats if _present(seat) and not seat.out)


def rematch_voters(seats: Iterable[SeatState]) -> tuple[int, ...]:
    """The seats whose vote a rematch waits for: present people."""
    return tuple(seat.seat for seat in seats if _present(seat))


def still_to_vote(phase: RoomPhase, seats: tuple[SeatState, ...]) -> tuple[int, ...]:
    """The voters that have not voted yet: for the finish vote while playing, for the
    rematch once the game is over; none while waiting for players."""
    if phase is RoomPhase.PLAYING:
        return tuple(s for s in finish_voters(seats) if not seats[s].finish_vote)
    if phase is RoomPhase.OVER:
        return tuple(s for s in rematch_voters(seats) if seats[s].rematch_vote is None)
    return ()
