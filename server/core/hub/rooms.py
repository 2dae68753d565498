"""The rooms held: each room's calls run, their records written, rooms removed and rebuilt.

`Rooms.run` is the one path of every room call's result (`server.core.room.room.Room`; the
hub makes the call and hands `Rooms.run` the `Effects`, or `Rooms.recover` the bug):
settle the closes it asks for (a closed connection leaves its room, and that is part of
the call), then remove the room if every human player left or it is idle, or else write
its record when it changed. The change is returned with the actions, one `Output`
(`server.core.room.actions.Write`, against the record the store holds,
`server.core.room.table.Table.written`): persist, then broadcast, for the caller holds
the actions until the store has the changes. What a failed commit needs travels with
the change (the record the store held, the connections the call closed), so an ordinary
commit is never reported back: only the changes that ask for it (a rebuilt room, a
failing store, a deleted room whose id is not free until then: `Rooms.committed`). A
connection is in a room from the call that opened it until a call closes it or it ends.

If a call raises (a bug), the room is thrown away and built again from its latest record
by the same path as a restart (`Room(record, ...)`, `Rooms.load`); its connections (and
the one that made the call) get ``internal_error`` and close 1011. If a commit fails
(`Rooms.failed`), each room written since the last one is rebuilt the same way from the
record the store holds (a room created since is dropped) and its people get
``store_unavailable`` and close 1013 — those in it now and those a call since took out
of it, whose leaving was not stored either. A rebuilt room runs no timer (auto-play,
the computer, the time limit) for `STORE_RETRY_SECONDS`: a failing disk is tried once in
that while per room, not at every auto-play beat. A room removed in a batch that failed
stays removed in memory; its row, still stored, keeps its id and codes reserved, comes
back after a restart and is removed again when idle.

Idle rooms: a room is removed when every human player has left, or when it has had no
connection and no activity for ``idle_room_minutes`` (``idle_waiting_room_minutes``,
shorter, while it still waits for players: rooms nobody joined go in minutes;
``idle_computer_room_minutes`` for a game against the computer and for a room of two
players where no person ever turned a card (`Table.played`; the server's play of away
seats does not count): a room counts against its creator's allowance as
long as it exists, so the rooms one address can fill and abandon must go soon, while a
family's game under way keeps its day). A restart
is no activity: a loaded room keeps the time of its last stored activity. So that
players can come back after a long downtime, a loaded room is not removed for idleness
within `RESTART_GRACE_SECONDS` (or its idle time, if shorter) of being loaded.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from types import MappingProxyType

from protocol import ErrorCode
from server.core.codes import RandomSource
from server.core.hub.admission import Admission
from server.core.hub.deadlines import Deadlines
from server.core.hub.directory import Directory
from server.core.hub.playout import PlayOuts
from server.core.hub.replies import come_back
from server.core.logger import Logger
from server.core.refusals import Refusal
from server.core.room import phases
from server.core.room.actions import Action, Change, Close, ConnId, Delete, Effects, Output, Write
from server.core.room.records import RoomRecord, same_state
from server.core.room.room import Room
from server.core.settings import HubSettings

__all__ = ["RESTART_GRACE_SECONDS", "STORE_RETRY_SECONDS", "Rooms"]

RESTART_GRACE_SECONDS = 15 * 60.0
"""A room loaded from the store (a restart, or a rebuild after a failed write) is not
removed for idleness sooner than this after it was loaded (nor later than its idle time
after its last activity, if that is later): clients reconnect by themselves within a
minute or two of a restart, and people who restart their client need a moment too."""
STORE_RETRY_SECONDS = 5.0
"""A room rebuilt after a failed write runs no timer (auto-play, the computer, the time
limit) sooner than this: a failing disk is tried once in that while per room, not at
every auto-play beat."""


class Rooms:
    """Every room held, and which connection is in which. See the module docstring."""

    def __init__(
        self,
        settings: HubSettings,
        *,
        admission: Admission,
        playouts: PlayOuts,
        random: RandomSource,
        logger: Logger | None,
    ) -> None:
        self.addresses: Mapping[ConnId, str] = MappingProxyType({})
        """Each connection's address key (a read-only view of the hub's), given to every
        room built."""
        self._settings = settings
        self._admission = admission
        self._playouts = playouts
        self._random = random
        self._logger = logger
        self.directory = Directory()
        self.failing = False
        """A commit failed, and none with a write has succeeded since."""
        self._deleting: set[str] = set()  # rooms deleted since the last commit
        self._deadlines = Deadlines()
        self._touched: dict[str, Room] = {}  # rooms whose deadline is to be worked out again
        self._next: float | None = None  # the earliest deadline, while not stale
        self._stale = False  # a deadline changed since `_next` was read
        self._where: dict[ConnId, Room | None] = {}  # each connection → the room it is in
        self._grace: dict[str, float] = {}  # loaded rooms: not removed as idle before this
        self._hold: dict[str, float] = {}  # rebuilt rooms: no timer before this time

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return len(self.directory)

    def __iter__(self) -> Iterator[Room]:
        return iter(self.directory)

    def next_deadline(self) -> float | None:
        """The earliest time any room has something to do, or None; the deadline of
        each room touched since the last look is worked out again first. Only a
        deadline that moved goes to `Deadlines` (each room holds the one it was given,
        ``wake_at``): a flip that changes no room's deadline asks it nothing."""
        deadlines = self._deadlines
        for room in self._touched.values():
            due = self._deadline_of(room)
            if due != room.wake_at:
                room.wake_at = due
                deadlines.set(room.room_id, due)
                self._stale = True
        self._touched.clear()
        if self._stale:
            self._next, self._stale = deadlines.next(), False
        return self._next

    def due(self, now: float) -> list[str]:
        """The rooms whose deadline is at or before ``now``, earliest first; each is
        touched (its deadline is worked out again after the wake)."""
        self.next_deadline()
        due = self._deadlines.due(now)
        for room_id in due:
            self._stale = True
            room = self.directory.get(room_id)
            if room is not None:
                room.wake_at = None  # `Deadlines.due` forgot it
                self._touched[room_id] = room
        return due

    def connected(self, conn: ConnId) -> None:
        """``conn`` is a new connection, in no room yet."""
        self._where.setdefault(conn, None)

    def gone(self, conn: ConnId) -> Room | None:
        """``conn`` ended: forget it; the room it was in, if any (still holding it)."""
        return self._where.pop(conn, None)

    def of(self, conn: ConnId) -> Room | None:
        """The room ``conn`` is in, or None."""
        return self._where.get(conn)

    # ------------------------------------------------------------------ rooms
    def load(self, record: RoomRecord, now: float) -> Room | None:
        """Build the room of a stored ``record`` and hold it: the one path of a restart
        and of the rebuilding of a room. A record that does not rebuild is logged and
        skipped (one bad row must not keep every family out); its id and codes stay
        reserved."""
        try:
            room = self._build(record, now)
        except Exception as error:
            if self._logger is not None:
                self._logger.error("room_not_loaded", room=record.room_id, error=repr(error))
            self.directory.reserve(record)
            return None
        self._add(room)
        self._grace[room.room_id] = now + min(RESTART_GRACE_SECONDS, self._idle_seconds(room))
        return room

    def create(self, record: RoomRecord, creator: str, now: float) -> Room:
        """Hold the new room of ``record``, created from address key ``creator`` (not yet
        stored: the first `run` of it writes it)."""
        room = self._build(record, now)
        room.written = None
        self._add(room)
        self._admission.credit(record.room_id, creator)
        return room

    @property
    def in_flight(self) -> Collection[str]:
        """The ids of the rooms deleted since the last commit (a new room must not take
        one: the store may hold it still; a room written since is held, its id taken)."""
        return self._deleting

    # ------------------------------------------------------------------ a room's call
    def run(
        self,
        room: Room,
        now: float,
        effects: Effects,
        present: tuple[ConnId, ...],
        *,
        opener: ConnId | None = None,
    ) -> tuple[Output, Refusal | None, int]:
        """Settle ``effects``, what one call of ``room`` returned (see the module
        docstring; the caller made the call, `recover` if it raised): the actions to
        release and the change to store first, the refusal of the command (to answer
        once the call is stored), and the engine work it did. ``present``: the room's
        connections before the call. ``opener``: the connection opening the room with
        this call; it is in the room once the call is stored, unless the call refused it."""
        self._touched[room.room_id] = room
        try:
            actions, record, closed = self._settle(room, effects, now)
            why = self._removal(room, now)
            if why is not None:
                return self._remove(room, why, actions, closed), effects.refused, effects.work
            change = self._write(room, record, closed)
        except Exception as bug:
            return Output(self.recover(room, present, opener, bug, now), []), None, 0
        if opener is not None and effects.refused is None:
            self._where[opener] = room
        return Output(actions, [] if change is None else [change]), effects.refused, effects.work

    def _settle(
        self, room: Room, effects: Effects, now: float
    ) -> tuple[list[Action], RoomRecord, tuple[ConnId, ...]]:
        """The actions of ``effects`` and of the disconnections its closes cause in
        ``room``, the room's record after all of them, and the connections closed: they
        are in no room any more (if the commit fails, their leaving is undone and they
        are told to come back too: `Write.closed`)."""
        actions, record = effects.actions, effects.record
        closed: list[ConnId] = []
        index = 0
        while index < len(actions):  # the actions appended meanwhile included
            close = actions[index]
            index += 1
            if not isinstance(close, Close):
                continue
            if self._where.get(close.conn) is room:
                self._where[close.conn] = None
                closed.append(close.conn)
            if room.has(close.conn):
                gone = room.disconnect(close.conn, now)
                actions.extend(gone.actions)
                record = gone.record
        return actions, record, tuple(closed)

    def _write(self, room: Room, record: RoomRecord, closed: tuple[ConnId, ...]) -> Write | None:
        """The write of ``room``'s ``record``, unless the store holds it (``last_active``
        aside: it goes along with the next real change) and the call closed nobody. A
        record whose ``seq`` moved is a change (a message went out): compared no further."""
        before = room.written
        if (
            not closed
            and before is not None
            and (record is before or (record.seq == before.seq and same_state(record, before)))
        ):
            return None
        room.written = record
        report = self.failing or room.room_id in self._hold
        return Write(record, before, closed, report)

    def leave(self, conn: ConnId, now: float) -> Output:
        """``conn`` was closed or ended: it is in no room any more, and its room hears it
        is gone (stored before anything goes out)."""
        room = self.of(conn)
        if conn in self._where:
            self._where[conn] = None
        if room is None or not room.has(conn):
            return Output([], [])
        present = room.seats.connections
        try:
            effects = room.disconnect(conn, now)
        except Exception as bug:
            return Output(self.recover(room, present, None, bug, now), [])
        output, _, _ = self.run(room, now, effects, present)
        return output

    # ------------------------------------------------------------------ the store's answer
    def committed(self, changes: list[Change]) -> None:
        """``changes``, those of a commit that asked to be reported, are stored (with
        every change before them): a rebuilt room runs its timers again, a deleted
        room's id is free, and the store is not failing."""
        for change in changes:
            room_id = change.room_id if isinstance(change, Delete) else change.record.room_id
            self._hold.pop(room_id, None)
            self._deleting.discard(room_id)
        if changes:
            self.failing = False

    def failed(self, error: Exception, changes: list[Change], now: float) -> list[Action]:
        """None of ``changes``, every change since the last commit, is stored: rebuild
        each room they write from what the store holds, and tell its people to come back."""
        rooms: dict[str, tuple[RoomRecord | None, set[ConnId]]] = {}
        for change in changes:
            room_id = change.room_id if isinstance(change, Delete) else change.record.room_id
            stored, closed = rooms.setdefault(room_id, (change.before, set()))
            closed.update(change.closed)
        self._deleting.clear()
        if rooms:
            self.failing = True
        actions: list[Action] = []
        for room_id, (stored, closed) in rooms.items():
            if self._logger is not None:
                self._logger.error("store_failed", room=room_id, error=str(error))
            room = self.directory.get(room_id)
            if room is not None:
                # those in the room now, and those a call since took out of it (a leave,
                # a replaced seat: not stored either)
                present = (*room.connections, *closed)
                actions += self._rebuild(room, stored, present, ErrorCode.STORE_UNAVAILABLE, now)
            elif stored is not None:  # removed meanwhile: its row stays, and its codes
                self.directory.reserve(stored)
        return actions

    # ------------------------------------------------------------------ recovery
    def recover(
        self,
        room: Room,
        present: tuple[ConnId, ...],
        opener: ConnId | None,
        bug: Exception,
        now: float,
    ) -> list[Action]:
        """A call of ``room`` raised (a bug): rebuild the room from its latest record and
        tell its connections — those ``present`` before the call, and ``opener`` — to
        come back."""
        self._touched[room.room_id] = room
        self.log_bug(bug)
        where = self._where
        told = [
            conn
            for conn in dict.fromkeys((*present, *(() if opener is None else (opener,))))
            if conn in where and (where[conn] is room or conn == opener)
        ]  # not those gone, or already on their way out before this call
        return self._rebuild(room, room.written, tuple(told), ErrorCode.INTERNAL_ERROR, now)

    def _rebuild(
        self,
        room: Room,
        latest: RoomRecord | None,
        told: tuple[ConnId, ...],
        code: ErrorCode,
        now: float,
    ) -> list[Action]:
        """Rebuild ``room`` from ``latest``, the record the store holds or will (as a
        restart does; None: a room never written, dropped) and tell ``told`` to come
        back with ``code``."""
        room_id = room.room_id
        creator = self._admission.creator(room_id)
        self._drop(room)
        if latest is not None and self.load(latest, now) is not None:
            self._hold[room_id] = now + STORE_RETRY_SECONDS
            if creator is not None:
                self._admission.credit(room_id, creator)
        actions: list[Action] = []
        where = self._where
        for conn in dict.fromkeys(told):
            if conn not in where or where[conn] not in (room, None):
                continue  # gone, or in another room now
            where[conn] = None
            actions += come_back(conn, code)
        return actions

    def log_bug(self, bug: Exception) -> None:
        """Log a bug of the room core (with its traceback)."""
        if self._logger is not None:
            self._logger.error("room_core_bug", error=repr(bug), exc_info=bug)

    # ------------------------------------------------------------------ removal
    def _removal(self, room: Room, now: float) -> str | None:
        """Why ``room`` is to be removed now, or None."""
        seats = room.seats
        if seats.abandoned:
            return "every player left"
        if not seats.connections and now >= self._idle_until(room):
            return "the room was idle"
        return None

    def _idle_seconds(self, room: Room) -> float:
        """How long ``room`` may go without activity (nobody in it) before it goes."""
        idle = self._settings.idle_room_minutes * 60.0
        if room.stage in phases.SEATS_OPEN:  # a room still waiting for players
            idle = min(idle, self._settings.idle_waiting_room_minutes * 60.0)
        alone = sum(seat.human for seat in room.seats) == 1 and all(
            seat.human or seat.computer for seat in room.seats
        )  # a game against the computer: nobody else will come back to it
        unplayed = room.rules.players == 2 and not room.played
        if alone or unplayed:  # a game of two nobody ever played (a flood's) goes soon too
            idle = min(idle, self._settings.idle_computer_room_minutes * 60.0)
        return idle

    def _idle_until(self, room: Room) -> float:
        """When ``room``, if nobody is in it and nothing happens, is removed."""
        until = room.last_active + self._idle_seconds(room)
        grace = self._grace.get(room.room_id)
        return until if grace is None else max(until, grace)

    def _remove(
        self, room: Room, why: str, actions: list[Action], closed: tuple[ConnId, ...]
    ) -> Output:
        """After ``actions`` (which closed ``closed``), close every connection of
        ``room``, forget it, and delete it from the store (if it was ever written)."""
        actions = actions + room.close_all(why)
        for action in actions:
            if isinstance(action, Close) and action.conn in self._where:
                self._where[action.conn] = None
        self._drop(room)
        room_id = room.room_id
        if room.written is None:
            return Output(actions, [])
        self._deleting.add(room_id)
        return Output(actions, [Delete(room_id, room.written, closed)])

    # ------------------------------------------------------------------ helpers
    def _build(self, record: RoomRecord, now: float) -> Room:
        room = Room(
            record,
            settings=self._settings,
            random=self._random,
            now=now,
            logger=self._logger,
        )
        room.addresses = self.addresses
        return room

    def _add(self, room: Room) -> None:
        self.directory.add(room)
        self._touched[room.room_id] = room

    def _drop(self, room: Room) -> None:
        """Forget ``room`` in memory (not in the store)."""
        room_id = room.room_id
        self._touched.pop(room_id, None)
        self._deadlines.set(room_id, None)
        self._stale = True
        self.directory.drop(room)
        self._hold.pop(room_id, None)
        self._grace.pop(room_id, None)
        self._playouts.drop(room_id)
        self._admission.debit(room_id)

    def _deadline_of(self, room: Room) -> float | None:
        """The earliest time ``room`` has something to do: its next slice of a play-out
        (only a room in that stage is queued) or its timers, its idle removal when nobody
        is in it, and never before a rebuilt room's hold is over."""
        room_id = room.room_id
        due = self._playouts.due(room_id) if room.playing_out else room.next_deadline()
        if not room.seats.connections:
            removal = self._idle_until(room)
            due = removal if due is None else min(due, removal)
        hold = self._hold.get(room_id)
        if due is not None and hold is not None:
            due = max(due, hold)
        return due
