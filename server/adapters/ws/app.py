"""The connection layer: a thin adapter from WebSocket connections to the sans-I/O Hub.

decode → hub → encode → broadcast. Everything that decides anything about rooms lives
in the Hub (`server.core.hub.hub`); `WarServer` only moves bytes, keeps time and enforces
the transport limits of each connection:

- a `ConnId`, a slot of its address (``--max-connections-per-ip``, else error
  ``too_many_connections`` and close 1013; from a ``--trusted-proxies`` peer, the address
  its X-Forwarded-For names), frames at most ``--max-message-bytes`` (else error
  ``too_large`` and close 1009 with the reason ``too_large``, from the WebSocket layer),
  a `server.adapters.addresses.limits.RateLimiter` (``rate_limited``, then 4001), a budget of
  invalid frames (then 1008), an opening deadline (4005), and the transport's bounds on
  what it holds, reads and waits for (`server.adapters.ws.connection`: --max-send-buffer,
  --send-timeout, handshakes per address and their deadline, a receive budget);
- the Hub's calls of one turn of the event loop form a batch (`server.adapters.ws.batch`):
  their room rows go into one store transaction, and their actions go out once it is
  committed (`server.adapters.ws.outbox`: each `Send` encoded once, a connection's frames
  written together);
- one timer task sleeps until `Hub.next_deadline` and calls `Hub.wake`, yielding to the
  connections between two wakes (a finish vote's play-out is woken slice after slice,
  and other rooms are served in between);
- a bug while handling one message is logged and answered with ``internal_error`` and
  close 1011 on that connection only: the server and every other room carry on;
- shutdown (`WarServer.stop`): stop accepting, close every client with 1012, commit the
  last batch, close the store.

Two clocks (`Clocks`, injectable): wall time is the Hub's, since time-limit deadlines are
stored and must mean the same after a restart; monotonic time is every transport limit's
(new connections and penalties per address, the rate limit, the invalid-frame budget,
the opening deadline, log throttling). The HTTP side of the port is
`server.adapters.web.http`; starting and running a server, `server.adapters.serving`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING, Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import (
    ClientMessage,
    CloseCode,
    CreateRoom,
    Error,
    ErrorCode,
    ProtocolError,
    SecondPath,
    decode_client_message,
    encode,
)
from protocol.paths import PathOverflowError
from server.adapters.addresses.limits import AddressSlots, Handling, RateLimiter
from server.adapters.logs import LogThrottle, bind, get_logger, route_accept_errors
from server.adapters.outside.house import house_networks, in_house
from server.adapters.settings.config import (
    INVALID_MESSAGE_BURST,
    INVALID_MESSAGE_REFILL_SECONDS,
    WRITE_HIGH_WATER,
    Settings,
)
from server.adapters.web.edge import EdgeLog
from server.adapters.web.files import WebFiles
from server.adapters.web.http import HttpFront, client_of, headers_of
from server.adapters.web.invitation import invitation, told_addresses
from server.adapters.ws.batch import Batch, CommitTimer
from server.adapters.ws.connection import (
    GuardedConnection,
    TransportGuard,
    binary_frame,
    connection_class,
)
from server.adapters.ws.outbox import Outbox
from server.adapters.ws.paths import Lane, Reading, SecondPaths
from server.core.budgets import TokenBucket
from server.core.hub.replies import internal_error
from server.core.room.actions import Action, Change, Close, ConnId, Output, Send

if TYPE_CHECKING:
    from server.adapters.store.sqlite import Store

__all__ = ["QUIET_SECONDS", "Clocks", "HubLike", "WarServer"]

_RATE_LIMITED = "too many messages: at most {:g} a second; this one was dropped"
_WAKE_RETRY_SECONDS = 1.0  # after Hub.wake raised, wait this long before trying again
QUIET_SECONDS = 60.0
"""one log line per address (or per kind of accept failure) per this many seconds"""

log = get_logger()


@dataclass(frozen=True, slots=True)
class Clocks:
    """The app's two clocks (see the module docstring): ``wall``, the Hub's, and
    ``monotonic``, every transport limit's."""

    wall: Callable[[], float] = time.time
    monotonic: Callable[[], float] = time.monotonic


_CLOCKS = Clocks()


class HubLike(Protocol):
    """What the app needs of the Hub (`server.core.hub.hub.Hub`); tests may pass a stand-in."""

    def connect(self, conn: ConnId, peer: str, now: float) -> Output: ...
    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output: ...
    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output: ...
    def disconnect(self, conn: ConnId, now: float) -> Output: ...
    def wake(self, now: float) -> Output: ...
    def committed(self, changes: list[Change]) -> None: ...
    def failed(self, error: Exception, changes: list[Change], now: float) -> Output: ...
    def next_deadline(self) -> float | None: ...
    def where(self, conn: ConnId) -> tuple[str, int | None] | None: ...
    @property
    def rooms(self) -> int: ...
    @property
    def connections(self) -> int: ...
    @property
    def store_failing(self) -> bool: ...


class WarServer:
    """One running server: the listening sockets, the Hub, every connection, the timer.
    ``store``: where the Hub's changes are committed (None: a stand-in Hub that writes
    nothing); ``ssl_context``: TLS (None: plain WebSocket). Made by
    `server.adapters.serving.serving`; tests use `port`, `hub`, `poke`, `connection_count`.
    """

    def __init__(
        self,
        settings: Settings,
        hub: HubLike,
        store: Store | None,
        *,
        clocks: Clocks = _CLOCKS,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.store = store
        self._clock = clocks.wall
        self._monotonic = clocks.monotonic
        self._ssl = ssl_context
        self._batch = Batch(store, hub)
        self._commits = CommitTimer()
        self._commit_due: asyncio.Handle | None = None  # the batch's commit, scheduled
        self._ids = count(1)
        self._sockets: dict[ConnId, GuardedConnection] = {}
        self._closing: set[ConnId] = set()
        self._slots = AddressSlots(settings.max_connections_per_ip)
        self._edge = EdgeLog(QUIET_SECONDS, self._monotonic, settings.max_handshakes_per_ip)
        self._guard = TransportGuard(
            settings,
            on_abort=self._aborted,
            on_handshake_refused=self._edge.handshake_refused,
            on_request_refused=self._edge.request_refused,
        )
        self._quiet = LogThrottle(QUIET_SECONDS)
        self._http = HttpFront(settings, server=self, edge=self._edge, monotonic=self._monotonic)
        self._tasks: set[asyncio.Task[None]] = set()
        self._outbox = Outbox(self._sockets, self._closing, self._tasks)
        self._paths = SecondPaths(settings.second_path, self._closing, self._tasks)
        self._rearm = asyncio.Event()
        self._armed_for: float | None = None
        self._server: Server | None = None
        self._outside: list[Server] = []
        self._house_only = settings.outside and settings.password is None
        self._timer: asyncio.Task[None] | None = None
        self._stopping = False
        self._restore_handler: Callable[[], None] | None = None  # the loop's own, back

    # --- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Bind and start accepting; start the timer.

        Raises:
            OSError: the address cannot be bound.
            server.adapters.web.files.WebFilesError: the browser table's files are missing.
        """
        self._http.web = None if self.settings.no_web else WebFiles.load()
        self._server = await self._serve(self.settings.port, self._ssl)
        self._outbox.addresses = invitation(self)
        self._timer = asyncio.create_task(self._run_timer(), name="war-timer")
        self._restore_handler = route_accept_errors(
            asyncio.get_running_loop(), self._quiet, self._monotonic
        )

    async def listen_outside(
        self, port: int, context: ssl.SSLContext, host: str | None = None
    ) -> int:
        """Listen on ``port`` too (``--outside-lan-port``; on ``host``, else ``--host``),
        over TLS with ``context`` (`server.adapters.outside.tls.OutsideTls`): the same
        page, WebSocket, limits and Hub as the server's own port. Called again for the
        IPv6 listener (the global address's port 443). Returns the port bound (``0``:
        any free one).

        Raises:
            OSError: the port cannot be bound.
        """
        listening = await self._serve(port, context, host)
        self._outside.append(listening)
        bound: int = listening.sockets[0].getsockname()[1]
        return bound

    def close_outside(self, host: str) -> int:
        """Stop accepting on the outside listeners bound to ``host`` (an IPv6 address this
        machine gave up: its prefix was renumbered). The connections they accepted go on,
        their games too, until they end or `stop` closes them as it closes every other;
        nothing else is touched. Returns how many listeners stopped accepting."""
        address = ipaddress.ip_address(host)
        stopped = 0
        for listening in self._outside:
            bound = [ipaddress.ip_address(s.getsockname()[0]) for s in listening.sockets]
            if address in bound:
                listening.server.close()  # asyncio's: the listening socket alone
                stopped += 1
        return stopped

    @property
    def outside_url(self) -> str | None:
        """The outside link (``--outside``), told to the house's pages; None: none now."""
        return self._outbox.outside

    @outside_url.setter
    def outside_url(self, url: str | None) -> None:
        self._outbox.outside = url

    async def _serve(
        self, port: int, context: ssl.SSLContext | None, host: str | None = None
    ) -> Server:
        return await serve(
            self._handle_connection,
            host or self.settings.host,
            port,
            process_request=self._http.process_request,
            create_connection=connection_class(self._guard),
            open_timeout=self.settings.handshake_timeout,
            max_size=self.settings.max_message_bytes,
            write_limit=WRITE_HIGH_WATER,
            ping_interval=self.settings.ping_interval,
            ping_timeout=self.settings.ping_timeout,
            close_timeout=self.settings.close_timeout,
            ssl=context,
            compression=None,
            server_header=None,
        )

    @property
    def port(self) -> int:
        """The TCP port actually bound (useful with ``--port 0``)."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        for sock in self._server.sockets:
            port: int = sock.getsockname()[1]
            return port
        raise RuntimeError("the server has no listening socket")

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        """The listening sockets."""
        return self._server.sockets if self._server is not None else ()

    @property
    def connection_count(self) -> int:
        """WebSocket connections open now."""
        return len(self._sockets)

    @property
    def rooms(self) -> int:
        """How many rooms the Hub holds (for ``/healthz``)."""
        return self.hub.rooms

    @property
    def store_failing(self) -> bool:
        """The store failed to commit, and has not committed a write since (``/healthz``)."""
        return self.hub.store_failing

    async def stop(self) -> None:
        """Stop accepting, close every client with 1012, stop the timer, close the Hub."""
        if self._stopping:
            return
        self._stopping = True
        log.info("server_stopping", connections=len(self._sockets))
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
        servers = [s for s in (self._server, *self._outside) if s is not None]
        for server in servers:
            server.close(
                close_connections=True,
                code=CloseCode.SERVICE_RESTART,
                reason="server restarting",
            )
        if servers:
            self._guard.abort_connecting()  # their handshake would wait its full timeout
            # a close under way (websockets closes OPEN connections only, and waits for the
            # rest): a 1009 whose payload is still arriving would wait for the peer
            self._guard.abort_closing()
        for server in servers:
            await server.wait_closed()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._commit()
        if self.store is not None:
            self.store.close()
        if self._restore_handler is not None:
            self._restore_handler()
            self._restore_handler = None
        log.info("server_stopped")

    def poke(self) -> None:
        """Make the timer look at `Hub.next_deadline` again (after a test moved the clock)."""
        self._armed_for = None
        self._rearm.set()

    # --- one connection ------------------------------------------------------------------
    async def _handle_connection(self, connection: ServerConnection) -> None:
        assert isinstance(connection, GuardedConnection)  # made by connection_class
        ws = connection
        conn = next(self._ids)
        client = client_of(ws, headers_of(ws), self.settings.trusted_proxies)
        peer = client.address
        ws.client, ws.told = peer, told_addresses(client, headers_of(ws))
        house = True
        if self.settings.outside:
            networks = self.settings.house_networks
            ws.house = house = in_house(client, headers_of(ws), networks or house_networks())
        elif self._paths.needs_house:  # the offer alone: the networks read now and then
            networks = self.settings.house_networks or self._paths.house(self._monotonic())
            house = in_house(client, headers_of(ws), networks)
        bind(conn=conn, peer=peer)
        if client.ignored is not None:
            log.debug("forwarded_for_ignored", reason=client.ignored)
        if not self._slots.acquire(peer):
            log.info("connection_refused", reason="too many connections from this address")
            limit = self.settings.max_connections_per_ip
            refusal = Error(
                code=ErrorCode.TOO_MANY_CONNECTIONS,
                message=f"this address already has {limit} connections open; try later",
            )
            if ws.protocol.state is State.OPEN:  # not gone already
                ws.queue(binary_frame(encode(refusal)))
                ws.flush()
            await ws.close(CloseCode.TRY_AGAIN_LATER, ErrorCode.TOO_MANY_CONNECTIONS.value)
            return
        self._sockets[conn] = ws
        log.info("connection_opened")
        started = self._monotonic()
        reading = Reading(
            conn,
            ws,
            peer,
            started,
            RateLimiter(self.settings.rate_limit, started),
            TokenBucket(1.0 / INVALID_MESSAGE_REFILL_SECONDS, INVALID_MESSAGE_BURST, started),
        )
        if self._paths.offers(house):
            self._paths.offer(reading)
        try:
            self._connected(conn, peer)
            await self._receive(reading)
        finally:
            del self._sockets[conn]
            self._closing.discard(conn)
            self._slots.release(peer)
            if not self._paths.closed(reading):  # a second path: the Hub forgot it
                self._disconnected(conn)
            log.info("connection_closed", close_code=ws.close_code)

    async def _receive(self, reading: Reading) -> None:
        ws = reading.ws
        while True:
            try:
                if reading.opened:
                    data = await ws.recv()
                else:
                    left = reading.started + self.settings.opening_timeout - self._monotonic()
                    data = await asyncio.wait_for(ws.recv(), max(left, 0.0))
            except ConnectionClosed:
                return
            except TimeoutError:
                log.info("opening_timeout")
                self._closing.add(reading.conn)
                await ws.close(CloseCode.OPENING_TIMEOUT, "no opening message")
                return
            lane = reading.lane
            if lane is None:
                self._read(reading, data)
            else:
                self._merged(lane, data)

    def _merged(self, lane: Lane, data: bytes | str) -> None:
        """A frame of a connection with a second path (either of the two): read what the
        first connection's merge delivers (`server.adapters.ws.paths`)."""
        if not lane.live:
            return  # a second path the server closed: nothing more from it counts
        first = lane.first
        try:
            frames = first.merge.receive(lane.side, data)
        except PathOverflowError:
            self._paths.out_of_step(first)
            return
        for frame in frames:
            self._read(first.reading, frame)

    def _read(self, reading: Reading, data: bytes | str) -> None:
        """One frame of ``reading``'s connection (or, merged, of its second path): the
        rate limit, the codec, the invalid budget, the house's rule, then the Hub."""
        conn = reading.conn
        if reading.closing or conn in self._closing:
            return  # a close is under way: nothing more from this peer counts
        verdict = reading.limiter.check(self._monotonic())
        if verdict is not Handling.ACCEPT:
            if self._rate_limited(conn, verdict):
                self._penalize(reading.peer)
                reading.closing = True  # its Close waits for the batch's commit
            return
        try:
            message = decode_client_message(data, max_bytes=self.settings.max_message_bytes)
        except ProtocolError as error:
            if self._invalid(conn, error, reading.invalid):
                self._penalize(reading.peer)
                reading.closing = True
            return
        if type(message) is SecondPath:
            self._second_path(reading, message)
            return
        if self._house_only and not reading.ws.house and isinstance(message, CreateRoom):
            log.info("creation_refused", reason="not from the house: rooms are the house's")
            said = "rooms are created from the host's home; ask the host for an invitation"
            self._refuse(conn, ErrorCode.ASK_FOR_INVITATION, said)
            return
        now = self._clock()
        try:
            output = self.hub.handle(conn, message, now)
        except Exception:
            output = self._hub_failed(conn, "handle")
        self._take(output, now)
        if not reading.opened:
            reading.opened = self._bind_room(conn)

    def _second_path(self, reading: Reading, message: SecondPath) -> None:
        """``second_path``: make this connection the second path of the one whose key it
        gives (`server.adapters.ws.paths`), or refuse it: on a connection that opened a
        room, ``already_in_room`` (as any second opening message); with a key of no open
        connection, ``bad_path_key`` and close 4004."""
        conn = reading.conn
        if reading.opened:
            log.info("second_path_refused", reason="the connection opened a room already")
            said = "this connection is in a room already; a second path opens a new connection"
            self._refuse(conn, ErrorCode.ALREADY_IN_ROOM, said)
            return
        first = self._paths.find(message.key, reading)
        if first is None:
            log.info("second_path_refused", reason="no open connection has this key")
            self._refuse(conn, ErrorCode.BAD_PATH_KEY, "no open connection has this path key")
            return
        self._disconnected(conn)  # the Hub forgets it: it never opened a room
        self._paths.attach(reading, first, message.after)

    def _refuse(self, conn: ConnId, code: ErrorCode, said: str) -> None:
        """Refuse what ``conn`` sent with error ``code`` through the Hub, as it refuses any
        frame (and closes a connection that opened no room: 4004, or ``code``'s close)."""
        now = self._clock()
        try:
            output = self.hub.refuse(conn, ProtocolError(code, said), now)
        except Exception:
            output = self._hub_failed(conn, "refuse")
        self._take(output, now)

    def _bind_room(self, conn: ConnId) -> bool:
        where = self.hub.where(conn)
        if where is None:
            return False
        room, seat = where
        bind(room=room, seat=seat)
        log.info("room_entered", role="spectator" if seat is None else "player")
        return True

    def _rate_limited(self, conn: ConnId, verdict: Handling) -> bool:
        """Answer a message the rate limit did not accept; True if it closed (4001)."""
        if verdict is Handling.REFUSE:
            log.info("rate_limited")
            said = _RATE_LIMITED.format(self.settings.rate_limit)
            self._execute([Send((conn,), Error(code=ErrorCode.RATE_LIMITED, message=said))])
        elif verdict is Handling.CLOSE:
            log.info("rate_limit_close")
            self._execute([Close(conn, CloseCode.RATE_LIMITED, "rate limit exceeded")])
            return True
        return False

    def _invalid(self, conn: ConnId, error: ProtocolError, budget: TokenBucket) -> bool:
        """Answer an undecodable frame; True if the invalid budget ran out (close 1008)."""
        log.info("invalid_message", error=error.code.value)
        now = self._clock()
        try:
            output = self.hub.refuse(conn, error, now)
        except Exception:
            output = self._hub_failed(conn, "refuse")
        self._take(output, now)
        closes = any(isinstance(a, Close) and a.conn == conn for a in output.actions)
        exhausted = not closes and not budget.take(self._monotonic())
        if exhausted:
            log.info("invalid_message_close")
            self._execute([Close(conn, CloseCode.POLICY_VIOLATION, "too many invalid")])
        return exhausted

    def _aborted(self, ws: GuardedConnection, reason: str, unsent: int) -> None:
        """The guard dropped ``ws`` (`server.adapters.ws.connection`): log it; a client that
        let more than --max-send-buffer pile up is penalized as for other abuse."""
        peer = ws.client if ws.client is not None else ws.peer
        log.warning("connection_aborted", reason=reason, unsent=unsent, peer=peer)
        if reason == "send_buffer_full":
            self._penalize(peer)

    def _penalize(self, peer: str) -> None:
        """``peer``'s connection was just closed for abuse: refuse its address a while."""
        seconds = self._http.gate.penalize(peer, self._monotonic())
        if seconds > 0:
            log.info("address_penalized", seconds=seconds)

    # --- the Hub's calls -------------------------------------------------------------
    def _connected(self, conn: ConnId, peer: str) -> None:
        now = self._clock()
        try:
            output = self.hub.connect(conn, peer, now)
        except Exception:
            output = self._hub_failed(conn, "connect")
        self._take(output, now)

    def _disconnected(self, conn: ConnId) -> None:
        now = self._clock()
        try:
            output = self.hub.disconnect(conn, now)
        except Exception:
            output = self._hub_failed(conn, "disconnect")
        self._take(output, now)

    def _hub_failed(self, conn: ConnId, call: str) -> Output:
        """A Hub call raised (it never should): log it, and answer ``conn`` as the Hub
        answers a bug (`server.core.hub.replies.internal_error`); the other rooms carry on."""
        where = self.hub.where(conn) if not self._stopping else None
        log.exception("hub_failed", call=call, room=where[0] if where else None)
        return Output(internal_error(conn) if conn in self._sockets else [], [])

    # --- group commit ----------------------------------------------------------------
    def _take(self, output: Output, now: float) -> None:
        """Add a Hub call's ``output`` to the batch (`server.adapters.ws.batch`): its rows go
        into the batch's one store transaction, and its actions wait for the commit made
        at the end of the loop turn (at most one commit that writes per
        `server.adapters.ws.batch.COMMIT_INTERVAL_SECONDS`, `CommitTimer`; at once when
        full).
        Persist, then broadcast, for the batch as a whole (docs/performance.md, "Group
        commit")."""
        self._batch.add(output, now)
        if self._batch.full:
            self._commit()
        elif self._commit_due is None:
            self._commit_due = asyncio.get_running_loop().call_soon(self._end_of_turn)
        self._maybe_rearm()

    def _end_of_turn(self) -> None:
        """The loop turn of the batch's first call is over: commit it now, or once
        `CommitTimer.wait` is over (the last commit that wrote is too recent: gather more)."""
        loop = asyncio.get_running_loop()
        wait = self._commits.wait(self._batch.writes, loop.time())
        if wait > 0:
            self._commit_due = loop.call_later(wait, self._commit)
        else:
            self._commit()

    def _commit(self) -> None:
        """Commit the batch and carry out what it releases (`server.adapters.ws.outbox`)."""
        if self._commit_due is not None:
            self._commit_due.cancel()
            self._commit_due = None
        wrote = self._batch.writes
        actions = self._batch.commit(self._clock())
        self._commits.committed(wrote, asyncio.get_running_loop().time())
        self._outbox.perform(actions)
        self._maybe_rearm()

    # --- actions -------------------------------------------------------------------------
    def _execute(self, actions: list[Action]) -> None:
        """Carry out the app's own ``actions`` (they store nothing) after those of the
        Hub calls before them, in the batch's order."""
        self._take(Output(actions, []), self._clock())

    # --- the timer -----------------------------------------------------------------------
    def _maybe_rearm(self) -> None:
        if self.hub.next_deadline() != self._armed_for:
            self._rearm.set()

    async def _run_timer(self) -> None:
        while True:
            self._rearm.clear()
            deadline = self.hub.next_deadline()
            self._armed_for = deadline
            if deadline is None:
                await self._rearm.wait()
                continue
            now = self._clock()
            if deadline > now:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._rearm.wait(), deadline - now)
                continue
            try:
                output: Output | None = self.hub.wake(now)
            except Exception:
                log.exception("hub_failed", call="wake")
                output = None
            if output is not None:
                self._take(output, now)
            if (output is None or not output.actions) and self.hub.next_deadline() == deadline:
                # the Hub woke and left the same past deadline (a bug): never spin on it
                if output is not None:
                    log.warning("timer_stuck", deadline=deadline, now=now)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._rearm.wait(), _WAKE_RETRY_SECONDS)
            # Let the connections in before the next wake: a finish vote's play-out asks
            # to be woken again at once, a slice at a time, and other rooms' messages
            # must be handled between two slices, not after the last one.
            await asyncio.sleep(0)
