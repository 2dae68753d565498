"""What a room is stored as, and the `Store` interface the hub writes through.

A room is stored as what it takes to rebuild it, never as a game's inner state: its codes,
rules, time limit, seats (names, token *hashes* — the latest and, until the latest is
confirmed, the one it replaced —, computer, auto-play, left), the ``seq`` of the last
room message it sent, and its current game as rules + deal number + steps played (+ the
step at which the time limit stopped it, + whether it was played out by a finish vote)
with the seats ready for the next step and the finish and rematch votes.
`server.core.room` replays the engine from that: a room is rebuilt from its record after
a restart and after a failed write alike.

The `Store` is small: save a room (given what it held before, so that an implementation
writes only what changed), delete a room, load every room, close. `MemoryStore` keeps
records in a dict (tests, and a server that need not survive a restart);
`server.adapters.store.SqliteStore` keeps them in SQLite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from server.core.codes import normalize_code
from server.engine import Game, Rules
from server.errors import StoreError

__all__ = [
    "GameRecord",
    "MemoryStore",
    "RoomRecord",
    "SeatRecord",
    "Store",
    "check_same_room",
    "same_state",
]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: ``name`` None = open; ``auto`` is "off", "calm" or "quick".

    ``token_hash``: the hash of the seat's latest token. ``previous_token_hash``: the hash
    of the token the seat was last resumed with, still accepted while the latest one is
    unconfirmed (its ``welcome`` may have been lost); None once the latest is confirmed,
    and for a seat never resumed. See `server.core.room.Room.resume`.
    """

    name: str | None = None
    token_hash: str | None = None
    computer: bool = False
    auto: str = "off"
    left: bool = False
    previous_token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The room's current game.

    ``started`` false: the room still waits for players (nothing was played). ``steps``:
    engine steps played one by one. ``stop_step``: the step count at which
    ``stop_by_time()`` was called, or None. ``finished``: ``finish()`` played the rest out
    after those steps. ``deadline``: the wall-clock time the time limit runs out, or None.
    ``ready``: the seats ready for the next step (in seat order). ``finish_votes``: the
    seats that voted to finish this game. ``rematch_votes``: (seat, "new" or "same") for
    each seat that voted for a rematch, in seat order.
    """

    number: int
    deal: int
    revealed: bool
    started: bool = False
    steps: int = 0
    stop_step: int | None = None
    finished: bool = False
    deadline: float | None = None
    ready: tuple[int, ...] = ()
    finish_votes: tuple[int, ...] = ()
    rematch_votes: tuple[tuple[int, str], ...] = ()

    def replay(self, rules: Rules) -> Game:
        """This game under ``rules``, replayed by the engine (`Game.replay`)."""
        return Game.replay(
            rules, self.deal, self.steps, stop_step=self.stop_step, finished=self.finished
        )


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """Everything needed to rebuild one room. ``rules`` are the engine's (a store keeps them
    as the JSON of ``Rules.to_dict()``).

    ``seq``: the seq of the last room message sent (stored before the message is sent, so
    a room's seq never goes backwards across a restart). ``room_id``, the codes,
    ``rules``, ``minutes`` and ``created`` never change once the room is stored.
    """

    room_id: str
    player_code: str
    watch_code: str
    rules: Rules
    minutes: int | None
    seats: tuple[SeatRecord, ...]
    game: GameRecord
    created: float
    last_active: float
    seq: int = 0


def same_state(a: RoomRecord, b: RoomRecord) -> bool:
    """Whether ``a`` and ``b`` hold the same room state, ``last_active`` aside.

    ``last_active`` changes with every message; it is written along with the next real
    change (a message that changes nothing else is not worth a write).
    """
    return (
        a.seq == b.seq
        and a.game == b.game
        and a.seats == b.seats
        and a.room_id == b.room_id
        and a.player_code == b.player_code
        and a.watch_code == b.watch_code
        and a.minutes == b.minutes
        and a.created == b.created
        and a.rules == b.rules
    )


def check_same_room(record: RoomRecord, before: RoomRecord) -> None:
    """Raise `StoreError` unless ``record`` is a later state of the room ``before`` holds
    (same id, codes, rules, time limit, creation time and number of seats)."""
    if record is before:
        return
    if (
        record.room_id != before.room_id
        or record.player_code != before.player_code
        or record.watch_code != before.watch_code
        or record.minutes != before.minutes
        or record.created != before.created
        or len(record.seats) != len(before.seats)
        or (record.rules is not before.rules and record.rules != before.rules)
    ):
        raise StoreError(f"room {record.room_id!r} is not a later state of {before.room_id!r}")


class Store(Protocol):
    """The persistence a hub needs. Every write commits before returning (all or nothing),
    except between `begin` and `commit`, where the writes become durable together.

    Any failure to write (a full disk, a clash, an unknown room) raises `StoreError`, and
    the store then holds what it held before the call. Codes are compared as the hub
    compares them: normalized (`server.core.codes.normalize_code`), player and watch codes
    together.
    """

    def save_room(self, record: RoomRecord, *, before: RoomRecord | None) -> None:
        """Store ``record``. ``before`` is the record of this room the store holds now
        (exactly what the last successful `save_room` of it was given), or None for a
        new room; an implementation may write only what differs from it.

        Raises `StoreError` for a new room whose id or a code is in use, and for a
        ``before`` whose room the store does not hold.
        """
        ...

    def delete_room(self, room_id: str) -> None:
        """Forget the room (no error if it is already gone)."""
        ...

    def begin(self) -> None:
        """Open a batch: the writes until `commit` become durable together, at `commit`
        (a save still raises at once for what it can tell: a clash, an unknown room).
        Raises `StoreError` if no batch can be opened (writes then commit one by one)."""
        ...

    def commit(self) -> None:
        """Make the batch's writes durable; raises `StoreError` if they could not be (the
        caller then calls `rollback`, and the store holds what it held before `begin`)."""
        ...

    def rollback(self) -> None:
        """Forget the batch's writes. Never raises."""
        ...

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        ...

    def close(self) -> None:
        """Flush and release the store; later calls are errors."""
        ...


class MemoryStore:
    """A `Store` in a dict, for tests (and a server that need not survive restarts)."""

    def __init__(self) -> None:
        self._rooms: dict[str, RoomRecord] = {}
        self._before_batch: dict[str, RoomRecord] | None = None
        self.writes = 0
        """How many writes succeeded (tests check persist-before-broadcast)."""
        self.commits = 0
        """How many batches were committed."""

    def save_room(self, record: RoomRecord, *, before: RoomRecord | None) -> None:
        """Store ``record``; raises `StoreError` for a clash (codes compared normalized,
        player and watch codes together, as the hub does) or an unknown room."""
        if before is None:
            codes = {normalize_code(record.player_code), normalize_code(record.watch_code)}
            if len(codes) == 1:
                raise StoreError(f"room {record.room_id!r} has one code for players and watchers")
            for other in self._rooms.values():
                taken = {normalize_code(other.player_code), normalize_code(other.watch_code)}
                if other.room_id == record.room_id or taken & codes:
                    raise StoreError(f"room {record.room_id!r} clashes with {other.room_id!r}")
        else:
            check_same_room(record, before)
            if record.room_id not in self._rooms:
                raise StoreError(f"no stored room {record.room_id!r}")
        self._rooms[record.room_id] = record
        self.writes += 1

    def delete_room(self, room_id: str) -> None:
        """Forget the room."""
        if self._rooms.pop(room_id, None) is not None:
            self.writes += 1

    def begin(self) -> None:
        """Remember the rooms as they are, for `rollback`."""
        if self._before_batch is None:
            self._before_batch = dict(self._rooms)

    def commit(self) -> None:
        """Forget what `begin` remembered."""
        self._before_batch = None
        self.commits += 1

    def rollback(self) -> None:
        """Put the rooms back as they were at `begin`."""
        if self._before_batch is not None:
            self._rooms = self._before_batch
            self._before_batch = None

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        return sorted(self._rooms.values(), key=lambda record: (record.created, record.room_id))

    def close(self) -> None:
        """Nothing to release."""
