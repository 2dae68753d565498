"""The client's connection: open a room, follow it, reconnect and resume when it drops.

:class:`Connection` is the only place the client touches the network. Its
:meth:`Connection.events` is an async iterator of :data:`LinkEvent`: every decoded server
message with the view before and after it (:class:`Received`), ``reconnecting…`` notices
(:class:`Reconnecting`), other notices (:class:`Notice`) and, last, :class:`Ended`.
Renderers (Textual, ``--plain``, ``--json``) only draw these; the Textual app runs the
iteration in a worker so the screen never waits for the network.

What it does for the renderers:

- applies :func:`client.view.apply` to every message and sends ``resync`` when the view
  finds a ``seq`` gap;
- keeps each seat's latest token in the state file (:mod:`client.statefile`), so
  ``--join CODE`` run again after a crash sends ``resume_seat`` instead of taking a new
  seat (if the stored token is refused, it joins as a new player);
- on a dropped connection, a server restart (1012), a server error (1011), a rate-limit
  close (4001) or an opening timeout (4005), reconnects with capped exponential backoff
  with jitter and resumes (spectators watch again), until ``give_up_after`` seconds have
  passed without a room; refusals and final closes (4002 replaced, 4003 room closed,
  4004 refused …) end it with the server's own sentence. A ``wss://`` certificate that
  fails the check ends it at once, whenever it happens, with what to do about it.

The decisions (which close code retries, how long to wait) are the pure functions
:func:`should_reconnect`, :func:`closed_because` and :func:`backoff_delay`.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    InvalidMessage,
    InvalidProxy,
    InvalidURI,
    WebSocketException,
)

from client.errors import StateFileError
from client.statefile import SeatRecord, StateFile
from client.tls import explain_tls
from client.view import ViewState, apply
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
    ResumeSeat,
    Resync,
    ServerMessage,
    SetAutoPlay,
    WatchRoom,
    Welcome,
    decode_server_message,
    encode,
)

__all__ = [
    "Connection",
    "Ended",
    "Link",
    "LinkEvent",
    "Notice",
    "Opening",
    "Received",
    "Reconnecting",
    "backoff_delay",
    "closed_because",
    "should_reconnect",
]

Opening = CreateRoom | JoinRoom | WatchRoom
"""What a connection opens a room with the first time."""

_RETRY_CODES = frozenset(
    {
        1006,  # dropped without a close frame: the network
        CloseCode.INTERNAL_ERROR,
        CloseCode.SERVICE_RESTART,
        CloseCode.TRY_AGAIN_LATER,
        CloseCode.RATE_LIMITED,
        CloseCode.OPENING_TIMEOUT,
    }
)
_STALE_SEAT = frozenset({ErrorCode.BAD_TOKEN.value, ErrorCode.UNKNOWN_CODE.value})
"""Refusals of a stored seat's resume after which joining anew makes sense."""
_CLOSE_REASONS: dict[int, str] = {
    CloseCode.NORMAL: "the server ended the connection",
    CloseCode.GOING_AWAY: "the server shut down",
    CloseCode.UNSUPPORTED_DATA: "the server refused a text frame",
    CloseCode.POLICY_VIOLATION: "the server closed the connection after invalid messages",
    CloseCode.MESSAGE_TOO_BIG: "the server refused a message as too big",
    CloseCode.INTERNAL_ERROR: "the server hit an error",
    CloseCode.SERVICE_RESTART: "the server is restarting",
    CloseCode.TRY_AGAIN_LATER: "the server is busy",
    CloseCode.UNSUPPORTED_VERSION: "the server speaks another protocol version",
    CloseCode.RATE_LIMITED: "too many messages too fast",
    CloseCode.REPLACED: "this seat was taken over by another window or device",
    CloseCode.ROOM_CLOSED: "the room was closed",
    CloseCode.REFUSED: "the server refused to let us in",
    CloseCode.OPENING_TIMEOUT: "the server waited too long for us",
}


# --- the events a renderer draws -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Received:
    """A server message, with the view before and after it."""

    message: ServerMessage
    before: ViewState
    view: ViewState


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """The connection dropped (``reason``); attempt ``attempt`` follows in ``delay`` s."""

    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth telling that changes nothing (a stored seat not resumed, …)."""

    text: str


@dataclass(frozen=True, slots=True)
class Ended:
    """The last event: ``ok`` (left, closed by us, or the room ended it normally) and why.

    ``reason`` is for people; ``code`` is the server's error code when a refusal ended
    it (``--json`` shows it, people read only the sentence).
    """

    ok: bool
    reason: str
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

    async def close(self) -> None:
        """Close for good (the iteration ends with ``Ended(ok=True)``)."""
        ...


# --- pure decisions ------------------------------------------------------------------------
def backoff_delay(
    attempt: int, *, base: float = 0.25, cap: float = 10.0, rng: random.Random | None = None
) -> float:
    """Seconds to wait before reconnect ``attempt`` (0, 1, 2 …): exponential, capped,
    with "equal jitter" — a random point in the upper half of ``min(cap, base * 2**n)`` —
    so a room of clients dropped at once does not reconnect in lockstep."""
    ceiling = min(cap, base * 2 ** min(attempt, 32))
    source = rng if rng is not None else random
    return float(ceiling / 2 + source.uniform(0, ceiling / 2))


def should_reconnect(code: int | None) -> bool:
    """True if a room connection closed with ``code`` should reconnect and resume
    (PROTOCOL.md §7); ``None`` (no close frame) counts as a network drop."""
    return code is None or code in _RETRY_CODES


def closed_because(code: int | None, error: Error | None = None) -> str:
    """One lowercase line on why the connection closed: the server's own sentence when
    an ``error`` came just before, else the meaning of the close code."""
    if error is not None:
        return error.message or error.code.replace("_", " ")
    if code is None or code == 1006:
        return "the connection dropped"
    return _CLOSE_REASONS.get(code, f"the server closed the connection (code {code})")


# --- the connection ------------------------------------------------------------------------
class Connection:
    """One participant's connection to one room (see the module docstring).

    ``opening`` is sent on the first connection (a ``join_room`` is replaced by
    ``resume_seat`` when ``seats`` holds a token for that code on this server).
    ``auto``: set this auto-play mode once seated. ``give_up_after``: seconds of failed
    reconnecting before the iteration ends. ``ssl_context``: for a ``wss://`` url, the
    context that checks the server's certificate (:func:`client.tls.client_context`;
    default: the system's trusted certificates).
    """

    def __init__(
        self,
        url: str,
        opening: Opening,
        *,
        seats: StateFile | None = None,
        auto: AutoPlay | None = None,
        give_up_after: float = 300.0,
        open_timeout: float = 10.0,
        backoff_base: float = 0.25,
        backoff_cap: float = 10.0,
        rng: random.Random | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.url = url
        self.opening = opening
        self.view = ViewState()
        self._seats = seats
        self._auto = auto
        self._give_up_after = give_up_after
        self._open_timeout = open_timeout
        self._backoff = (backoff_base, backoff_cap)
        self._rng = rng or random.Random()
        self._ssl = ssl_context
        self._ws: ClientConnection | None = None
        self._open = False  # the current connection has been welcomed into the room
        self._token: str | None = None
        self._code: str | None = opening.code if isinstance(opening, JoinRoom) else None
        self._ever_welcomed = False
        self._closing = False
        self._left = False
        self._refusal: Error | None = None
        self._pending: list[LinkEvent] = []

    # --- what renderers call -------------------------------------------------------------
    async def send(self, message: ClientMessage) -> bool:
        """Send ``message`` to the room; False when no room connection is open now."""
        ws = self._ws
        if ws is None or not self._open:
            return False
        if isinstance(message, Leave):
            self._left = True
            self._forget_seat()
        try:
            await ws.send(encode(message))
        except ConnectionClosed:
            return False
        return True

    async def close(self) -> None:
        """Close the connection for good; :meth:`events` then ends with ``Ended(ok=True)``."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()

    async def events(self) -> AsyncIterator[LinkEvent]:
        """Connect, open the room, and yield what happens until the end (see the module
        docstring). Never raises for network trouble: it ends with :class:`Ended`."""
        opening: Opening | ResumeSeat = self._first_opening()
        fallback: Opening | None = self.opening if isinstance(opening, ResumeSeat) else None
        attempt = 0
        trouble_since: float | None = None
        while True:
            reason: str
            try:
                ws = await self._connect()
            except (OSError, TimeoutError, WebSocketException) as error:
                final = isinstance(error, InvalidURI | InvalidProxy | ssl.SSLCertVerificationError)
                if final or not self._ever_welcomed:
                    yield Ended(False, f"cannot connect to {self.url}: {self._explain(error)}")
                    return
                reason = f"cannot reach the server: {self._explain(error)}"
            else:
                self._ws, self._open = ws, False
                self._refusal = None
                welcomed = False
                try:
                    async for event in self._follow(ws, opening):
                        welcomed = welcomed or self.view.welcomed
                        yield event
                        for pending in self._drain():
                            yield pending
                finally:
                    self._ws, self._open = None, False
                    await ws.close()
                code = ws.close_code
                if self._closing:
                    yield Ended(True, "closed")
                    return
                if self._left:
                    yield Ended(True, "you left the room")
                    return
                refused = self._refusal.code if self._refusal is not None else None
                if fallback is not None and not welcomed and refused in _STALE_SEAT:
                    self._forget_seat()
                    yield Notice("the stored seat could not be resumed; joining as new")
                    opening, fallback = fallback, None
                    continue
                if not (welcomed or self._ever_welcomed) or not should_reconnect(code):
                    yield Ended(False, closed_because(code, self._refusal), refused)
                    return
                if welcomed:
                    attempt, trouble_since = 0, None
                reason = closed_because(code, self._refusal)
            now = time.monotonic()
            trouble_since = trouble_since if trouble_since is not None else now
            if now - trouble_since > self._give_up_after:
                yield Ended(False, f"gave up reconnecting: {reason}")
                return
            delay = backoff_delay(
                attempt, base=self._backoff[0], cap=self._backoff[1], rng=self._rng
            )
            attempt += 1
            yield Reconnecting(attempt, delay, reason)
            await asyncio.sleep(delay)
            opening = self._reopening()

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

    def _explain(self, error: BaseException) -> str:
        """Why connecting failed, in one lowercase line (with a hint for a TLS mix-up)."""
        if isinstance(error, ssl.SSLCertVerificationError):
            return explain_tls(error, cafile_given=self._ssl is not None)
        text = explain_tls(error) if isinstance(error, ssl.SSLError) else _explain(error)
        # A server without TLS, spoken to in TLS (or the other way round), hangs up on
        # the handshake: with a reset, an end of stream, or bytes that are not TLS.
        mixed_up = isinstance(error, InvalidMessage | ConnectionResetError | ssl.SSLError)
        if mixed_up and self._secure:
            return f"{text} (does the server use ws://, without tls?)"
        if mixed_up:
            return f"{text} (does the server use wss://?)"
        return text

    async def _follow(
        self, ws: ClientConnection, opening: Opening | ResumeSeat
    ) -> AsyncIterator[LinkEvent]:
        try:
            await ws.send(encode(opening))
            async for data in ws:
                try:
                    message = decode_server_message(data)
                except ProtocolError as error:
                    yield Notice(f"ignored a bad message from the server: {error}")
                    continue
                if isinstance(message, Error) and not self.view.welcomed:
                    self._refusal = message
                if isinstance(message, Welcome):
                    await self._welcomed(ws, message)
                before, self.view = self.view, apply(self.view, message)
                if self.view.needs_resync and not before.needs_resync:
                    await ws.send(encode(Resync()))
                yield Received(message, before, self.view)
        except ConnectionClosed:
            return

    async def _welcomed(self, ws: ClientConnection, welcome: Welcome) -> None:
        first = not self._ever_welcomed
        self._ever_welcomed = self._open = True
        if welcome.token is not None and welcome.seat is not None:
            self._token = welcome.token
            self._code = welcome.player_code or self._code
            self._keep_seat(welcome)
        me = welcome.state.seats[welcome.seat] if welcome.seat is not None else None
        if first and self._auto is not None and me is not None and me.auto != self._auto:
            await ws.send(encode(SetAutoPlay(mode=self._auto)))

    # --- openings and the state file ----------------------------------------------------
    def _first_opening(self) -> Opening | ResumeSeat:
        if isinstance(self.opening, JoinRoom) and self._seats is not None:
            record = self._seats.get(self.url, self.opening.code)
            if record is not None:
                return ResumeSeat(room=record.room, token=record.token)
        return self.opening

    def _reopening(self) -> Opening | ResumeSeat:
        """After a drop: resume the seat, or watch again, or (never welcomed) start over."""
        view = self.view
        if view.room is not None and self._token is not None:
            return ResumeSeat(room=view.room, token=self._token)
        if view.spectating and isinstance(self.opening, WatchRoom):
            return self.opening
        return self._first_opening()

    def _keep_seat(self, welcome: Welcome) -> None:
        if self._seats is None or self._code is None or welcome.token is None:
            return
        seat = welcome.seat if welcome.seat is not None else 0
        name = welcome.state.seats[seat].name or ""
        record = SeatRecord(
            room=welcome.state.room, token=welcome.token, seat=seat, name=name, saved=time.time()
        )
        try:
            self._seats.put(self.url, self._code, record)
        except StateFileError as error:
            self._pending.append(Notice(str(error)))

    def _forget_seat(self) -> None:
        if self._seats is None or self._code is None:
            return
        try:
            self._seats.forget(self.url, self._code)
        except StateFileError as error:
            self._pending.append(Notice(str(error)))

    def _drain(self) -> list[LinkEvent]:
        pending, self._pending = self._pending, []
        return pending


def _explain(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    text = str(error).strip()
    return text[:1].lower() + text[1:] if text else type(error).__name__
