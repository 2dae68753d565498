"""The seats of a room and its spectators: who sits where, on which connection.

A *human* seat has a name and a token hash; a *computer* seat is played by the computer
(chosen at creation, or a human seat whose player left a started game). A seat's stored
part is its `SeatRecord` (replaced on every change, never mutated); the rest lives in
memory only: its connection, its auto-play timer, its away-timeout. Tokens: a seat
takes its latest token, and — while that one is unconfirmed (its welcome may have been
lost) — the token it was last resumed with (`Seat.holds`, see `server.core.room.room`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from protocol import AutoPlay, SeatState
from protocol.names import same_name
from server.core.codes import token_matches
from server.core.room.actions import ConnId
from server.core.room.records import SeatRecord

__all__ = ["OPEN_SEAT", "Seat", "Seats"]

OPEN_SEAT = SeatRecord()
"""A seat nobody has taken."""


@dataclass(slots=True)
class Seat:
    """A seat: its stored part (``record``) with what follows from it, and what only
    lives in memory. Its ready flag and votes are in the game's record."""

    record: SeatRecord
    auto: AutoPlay = AutoPlay.OFF
    human: bool = False
    """A person plays this seat (they may be away)."""
    computer: bool = False
    """The computer plays this seat (chosen at creation, or its player left): the wire's
    ``computer``."""
    conn: ConnId | None = None
    due: float | None = None
    """When auto-play / the computer readies this seat."""
    away_deadline: float | None = None
    """When the away-timeout puts this seat on calm auto-play."""
    away_since: float | None = None
    """When this seat's connection went (or the room was loaded): how long it is away."""
    away_play: bool = False
    """The server plays this seat at the calm pace while its player is away (past the
    away-timeout); the stored ``auto`` stays the player's own. Not stored: after a restart
    the away-timeout runs again."""

    def __post_init__(self) -> None:
        self.set(self.record)

    def set(self, record: SeatRecord) -> None:
        """Take ``record`` as the stored part."""
        self.record = record
        self.auto = AutoPlay(record.auto)
        self.human = record.name is not None and not record.computer and not record.left
        self.computer = record.computer or record.left

    @property
    def name(self) -> str | None:
        return self.record.name

    @property
    def mode(self) -> AutoPlay:
        """The auto-play in force: the player's own, or calm while the server plays for
        them."""
        return AutoPlay.CALM if self.away_play else self.auto

    @property
    def away(self) -> bool:
        """A person plays this seat and is not connected."""
        return self.human and self.conn is None

    def holds(self, token: str) -> bool:
        """Whether ``token`` resumes this seat: its latest token, or the unconfirmed one's
        predecessor (both compared in constant time)."""
        latest = token_matches(token, self.record.token_hash)
        previous = token_matches(token, self.record.previous_token_hash)
        return self.human and (latest or previous)


class Seats(list[Seat]):
    """The seats of a room, in seat order (a list: ``seats[1]``, ``for seat in seats``,
    as cheap as a list's, for a flip reads them often), its spectators, and their
    connections. Change them through the methods below, never as a list."""

    def __init__(self, records: tuple[SeatRecord, ...]) -> None:
        super().__init__(Seat(record) for record in records)
        self.records = records
        """Every seat's stored part (the same tuple while no seat changed)."""
        self._spectators: dict[ConnId, None] = {}
        self._connections: tuple[ConnId, ...] | None = ()
        self.paced = False
        """Some seat readies by itself (the computer, auto-play, or the server's play for an
        away player): kept up to date by every change of a seat's pace (`set`,
        `play_for_away`), so that a flip of people alone arms no timer at all."""
        self.abandoned = False
        """No human player is left (kept up to date by `set`)."""
        self._derive()

    # ------------------------------------------------------------------ queries
    @property
    def connections(self) -> tuple[ConnId, ...]:
        """Every connection in the room: seats in seat order, then spectators."""
        connections = self._connections
        if connections is None:
            seated = tuple(seat.conn for seat in self if seat.conn is not None)
            connections = self._connections = seated + tuple(self._spectators)
        return connections

    @property
    def watchers(self) -> tuple[ConnId, ...]:
        """The spectators' connections."""
        return tuple(self._spectators)

    @property
    def spectators(self) -> int:
        """How many spectators watch."""
        return len(self._spectators)

    @property
    def full(self) -> bool:
        """Every seat is taken."""
        return all(seat.name is not None for seat in self)

    def seat_of(self, conn: ConnId) -> int | None:
        """The seat ``conn`` plays, or None (a spectator, or not in this room)."""
        for index, seat in enumerate(self):
            if seat.conn == conn:
                return index
        return None

    def watching(self, conn: ConnId) -> bool:
        """Whether ``conn`` watches."""
        return conn in self._spectators

    def open_seat(self) -> int | None:
        """The lowest seat nobody has taken, or None."""
        return next((i for i, seat in enumerate(self) if seat.name is None), None)

    def away_named(self, name: str) -> int | None:
        """The away seat a person named ``name`` holds (the name as it was stored, or one
        that looks the same: `protocol.names.same_name`), or None."""
        for index, seat in enumerate(self):
            if seat.away and seat.name is not None and same_name(seat.name, name):
                return index
        return None

    def connected_named(self, name: str) -> int | None:
        """The connected seat a person named ``name`` (or alike) holds, or None."""
        for index, seat in enumerate(self):
            named = seat.human and seat.conn is not None and seat.name is not None
            if named and same_name(seat.name or "", name):
                return index
        return None

    def holding(self, token: str) -> int | None:
        """The seat ``token`` resumes, or None."""
        return next((i for i, seat in enumerate(self) if seat.holds(token)), None)

    def computer_numbers(self) -> tuple[int | None, ...]:
        """Each seat's ``computer_number``: the seats the room was created with for the
        computer (stored ``computer``; a player who left is ``left`` instead) numbered 1, 2,
        3 in seat order, whatever their stored names; None for every other seat."""
        numbers: list[int | None] = []
        created = 0
        for seat in self:
            if seat.record.computer:
                created += 1
            numbers.append(created if seat.record.computer else None)
        return tuple(numbers)

    def voting(self, started: bool, active: tuple[int, ...]) -> list[SeatState]:
        """The seats as `protocol.votes` reads them (who holds them, whether the computer
        plays them, connected, out of a ``started`` game whose seats still in are
        ``active``): the clients' own rule of who votes."""
        return [
            SeatState(
                seat=index,
                name=seat.name,
                computer=seat.computer,
                connected=seat.conn is not None,
                out=started and index not in active,
            )
            for index, seat in enumerate(self)
        ]

    # ------------------------------------------------------------------ changes
    def set(self, index: int, record: SeatRecord) -> None:
        """Seat ``index`` is stored as ``record`` from now on."""
        self[index].set(record)
        self.records = tuple(seat.record for seat in self)
        self._derive()

    def play_for_away(self, index: int, playing: bool) -> None:
        """The server plays seat ``index`` at the calm pace while its player is away
        (``playing``), or no more."""
        self[index].away_play = playing
        self._derive()

    def _derive(self) -> None:
        """Work out again what follows from every seat's stored part and pace."""
        self.paced = any(
            seat.computer or seat.away_play or seat.auto is not AutoPlay.OFF for seat in self
        )
        self.abandoned = not any(seat.human for seat in self)

    def change(self, index: int, **fields: Any) -> None:
        """Seat ``index`` is stored with these ``fields`` changed from now on."""
        self.set(index, dataclasses.replace(self[index].record, **fields))

    def attach(self, index: int, conn: ConnId | None) -> None:
        """Seat ``index`` is played on ``conn`` (None: nobody is connected to it)."""
        self[index].conn = conn
        self._connections = None

    def watch(self, conn: ConnId) -> None:
        """``conn`` watches."""
        self._spectators[conn] = None
        self._connections = None

    def unwatch(self, conn: ConnId) -> None:
        """``conn`` watches no more."""
        del self._spectators[conn]
        self._connections = None

    def clear(self) -> None:
        """Nobody is connected any more (the room is removed)."""
        for seat in self:
            seat.conn = None
        self._spectators.clear()
        self._connections = None
