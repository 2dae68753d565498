"""The sans-I/O hub: the front desk of every room, and the dispatch of connections to them.

The WebSocket layer (``server/adapters/ws/app.py``) owns the sockets, the clock and the
store; it calls::

    hub = Hub(store.load_all(), settings, now=time.time())   # rebuilds every stored room
    hub.connect(conn, peer, now)                   # a connection arrived
    hub.handle(conn, message, now)                 # a decoded, validated client message
    hub.refuse(conn, protocol_error, now)          # a frame that did not decode
    hub.disconnect(conn, now)                      # the connection ended (for any reason)
    hub.wake(now)                                  # at hub.next_deadline()
    hub.committed(changes)                         # these changes (reported ones) are stored
    hub.failed(error, changes, now)                # ... these could not be: none of them is

Each call but `committed` returns an `Output`: the room rows to write or delete, and the
`Action` list to carry out in order once they are stored (`server.adapters.ws.batch` stores
the calls of a batch in one transaction; it tells the hub when that failed, and when it
stored a change that asks to be reported, `server.core.room.actions.Write.report`: an
ordinary commit is not reported, for each change carries what its failure needs).
``now`` is wall-clock seconds (``time.time()``) because time-limit deadlines are
persisted and must mean the same after a restart. Nothing here raises for a peer's
input: a refusal is an ``error`` message to that connection (and a close where
``protocol/PROTOCOL.md`` says so); a bug is an ``internal_error`` and a close 1011, and
the other rooms carry on.

The hub owns the connections and what comes before a room: the two checks that are
about a connection, not a room's stage (an opening message on a connection already in
a room: ``already_in_room``; a room message on one in none: ``not_in_room``), admission
(`server.core.hub.admission`: versions, failed attempts, passwords, room caps) and room
creation (`server.core.hub.creation`). Everything else is the rooms' (`server.core.hub.rooms`:
each call of a room, persist then broadcast, removal, rebuilding), their phase table
(`server.core.room.phases`) and the play-out queue (`server.core.hub.playout`), whose slices the
hub plays in `wake`, at most one per call.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from protocol import (
    ClientMessage,
    CreateRoom,
    ErrorCode,
    JoinRoom,
    LookUp,
    ProtocolError,
    ResumeSeat,
    RoomPhase,
    WatchRoom,
)
from server.core.budgets import address_key
from server.core.codes import RandomSource
from server.core.hub.admission import Admission
from server.core.hub.creation import new_room
from server.core.hub.directory import Directory
from server.core.hub.lookup import not_found, room_info
from server.core.hub.playout import PlayOuts
from server.core.hub.replies import internal_error, refusal_actions
from server.core.hub.rooms import Rooms
from server.core.logger import Logger
from server.core.refusals import Refusal
from server.core.room.actions import Change, Close, ConnId, Effects, Output
from server.core.room.records import RoomRecord
from server.core.room.room import Room
from server.core.room.talk import clamp
from server.core.settings import HubSettings

__all__ = ["Hub", "HubStats"]

_OPENING = CreateRoom | JoinRoom | WatchRoom | ResumeSeat | LookUp


@dataclass(frozen=True, slots=True)
class HubStats:
    """Figures for ``/healthz`` and logs."""

    rooms: int
    connections: int
    players: int
    spectators: int
    games_playing: int


class Hub:
    """Every room of the server. See the module docstring for the calls and guarantees.

    ``records``: the rooms the store holds (each is rebuilt; one that does not rebuild is
    logged and skipped, its id and codes reserved). ``random`` is the source of codes,
    tokens and deal numbers (default: `secrets`). ``logger`` (optional) is a structlog
    logger; rooms bind their id to it.
    """

    def __init__(
        self,
        records: Iterable[RoomRecord],
        settings: HubSettings,
        *,
        now: float,
        random: RandomSource | None = None,
        logger: Logger | None = None,
    ) -> None:
        self._random: RandomSource = secrets if random is None else random
        self._logger = logger
        self._peers: dict[ConnId, str] = {}  # each connection → its peer address
        self._addresses: dict[ConnId, str] = {}  # each connection → its address key
        self._admission = Admission(settings)
        self._talk = settings.talk
        self._playouts = PlayOuts(settings, now)
        self._rooms = Rooms(
            settings,
            admission=self._admission,
            playouts=self._playouts,
            random=self._random,
            logger=logger,
        )
        self._rooms.addresses = MappingProxyType(self._addresses)  # the rooms read it
        for record in records:
            self._rooms.load(record, now)

    # ------------------------------------------------------------------ queries
    @property
    def rooms(self) -> int:
        """How many rooms are held."""
        return len(self._rooms)

    @property
    def connections(self) -> int:
        """How many connections are known (in a room or not yet)."""
        return len(self._peers)

    @property
    def directory(self) -> Directory:
        """The rooms held and the ids and codes in use (for tests and tools)."""
        return self._rooms.directory

    def stats(self) -> HubStats:
        """Rooms, connections, seated players connected, spectators, games being played."""
        rooms = list(self._rooms)
        spectators = sum(room.spectators for room in rooms)
        players = sum(len(room.connections) for room in rooms) - spectators
        playing = sum(1 for room in rooms if room.phase is RoomPhase.PLAYING)
        return HubStats(len(rooms), len(self._peers), players, spectators, playing)

    @property
    def store_failing(self) -> bool:
        """A commit of the store failed, and none with a write has succeeded since."""
        return self._rooms.failing

    def room(self, room_id: str) -> Room | None:
        """The room with this id (for tests and tools), or None."""
        return self._rooms.directory.get(room_id)

    def rooms_created_from(self, peer: str) -> int:
        """How many rooms created from ``peer``'s address (its /64 for IPv6) are held."""
        return self._admission.rooms_created_from(peer)

    def addresses_with_rooms(self) -> int:
        """How many addresses have created rooms that are held (for tests and tools)."""
        return self._admission.addresses_with_rooms()

    def address(self, conn: ConnId) -> str:
        """The address key ``conn`` counts under (`server.core.budgets.address_key`; a
        connection of unknown address is one of its own)."""
        return self._addresses.get(conn) or f"#{conn}"

    def where(self, conn: ConnId) -> tuple[str, int | None] | None:
        """(room id, seat or None for a spectator) of ``conn``; None before a room is open."""
        room = self._rooms.of(conn)
        return None if room is None else (room.room_id, room.seat_of(conn))

    def next_deadline(self) -> float | None:
        """The earliest time `wake` has something to do (timers, time limits, play-outs,
        idle rooms)."""
        return self._rooms.next_deadline()

    # ------------------------------------------------------------------ calls
    def connect(self, conn: ConnId, peer: str, now: float) -> Output:
        """A new connection from address ``peer``. Nothing to send yet."""
        self._peers[conn] = peer
        self._addresses[conn] = address_key(peer) if peer else f"#{conn}"
        self._rooms.connected(conn)
        return Output([], [])

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        """A decoded, validated message from ``conn``; never raises. A message for the
        room ``conn`` is in goes straight to it: one call of the room, one result."""
        if conn not in self._peers:
            self._known(conn)
        try:
            room = self._rooms.of(conn)
            if room is not None and not isinstance(message, _OPENING):
                return self._run(room, now, room.handle, conn, message, now, conn=conn)
            return self._handle(conn, room, message, now)
        except Exception as bug:  # a bug must not take the server down
            return self._internal_error(conn, bug, now)

    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output:
        """A frame from ``conn`` did not decode: the error, and a close where documented.

        Like any message on a seat's connection, it confirms the seat's latest token
        (stored before the error goes out). Never raises.
        """
        self._known(conn)
        try:
            return self._confirmed(conn, Refusal(error.code, str(error)), now)
        except Exception as bug:
            return self._internal_error(conn, bug, now)

    def disconnect(self, conn: ConnId, now: float) -> Output:
        """``conn`` ended: its seat is away, or one spectator fewer. Never raises."""
        peer = self._peers.pop(conn, "")
        self._addresses.pop(conn, None)
        room = self._rooms.gone(conn)
        output = Output([], [])
        if room is not None and room.has(conn):
            try:
                output, _, _ = self._call(room, now, room.disconnect, conn, now)
                output += self._play_out_begun(room, now, peer)
            except Exception as bug:
                self._rooms.log_bug(bug)
        return output

    def wake(self, now: float) -> Output:
        """Run every timer due at or before ``now`` (but one slice of a finish vote's
        play-out at most: the other finishing rooms stay due for the next call); remove
        idle rooms. Never raises."""
        output = Output([], [])
        due = [room for room_id in self._rooms.due(now) if (room := self.room(room_id))]
        playouts = self._playouts
        chosen = playouts.choose(
            [room.room_id for room in due if playouts.holds(room.room_id)], now
        )
        for room in due:
            try:
                if room.room_id == chosen:
                    output += self._slice(room, now, woken=True)
                elif not playouts.holds(room.room_id):
                    output += self._wake_room(room, now)
            except Exception as bug:  # one room's trouble must not stop the others
                self._rooms.log_bug(bug)
        self._admission.forget(now)
        return output

    def committed(self, changes: list[Change]) -> None:
        """``changes``, which asked to be reported (`Write.report`, every `Delete`), are
        stored, with every change returned before them. (An ordinary write is not
        reported: what its failure needs travels with it.)"""
        self._rooms.committed(changes)

    def failed(self, error: Exception, changes: list[Change], now: float) -> Output:
        """None of ``changes``, every change returned since the last commit, could be
        stored (``error`` says why; the store holds what it held before them): each room
        they write is rebuilt from the record the store holds (a room created since is
        dropped), and the returned actions tell its people to come back. The actions
        held for those connections must not go out. Never raises."""
        return Output(self._rooms.failed(error, changes, now), [])

    # ------------------------------------------------------------------ messages
    def _handle(
        self, conn: ConnId, room: Room | None, message: ClientMessage, now: float
    ) -> Output:
        """A message the room of ``conn`` (``room``, if any) does not take itself."""
        if isinstance(message, _OPENING):
            if room is not None:
                refused = Refusal(
                    ErrorCode.ALREADY_IN_ROOM,
                    f"this connection is in room {room.room_id} already; open another connection",
                )
                return self._confirmed(conn, refused, now)
            return self._open(conn, message, now)
        if room is None:
            refused = Refusal(
                ErrorCode.NOT_IN_ROOM,
                f"send create_room, join_room, watch_room or resume_seat first, not {message.TYPE}",
            )
            return self._refusal(conn, refused, now)
        return self._run(room, now, room.handle, conn, message, now, conn=conn)

    def _confirmed(self, conn: ConnId, refused: Refusal, now: float) -> Output:
        """Refuse what ``conn`` sent before its room saw it, once the room has taken it as
        the confirmation of the seat's token (`Room.confirm`; persisted first). If the
        room could not take it (a bug), the connection is told to come back instead."""
        room = self._rooms.of(conn)
        if room is not None and room.seat_of(conn) is not None:
            output = self._run(room, now, room.confirm, conn, now, conn=conn)
            if self._rooms.of(conn) is None:  # the room was rebuilt: its people come back
                return output
            return output + self._refusal(conn, refused, now)
        return self._refusal(conn, refused, now)

    def _open(self, conn: ConnId, message: _OPENING, now: float) -> Output:
        """An opening message from ``conn``, in no room yet."""
        peer = self._peers.get(conn, "")
        refused = self._admission.opening(message.v, peer, now)
        if refused is not None:
            return self._refusal(conn, refused, now)
        if isinstance(message, CreateRoom):
            return self._create(conn, message, now)
        directory = self._rooms.directory
        room: Room | None
        if isinstance(message, JoinRoom | LookUp):
            room = directory.by_player_code(message.code)
        elif isinstance(message, WatchRoom):
            room = directory.by_watch_code(message.code)
        else:
            room = directory.get(message.room)
        if room is None:
            return self._refusal(conn, not_found(message, directory), now)
        if isinstance(message, LookUp):
            return Output(room_info(conn, room), [])
        return self._enter(conn, room, message, now)

    def _enter(
        self, conn: ConnId, room: Room, message: JoinRoom | WatchRoom | ResumeSeat, now: float
    ) -> Output:
        """``conn``'s opening ``message`` for ``room``, which its code or id found."""
        if isinstance(message, JoinRoom):
            name, committed = message.name, message.seed_commitment
            return self._run(
                room, now, room.join, conn, name, now, committed, conn=conn, opener=True
            )
        if isinstance(message, WatchRoom):
            return self._run(room, now, room.watch, conn, now, conn=conn, opener=True)
        token = message.token
        return self._run(room, now, room.resume, conn, token, now, conn=conn, opener=True)

    def _create(self, conn: ConnId, message: CreateRoom, now: float) -> Output:
        """A new room for ``message``: held, then stored by its first call, which seats
        the creator."""
        peer = self._peers.get(conn, "")
        refused = self._admission.creation(message.password, peer, len(self._rooms))
        if refused is not None:
            return self._refusal(conn, refused, now)
        made = new_room(
            dataclasses.replace(message, talk=clamp(message.talk, self._talk)),
            now,
            directory=self._rooms.directory,
            random=self._random,
            in_flight=self._rooms.in_flight,
        )
        if isinstance(made, Refusal):
            return self._refusal(conn, made, now)
        record, token = made
        room = self._rooms.create(record, address_key(peer), now)
        return self._run(room, now, room.open_for_creator, conn, token, now, conn=conn, opener=True)

    # ------------------------------------------------------------------ a room's call
    def _run(
        self,
        room: Room,
        now: float,
        call: Callable[..., Effects],
        *args: Any,
        conn: ConnId | None = None,
        opener: bool = False,
    ) -> Output:
        """Make ``call(*args)`` of ``room`` for ``conn`` (`_call`,
        `server.core.hub.rooms.Rooms.run`: persist, then broadcast; ``opener``: the call
        opens the room for ``conn``), answer its refusal, and start the play-out it
        began, paid by ``conn``'s address (None: a wake's, paid by nobody's)."""
        output, refused, _ = self._call(room, now, call, *args, opener=conn if opener else None)
        if refused is not None and conn is not None:
            output += self._refusal(conn, refused, now)
        if room.playing_out:
            payer = None if conn is None else self._peers.get(conn, "")
            output += self._play_out_begun(room, now, payer)
        return output

    def _call(
        self,
        room: Room,
        now: float,
        call: Callable[..., Effects],
        *args: Any,
        opener: ConnId | None = None,
    ) -> tuple[Output, Refusal | None, int]:
        """Make ``call(*args)`` of ``room`` and hand its `Effects` to `Rooms.run` (or the
        bug it raised to `Rooms.recover`): the output, the refusal, the engine work."""
        present = room.seats.connections
        try:
            effects = call(*args)
        except Exception as bug:  # a bug of the room: rebuilt, its people come back
            return Output(self._rooms.recover(room, present, opener, bug, now), []), None, 0
        return self._rooms.run(room, now, effects, present, opener=opener)

    def _play_out_begun(self, room: Room, now: float, payer: str | None) -> Output:
        """If the call just made put ``room`` in its finish vote's play-out, queue it:
        address ``payer`` pays for it, and the first slice is played now unless that
        address has spent its budget (then it waits); a play-out nobody's message
        started (``payer`` None: a wake's) waits for the next wake. (The room's stage,
        which the phase table moved, is only read here: what is decided is a budget.)"""
        room_id = room.room_id
        playouts = self._playouts
        if (
            not room.playing_out
            or playouts.holds(room_id)
            or self.room(room_id) is not room  # removed, or rebuilt by a bug
        ):
            return Output([], [])
        if payer is None:
            playouts.enqueue(room_id, now)
        elif playouts.start(room_id, payer, now):
            return self._slice(room, now, woken=False)
        return Output([], [])

    def _wake_room(self, room: Room, now: float) -> Output:
        """Run ``room``'s timers due at ``now``."""
        return self._run(room, now, room.wake, now)

    def _slice(self, room: Room, now: float, *, woken: bool) -> Output:
        """Play ``room``'s next slice of its play-out, and count its work."""
        playouts = self._playouts
        room_id = room.room_id
        first = playouts.first(room_id)
        output, _, work = self._call(room, now, room.play_slice, playouts.slice, now, first)
        if playouts.holds(room_id):  # not removed, nor rebuilt by a bug, meanwhile
            over = not room.playing_out
            playouts.played(room_id, work, over=over, woken=woken, now=now)
        return output

    # ------------------------------------------------------------------ answers
    def _refusal(self, conn: ConnId, refusal: Refusal, now: float) -> Output:
        """The answer to ``refusal`` (counted against the address if it is a failed
        attempt); a connection it closes leaves its room."""
        self._admission.refused(refusal, self._peers.get(conn, ""), now)
        in_room = self._rooms.of(conn) is not None
        output = Output(refusal_actions(conn, refusal, in_room=in_room), [])
        if in_room and any(isinstance(action, Close) for action in output.actions):
            output += self._rooms.leave(conn, now)  # closed: its room hears it is gone
        return output

    def _internal_error(self, conn: ConnId, bug: Exception, now: float) -> Output:
        self._rooms.log_bug(bug)
        output = Output(internal_error(conn), [])
        try:
            return output + self._rooms.leave(conn, now)
        except Exception as second:
            self._rooms.log_bug(second)
            return output

    def _known(self, conn: ConnId) -> None:
        """A call for ``conn`` that `connect` never announced: a connection of unknown address."""
        if conn not in self._peers:
            self._peers[conn] = ""
            self._addresses[conn] = f"#{conn}"
            self._rooms.connected(conn)
