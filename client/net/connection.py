"""The client's connection: open a room, follow it, reconnect and resume when it drops.

:class:`Connection` is the only place the client touches the network. Its
:meth:`Connection.events` is an async iterator of :data:`LinkEvent`: every decoded server
message with the view before and after it (:class:`Received`), ``reconnecting…`` notices
(:class:`Reconnecting`), other notices (:class:`Notice`) and, last, :class:`Ended`.
Renderers (Textual, ``--plain``, ``--json``) only draw these; the Textual app runs the
iteration in a worker so the screen never waits for the network.

What it does for the renderers:

- applies :func:`client.state.view.apply` to every message and sends ``resync`` when the view
  finds a ``seq`` gap;
- keeps each seat's latest token in the state file (:mod:`client.net.statefile`), so
  ``--join CODE`` run again after a crash sends ``resume_seat`` instead of taking a new
  seat (if the stored token is refused, it joins as a new player; a seat kept under
  another ``--name`` is another relative's on the same computer, and is left alone);
- on a dropped connection, a server restart (1012), a server error (1011), a rate-limit
  close (4001) or an opening timeout (4005), reconnects with capped exponential backoff
  with jitter and resumes (spectators watch again), until ``give_up_after`` seconds have
  passed without a room; refusals and final closes (4002 replaced, 4003 room closed,
  4004 refused …) end it with the server's own sentence. A ``wss://`` certificate that
  fails the check ends it at once, whenever it happens, with what to do about it.

What to do when a connection ends (resume, join anew, give up, or wait and try again)
is one pure decision, :func:`client.net.policy.decide`; this loop only carries it out. When
the server cannot save games (``store_unavailable``, then 1013) it retries slowly,
saying the server's sentence once. A spectator, or anyone after game over, whose room
ends normally (closed, or a normal close) ends with ``ok``.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    InvalidProxy,
    InvalidURI,
    WebSocketException,
)

from client.errors import StateFileError
from client.fair.seeds import Seeds
from client.fair.watch import FairVerdict, FairWatch
from client.net.failure import why_unreachable
from client.net.policy import Ending, JoinAnew, Policy, Reopen, Retry, Stop, decide
from client.net.statefile import SeatRecord, StateFile
from client.state.view import ViewState, apply
from client.words.catalog import Said, said
from client.words.who import named
from protocol import (
    MAX_SERVER_MESSAGE_BYTES,
    AutoPlay,
    ClientMessage,
    CloseCode,
    CreateRoom,
    Error,
    ErrorCode,
    JoinRoom,
    Leave,
    ProtocolError,
    Ready,
    Rematch,
    ResumeSeat,
    Resync,
    RoomPhase,
    ServerMessage,
    SetAutoPlay,
    WatchRoom,
    Welcome,
    decode_server_message,
    encode,
)

__all__ = [
    "Connection",
    "Dialing",
    "Ended",
    "Link",
    "LinkEvent",
    "Notice",
    "Opening",
    "Received",
    "Reconnecting",
]

Opening = CreateRoom | JoinRoom | WatchRoom
"""What a connection opens a room with the first time."""


# --- the events a renderer draws -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Received:
    """A server message, with the view before and after it."""

    message: ServerMessage
    before: ViewState
    view: ViewState
    fair: FairVerdict | None = None
    """At a ``game_over``: what this client's check of the deal found (`client.fair.watch`)."""
    fingerprint: str | None = None
    """The fingerprint of the game's deal commitment, for people to compare aloud."""
    no_seed: tuple[int, ...] = ()
    """The seats of a fair deal that add no seed of their own (as the table shows them)."""


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """The connection dropped (``reason``); attempt ``attempt`` follows in ``delay`` s."""

    attempt: int
    delay: float
    reason: Said


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth telling that changes nothing (a stored seat not resumed, …), as a
    lowercase line for the viewer's catalog to say."""

    text: Said


@dataclass(frozen=True, slots=True)
class Ended:
    """The last event: ``ok`` (left, closed by us, or the room ended it normally) and why.

    ``reason`` is for people; ``code`` is the server's error code when a refusal ended
    it (``--json`` shows it, people read only the sentence).
    """

    ok: bool
    reason: Said
    code: str | None = None


LinkEvent = Received | Reconnecting | Notice | Ended
"""Anything :meth:`Connection.events` yields."""


class Link(Protocol):
    """What a renderer needs from a connection (a test passes a fake)."""

    def events(self) -> AsyncIterator[LinkEvent]:
        """The events, ending with one :class:`Ended`."""
        ...

    async def send(self, message: ClientMessage) -> bool:
        """Send ``message`` if a room is open; False if it could not be sent."""
        ...

    async def close(self, code: int = CloseCode.NORMAL) -> None:
        """Close for good with ``code`` (the iteration ends with ``Ended(ok=True)``)."""
        ...


# --- the connection ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Dialing:
    """How a :class:`Connection` reaches the server and comes back to it.

    ``policy``: the reconnect backoff and how long to keep trying
    (:class:`client.net.policy.Policy`); ``open_timeout``: seconds to wait for the WebSocket
    handshake; ``rng``: the source of the backoff's jitter (default: a fresh
    ``random.Random``); ``ssl_context``: for a ``wss://`` url, the context that checks
    the server's certificate (:func:`client.net.tls.client_context`; default: the system's
    trusted certificates); ``clock``: the monotonic clock the fair-deal check times the
    game's time limit on (tests that move the server's clock move this one too).
    """

    policy: Policy = field(default_factory=Policy)
    open_timeout: float = 10.0
    rng: random.Random | None = None
    ssl_context: ssl.SSLContext | None = None
    clock: Callable[[], float] = time.monotonic


class Connection:
    """One participant's connection to one room (see the module docstring).

    ``opening`` is sent on the first connection (a ``join_room`` is replaced by
    ``resume_seat`` when ``seats`` holds a token for that code on this server).
    ``auto``: set this auto-play mode once seated. ``dialing``: the reconnect policy, the
    handshake timeout and the TLS context (:class:`Dialing`).
    """

    def __init__(
        self,
        url: str,
        opening: Opening,
        *,
        seats: StateFile | None = None,
        auto: AutoPlay | None = None,
        dialing: Dialing = Dialing(),
    ) -> None:
        self.url = url
        self.opening = opening
        self.view = ViewState()
        self._seats = seats
        self._auto = auto
        self._policy = dialing.policy
        self._open_timeout = dialing.open_timeout
        self._ending = Ending(url=url)
        self._rng = dialing.rng or random.Random()
        self._ssl = dialing.ssl_context
        self._ws: ClientConnection | None = None
        self._open = False  # the current connection has been welcomed into the room
        self._token: str | None = None
        self._code: str | None = opening.code if isinstance(opening, JoinRoom) else None
        self._ever_welcomed = False
        self._closing = False
        self._left = False
        self._refusal: Error | None = None
        self._pending: list[LinkEvent] = []
        self._seeds = Seeds()
        self._seat_record: SeatRecord | None = None
        self._watch = FairWatch(dialing.clock)
        self.opening = self._seeds.opening(opening)

    # --- what renderers call -------------------------------------------------------------
    async def send(self, message: ClientMessage) -> bool:
        """Send ``message`` to the room; False when no room connection is open now."""
        ws = self._ws
        if ws is None or not self._open:
            return False
        if isinstance(message, Leave):
            self._left = True
            self._forget_seat()
        committed = self._watch.commitment(self.view.my_seat)
        if self._seeds.auto_first(message, self.view, committed):
            await self.send(Ready(step=0))  # reveal before auto-play turns the first cards
        message = self._seeds.outgoing(message, self.view.game, self.view.step, committed)
        if isinstance(message, Rematch):
            self._keep_seed()
        try:
            await ws.send(encode(message))
        except ConnectionClosed:
            return False
        return True

    async def close(self, code: int = CloseCode.NORMAL) -> None:
        """Close the connection for good (``code``: 1000, or 1001 when the client is
        stopped); :meth:`events` then ends with ``Ended(ok=True)``."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close(code)

    async def events(self) -> AsyncIterator[LinkEvent]:
        """Connect, open the room, and yield what happens until the end (see the module
        docstring). Never raises for network trouble: it ends with :class:`Ended`."""
        opening: Opening | ResumeSeat = self._first_opening()
        stored_seat = isinstance(opening, ResumeSeat)
        attempt = 0
        trouble_since: float | None = None
        while True:
            self._ending = Ending(url=self.url)
            async for event in self._session(opening):
                yield event
            if self._ending.welcomed:
                attempt, trouble_since = 0, None
            now = time.monotonic()
            trouble_since = trouble_since if trouble_since is not None else now
            ending = replace(
                self._ending,
                ever_welcomed=self._ever_welcomed,
                holds_token=self._token is not None and self.view.room is not None,
                stored_seat=stored_seat,
                spectator=self.view.spectating or isinstance(self.opening, WatchRoom),
                game_over=self.view.phase is RoomPhase.OVER,
                closing=self._closing,
                left=self._left,
                attempt=attempt,
                trouble_for=now - trouble_since,
            )
            match decide(ending, self._policy, self._rng.random()):
                case Stop(ok=ok, reason=reason, code=code):
                    yield Ended(ok, reason, code)
                    return
                case JoinAnew(notice=notice):
                    self._forget_seat()
                    yield Notice(notice)
                    opening, stored_seat = self.opening, False
                case Retry(delay=delay, reason=reason, reopen=reopen):
                    attempt += 1
                    yield Reconnecting(attempt, delay, reason)
                    await asyncio.sleep(delay)
                    opening = self._reopening(reopen)

    async def _session(self, opening: Opening | ResumeSeat) -> AsyncIterator[LinkEvent]:
        """One connection: open it, follow it to its end, and leave in ``self._ending``
        what happened (the policy decides what comes next)."""
        try:
            ws = await self._connect()
        except (OSError, TimeoutError, WebSocketException) as error:
            final = isinstance(error, InvalidURI | InvalidProxy | ssl.SSLCertVerificationError)
            self._ending = replace(self._ending, unreachable=self._explain(error), final=final)
            return
        self._ws, self._open = ws, False
        self._refusal = None
        self._watch.connected()  # its first message, a welcome, may excuse the steps missed
        try:
            async for event in self._follow(ws, opening):
                yield event
                for pending in self._drain():
                    yield pending
        finally:
            welcomed, self._ws, self._open = self._open, None, False
            await ws.close()
        self._ending = replace(
            self._ending, close_code=ws.close_code, error=self._refusal, welcomed=welcomed
        )

    # --- inside one connection ----------------------------------------------------------
    async def _connect(self) -> ClientConnection:
        if self._ssl is not None and self._secure:
            return await connect(
                self.url,
                ssl=self._ssl,
                open_timeout=self._open_timeout,
                max_size=MAX_SERVER_MESSAGE_BYTES,
            )
        return await connect(
            self.url, open_timeout=self._open_timeout, max_size=MAX_SERVER_MESSAGE_BYTES
        )

    @property
    def _secure(self) -> bool:
        return self.url.lower().startswith("wss:")

    def _explain(self, error: BaseException) -> Said:
        """Why connecting failed, as a reason the viewer's catalog says (a certificate not
        trusted says to check ``--cafile`` when one was given)."""
        return why_unreachable(error, self.url, cafile_given=self._ssl is not None)

    async def _follow(
        self, ws: ClientConnection, opening: Opening | ResumeSeat
    ) -> AsyncIterator[LinkEvent]:
        try:
            await ws.send(encode(opening))
            async for data in ws:
                try:
                    message = decode_server_message(data)
                except ProtocolError as error:
                    yield Notice(said("close.bad_message", problem=str(error)))
                    continue
                if isinstance(message, Error) and (
                    not self.view.welcomed or message.code == ErrorCode.STORE_UNAVAILABLE
                ):
                    self._refusal = message  # what the close that follows is about
                if isinstance(message, Welcome):
                    await self._welcomed(ws, message, opened=not isinstance(opening, ResumeSeat))
                before, self.view = self.view, apply(self.view, message)
                if self.view.needs_resync and not before.needs_resync:
                    await ws.send(encode(Resync()))
                mine = self._seeds.mine(self.view.game) if self.view.my_seat is not None else None
                # each seat as the table says it: a computer seat in the viewer's words
                view = self.view
                names = [None if s.name is None else named(view, s.seat) for s in view.seats]
                fair = self._watch.follow(message, mine, names)
                due = self._seeds.reveal_due(self.view, self._watch.commitment(self.view.my_seat))
                if due is not None:
                    await self.send(due)
                fresh = self._seeds.commit_due(message, self.view)
                if fresh is not None:  # a void: a fresh seed, kept with the seat first
                    self._keep_seed()
                    await self.send(fresh)
                watch = self._watch
                no_seed = tuple(watch.no_seed())
                yield Received(message, before, self.view, fair, watch.fingerprint, no_seed)
        except ConnectionClosed:
            return

    async def _welcomed(self, ws: ClientConnection, welcome: Welcome, *, opened: bool) -> None:
        first = not self._ever_welcomed
        self._ever_welcomed = self._open = True
        if welcome.token is not None and welcome.seat is not None:
            self._seeds.seated(welcome.state.game, opened=opened)
            self._token = welcome.token
            self._code = welcome.player_code or self._code
            self._keep_seat(welcome)
        me = welcome.state.seats[welcome.seat] if welcome.seat is not None else None
        if first and self._auto is not None and me is not None and me.auto != self._auto:
            await ws.send(encode(SetAutoPlay(mode=self._auto)))

    # --- openings and the state file ----------------------------------------------------
    def _first_opening(self) -> Opening | ResumeSeat:
        if isinstance(self.opening, JoinRoom) and self._seats is not None:
            # the seat kept on this computer for this name (two relatives on one computer
            # each keep their own): another name's is never taken; none: the name joins
            record = self._seats.get(self.url, self.opening.code, self.opening.name)
            if record is not None:
                self._seeds.restore(record.seed, record.seed_game)
                return ResumeSeat(room=record.room, token=record.token)
        return self.opening

    def _reopening(self, reopen: Reopen) -> Opening | ResumeSeat:
        """After a drop: resume the seat, or watch again, or start over, as decided."""
        if reopen is Reopen.RESUME and self.view.room is not None and self._token is not None:
            return ResumeSeat(room=self.view.room, token=self._token)
        if reopen is Reopen.WATCH and isinstance(self.opening, WatchRoom):
            return self.opening
        return self._first_opening()

    def _keep_seat(self, welcome: Welcome) -> None:
        if self._seats is None or self._code is None or welcome.token is None:
            return
        seat = welcome.seat if welcome.seat is not None else 0
        name = welcome.state.seats[seat].name or ""
        seed, seed_game = self._seeds.latest() or (None, None)
        record = SeatRecord(
            room=welcome.state.room,
            token=welcome.token,
            seat=seat,
            name=name,
            saved=time.time(),
            seed=seed,
            seed_game=seed_game,
        )
        self._seat_record = record
        try:
            self._seats.put(self.url, self._code, record)
        except StateFileError as error:
            self._pending.append(Notice(said("close.state_file", problem=str(error))))

    def _keep_seed(self) -> None:
        """A rematch's new seed, kept with the seat token before its commitment is sent."""
        record = self._seat_record
        if self._seats is None or self._code is None or record is None:
            return
        seed, seed_game = self._seeds.latest() or (None, None)
        self._seat_record = record = replace(record, seed=seed, seed_game=seed_game)
        try:
            self._seats.put(self.url, self._code, record)
        except StateFileError as error:
            self._pending.append(Notice(said("close.state_file", problem=str(error))))

    def _seat_name(self) -> str:
        """Whose seat this connection keeps: its welcome's name, else the name it joined as."""
        if self._seat_record is not None:
            return self._seat_record.name
        return "" if isinstance(self.opening, WatchRoom) else str(self.opening.name)

    def _forget_seat(self) -> None:
        if self._seats is None or self._code is None:
            return
        try:
            self._seats.forget(self.url, self._code, self._seat_name())
        except StateFileError as error:
            self._pending.append(Notice(said("close.state_file", problem=str(error))))

    def _drain(self) -> list[LinkEvent]:
        pending, self._pending = self._pending, []
        return pending
