"""The sans-I/O hub: every room of the server, and the dispatch of connections to them.

The WebSocket layer (``server/adapters/app.py``) owns the sockets, the clock and the
store; it calls::

    hub = Hub(store.load_all(), settings, now=time.time())   # rebuilds every stored room
    hub.connect(conn, peer, now)                   # a connection arrived
    hub.handle(conn, message, now)                 # a decoded, validated client message
    hub.refuse(conn, protocol_error, now)          # a frame that did not decode
    hub.disconnect(conn, now)                      # the connection ended (for any reason)
    hub.wake(now)                                  # at hub.next_deadline()
    hub.committed()                                # the changes returned so far are stored
    hub.failed(error, now)                         # ... they could not be: none of them is

Each call but the last two returns an `Output`: the room rows to write or delete, and
the `Action` list to carry out in order once they are stored (`server.adapters.batch`
stores the calls of a batch in one transaction, then tells the hub). ``now`` is wall-clock seconds
(``time.time()``) because time-limit deadlines are persisted and must mean the same
after a restart. Nothing here raises for a peer's input: a refusal is an ``error``
message to that connection (and a close where ``protocol/PROTOCOL.md`` says so); a bug
is an ``internal_error`` and a close 1011, and the other rooms carry on.

Persist, then broadcast: each room call returns `Effects` (its actions and the room's
record); the hub returns a `Write` of the record when it changed (and a `Delete` of a
room it removes) with the actions, which the caller holds until it has stored them. The
hub keeps, for every room written since the last `committed`, the record the store held
before. If the store could not take them (`failed`: a full disk), each of those rooms is
thrown away and built again from the record the store holds, by the same path as a
restart (`Room(record, ...)`), so memory and store agree again; the held actions never
go out, and every connection of those rooms is told to come back: ``store_unavailable``
and close 1013 (try again later). A room whose code raised (a bug) is rebuilt the same
way from its latest record, and its connections (and the one that made the call) get
``internal_error`` and close 1011. Clients resume their seats, as after a restart. Until
a commit succeeds again `Hub.store_failing` is true (``/healthz`` says so), and a rebuilt
room's timers wait `STORE_RETRY_SECONDS` before they try again. A room removed in a
batch that failed stays removed in memory; its row, still stored, keeps its id and codes
reserved, comes back after a restart and is removed again when idle.

Per address (`server.core.limits.address_key`: an IPv6 /64 counts as one address):

- failed attempts (unknown code, bad token, bad password, a ``join_room`` of a started
  room naming no away seat) are counted; at
  ``max_failed_joins`` within a minute further opening messages from that address are
  refused with ``too_many_failures`` (close 1008) until the minute has passed. A resume
  with a seat's earlier token while its latest is unconfirmed (its welcome may have been
  lost, see `server.core.room`) is accepted, so it is no failure; a superseded token is
  one;
- the rooms created from it and still held are counted; at ``max_rooms_per_address`` a
  ``create_room`` from it is refused with ``too_many_rooms`` (close 1013). The count
  lives in memory only (the store keeps no addresses): after a restart the rooms loaded
  count for nobody.

Both tables hold only what they must (recent failures; addresses with rooms), so their
memory is bounded by the failures of the last minute and by the rooms held.

A room is removed when every human player has left, or when it has had no connection
and no activity for ``idle_room_seconds`` (``idle_waiting_room_seconds``, shorter, while
it still waits for players: rooms nobody joined go in minutes). A restart is no
activity: a loaded room keeps the time of its last stored activity. So that players can
come back after a long downtime, a loaded room is not removed for idleness within
`RESTART_GRACE_SECONDS` (or its idle time, if shorter) of being loaded.

A finish vote's play-out (`server.core.room`) runs a slice at a time: the slice right
after the vote, in the same call, then one per `wake`, and never more than one slice per
hub call whatever the number of rooms finishing (they take turns), so no call holds the
event loop longer than a slice. After a `wake`, every finishing room is due again right
after its ``now`` (never at it): a wake that plays a slice sends nothing, yet always
moves the earliest deadline on, which is how the app tells a wake that did its work
from a stuck one. The work is counted against the address of the
connection whose message started the play-out (`server.core.limits.WorkBudget`,
``play_out_rate`` units a second in bursts of ``play_out_burst``) and against the whole
server (``play_out_server_rate``, ``play_out_server_burst``): past either budget, the
slices wait until it is paid off. Finishing and rematching a long game in a loop slows
that address's own games; many addresses doing it at once slow every play-out (never
the play itself) but cannot take more than the server's share of the processor.
"""

from __future__ import annotations

import heapq
import hmac
import math
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from protocol import (
    CLOSE_CODE_FOR_ERROR,
    SUPPORTED_VERSIONS,
    ClientMessage,
    CloseCode,
    CreateRoom,
    Error,
    ErrorCode,
    JoinRoom,
    ProtocolError,
    ResumeSeat,
    RoomPhase,
    WatchRoom,
)
from server.core.actions import Action, Change, Close, ConnId, Delete, Effects, Output, Send, Write
from server.core.codes import (
    RandomSource,
    hash_token,
    new_code,
    new_deal,
    new_room_id,
    new_token,
    normalize_code,
)
from server.core.limits import TokenBucket, WorkBudget, address_key
from server.core.logger import Logger
from server.core.phases import Stage
from server.core.records import GameRecord, RoomRecord, SeatRecord, same_state
from server.core.replies import come_back, internal_error
from server.core.room import PLAY_OUT_SLICE, Room, RoomSettings
from server.core.wire import engine_rules
from server.engine import STEP_WORK
from server.errors import RefusedError

__all__ = [
    "FAILURE_WINDOW_SECONDS",
    "RESTART_GRACE_SECONDS",
    "STORE_RETRY_SECONDS",
    "Hub",
    "HubSettings",
    "HubStats",
]

FAILURE_WINDOW_SECONDS = 60.0
"""Failed attempts are counted over this sliding window, per peer address."""
RESTART_GRACE_SECONDS = 15 * 60.0
"""A room loaded from the store (a restart, or a rebuild after a failed write) is not
removed for idleness sooner than this after it was loaded (nor later than its idle time
after its last activity, if that is later): clients reconnect by themselves within a
minute or two of a restart, and people who restart their client need a moment too."""
STORE_RETRY_SECONDS = 5.0
"""A room rebuilt after a failed write runs no timer (auto-play, the computer, the time
limit) sooner than this: a failing disk is tried once in that while per room, not at
every auto-play beat."""
_MAX_ERROR_TEXT = 500
_MIN_PACE_SECONDS = 0.001  # a play-out held for its budget waits at least this long
_STORE_FAILED = ErrorCode.STORE_UNAVAILABLE
_COUNTED_FAILURES = frozenset({ErrorCode.UNKNOWN_CODE, ErrorCode.BAD_TOKEN, ErrorCode.BAD_PASSWORD})


@dataclass(frozen=True, slots=True, kw_only=True)
class HubSettings:
    """Limits and paces of the room core (every time is in seconds).

    ``password``: needed to create rooms (None: anyone may). ``max_failed_joins``: wrong
    codes, tokens or passwords per address per minute. ``max_rooms_per_address``: rooms
    created from one address held at once. ``idle_room_seconds``: a room nobody is in
    is removed after this long without activity; ``idle_waiting_room_seconds`` while it
    still waits for players (the shorter of the two applies). ``away_timeout_seconds``:
    the server plays an away seat at the calm pace after this long, until its player
    returns (0: never; the game waits). ``computer_delay``: how long a computer seat
    takes to ready at most (it keeps pace with a quicker person's auto-play).
    ``play_out_slice``: the engine work (units of `server.engine.STEP_WORK`) of one
    slice of a finish vote's play-out; ``play_out_rate`` and ``play_out_burst``: the
    play-out work one address may have done a second, and at once (the defaults: about
    2,000 steps of a four-player game a second, a burst of about 32,000, the longest
    games seen); ``play_out_server_rate`` and ``play_out_server_burst``: the same for
    every address together (about 8,000 steps a second, some 5% of a core; a burst of
    64,000).
    """

    password: str | None = None
    max_rooms: int = 500
    max_spectators: int = 20
    max_failed_joins: int = 10
    max_rooms_per_address: int = 20
    idle_room_seconds: float = 24 * 60 * 60.0
    idle_waiting_room_seconds: float = 30 * 60.0
    away_timeout_seconds: float = 120.0
    calm_delay: float = 1.5
    quick_delay: float = 0.3
    computer_delay: float = 0.6
    play_out_slice: int = PLAY_OUT_SLICE
    play_out_rate: float = 2_048.0 * STEP_WORK
    play_out_burst: float = 32_768.0 * STEP_WORK
    play_out_server_rate: float = 8_192.0 * STEP_WORK
    play_out_server_burst: float = 65_536.0 * STEP_WORK

    def room_settings(self) -> RoomSettings:
        """The part of these settings each room uses."""
        return RoomSettings(
            max_spectators=self.max_spectators,
            away_timeout_seconds=self.away_timeout_seconds,
            calm_delay=self.calm_delay,
            quick_delay=self.quick_delay,
            computer_delay=self.computer_delay,
            play_out_slice=self.play_out_slice,
        )


@dataclass(frozen=True, slots=True)
class HubStats:
    """Figures for ``/healthz`` and logs."""

    rooms: int
    connections: int
    players: int
    spectators: int
    games_playing: int


@dataclass(slots=True)
class _Conn:
    peer: str
    room: str | None = None


class Hub:
    """Every room of the server. See the module docstring for the calls and guarantees.

    ``random`` is the source of codes, tokens and deal numbers (default: `secrets`).
    ``logger`` (optional) is a structlog logger; rooms bind their id to it.
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
        self._settings = settings
        self._room_settings = settings.room_settings()
        self._random: RandomSource = secrets if random is None else random
        self._logger = logger
        self._rooms: dict[str, Room] = {}
        self._by_player_code: dict[str, str] = {}
        self._by_watch_code: dict[str, str] = {}
        self._conns: dict[ConnId, _Conn] = {}
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()  # by last failure
        self._creator: dict[str, str] = {}  # room id → the address key that created it
        self._created: dict[str, int] = {}  # address key → rooms it created, still held
        self._grace: dict[str, float] = {}  # loaded rooms: not removed as idle before this
        self._reserved: set[str] = set()  # ids and codes of stored rooms that did not load
        self._reserved_codes: set[str] = set()  # the same codes, normalised
        self._saved: dict[str, RoomRecord] = {}  # each room's record as last written
        # rooms written since the last commit: the record the store held before (None: none)
        self._unsettled: dict[str, RoomRecord | None] = {}
        self._changes: list[Change] = []  # the changes of the call under way
        self._seen: dict[str, set[ConnId]] = {}  # unsettled rooms: who was in them meanwhile
        self._store_failing = False
        self._hold: dict[str, float] = {}  # rebuilt rooms: no timer before this time
        self._work = WorkBudget(settings.play_out_rate, settings.play_out_burst)
        self._server_work = TokenBucket(
            settings.play_out_server_rate, settings.play_out_server_burst, now
        )
        self._payer: dict[str, str] = {}  # finishing rooms: whose address pays the work
        self._pace: dict[str, float] = {}  # finishing rooms: no slice before this time
        # Deadlines, kept incrementally so that next_deadline() and wake() cost O(log R),
        # not O(R), per call (the app asks after every message): each room's earliest
        # deadline (its timers, or its idle removal when nobody is connected), a heap of
        # (deadline, room id) with stale entries dropped lazily, and the rooms touched
        # since the last look, whose deadline is recomputed before the next one.
        self._deadline: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []
        self._dirty: set[str] = set()
        for record in records:
            self._load(record, now)

    # ------------------------------------------------------------------ queries
    @property
    def rooms(self) -> int:
        """How many rooms are held."""
        return len(self._rooms)

    @property
    def connections(self) -> int:
        """How many connections are known (in a room or not yet)."""
        return len(self._conns)

    def stats(self) -> HubStats:
        """Rooms, connections, seated players connected, spectators, games being played."""
        rooms = self._rooms.values()
        spectators = sum(room.spectators for room in rooms)
        players = sum(len(room.connections) for room in rooms) - spectators
        playing = sum(1 for room in rooms if room.phase is RoomPhase.PLAYING)
        return HubStats(len(self._rooms), len(self._conns), players, spectators, playing)

    @property
    def store_failing(self) -> bool:
        """A commit of the store failed, and none with a write has succeeded since."""
        return self._store_failing

    def room(self, room_id: str) -> Room | None:
        """The room with this id (for tests and tools), or None."""
        return self._rooms.get(room_id)

    def rooms_created_from(self, peer: str) -> int:
        """How many rooms created from ``peer``'s address (its /64 for IPv6) are held."""
        return self._created.get(address_key(peer), 0)

    def addresses_with_rooms(self) -> int:
        """How many addresses have created rooms that are held (for tests and tools)."""
        return len(self._created)

    def where(self, conn: ConnId) -> tuple[str, int | None] | None:
        """(room id, seat or None for a spectator) of ``conn``; None before a room is open."""
        info = self._conns.get(conn)
        if info is None or info.room is None:
            return None
        return info.room, self._seat_of(conn)

    def next_deadline(self) -> float | None:
        """The earliest time `wake` has something to do (timers, time limits, idle rooms)."""
        self._refresh_deadlines()
        heap = self._heap
        while heap:
            due, room_id = heap[0]
            if self._deadline.get(room_id) == due:
                return due
            heapq.heappop(heap)
        return None

    # ------------------------------------------------------------------ calls
    def connect(self, conn: ConnId, peer: str, now: float) -> Output:
        """A new connection from address ``peer``. Nothing to send yet."""
        self._conns[conn] = _Conn(peer)
        return self._output([])

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        """A decoded, validated message from ``conn``; never raises."""
        return self._output(self._handle(conn, message, now))

    def _handle(self, conn: ConnId, message: ClientMessage, now: float) -> list[Action]:
        info = self._conns.setdefault(conn, _Conn(""))
        try:
            if isinstance(message, CreateRoom | JoinRoom | WatchRoom | ResumeSeat):
                if info.room is not None:
                    refused = RefusedError(
                        ErrorCode.ALREADY_IN_ROOM,
                        f"this connection is in room {info.room} already; open another connection",
                    )
                    return self._confirmed(conn, info, refused, now)
                return self._open(conn, info, message, now)
            if info.room is None:
                raise RefusedError(
                    ErrorCode.NOT_IN_ROOM,
                    f"send create_room, join_room, watch_room or resume_seat first, "
                    f"not {message.TYPE}",
                )
            room = self._rooms[info.room]
            actions = self._run(
                room,
                partial(room.handle, conn, message, now),
                now,
                on_refused=lambda no: self._refusal(
                    conn, info, no.code, str(no), now, counted=no.failed_attempt
                ),
            )
            return actions + self._finish_slice(room, now, info.peer)
        except RefusedError as refusal:
            return self._refusal(
                conn, info, refusal.code, str(refusal), now, counted=refusal.failed_attempt
            )
        except Exception as bug:  # a bug must not take the server down
            return self._internal_error(conn, bug, now)

    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output:
        """A frame from ``conn`` did not decode: the error, and a close where documented.

        Like any message on a seat's connection, it confirms the seat's latest token
        (stored before the error goes out). Never raises.
        """
        info = self._conns.setdefault(conn, _Conn(""))
        try:
            actions = self._confirmed(conn, info, RefusedError(error.code, str(error)), now)
        except Exception as bug:
            actions = self._internal_error(conn, bug, now)
        return self._output(actions)

    def disconnect(self, conn: ConnId, now: float) -> Output:
        """``conn`` ended: its seat is away, or one spectator fewer. Never raises."""
        info = self._conns.pop(conn, None)
        if info is None or info.room is None:
            return self._output([])
        room = self._rooms.get(info.room)
        if room is None:
            return self._output([])
        try:
            actions = self._run(room, partial(room.disconnect, conn, now), now)
            actions += self._finish_slice(room, now, info.peer)
        except Exception as bug:
            self._log_bug(bug)
            actions = []
        return self._output(actions)

    def wake(self, now: float) -> Output:
        """Run every timer due at or before ``now`` (but one slice of a finish vote's
        play-out at most: the other finishing rooms stay due for the next call); remove
        idle rooms. Never raises."""
        return self._output(self._wake(now))

    def _wake(self, now: float) -> list[Action]:
        actions: list[Action] = []
        due = self._due_rooms(now)
        finishing = [room for room in due if room.stage is Stage.FINISHING]
        if finishing:  # the one whose last slice is the oldest plays, if it may; the rest wait
            turns = {room_id: turn for turn, room_id in enumerate(self._payer)}
            finishing.sort(key=lambda room: turns.get(room.room_id, -1))
            chosen = None
            for room in finishing:
                wait = self._slice_wait(room, now)
                if wait > 0:  # its address, or the server, spent its budget meanwhile
                    self._pace[room.room_id] = now + wait
                elif chosen is None:
                    chosen = room
                else:  # due right after now: no deadline the caller saw is left
                    self._pace[room.room_id] = math.nextafter(now, math.inf)
            due = [room for room in due if room is chosen or room not in finishing]
        for room in due:
            if room in finishing:  # its turn is over: to the back of the queue
                self._payer[room.room_id] = self._payer.pop(room.room_id, "")
            try:
                actions += self._run(room, partial(room.wake, now), now)
            except Exception as bug:  # one room's trouble must not stop the others
                self._log_bug(bug)
            room_id = room.room_id
            if room in finishing and room.stage is Stage.FINISHING and room_id in self._rooms:
                # the next slice: right after now (unless its budget holds it longer)
                later = math.nextafter(now, math.inf)
                self._pace[room_id] = max(self._pace.get(room_id, later), later)
        self._forget_failures(now)
        return actions

    # ------------------------------------------------------------------ the store's answer
    def committed(self) -> None:
        """Every change returned since the last `committed` or `failed` is stored."""
        unsettled = self._unsettled
        if unsettled:
            self._store_failing = False
            for room_id in unsettled:
                self._hold.pop(room_id, None)
            unsettled.clear()
            self._seen.clear()

    def failed(self, error: Exception, now: float) -> Output:
        """None of the changes returned since the last `committed` or `failed` could be
        stored (``error`` says why; the store holds what it held before them): each room
        written since is rebuilt from the record the store holds (a room created since
        is dropped), and the returned actions tell its connections to come back. The
        actions held for those connections must not go out. Never raises."""
        unsettled, self._unsettled = self._unsettled, {}
        seen, self._seen = self._seen, {}
        if not unsettled:
            return self._output([])
        self._store_failing = True
        actions: list[Action] = []
        for room_id, stored in unsettled.items():
            if self._logger is not None:
                self._logger.error("store_failed", room=room_id, error=str(error))
            if stored is None:
                self._saved.pop(room_id, None)
            else:
                self._saved[room_id] = stored
            room = self._rooms.get(room_id)
            if room is not None:
                # those in the room now, and those a call since took out of it (a leave,
                # a replaced seat: not stored either)
                present = (*room.connections, *seen.get(room_id, ()))
                actions += self._rebuild(room, present, None, _STORE_FAILED, now, left=True)
            elif stored is not None:  # removed meanwhile: its row stays, and its codes
                self._saved.pop(room_id, None)
                self._reserve(stored)
        return self._output(actions)

    def _written(self, room_id: str) -> None:
        """Note, before the first write of ``room_id`` since the last commit, what the
        store holds."""
        if room_id not in self._unsettled:
            self._unsettled[room_id] = self._saved.get(room_id)

    def _output(self, actions: list[Action]) -> Output:
        """The call's ``actions`` and the changes it made."""
        changes, self._changes = self._changes, []
        return Output(actions, changes)

    # ------------------------------------------------------------------ opening
    def _confirmed(
        self, conn: ConnId, info: _Conn, refused: RefusedError, now: float
    ) -> list[Action]:
        """Refuse what ``conn`` sent before its room saw it, once the room has taken it as
        the confirmation of the seat's token (`Room.confirm`; persisted first). If that
        write fails, the connection is told to come back instead."""
        room = None if info.room is None else self._rooms.get(info.room)
        if room is not None and room.seat_of(conn) is not None:
            actions = self._run(room, partial(room.confirm, conn, now), now)
            if info.room is None:  # the room was rebuilt: its connections come back
                return actions
        return self._refusal(conn, info, refused.code, str(refused), now)

    def _open(
        self,
        conn: ConnId,
        info: _Conn,
        message: CreateRoom | JoinRoom | WatchRoom | ResumeSeat,
        now: float,
    ) -> list[Action]:
        if message.v not in SUPPORTED_VERSIONS:
            raise RefusedError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {message.v} is not supported "
                f"(this side speaks {sorted(SUPPORTED_VERSIONS)})",
            )
        limit = self._settings.max_failed_joins
        if self._recent_failures(address_key(info.peer), now) >= limit:
            raise RefusedError(
                ErrorCode.TOO_MANY_FAILURES,
                f"{limit} wrong codes, tokens or passwords within a minute; wait a minute",
            )
        call: Callable[[], Effects]
        if isinstance(message, CreateRoom):
            room, call = self._create(conn, message, now)
        elif isinstance(message, JoinRoom):
            room = self._find(self._by_player_code, message.code)
            call = partial(room.join, conn, message.name, now)
        elif isinstance(message, WatchRoom):
            room = self._find(self._by_watch_code, message.code)
            call = partial(room.watch, conn, now)
        else:
            found = self._rooms.get(message.room)
            if found is None:
                raise RefusedError(
                    ErrorCode.BAD_TOKEN, "this seat token is unknown or was replaced"
                )
            room = found
            call = partial(room.resume, conn, message.token, now)
        return self._run(room, call, now, opener=conn)

    def _find(self, index: dict[str, str], code: str) -> Room:
        room_id = index.get(normalize_code(code))
        if room_id is None:
            raise RefusedError(ErrorCode.UNKNOWN_CODE, f"no room has the code {code[:32]!r}")
        return self._rooms[room_id]

    def _create(
        self, conn: ConnId, message: CreateRoom, now: float
    ) -> tuple[Room, Callable[[], Effects]]:
        """The new room (held, not yet stored: the first `_run` stores it) and the call
        that seats the creator."""
        password = self._settings.password
        if password is not None:
            if message.password is None:
                raise RefusedError(
                    ErrorCode.PASSWORD_REQUIRED, "this server needs a password to create rooms"
                )
            if not hmac.compare_digest(message.password.encode(), password.encode()):
                raise RefusedError(ErrorCode.BAD_PASSWORD, "wrong password to create rooms")
        if len(self._rooms) >= self._settings.max_rooms:
            raise RefusedError(
                ErrorCode.TOO_MANY_ROOMS,
                f"this server holds its {self._settings.max_rooms} rooms; try later",
            )
        creator = address_key(self._conns[conn].peer)
        cap = self._settings.max_rooms_per_address
        if self._created.get(creator, 0) >= cap:
            raise RefusedError(
                ErrorCode.TOO_MANY_ROOMS,
                f"rooms created from this address: {cap} are open; leave one, or wait "
                "until one is removed (rooms nobody uses are removed when idle)",
            )
        try:
            message.validate()  # the codec did; a hub called directly must be as strict
            rules = engine_rules(message.rules)
        except ValueError as error:  # RulesError is a ValueError
            raise RefusedError(ErrorCode.BAD_VALUE, str(error)) from None
        token = new_token(self._random)
        players = rules.players
        seats = [SeatRecord(message.name, hash_token(token))]
        humans = players - message.computers
        seats += [SeatRecord() for _ in range(1, humans)]
        for number in range(1, message.computers + 1):
            name = "Computer" if message.computers == 1 else f"Computer {number}"
            seats.append(SeatRecord(name, None, computer=True))
        revealed = message.deal is not None
        deal = message.deal if message.deal is not None else new_deal(self._random)
        player_code = self._fresh(lambda: new_code(self._random), self._code_taken)
        mine = normalize_code(player_code)
        record = RoomRecord(
            room_id=self._fresh(
                lambda: new_room_id(self._random),
                lambda room_id: (
                    room_id in self._rooms
                    or room_id in self._reserved
                    or room_id in self._unsettled
                ),
            ),
            player_code=player_code,
            watch_code=self._fresh(
                lambda: new_code(self._random),
                lambda code: normalize_code(code) == mine or self._code_taken(code),
            ),
            rules=rules,
            minutes=message.minutes,
            seats=tuple(seats),
            game=GameRecord(number=1, deal=deal, revealed=revealed),
            created=now,
            last_active=now,
        )
        room = Room(record, **self._room_kwargs(now))
        self._add_room(room)
        self._credit(record.room_id, creator)
        return room, partial(room.open_for_creator, conn, token, now)

    # ------------------------------------------------------------------ persist, then broadcast
    def _run(
        self,
        room: Room,
        call: Callable[[], Effects],
        now: float,
        *,
        opener: ConnId | None = None,
        on_refused: Callable[[RefusedError], list[Action]] | None = None,
    ) -> list[Action]:
        """Run one ``call`` of ``room``, settle the closes it asks for, store the room's
        record if it changed (or remove the room if it is abandoned or idle), and return
        the actions to release. ``opener``: the connection opening the room with this
        call; it is in the room once the call is stored. ``on_refused``: the answer to
        a command the room refused, added once the call is stored.

        If the call raises (a bug), nothing of the call goes out: the room is rebuilt
        from its latest record and its connections (``opener`` too) are told to come
        back (`_recover`). A `RefusedError` raised by an opening call propagates
        (nothing changed). The connections of a room written since the last commit are
        remembered, to be told to come back if that commit fails (`failed`).
        """
        room_id = room.room_id
        self._dirty.add(room_id)
        present = room.connections
        try:
            effects = call()
        except RefusedError:
            raise
        except Exception as bug:
            return self._recover(room, present, opener, bug, now)
        try:
            actions, record, closed = self._settle_room(room, effects, now)
            why = self._removal(room, now)
            if why is not None:
                return actions + self._remove_room(room, why)
            self._save(record)
        except Exception as error:
            return self._recover(room, present, opener, error, now)
        if room_id in self._unsettled:
            seen = self._seen.setdefault(room_id, set())
            seen.update(present)
            if opener is not None:
                seen.add(opener)
        if effects.work:
            self._charge(room, effects.work, now)
        conns = self._conns
        for conn in closed:  # closed by this call: in no room any more
            conns[conn].room = None
        if opener is not None:
            conns[opener].room = room_id
        if effects.refused is not None and on_refused is not None:
            actions = actions + on_refused(effects.refused)
        return actions

    def _settle_room(
        self, room: Room, effects: Effects, now: float
    ) -> tuple[list[Action], RoomRecord, list[ConnId]]:
        """The actions of ``effects`` and of the disconnections its closes cause in
        ``room``, the room's record after all of them, and the connections of the room
        those closes end."""
        actions, record = effects.actions, effects.record
        closed: list[ConnId] = []
        for close in _closes(actions):
            info = self._conns.get(close.conn)
            if info is not None and info.room == room.room_id:
                closed.append(close.conn)
            if room.has(close.conn):
                gone = room.disconnect(close.conn, now)
                actions.extend(gone.actions)
                record = gone.record
        return actions, record, closed

    def _removal(self, room: Room, now: float) -> str | None:
        """Why ``room`` is to be removed now, or None."""
        if room.abandoned:
            return "every player left"
        if not room.connections and now >= self._idle_until(room):
            return "the room was idle"
        return None

    def _idle_seconds(self, room: Room) -> float:
        """How long ``room`` may go without activity (nobody in it) before it goes."""
        idle = self._settings.idle_room_seconds
        if room.stage is Stage.WAITING:
            return min(idle, self._settings.idle_waiting_room_seconds)
        return idle

    def _idle_until(self, room: Room) -> float:
        """When ``room``, if nobody is in it and nothing happens, is removed."""
        until = room.last_active + self._idle_seconds(room)
        grace = self._grace.get(room.room_id)
        return until if grace is None else max(until, grace)

    def _save(self, record: RoomRecord) -> None:
        """Store ``record`` unless the store holds it already (``last_active`` aside)."""
        before = self._saved.get(record.room_id)
        if before is not None and (record is before or same_state(record, before)):
            return
        self._written(record.room_id)
        self._changes.append(Write(record, before))
        self._saved[record.room_id] = record

    def _recover(
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
        self._log_bug(bug)
        return self._rebuild(room, present, opener, ErrorCode.INTERNAL_ERROR, now)

    def _rebuild(
        self,
        room: Room,
        present: tuple[ConnId, ...],
        opener: ConnId | None,
        code: ErrorCode,
        now: float,
        *,
        left: bool = False,
    ) -> list[Action]:
        """Rebuild ``room`` from the record in `_saved` (as a restart does; a room never
        written is dropped) and tell its connections — those ``present``, and ``opener``
        — to come back with ``code``: those still in it, and (``left``) those in no room
        any more (their leaving is undone)."""
        room_id = room.room_id
        creator = self._creator.get(room_id)
        self._drop_room(room)
        saved = self._saved.pop(room_id, None)
        if saved is not None and self._load(saved, now) is not None:
            self._hold[room_id] = now + STORE_RETRY_SECONDS
            if creator is not None:
                self._credit(room_id, creator)
        actions: list[Action] = []
        for conn in dict.fromkeys((*present, *(() if opener is None else (opener,)))):
            info = self._conns.get(conn)
            if info is None or (info.room != room_id and conn != opener and not left):
                continue  # gone, or already on its way out before this call
            if info.room not in (room_id, None):
                continue  # in another room now
            info.room = None
            actions += come_back(conn, code)
        return actions

    # ------------------------------------------------------------------ finishing
    def _finish_slice(self, room: Room, now: float, peer: str) -> list[Action]:
        """If the call just made put ``room`` in its finish vote's play-out, note who
        pays for it (``peer``'s address) and play the first slice now, unless that
        address has spent its budget (then the slice waits, see `_charge`)."""
        room_id = room.room_id
        if self._rooms.get(room_id) is not room or room.stage is not Stage.FINISHING:
            return []
        if room_id in self._payer:
            return []  # under way already: its slices come with wake
        self._payer[room_id] = peer
        wait = self._slice_wait(room, now)
        if wait > 0:
            self._pace[room_id] = now + wait
            self._dirty.add(room_id)
            return []
        return self._run(room, partial(room.wake, now), now)

    def _slice_wait(self, room: Room, now: float) -> float:
        """Seconds before ``room``'s next slice may be played: its address's budget and
        the server's (0.0: now; a wait under `_MIN_PACE_SECONDS` counts as none, so a
        held room's deadline is always clearly after ``now``)."""
        payer = self._payer.get(room.room_id, "")
        wait = max(self._work.wait(payer, now), self._server_work.wait(now))
        return wait if wait >= _MIN_PACE_SECONDS else 0.0

    def _charge(self, room: Room, work: int, now: float) -> None:
        """Count ``work`` done by ``room`` against the address that asked for it and the
        server; past either budget, hold the room's next slice until it is paid off."""
        room_id = room.room_id
        self._work.charge(self._payer.get(room_id, ""), work, now)
        self._server_work.charge(work, now)
        wait = self._slice_wait(room, now)
        if room.stage is not Stage.FINISHING:
            self._payer.pop(room_id, None)
            self._pace.pop(room_id, None)
        elif wait > 0:
            self._pace[room_id] = now + wait
        else:
            self._pace.pop(room_id, None)

    # ------------------------------------------------------------------ helpers
    def _load(self, record: RoomRecord, now: float) -> Room | None:
        """Build the room of a stored ``record`` and hold it: the one path of a restart
        and of the recovery from a failed write. A record that does not rebuild is
        logged and skipped (one bad row must not keep every family out); its id and
        codes stay reserved."""
        try:
            room = Room(record, **self._room_kwargs(now))
        except Exception as error:
            if self._logger is not None:
                self._logger.error("room_not_loaded", room=record.room_id, error=repr(error))
            self._reserve(record)
            return None
        self._add_room(room)
        self._saved[room.room_id] = record
        self._grace[room.room_id] = now + min(RESTART_GRACE_SECONDS, self._idle_seconds(room))
        return room

    def _reserve(self, record: RoomRecord) -> None:
        """Keep the id and codes of ``record``, stored but not held, from new rooms."""
        self._reserved |= {record.room_id, record.player_code, record.watch_code}
        self._reserved_codes |= {
            normalize_code(record.player_code),
            normalize_code(record.watch_code),
        }

    def _room_kwargs(self, now: float) -> dict[str, Any]:
        return {
            "settings": self._room_settings,
            "random": self._random,
            "now": now,
            "logger": self._logger,
        }

    def _add_room(self, room: Room) -> None:
        self._rooms[room.room_id] = room
        self._dirty.add(room.room_id)
        self._by_player_code[normalize_code(room.player_code)] = room.room_id
        self._by_watch_code[normalize_code(room.watch_code)] = room.room_id

    def _drop_room(self, room: Room) -> None:
        """Forget ``room`` in memory (not in the store)."""
        self._dirty.add(room.room_id)
        self._rooms.pop(room.room_id, None)
        self._hold.pop(room.room_id, None)
        self._payer.pop(room.room_id, None)
        self._pace.pop(room.room_id, None)
        self._grace.pop(room.room_id, None)
        self._by_player_code.pop(normalize_code(room.player_code), None)
        self._by_watch_code.pop(normalize_code(room.watch_code), None)
        creator = self._creator.pop(room.room_id, None)
        if creator is not None:
            left = self._created[creator] - 1
            if left:
                self._created[creator] = left
            else:
                del self._created[creator]

    def _credit(self, room_id: str, creator: str) -> None:
        """Count room ``room_id`` as created from the address key ``creator``."""
        self._creator[room_id] = creator
        self._created[creator] = self._created.get(creator, 0) + 1

    def _remove_room(self, room: Room, why: str) -> list[Action]:
        actions = room.close_all(why)
        for action in actions:
            info = self._conns.get(action.conn) if isinstance(action, Close) else None
            if info is not None:
                info.room = None
        self._drop_room(room)
        self._written(room.room_id)
        if self._saved.pop(room.room_id, None) is not None:
            self._changes.append(Delete(room.room_id))
        return actions

    def _code_taken(self, code: str) -> bool:
        """True if ``code`` (in any case, with or without hyphens) belongs to a room.

        Looked up in the code maps directly: creating a room costs O(1), not a copy of
        every code in use (docs/performance.md, finding F2).
        """
        key = normalize_code(code)
        return (
            key in self._by_player_code or key in self._by_watch_code or key in self._reserved_codes
        )

    @staticmethod
    def _fresh(make: Callable[[], str], taken: Callable[[str], bool]) -> str:
        """A value from ``make`` for which ``taken`` is false."""
        while True:
            value = make()
            if not taken(value):
                return value

    def _seat_of(self, conn: ConnId) -> int | None:
        info = self._conns.get(conn)
        if info is None or info.room is None:
            return None
        room = self._rooms.get(info.room)
        return None if room is None else room.seat_of(conn)

    def _settle(self, actions: list[Action], now: float) -> list[Action]:
        """A closed connection is in no room any more (its room hears it is gone, and
        that is stored before anything goes out)."""
        for close in _closes(actions):
            info = self._conns.get(close.conn)
            if info is None or info.room is None:
                continue
            room = self._rooms.get(info.room)
            info.room = None
            if room is not None and room.has(close.conn):
                actions += self._run(room, partial(room.disconnect, close.conn, now), now)
        return actions

    def _refresh_deadlines(self) -> None:
        """Recompute the deadline of every room touched since the last look."""
        for room_id in self._dirty:
            room = self._rooms.get(room_id)
            due = None if room is None else room.next_deadline()
            if room is not None and not room.connections:
                removal = self._idle_until(room)
                due = removal if due is None else min(due, removal)
            for hold in (self._hold.get(room_id), self._pace.get(room_id)):
                if due is not None and hold is not None:
                    due = max(due, hold)
            if due is None:
                self._deadline.pop(room_id, None)
            elif self._deadline.get(room_id) != due:
                self._deadline[room_id] = due
                heapq.heappush(self._heap, (due, room_id))
        self._dirty.clear()
        if len(self._heap) > 2 * len(self._deadline) + 64:  # too many stale entries
            self._heap = [(due, room_id) for room_id, due in self._deadline.items()]
            heapq.heapify(self._heap)

    def _due_rooms(self, now: float) -> list[Room]:
        """The rooms with a deadline at or before ``now`` (marked to be recomputed)."""
        self._refresh_deadlines()
        due: list[Room] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            when, room_id = heapq.heappop(heap)
            if self._deadline.get(room_id) != when:
                continue  # stale
            del self._deadline[room_id]
            self._dirty.add(room_id)
            room = self._rooms.get(room_id)
            if room is not None:
                due.append(room)
        return due

    def _recent_failures(self, key: str, now: float) -> int:
        """Failures of address key ``key`` within the window before ``now``."""
        times = self._failures.get(key)
        if times is None:
            return 0
        while times and times[0] <= now - FAILURE_WINDOW_SECONDS:
            times.popleft()
        if not times:
            del self._failures[key]
            return 0
        return len(times)

    def _forget_failures(self, now: float) -> None:
        """Drop the addresses whose last failure left the window (oldest first: the
        table is kept in the order of last failures, so this stops at the first one
        still in it)."""
        failures = self._failures
        while failures:
            key, times = next(iter(failures.items()))
            if times and times[-1] > now - FAILURE_WINDOW_SECONDS:
                return
            del failures[key]

    def _refusal(
        self,
        conn: ConnId,
        info: _Conn,
        code: ErrorCode,
        text: str,
        now: float,
        *,
        counted: bool = False,
    ) -> list[Action]:
        if counted or code in _COUNTED_FAILURES:
            key = address_key(info.peer)
            self._failures.setdefault(key, deque()).append(now)
            self._failures.move_to_end(key)
        actions: list[Action] = [Send((conn,), Error(code=code, message=text[:_MAX_ERROR_TEXT]))]
        close = CLOSE_CODE_FOR_ERROR.get(code)
        if close is None and info.room is None:
            close = CloseCode.REFUSED
        if close is not None:
            actions.append(Close(conn, close, code.value))
        return self._settle(actions, now)

    def _internal_error(self, conn: ConnId, bug: Exception, now: float) -> list[Action]:
        self._log_bug(bug)
        actions = internal_error(conn)
        try:
            return self._settle(actions, now)
        except Exception as second:
            self._log_bug(second)
            return actions

    def _log_bug(self, bug: Exception) -> None:
        if self._logger is not None:
            self._logger.error("room_core_bug", error=repr(bug), exc_info=bug)


def _closes(actions: list[Action]) -> Iterator[Close]:
    """Each `Close` of ``actions``, those appended while this runs included."""
    index = 0
    while index < len(actions):
        action = actions[index]
        index += 1
        if isinstance(action, Close):
            yield action
