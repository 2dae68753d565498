"""Pacing: when a seat that plays by itself readies, and when an away seat is played for.

A human seat on auto-play readies ``calm_delay`` or ``quick_delay`` after the game needs
it; without auto-play the game waits for it, connected or not ("away"). A computer seat
readies ``computer_delay`` after it is needed, or at a person's auto-play pace if that is
quicker (quick auto-play against the computer flips at the quick pace); it never keeps a
person who readied waiting (`server.core.room.room`). With an away-timeout
(``away_timeout``), an away seat goes on calm auto-play once the timeout has passed.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol import AutoPlay
from server.core.room.seats import Seat, Seats

__all__ = ["Pacing"]


class Pacing:
    """The delays of a room's seats. ``calm``, ``quick``, ``computer``: the delays of
    calm and quick auto-play and of the computer; ``away_timeout``: 0 = never."""

    def __init__(self, *, calm: float, quick: float, computer: float, away_timeout: float) -> None:
        self._calm = calm
        self._quick = quick
        self._computer = computer
        self._away_timeout = away_timeout

    def schedule(self, seats: Seats, waiting: Iterable[int], now: float) -> None:
        """Arm the timer of every seat in ``waiting`` (those the next flip needs) that
        plays by itself; disarm every other seat's."""
        needed = set(waiting)
        for index, seat in enumerate(seats):
            if index not in needed:
                seat.due = None
                continue
            delay = self.delay(seat, seats)
            if delay is None:
                seat.due = None
            elif seat.due is None:
                seat.due = now + delay

    def delay(self, seat: Seat, seats: Seats) -> float | None:
        """How long ``seat`` takes to ready by itself (None: it does not)."""
        if seat.computer:
            return self._computer_delay(seats)
        return self.delay_of(seat.mode)

    def delay_of(self, mode: AutoPlay) -> float | None:
        """Seconds an auto-play mode takes to ready (None: off)."""
        if mode is AutoPlay.CALM:
            return self._calm
        if mode is AutoPlay.QUICK:
            return self._quick
        return None

    def away_deadline(self, now: float) -> float | None:
        """When a seat whose player went away at ``now`` is played for (None: never)."""
        return now + self._away_timeout if self._away_timeout > 0 else None

    def _computer_delay(self, seats: Seats) -> float:
        """The computer keeps pace with the fastest person at the table: its own delay, or
        a person's auto-play if that is quicker."""
        delay = self._computer
        for seat in seats:
            if seat.human:
                mine = self.delay_of(seat.mode)
                if mine is not None and mine < delay:
                    delay = mine
        return delay
