"""The seats of a room and its spectators: who sits where, on which connection.

A *human* seat has a name and a token hash; a *computer* seat is played by the computer
(chosen at creation, or a human seat whose player left a started game). A seat's stored
part is its `SeatRecord` (replaced on every change, never mutated); the rest lives in
memory only: its connection, its auto-play timer, its away-timeout. Tokens: a seat
takes its latest token, and — while that one is unconfirmed (its welcome may have been
lost) — the token it was last resumed with (`Seat.holds`, see `server.core.room.room`).

A seat's *presence* (`Presence`) is a small table: `MOVES` says which event (`Move`)
moves which presence to which, and only the `Seats` methods named after the events
(`take`, `arrive`, `take_over`, `hand_back`, `drop`, `time_out`, `leave`, `clear`) move
it; a move the table does not hold raises `BadMoveError`. Whether a seat is out of a started
game is the game's (its active seats), not the seat's; a seat taken over is a seat
arriving on another device (`Move.TAKEN_OVER`), whose earlier tokens the room keeps
(`server.core.room.takeover`).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from protocol import AutoPlay, SeatState
from protocol.names import same_name
from server.core.codes import token_matches
from server.core.room.actions import ConnId
from server.core.room.records import SeatRecord

__all__ = ["MOVES", "OPEN_SEAT", "BadMoveError", "Move", "Presence", "Seat", "Seats"]

OPEN_SEAT = SeatRecord()
"""A seat nobody has taken."""


class Presence(enum.Enum):
    """Who is at a seat, and how."""

    OPEN = "open"
    """Nobody holds the seat."""
    PRESENT = "present"
    """A person holds it and is connected."""
    AWAY = "away"
    """A person holds it and is not connected (kept for a resume). A seat just taken is
    away until its connection is attached (`Move.ARRIVED`)."""
    PLAYED_AWAY = "played_away"
    """Away past the away-timeout: the server plays it at the calm pace until its
    player returns. Not stored: after a restart the away-timeout runs again."""
    RETURNING = "returning"
    """Its player is back on a connection, and the server still plays for them until it
    says it stops (`Move.HANDED_BACK`, after their welcome, which shows the calm pace)."""
    COMPUTER = "computer"
    """The computer plays it (chosen at creation, or its player left a started game)."""


class Move(enum.Enum):
    """What happens to a seat."""

    TAKEN = "taken"
    """A newcomer's name takes an open seat (its connection arrives next)."""
    ARRIVED = "arrived"
    """Its player's connection is attached: the creator, a join, a resume, a device
    taking the seat back (replacing a connection still on it)."""
    TAKEN_OVER = "taken_over"
    """Another device takes the away seat by its name (`server.core.room.takeover`)."""
    HANDED_BACK = "handed_back"
    """The server stops playing for the player who came back."""
    DROPPED = "dropped"
    """Its connection is gone (or the room is removed)."""
    AWAY_TIMEOUT = "away_timeout"
    """It has been away past the away-timeout, without auto-play of its own."""
    LEFT_BEFORE_START = "left_before_start"
    """Its player left (``leave``) before the game started: it opens again."""
    LEFT = "left"
    """Its player left a started game: the computer plays it from then on."""


MOVES: dict[tuple[Presence, Move], Presence] = {
    (Presence.OPEN, Move.TAKEN): Presence.AWAY,
    (Presence.AWAY, Move.ARRIVED): Presence.PRESENT,
    (Presence.PLAYED_AWAY, Move.ARRIVED): Presence.RETURNING,
    (Presence.PRESENT, Move.ARRIVED): Presence.PRESENT,
    (Presence.AWAY, Move.TAKEN_OVER): Presence.PRESENT,
    (Presence.PLAYED_AWAY, Move.TAKEN_OVER): Presence.RETURNING,
    (Presence.RETURNING, Move.HANDED_BACK): Presence.PRESENT,
    (Presence.PRESENT, Move.DROPPED): Presence.AWAY,
    (Presence.RETURNING, Move.DROPPED): Presence.PLAYED_AWAY,
    (Presence.AWAY, Move.AWAY_TIMEOUT): Presence.PLAYED_AWAY,
    (Presence.PRESENT, Move.LEFT_BEFORE_START): Presence.OPEN,
    (Presence.PRESENT, Move.LEFT): Presence.COMPUTER,
}
"""Which move takes which presence to which; any other move is refused (`BadMoveError`)."""

_HUMAN = frozenset({Presence.PRESENT, Presence.AWAY, Presence.PLAYED_AWAY, Presence.RETURNING})
_CONNECTED = frozenset({Presence.PRESENT, Presence.RETURNING})
_PLAYED_FOR = frozenset({Presence.PLAYED_AWAY, Presence.RETURNING})


class BadMoveError(RuntimeError):
    """A move the table (`MOVES`) does not hold: a bug, never a player's doing."""


def moved(presence: Presence, move: Move) -> Presence:
    """The presence ``move`` takes ``presence`` to (`MOVES`); `BadMoveError` if none."""
    after = MOVES.get((presence, move))
    if after is None:
        raise BadMoveError(f"a seat {presence.value} cannot be {move.value}")
    return after


def loaded(record: SeatRecord) -> Presence:
    """The presence of a seat stored as ``record`` when the room is built (nobody is
    connected yet)."""
    if record.computer or record.left:
        return Presence.COMPUTER
    return Presence.OPEN if record.name is None else Presence.AWAY


@dataclass(slots=True)
class Seat:
    """A seat: its stored part (``record``) with what follows from it, and what only
    lives in memory (its `Presence` among them). Its ready flag and votes are in the
    game's record. Its presence and connection change through `Seats` alone."""

    record: SeatRecord
    auto: AutoPlay = AutoPlay.OFF
    presence: Presence = Presence.OPEN
    conn: ConnId | None = None
    due: float | None = None
    """When auto-play / the computer readies this seat."""
    away_deadline: float | None = None
    """When the away-timeout puts this seat on calm auto-play."""
    away_since: float | None = None
    """When this seat's connection went (or the room was loaded): how long it is away."""

    def __post_init__(self) -> None:
        self.set(self.record)
        self.presence = loaded(self.record)

    def set(self, record: SeatRecord) -> None:
        """Take ``record`` as the stored part."""
        self.record = record
        self.auto = AutoPlay(record.auto)

    @property
    def human(self) -> bool:
        """A person plays this seat (they may be away)."""
        return self.presence in _HUMAN

    @property
    def computer(self) -> bool:
        """The computer plays this seat (chosen at creation, or its player left): the
        wire's ``computer``."""
        return self.presence is Presence.COMPUTER

    @property
    def away_play(self) -> bool:
        """The server plays this seat at the calm pace for its player (away past the
        away-timeout, or back and not yet told it stops); the stored ``auto`` stays the
        player's own."""
        return self.presence in _PLAYED_FOR

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
        return self.presence is Presence.AWAY or self.presence is Presence.PLAYED_AWAY

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
        away player): kept up to date by every change of a seat's pace (`set` and every
        move), so that a flip of people alone arms no timer at all."""
        self.abandoned = False
        """No human player is left (kept up to date by every move)."""
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
        """Seat ``index`` is stored as ``record`` from now on (its presence stays)."""
        self[index].set(record)
        self.records = tuple(seat.record for seat in self)
        self._derive()

    def change(self, index: int, **fields: Any) -> None:
        """Seat ``index`` is stored with these ``fields`` changed from now on."""
        self.set(index, dataclasses.replace(self[index].record, **fields))

    def _move(self, index: int, move: Move) -> Seat:
        """Seat ``index`` makes ``move`` (`MOVES`; `BadMoveError` if it may not)."""
        seat = self[index]
        seat.presence = moved(seat.presence, move)
        return seat

    def _derive(self) -> None:
        """Work out again what follows from every seat's stored part and presence."""
        self.paced = any(
            seat.computer or seat.away_play or seat.auto is not AutoPlay.OFF for seat in self
        )
        self.abandoned = not any(seat.human for seat in self)

    def _connect(self, seat: Seat, conn: ConnId | None) -> None:
        seat.conn = conn
        self._connections = None
        self._derive()

    def take(self, index: int, record: SeatRecord) -> None:
        """A newcomer takes open seat ``index``, stored as ``record`` (`Move.TAKEN`); its
        connection arrives next (`arrive`)."""
        self._move(index, Move.TAKEN)
        self.set(index, record)

    def arrive(self, index: int, conn: ConnId) -> None:
        """Seat ``index``'s player is on ``conn`` (`Move.ARRIVED`): no away-timeout runs.
        If the server played for them it still does until `hand_back`."""
        seat = self._move(index, Move.ARRIVED)
        seat.away_deadline = None
        self._connect(seat, conn)

    def take_over(self, index: int, conn: ConnId) -> None:
        """Away seat ``index`` is taken by another device on ``conn``
        (`Move.TAKEN_OVER`)."""
        seat = self._move(index, Move.TAKEN_OVER)
        seat.away_deadline = None
        self._connect(seat, conn)

    def hand_back(self, index: int) -> bool:
        """Seat ``index``'s player is back: the server stops playing for them
        (`Move.HANDED_BACK`); False (nothing moves) if it was not playing for them."""
        if self[index].presence is not Presence.RETURNING:
            return False
        self._move(index, Move.HANDED_BACK).due = None
        self._derive()
        return True

    def drop(self, index: int, now: float, deadline: float | None) -> None:
        """Seat ``index``'s connection is gone at ``now`` (`Move.DROPPED`); the
        away-timeout ends at ``deadline`` (None: none runs)."""
        seat = self._move(index, Move.DROPPED)
        seat.away_since = now
        seat.away_deadline = deadline
        self._connect(seat, None)

    def time_out(self, index: int) -> None:
        """Seat ``index`` has been away past the away-timeout: the server plays it at
        the calm pace (`Move.AWAY_TIMEOUT`)."""
        self._move(index, Move.AWAY_TIMEOUT).due = None
        self._derive()

    def leave(self, index: int, started: bool) -> None:
        """Seat ``index``'s player leaves: before the start (not ``started``) it opens
        again (`Move.LEFT_BEFORE_START`), after it the computer plays it with no token
        (`Move.LEFT`)."""
        if started:
            seat = self._move(index, Move.LEFT)
            record = dataclasses.replace(
                seat.record, token_hash=None, previous_token_hash=None, left=True
            )
        else:
            seat = self._move(index, Move.LEFT_BEFORE_START)
            record = OPEN_SEAT
        seat.away_deadline = None
        seat.conn = None
        self._connections = None
        self.set(index, record)

    def watch(self, conn: ConnId) -> None:
        """``conn`` watches."""
        self._spectators[conn] = None
        self._connections = None

    def unwatch(self, conn: ConnId) -> None:
        """``conn`` watches no more."""
        del self._spectators[conn]
        self._connections = None

    def clear(self) -> None:
        """Nobody is connected any more (the room is removed): every connected seat is
        dropped (`Move.DROPPED`)."""
        for seat in self:
            if seat.presence in _CONNECTED:
                seat.presence = moved(seat.presence, Move.DROPPED)
            seat.conn = None
        self._spectators.clear()
        self._connections = None
        self._derive()
