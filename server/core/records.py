"""What a room is stored as, and the `Store` interface the hub writes through.

A room is stored as what it takes to rebuild it, never as a game's inner state: its codes,
rules, time limit, seats (names, token *hashes* — the latest and, until the latest is
confirmed, the one it replaced —, computer, auto-play, left) and its current
game as rules + deal number + steps played (+ the step at which the time limit stopped it,
+ whether it was played out by a finish vote). `server.core.room` replays the engine from
that. `MemoryStore` keeps records in a dict (tests, and a server that need not survive a
restart); `server.adapters.store.SqliteStore` keeps them in SQLite.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Protocol

from server.core.codes import normalize_code
from server.engine import Rules
from server.errors import StoreError

__all__ = ["GameRecord", "MemoryStore", "RoomRecord", "SeatRecord", "Store"]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: ``name`` None = open; ``auto`` is "off", "calm" or "quick".

    ``token_hash``: the hash of the seat's latest token. ``previous_token_hash``: the hash
    of the token the seat was last resumed with, still accepted while the latest one is
    unconfirmed (its ``welcome`` may have been lost); None once the latest is confirmed,
    and for a seat never resumed. See `server.room.Room.resume`.
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
    """

    number: int
    deal: int
    revealed: bool
    started: bool = False
    steps: int = 0
    stop_step: int | None = None
    finished: bool = False
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """Everything needed to rebuild one room. ``rules`` are the engine's (a store keeps them
    as the JSON of ``Rules.to_dict()``)."""

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


class Store(Protocol):
    """The persistence a hub needs. Every write commits before returning.

    Writes to an unknown room raise `StoreError`; so does a second `create_room` with an
    id or code already in use. Codes are compared as the hub compares them: normalized
    (`server.core.codes.normalize_code`), player and watch codes together.
    """

    def create_room(self, record: RoomRecord) -> None:
        """Store a new room."""
        ...

    def record_game(self, room_id: str, game: GameRecord, seq: int) -> None:
        """Replace the room's current game (a game starts, or a rematch)."""
        ...

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        """The current game has now played ``steps`` steps."""
        ...

    def record_stop(self, room_id: str, stop_step: int) -> None:
        """The time limit stopped the current game when ``stop_step`` steps were played."""
        ...

    def record_finish(self, room_id: str, seq: int) -> None:
        """The current game was played out at once (a finish vote)."""
        ...

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        """Replace every seat of the room."""
        ...

    def touch(self, room_id: str, now: float, seq: int) -> None:
        """The room was active at ``now``."""
        ...

    def delete_room(self, room_id: str) -> None:
        """Forget the room (no error if it is already gone)."""
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
        self.writes = 0
        """How many write calls succeeded (tests check persist-before-broadcast)."""

    def _get(self, room_id: str) -> RoomRecord:
        try:
            return self._rooms[room_id]
        except KeyError:
            raise StoreError(f"no stored room {room_id!r}") from None

    def _put(self, record: RoomRecord) -> None:
        self._rooms[record.room_id] = record
        self.writes += 1

    def create_room(self, record: RoomRecord) -> None:
        """Store a new room; raises `StoreError` if its id or a code is taken (codes are
        compared normalized, player and watch codes together, as the hub does)."""
        codes = {normalize_code(record.player_code), normalize_code(record.watch_code)}
        if len(codes) == 1:
            raise StoreError(f"room {record.room_id!r} has one code for players and watchers")
        for other in self._rooms.values():
            taken = {normalize_code(other.player_code), normalize_code(other.watch_code)}
            if other.room_id == record.room_id or taken & codes:
                raise StoreError(f"room {record.room_id!r} clashes with {other.room_id!r}")
        self._put(record)

    def record_game(self, room_id: str, game: GameRecord, seq: int) -> None:
        """Replace the room's current game."""
        self._put(dataclasses.replace(self._get(room_id), game=game, seq=seq))

    def record_steps(self, room_id: str, steps: int, seq: int) -> None:
        """The current game has played ``steps`` steps."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, steps=steps)
        self._put(dataclasses.replace(record, game=game, seq=seq))

    def record_stop(self, room_id: str, stop_step: int) -> None:
        """The time limit stopped the game at ``stop_step`` steps."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, stop_step=stop_step)
        self._put(dataclasses.replace(record, game=game))

    def record_finish(self, room_id: str, seq: int) -> None:
        """The game was played out at once."""
        record = self._get(room_id)
        game = dataclasses.replace(record.game, finished=True)
        self._put(dataclasses.replace(record, game=game, seq=seq))

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        """Replace every seat."""
        self._put(dataclasses.replace(self._get(room_id), seats=seats, seq=seq))

    def touch(self, room_id: str, now: float, seq: int) -> None:
        """The room was active at ``now``."""
        self._put(dataclasses.replace(self._get(room_id), last_active=now, seq=seq))

    def delete_room(self, room_id: str) -> None:
        """Forget the room."""
        if self._rooms.pop(room_id, None) is not None:
            self.writes += 1

    def load_all(self) -> list[RoomRecord]:
        """Every stored room, oldest first."""
        return sorted(self._rooms.values(), key=lambda record: (record.created, record.room_id))

    def close(self) -> None:
        """Nothing to release."""
