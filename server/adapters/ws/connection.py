"""`websockets`' server connection with bounded memory and bounded waits, per connection.

What a peer can make the server hold or wait for, and the bound on each:

- **unsent bytes**: every write (the app's frames, websockets' own pongs, close frames
  and handshake responses) is followed by a look at the transport's buffer; more than
  ``max_send_buffer`` bytes unsent aborts the connection at once. One read from the
  socket (at most 256 KiB) is answered before the look, so the most a connection holds
  is the cap plus one read's answers.
- **a stalled buffer**: when unsent data passes the high-water mark (the transport calls
  ``pause_writing``), a timer of ``send_timeout`` seconds starts; the buffer must drop
  below the low-water mark (``resume_writing``) before it rings, or the connection is
  aborted. websockets' keepalive ping and its polite close wait for that drain first:
  without the timer, a client that never reads held both (and SIGTERM) forever.
- **a polite close**: `GuardedConnection.close` aborts the connection if the closing
  handshake is not over within ``close_timeout`` seconds, whatever it waits for; the
  app's closes, the opening timeout, the handler's end and the server's shutdown all
  close through it. A close that what the peer sent began (its close frame, or a message
  over the limit failed with 1009 while its payload is still arriving) has the same
  ``close_timeout`` from then (websockets would look again only at its next keepalive
  ping), and the server's shutdown aborts at once one whose close frame has gone out
  (`TransportGuard.abort_closing`): its stop waits for neither.
- **connections in the opening handshake**: at most ``max_handshakes_per_ip`` per
  address (`server.core.budgets.address_key`: an IPv6 address counts as its /64),
  counted from the TCP accept (after TLS) to the end of the WebSocket handshake. One
  more is refused: while fewer than ``hold_limit`` connections are open (half the
  open-files limit, after room for one burst of accepts) it is held, unread, until its
  handshake deadline and then dropped (a client that reconnects at once gets no
  faster loop of new connections); past that it is dropped at once (descriptors come
  first). A peer in ``--trusted-proxies`` is not counted: its clients are known only
  from the request. The handshake itself is bounded by websockets' ``open_timeout``.
- **what it reads**: at most ``receive_rate`` bytes a second per connection after a
  burst of ``receive_burst`` (by default 32 KiB/s after 64 KiB; reading pauses until
  the budget allows more: TCP slows the peer down, nothing is refused), from a socket
  receive buffer of `RECEIVE_BUFFER`. Pings never reach the app's rate limit
  (websockets answers each itself, about 10 µs apiece): without this, one client's
  ping flood kept the event loop busy 20 ms per 256 KiB read, for every room. Honest
  clients send a few hundred bytes a second.

- **a kept-alive connection** (HTTP/1.1 persistent connections, for the browser table's
  files only: an answer marked ``Connection: keep-alive``, `KEEP_ALIVE`): it reads its
  next request only while it is younger than half the handshake deadline, for at most
  `KEEP_ALIVE_IDLE` seconds between two requests (then it is closed), and each address
  keeps at most ``max_handshakes_per_ip`` connections alive at once (past that the
  answer closes its connection, as every answer did before); an idle one gives its
  handshake slot back. Every request on it is screened, throttled and answered as the
  first was, and a WebSocket may open on it. A page then costs a handful of TCP and TLS
  handshakes, not one per file: over a link of 80 ms, three round trips a file less.

Also, a message over ``max_size`` (which websockets refuses from the frame's header,
before reading its payload, and fails the connection with 1009) gets the app's
``too_large`` error first, and the close frame's reason is ``too_large``, as PROTOCOL.md
says: `GuardedConnection` gives its sans-I/O protocol a ``fail`` that queues that frame
ahead of the close frame (`_SaysTooLarge`).

Aborting (``transport.abort()``) drops the TCP connection without waiting for anything;
the app hears of it as a closed connection (code 1006). Each abort calls the guard's
``on_abort`` with a reason: ``send_buffer_full``, ``send_timeout`` or ``close_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
from collections.abc import Callable, Generator
from typing import Any, ClassVar, Protocol

from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import InvalidHeader, InvalidMessage
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import CONNECTING, State
from websockets.protocol import Protocol as WebSocketProtocol
from websockets.server import ServerProtocol

from protocol import Error, ErrorCode, encode
from server.adapters.addresses.forwarded import Network, is_trusted_peer
from server.adapters.addresses.limits import AddressSlots
from server.adapters.logs import get_logger
from server.adapters.settings.config import Settings
from server.adapters.web.files import security_headers
from server.adapters.web.screen import ALLOWED_METHODS, Answer, screen, unreadable
from server.core.budgets import address_key

__all__ = [
    "ACCEPT_BURST",
    "KEEP_ALIVE",
    "KEEP_ALIVE_IDLE",
    "NOFILE_CEILING",
    "RECEIVE_BUFFER",
    "GuardedConnection",
    "Mirror",
    "TransportGuard",
    "binary_frame",
    "connection_class",
    "open_files_limit",
]

ACCEPT_BURST = 100
"""connections asyncio may accept in one go (its listening backlog), each a descriptor
until it is set up or dropped: what the hold limit leaves room for"""
NOFILE_CEILING = 1 << 20
"""what an "unlimited" open-files limit counts as (Linux's usual fs.nr_open)"""


def open_files_limit() -> int:
    """This process's soft open-files limit (every connection is a file descriptor)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return NOFILE_CEILING if soft == resource.RLIM_INFINITY else soft


KEEP_ALIVE = "keep-alive"
"""The ``Connection`` header of an answer that may leave its connection open for the next
request (the browser table's files: `server.adapters.web.files`); every other answer but
the 101 closes its connection."""
KEEP_ALIVE_IDLE = 2.0
"""Seconds a kept-alive connection waits for its next request before it is closed."""

_HEAD_SHOWN = 256  # bytes of a request kept to tell its method when it cannot be parsed
RECEIVE_BUFFER = 8 * 1024
"""the kernel's receive buffer for one connection (SO_RCVBUF; Linux doubles it): one read
from the socket brings at most about 16 KiB (plus one segment), about 125 pings, whose
answers hold the event loop a millisecond or two. At 32 KiB, 32 clients flooding pings
held it 5-10 ms a read and honest rooms' p99 went from 5 to 38 ms (docs/security.md);
a message is at most 4 KiB by default, so the window never holds an honest one back"""


class TransportGuard:
    """What the connections of one server share: their limits, the count of handshakes
    per address, the connections still in the handshake, and what to do on an abort."""

    def __init__(
        self,
        settings: Settings,
        *,
        on_abort: Callable[[GuardedConnection, str, int], None] | None = None,
        on_handshake_refused: Callable[[str], None] | None = None,
        on_request_refused: Callable[[str, Answer], None] | None = None,
    ) -> None:
        """The guard of a server with ``settings`` (their bounds; a hold limit of half the
        descriptors left after one burst of accepts, `ACCEPT_BURST`), which calls
        ``on_abort`` after each abort and ``on_handshake_refused`` with the address key
        of each connection refused for its address's handshakes, and
        ``on_request_refused`` with the peer and the verdict of each request refused
        before it was read (`server.adapters.web.screen`)."""
        self.max_send_buffer = settings.max_send_buffer
        self.send_timeout = settings.send_timeout
        self.close_timeout = settings.close_timeout
        self.receive_rate = settings.receive_rate
        self.receive_burst = settings.receive_burst
        self.trusted: tuple[Network, ...] = tuple(settings.trusted_proxies)
        self.handshakes = AddressSlots(settings.max_handshakes_per_ip)
        self.kept = AddressSlots(settings.max_handshakes_per_ip)
        """connections kept alive between two plain requests, per address"""
        self.handshake_timeout = settings.handshake_timeout
        self.hold_limit = max(0, open_files_limit() - ACCEPT_BURST) // 2
        """connections open at most for a refused one to be held rather than dropped"""
        self.connecting: set[GuardedConnection] = set()
        self.held: set[GuardedConnection] = set()
        """refused connections held until their handshake deadline (`GuardedConnection`)"""
        self.live: set[GuardedConnection] = set()
        """every connection open now"""
        self.on_abort = on_abort
        self.on_handshake_refused = on_handshake_refused
        self.on_request_refused = on_request_refused
        too_large = Error(
            code=ErrorCode.TOO_LARGE,
            message=f"a message may have at most {settings.max_message_bytes} bytes; "
            "this one had more",
        )
        self.too_large = encode(too_large)
        """the message sent before a 1009 close"""

    def is_trusted(self, peer: str) -> bool:
        return is_trusted_peer(peer, self.trusted)

    def abort_connecting(self) -> int:
        """Abort every connection still in the opening handshake, or held after a
        refusal (shutdown); how many."""
        connecting = [*self.connecting, *self.held]
        for connection in connecting:
            connection.transport.abort()
        return len(connecting)

    def abort_closing(self) -> int:
        """Abort every connection whose closing handshake is under way and has nothing
        left to send (shutdown: a peer failed with 1009 while its message was still
        arriving waits for nothing more from the server); how many. One that still has
        bytes to send keeps its ``close_timeout`` (`GuardedConnection`)."""
        closing = [
            connection
            for connection in self.live
            if connection.protocol.state is State.CLOSING
            and connection.transport is not None
            and not connection.transport.is_closing()
            and connection.transport.get_write_buffer_size() == 0
        ]
        for connection in closing:
            connection.transport.abort()
        return len(closing)


class _SaysTooLarge(ServerProtocol):
    """websockets' server protocol, but a connection failed for a message over the size
    limit (1009) gets ``too_large`` (the app's encoded error message) first, and its
    close frame gives the error code as the reason (``protocol/PROTOCOL.md`` §7), not
    websockets' sentence about the frame's size; and a request it cannot read, or one
    `server.adapters.web.screen` refuses, is answered (400 or 405) instead of dropped, and
    told to ``refused`` (the kind and what to log), never raised."""

    too_large: bytes = b""
    refused: Callable[[Answer], None] | None = None
    keep: Callable[[Response], bool] | None = None
    """the connection's: whether it stays open after this answer (`GuardedConnection`)"""

    def parse(self) -> Generator[None]:
        if self.state is not CONNECTING:
            yield from super().parse()
            return
        reader = self.reader
        while b"\n" not in reader.buffer and len(reader.buffer) < _HEAD_SHOWN and not reader.eof:
            yield
        head = bytes(reader.buffer[:_HEAD_SHOWN])
        try:
            request = yield from Request.parse(reader.read_line)
        except EOFError as gone:  # closed before a whole request: nobody to answer
            self.handshake_exc = InvalidMessage("did not receive a valid HTTP request")
            self.handshake_exc.__cause__ = gone
            self.send_eof()
            self.parser = self.discard()
            next(self.parser)
            yield
            return
        except Exception as error:  # whatever websockets cannot read
            yield from self._answer(unreadable(head, error), error)
            return
        verdict = screen(request.method, request.headers)
        if verdict is not None:
            yield from self._answer(verdict, InvalidHeader(verdict.detail))
            return
        self.events.append(request)
        yield from WebSocketProtocol.parse(self)

    def _answer(self, verdict: Answer, error: Exception) -> Generator[None]:
        """Answer ``verdict`` (one line of text) and read nothing more."""
        self.handshake_exc = InvalidMessage(verdict.detail)
        self.handshake_exc.__cause__ = error
        if self.refused is not None:
            self.refused(verdict)
        response = self.reject(verdict.status, verdict.text)
        for name, value in security_headers().raw_items():
            if name not in response.headers:
                response.headers[name] = value
        response.headers["Cache-Control"] = "no-store"
        if verdict.allow:
            response.headers["Allow"] = ", ".join(ALLOWED_METHODS)
        self.send_response(response)  # then EOF, and the rest is discarded
        yield

    def send_response(self, response: Response) -> None:
        """Send ``response``; every answer but the switch to WebSocket (101) carries the
        page's security headers and ``Cache-Control: no-store`` unless it set its own:
        the 400/403/429 and ``/healthz`` answers, websockets' own refusals included."""
        if response.status_code != 101:
            for name, value in security_headers().raw_items():
                if name not in response.headers:
                    response.headers[name] = value
            if "Cache-Control" not in response.headers:
                response.headers["Cache-Control"] = "no-store"
            if response.headers.get("Connection") == KEEP_ALIVE:
                if self.keep is not None and self.keep(response):
                    self.writes.append(response.serialize())
                    self.parser = self.parse()  # the next request, as the first was read
                    next(self.parser)
                    return
                response.headers["Connection"] = "close"
        super().send_response(response)

    def fail(self, code: CloseCode | int, reason: str = "") -> None:
        if code == CloseCode.MESSAGE_TOO_BIG and self.state is State.OPEN and self.too_large:
            self.send_binary(self.too_large)
            reason = ErrorCode.TOO_LARGE.value
        super().fail(code, reason)


def binary_frame(data: bytes) -> bytes:
    """``data`` as one whole binary frame from the server, for `GuardedConnection.queue`.

    A server's frames are not masked and the server negotiates no extension
    (``compression=None``, `server.adapters.ws.app`), so one message's frame is the same
    bytes for every connection: a message to a room is framed once, not once per
    connection (as websockets' ``send_binary`` would; about 1.5 µs a frame, some 15
    frames a flip in a room of two players and two spectators: docs/performance.md).
    """
    return Frame(Opcode.BINARY, data).serialize(mask=False)


class Mirror(Protocol):
    """What a connection tells of the frames written to it (`GuardedConnection.mirror`)."""

    def flushed(self, frames: list[bytes]) -> None:
        """``frames`` (each a whole message) are being written, in this order."""


class GuardedConnection(ServerConnection):
    """A `ServerConnection` under its server's `TransportGuard` (see the module docstring).

    Made through `connection_class`, which sets `guard`. The app writes through `queue`
    and `flush`, never to the transport directly.
    """

    guard: ClassVar[TransportGuard]
    client: str | None = None
    """the client's address as the app counts it (set by the app once known)"""
    told: bool = False
    """a page on this machine: its ``welcome`` tells the invitation's addresses"""
    house: bool = True
    """from the house (`server.adapters.outside.house`): its ``welcome`` tells the outside
    link, and with ``--outside`` and no password only such a connection creates rooms"""
    path_key: str | None = None
    """the key its ``welcome`` tells for a second path (`server.adapters.ws.paths`)"""
    mirror: Mirror | None = None
    """told of every frame written (`flush`): a connection offered a second path"""

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        protocol.__class__ = _SaysTooLarge  # websockets makes it; only ``fail`` differs
        assert isinstance(protocol, _SaysTooLarge)
        protocol.too_large = self.guard.too_large
        protocol.refused = self._request_refused
        protocol.keep = self._keep
        protocol.parser = protocol.parse()  # ours (nothing has been read yet)
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)
        self._stall: asyncio.TimerHandle | None = None
        self._throttle: asyncio.TimerHandle | None = None
        self._release: asyncio.TimerHandle | None = None
        self._credit = self.guard.receive_burst
        self._credit_at = self.loop.time()
        self._handshake_key: str | None = None
        self._kept_key: str | None = None  # the address whose kept-alive slot it holds
        self._kept = False  # the last answer left the connection open
        self._opened = self.loop.time()
        self._closing: asyncio.TimerHandle | None = None  # a close begun by what it read
        self._frames: list[bytes] = []  # queued by the app, written by `flush`
        self.aborted: str | None = None
        """why this connection was aborted by its guard, or None"""

    def _request_refused(self, verdict: Answer) -> None:
        report = self.guard.on_request_refused
        if report is not None:
            report(_peer_of(self.transport), verdict)

    # --- the handshake slot -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._opened = self.loop.time()  # after TLS: when websockets' open_timeout starts
        peer = _peer_of(transport)
        guard = self.guard
        if not guard.is_trusted(peer):
            if not guard.handshakes.acquire(peer):
                # refused: set up only what connection_lost needs, not the handler task
                # websockets starts for every connection (a flood of these stays cheap)
                Connection.connection_made(self, transport)
                guard.live.add(self)
                if guard.on_handshake_refused is not None:
                    guard.on_handshake_refused(address_key(peer))
                if len(guard.live) <= guard.hold_limit:
                    self._hold()
                else:
                    self.transport.abort()
                return
            self._handshake_key = peer
            guard.connecting.add(self)
        guard.live.add(self)
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)

    def _hold(self) -> None:
        """Keep a refused connection, unread, until its handshake deadline, then drop it.

        Dropped at once, a client that reconnects at once turns its refused connections
        into a flood of new ones, each an accept and a teardown for the server (1,400
        such clients kept a core busy); held, it waits as long as its handshake could
        have taken. Only while descriptors are plentiful (`TransportGuard.hold_limit`).
        """
        self.transport.pause_reading()
        self.guard.held.add(self)
        self._release = self.loop.call_later(self.guard.handshake_timeout, self.transport.abort)

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        """websockets' opening handshake, for one request or, kept alive (`_keep`), for
        each request until one is not answered ``keep-alive``, is a WebSocket's, or none
        comes within `KEEP_ALIVE_IDLE` seconds (the connection is then closed)."""
        try:
            while True:
                self._kept = False
                await super().handshake(*args, **kwargs)
                if not self._kept:
                    return
                self._release_handshake_slot()  # an idle connection is not a handshake
                if not await self._next_request():
                    return
        finally:
            self._end_handshake()

    def _keep(self, response: Response) -> bool:
        """Whether the connection stays open after ``response`` (a ``keep-alive`` answer,
        `KEEP_ALIVE`) for another request: the request did not ask to close, the
        connection is younger than half its handshake deadline (websockets'
        ``open_timeout`` bounds all its requests together: the last answer has the other
        half to go out), and its address keeps fewer than ``max_handshakes_per_ip``
        connections alive. If so, the connection waits for the next request."""
        request = self.request
        if request is None or "close" in request.headers.get("Connection", "").lower():
            return False
        if self.loop.time() - self._opened >= self.guard.handshake_timeout / 2:
            return False
        if self._kept_key is None:
            peer = self.peer
            if not self.guard.kept.acquire(peer):
                return False
            self._kept_key = peer
        self.request = None
        self.request_rcvd = self.loop.create_future()
        self._kept = True
        return True

    async def _next_request(self) -> bool:
        """Wait for the next request on a kept-alive connection: True when it came; False
        when the peer left, or nothing came in time (the connection is closed)."""
        deadline = self._opened + self.guard.handshake_timeout
        idle = max(0.0, min(KEEP_ALIVE_IDLE, deadline - self.loop.time()))
        await asyncio.wait(
            [self.request_rcvd, self.connection_lost_waiter],
            timeout=idle,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if self.request_rcvd.done():
            return True
        if not self.connection_lost_waiter.done():
            self.transport.close()
        return False

    def _release_handshake_slot(self) -> None:
        if self._handshake_key is not None:
            self.guard.handshakes.release(self._handshake_key)
            self._handshake_key = None

    def _end_handshake(self) -> None:
        self.guard.connecting.discard(self)
        self._release_handshake_slot()
        if self._kept_key is not None:
            self.guard.kept.release(self._kept_key)
            self._kept_key = None

    @property
    def peer(self) -> str:
        """The TCP peer's address (a trusted proxy's for proxied clients)."""
        return _peer_of(self.transport)

    # --- reads -------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        now = self.loop.time()
        guard = self.guard
        earned = (now - self._credit_at) * guard.receive_rate
        self._credit = min(guard.receive_burst, self._credit + earned) - len(data)
        self._credit_at = now
        super().data_received(data)
        transport = self.transport
        if self.protocol.state is State.CLOSING and self._closing is None:
            # what it read began the close (a message over the limit failed it with 1009, or
            # its close frame came): the peer's end of the TCP connection must come within
            # close_timeout, as for a close the server begins (`close`); websockets waits for
            # it only in a later send (its keepalive ping, minutes away), and nothing closes a
            # connection that is no longer OPEN at the server's shutdown
            self._closing = self.loop.call_later(self.guard.close_timeout, self._close_overdue)
        if self._credit < 0 and self._throttle is None and not transport.is_closing():
            transport.pause_reading()
            wait = -self._credit / guard.receive_rate
            self._throttle = self.loop.call_later(wait, self._unthrottle)

    def _unthrottle(self) -> None:
        self._throttle = None
        # websockets pauses reading too while the app has not taken its messages
        if not self.transport.is_closing() and not self.recv_messages.paused:
            self.transport.resume_reading()

    # --- writes ------------------------------------------------------------------------
    def queue(self, frame: bytes) -> None:
        """Queue ``frame``, one whole binary message framed by `binary_frame`, to go out
        with the next `flush`. The connection must be open (the caller checks)."""
        self._frames.append(frame)

    def flush(self) -> None:
        """Write every queued frame in one ``transport.write``, then check the buffer.
        What websockets queued itself goes first (it was queued before: websockets
        writes its own frames as soon as it makes them)."""
        frames, self._frames = self._frames, []
        if self.mirror is not None:
            self.mirror.flushed(frames)
        data = b"".join([*self.protocol.data_to_send(), *frames])
        if not data or self.transport.is_closing():
            return
        try:
            self.transport.write(data)
        except Exception:  # a transport that broke: its connection ends by itself
            get_logger().warning("write_failed", exc_info=True)
            return
        self.check_unsent()

    def send_data(self) -> None:
        """websockets' own writes (pongs, pings, close frames, the handshake response)."""
        super().send_data()
        self.check_unsent()

    def check_unsent(self) -> None:
        """Abort if more than ``max_send_buffer`` bytes wait to be sent."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        unsent = transport.get_write_buffer_size()
        if unsent > self.guard.max_send_buffer:
            self._abort("send_buffer_full", unsent)

    @property
    def stuck(self) -> bool:
        """True while unsent data is above the high-water mark (the peer is not reading)."""
        return self.paused

    # --- flow control: the stalled-buffer timer -----------------------------------------
    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(self.guard.send_timeout, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_stall()

    def _stalled(self) -> None:
        self._stall = None
        transport = self.transport
        if transport is not None and not transport.is_closing():
            self._abort("send_timeout", transport.get_write_buffer_size())

    def _cancel_stall(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.live.discard(self)
        self.guard.held.discard(self)
        if self._release is not None:
            self._release.cancel()
            self._release = None
        self._cancel_stall()
        if self._throttle is not None:
            self._throttle.cancel()
            self._throttle = None
        if self._closing is not None:
            self._closing.cancel()
            self._closing = None
        self._end_handshake()
        super().connection_lost(exc)

    # --- closing -----------------------------------------------------------------------
    async def close(self, code: int = 1000, reason: str = "") -> None:
        """The closing handshake, aborted if it is not over in ``close_timeout`` seconds
        (a peer that does not read would otherwise hold it until its buffer drains)."""
        if self.protocol.state is State.CLOSED:
            return
        timer = self.loop.call_later(self.guard.close_timeout, self._close_overdue)
        try:
            await super().close(code, reason)
        finally:
            timer.cancel()

    def _close_overdue(self) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            self._abort("close_timeout", transport.get_write_buffer_size())

    def _abort(self, reason: str, unsent: int) -> None:
        if self.aborted is not None:
            return
        self.aborted = reason
        self._cancel_stall()
        with contextlib.suppress(Exception):  # reporting must never keep the abort from happening
            if self.guard.on_abort is not None:
                self.guard.on_abort(self, reason, unsent)
        self.transport.abort()


def _peer_of(transport: asyncio.BaseTransport | None) -> str:
    address = transport.get_extra_info("peername") if transport is not None else None
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address or "")


def connection_class(guard: TransportGuard) -> type[GuardedConnection]:
    """A `GuardedConnection` subclass bound to ``guard`` (websockets' ``create_connection``)."""

    class WarConnection(GuardedConnection):
        pass

    WarConnection.guard = guard
    return WarConnection
