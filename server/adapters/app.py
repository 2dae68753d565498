"""The connection layer: a thin adapter from WebSocket connections to the sans-I/O Hub.

decode → hub → encode → broadcast. Everything that decides anything about rooms lives
in the Hub (`server.core.hub`); this module only moves bytes, keeps time and enforces the
transport limits:

- one ``websockets`` server; ``GET /healthz`` on the same port answers 200 with JSON
  ``{"status": "ok", "rooms": N, "connections": N}``, or 503 with ``"status":
  "store_failing"`` while the store cannot write (a full disk: from a failed write until
  one succeeds again, `server.core.hub.Hub.store_failing`); other plain HTTP requests get
  the browser table's files (`server.adapters.web`; none with ``--no-web``);
- per address, before the WebSocket handshake (in ``process_request``): new connections
  at most ``--connect-rate`` a second in bursts of ``--connect-burst``, and none for
  ``--abuse-penalty`` seconds (doubling on repeats) after one of its connections was
  closed for abuse (4001, or 1008 for invalid frames); refused with HTTP 429 Too Many
  Requests and ``Retry-After`` (`server.adapters.limits.ConnectionGate`, on the app's clock);
- per connection: a `ConnId`, a slot of its address (``--max-connections-per-ip``, else
  error ``too_many_connections`` and close 1013; from a ``--trusted-proxies`` peer, the
  address its X-Forwarded-For names), frames at most ``--max-message-bytes`` (else
  error ``too_large`` and close 1009, from the WebSocket layer), a `RateLimiter`
  (``rate_limited``, then 4001), a budget of invalid frames (then 1008), an opening
  deadline (4005), and the transport's bounds on what it holds, reads and waits for
  (`server.adapters._connection`: --max-send-buffer, --send-timeout, handshakes per
  address and their deadline, a receive budget);
- one timer task that sleeps until `Hub.next_deadline` and calls `Hub.wake`, yielding to
  the connections between two wakes (a finish vote's play-out is woken slice after
  slice, and other rooms are served in between);
- each `Send` is encoded once; the frames one Hub call produces for a connection are
  written together, one ``transport.write`` (one system call) per connection per call —
  as ``websockets.broadcast`` does frame by frame, nothing waits for a slow client (a dead
  one is dropped by the ping timeout);
- a bug while handling one message is logged and answered with ``internal_error`` and
  close 1011 on that connection only: the server and every other room carry on;
- the Hub's calls of one turn of the event loop form a batch (`server.adapters.batch`):
  their room rows go into one store transaction, and their actions go out once it is
  committed;
- shutdown (SIGTERM/SIGINT in `run_server`): stop accepting, close every client with
  1012, commit the last batch, close the store.

Use::

    async with serving(settings) as server:    # bound; server.port is the real port
        ...
    await run_server(settings)                  # until SIGTERM/SIGINT
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import math
import os
import resource
import signal
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from itertools import count
from typing import TYPE_CHECKING, Any, Protocol

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from protocol import (
    ClientMessage,
    CloseCode,
    EncodeError,
    Error,
    ErrorCode,
    ProtocolError,
    decode_client_message,
    encode,
)
from server.adapters import _exposure
from server.adapters._connection import GuardedConnection, TransportGuard, connection_class
from server.adapters._forwarded import ClientAddress, Network, client_address
from server.adapters._origin import origin_allowed
from server.adapters._quiet import LogThrottle
from server.adapters.batch import Batch
from server.adapters.config import (
    INVALID_MESSAGE_BURST,
    INVALID_MESSAGE_REFILL_SECONDS,
    WRITE_HIGH_WATER,
    Settings,
)
from server.adapters.limits import AddressSlots, ConnectionGate, RateLimiter, Throttle, Verdict
from server.adapters.logs import bind, get_logger
from server.adapters.web import WebFiles
from server.core.actions import Action, Close, ConnId, Output, Send
from server.core.limits import TokenBucket
from server.core.replies import internal_error
from server.errors import TlsKeyError

if TYPE_CHECKING:
    from server.adapters.store import Store

__all__ = [
    "HubLike",
    "WarServer",
    "open_store",
    "raise_open_files_limit",
    "run_server",
    "serving",
    "tls_context",
]

HEALTH_PATH = "/healthz"
_MAX_REASON_BYTES = 123  # a close frame's reason limit (RFC 6455)
_WAKE_RETRY_SECONDS = 1.0  # after Hub.wake raised, wait this long before trying again
_SHOWN_ORIGIN_CHARS = 100  # of a refused Origin header, in the log (client text)
ACCEPT_BURST = 100
"""connections asyncio may accept in one go (its listening backlog), each a descriptor
until it is set up or dropped: what the hold limit leaves room for"""
QUIET_SECONDS = 60.0
"""one log line per address (or per kind of accept failure) per this many seconds"""

log = get_logger()


class HubLike(Protocol):
    """What the app needs of the Hub (`server.core.hub.Hub`); tests may pass a stand-in."""

    def connect(self, conn: ConnId, peer: str, now: float) -> Output: ...
    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output: ...
    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output: ...
    def disconnect(self, conn: ConnId, now: float) -> Output: ...
    def wake(self, now: float) -> Output: ...
    def committed(self) -> None: ...
    def failed(self, error: Exception, now: float) -> Output: ...
    def next_deadline(self) -> float | None: ...
    def where(self, conn: ConnId) -> tuple[str, int | None] | None: ...
    @property
    def rooms(self) -> int: ...
    @property
    def connections(self) -> int: ...
    @property
    def store_failing(self) -> bool: ...


def open_store(settings: Settings) -> Store:
    """The SQLite store at ``settings.db`` (its folder is created).

    Raises:
        OSError: the store's folder cannot be created.
        server.errors.StoreError: the store cannot be opened.
    """
    from server.adapters.store import SqliteStore  # noqa: PLC0415 (keep the app importable alone)

    settings.db.parent.mkdir(parents=True, exist_ok=True)
    return SqliteStore(settings.db)


def build_hub(settings: Settings, store: Store, now: float) -> HubLike:
    """The real Hub, built from every room ``store`` holds, with ``settings`` (the room
    core's part of them: `server.core.settings.HubSettings`).

    Raises:
        server.errors.StoreError: the store cannot be loaded.
    """
    from server.core.hub import Hub  # noqa: PLC0415 (keep the app importable alone)

    return Hub(store.load_all(), settings, now=now, logger=log)


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """A server TLS context from ``--certfile``/``--keyfile``, or None without them.

    A key protected by a passphrase is refused with `TlsKeyError` instead of OpenSSL's
    prompt on the terminal (the server runs unattended: nobody would answer it).

    Raises:
        ssl.SSLError, OSError: the files are not a matching PEM certificate and key.
        server.errors.TlsKeyError: the key needs a passphrase.
    """
    if settings.certfile is None or settings.keyfile is None:
        return None
    keyfile = settings.keyfile

    def no_passphrase() -> bytes:
        raise TlsKeyError(
            f"the TLS key {str(keyfile)!r} is protected by a passphrase, which war-server "
            "cannot ask for: give --keyfile a copy without one, readable only by the "
            "server (openssl pkey -in KEY -out KEY.plain; chmod 600 KEY.plain)"
        )

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(settings.certfile, keyfile, password=no_passphrase)
    return context


def _peer_of(ws: ServerConnection) -> str:
    address = ws.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address or "")


def _client_of(
    ws: ServerConnection, headers: Headers | None, trusted: tuple[Network, ...]
) -> ClientAddress:
    """Who ``ws`` is from: the TCP peer, or from a trusted proxy what X-Forwarded-For
    (in ``headers``, the handshake request's) says."""
    forwarded = headers.get_all("X-Forwarded-For") if headers is not None and trusted else []
    return client_address(_peer_of(ws), forwarded, trusted)


def _headers_of(ws: ServerConnection) -> Headers | None:
    return ws.request.headers if ws.request is not None else None


def _short(reason: str) -> str:
    data = reason.encode()[:_MAX_REASON_BYTES]
    return data.decode(errors="ignore")


class WarServer:
    """One running server: the listening sockets, the Hub, every connection, the timer.

    Made by `serving`; tests use `port`, `hub`, `poke` and `connection_count`.
    """

    def __init__(
        self,
        settings: Settings,
        hub: HubLike,
        store: Store | None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.store = store
        self._clock = clock
        self._batch = Batch(store, hub)
        self._turn_armed = False  # a commit is due at the end of this turn of the loop
        self._ids = count(1)
        self._sockets: dict[ConnId, GuardedConnection] = {}
        self._closing: set[ConnId] = set()
        self._slots = AddressSlots(settings.max_connections_per_ip)
        self._gate = ConnectionGate(
            settings.connect_rate,
            settings.connect_burst,
            penalty=settings.abuse_penalty,
            penalty_max=settings.abuse_penalty_max,
        )
        self._guard = TransportGuard(
            max_send_buffer=settings.max_send_buffer,
            send_timeout=settings.send_timeout,
            close_timeout=settings.close_timeout,
            max_handshakes_per_ip=settings.max_handshakes_per_ip,
            handshake_timeout=settings.handshake_timeout,
            hold_limit=max(0, _open_files_limit() - ACCEPT_BURST) // 2,
            receive_rate=settings.receive_rate,
            receive_burst=settings.receive_burst,
            trusted_proxies=settings.trusted_proxies,
            on_abort=self._aborted,
            on_handshake_refused=self._handshake_refused,
            too_large=encode(
                Error(
                    code=ErrorCode.TOO_LARGE,
                    message=f"a message may have at most {settings.max_message_bytes} bytes; "
                    "this one had more",
                )
            ),
        )
        self._quiet = LogThrottle(QUIET_SECONDS)
        self._tasks: set[asyncio.Task[None]] = set()
        self._rearm = asyncio.Event()
        self._armed_for: float | None = None
        self._server: Server | None = None
        self._timer: asyncio.Task[None] | None = None
        self._stopping = False
        self._loop_handler: tuple[Any, ...] | None = None  # (the loop's previous handler,)
        self._web: WebFiles | None = None

    # --- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Bind and start accepting; start the timer.

        Raises:
            OSError: the address cannot be bound.
            server.adapters.web.WebFilesError: the browser table's files are missing.
        """
        self._web = None if self.settings.no_web else WebFiles.load()
        self._server = await serve(
            self._handle_connection,
            self.settings.host,
            self.settings.port,
            process_request=self._process_request,
            create_connection=connection_class(self._guard),
            open_timeout=self.settings.handshake_timeout,
            max_size=self.settings.max_message_bytes,
            write_limit=WRITE_HIGH_WATER,
            ping_interval=self.settings.ping_interval,
            ping_timeout=self.settings.ping_timeout,
            close_timeout=self.settings.close_timeout,
            ssl=tls_context(self.settings),
            compression=None,
            server_header=None,
        )
        self._timer = asyncio.create_task(self._run_timer(), name="war-timer")
        self._quiet_accept_errors()

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
        if self._server is not None:
            self._server.close(
                close_connections=True,
                code=CloseCode.SERVICE_RESTART,
                reason="server restarting",
            )
            self._guard.abort_connecting()  # their handshake would wait its full timeout
            await self._server.wait_closed()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._commit()
        if self.store is not None:
            self.store.close()
        if self._loop_handler is not None:
            asyncio.get_running_loop().set_exception_handler(self._loop_handler[0])
            self._loop_handler = None
        log.info("server_stopped")

    def _quiet_accept_errors(self) -> None:
        """Route the event loop's failed accepts (out of file descriptors: EMFILE, ENFILE,
        ENOBUFS, ENOMEM) to `_accept_failed`; anything else to the previous handler.

        asyncio logs every failed ``accept()`` with a traceback and tries again a second
        later; with descriptors used up by an attacker that was 40,000 lines in 20 s.
        """
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        self._loop_handler = (previous,)

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            error = context.get("exception")
            message = str(context.get("message", ""))
            if isinstance(error, OSError) and message.startswith("socket.accept()"):
                self._accept_failed(error)
            elif previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(handler)

    def _accept_failed(self, error: OSError) -> None:
        """One line per kind of failure per QUIET_SECONDS, with how many were left out."""
        suppressed = self._quiet.allow(("accept_failed", error.errno), self._clock())
        if suppressed is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            log.error(
                "accept_failed",
                error=os.strerror(error.errno) if error.errno else str(error),
                errno=error.errno,
                also_failed=suppressed,
                open_files_limit=soft,
                hard_limit=hard,
                period=QUIET_SECONDS,
            )

    def poke(self) -> None:
        """Make the timer look at `Hub.next_deadline` again (after a test moved the clock)."""
        self._armed_for = None
        self._rearm.set()

    # --- HTTP: /healthz, the page and the per-address gate --------------------------------
    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer /healthz and the browser table's files (`server.adapters.web`); refuse
        a WebSocket from another site's page (403) and a new connection its address may
        not open now (429); None lets the WebSocket handshake go on."""
        if request.path.split("?", 1)[0] == HEALTH_PATH:
            return self._health(connection)
        if self._web is not None and (page := self._web.respond(request)) is not None:
            return page  # the browser table's files (not a WebSocket upgrade)
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, request.headers.get("Host"), self.settings.allowed_origins):
            return self._other_site(connection, str(origin))
        client = _client_of(connection, request.headers, self.settings.trusted_proxies)
        refusal = self._gate.admit(client.address, self._clock())
        if refusal is None:
            return None
        return _too_many_requests(connection, client.address, refusal)

    def _other_site(self, connection: ServerConnection, origin: str) -> Response:
        """HTTP 403 for a browser WebSocket opened by another site's page (logged once a
        minute per origin)."""
        shown = origin[:_SHOWN_ORIGIN_CHARS]
        suppressed = self._quiet.allow(("origin_refused", shown), self._clock())
        if suppressed is not None:
            log.warning("origin_refused", origin=shown, also_refused=suppressed)
        return connection.respond(
            http.HTTPStatus.FORBIDDEN,
            "a WebSocket from another site's page is refused (see --allowed-origins)\n",
        )

    def _health(self, connection: ServerConnection) -> Response:
        failing = self.hub.store_failing
        body = json.dumps(
            {
                "status": "store_failing" if failing else "ok",
                "rooms": self.hub.rooms,
                "connections": len(self._sockets),
            }
        )
        status = http.HTTPStatus.SERVICE_UNAVAILABLE if failing else http.HTTPStatus.OK
        response = connection.respond(status, body)
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "application/json"
        response.headers["Cache-Control"] = "no-store"
        return response

    # --- one connection ------------------------------------------------------------------
    async def _handle_connection(self, connection: ServerConnection) -> None:
        assert isinstance(connection, GuardedConnection)  # made by connection_class
        ws = connection
        conn = next(self._ids)
        client = _client_of(ws, _headers_of(ws), self.settings.trusted_proxies)
        peer = client.address
        ws.client = peer
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
                ws.queue(encode(refusal))
                ws.flush()
            await ws.close(CloseCode.TRY_AGAIN_LATER, "too many connections")
            return
        self._sockets[conn] = ws
        log.info("connection_opened")
        try:
            self._connected(conn, peer)
            await self._receive(conn, ws, peer)
        finally:
            del self._sockets[conn]
            self._closing.discard(conn)
            self._slots.release(peer)
            self._disconnected(conn)
            log.info("connection_closed", close_code=ws.close_code)

    async def _receive(self, conn: ConnId, ws: GuardedConnection, peer: str) -> None:
        started = time.monotonic()
        limiter = RateLimiter(self.settings.rate_limit, started)
        invalid = TokenBucket(1.0 / INVALID_MESSAGE_REFILL_SECONDS, INVALID_MESSAGE_BURST, started)
        opened = False
        while True:
            try:
                if opened:
                    data = await ws.recv()
                else:
                    left = started + self.settings.opening_timeout - time.monotonic()
                    data = await asyncio.wait_for(ws.recv(), max(left, 0.0))
            except ConnectionClosed:
                return
            except TimeoutError:
                log.info("opening_timeout")
                self._closing.add(conn)
                await ws.close(CloseCode.OPENING_TIMEOUT, "no opening message")
                return
            if conn in self._closing:
                continue  # a close is under way: nothing more from this peer counts
            verdict = limiter.check(time.monotonic())
            if verdict is not Verdict.ACCEPT:
                if self._rate_limited(conn, verdict):
                    self._penalize(peer)
                continue
            try:
                message = decode_client_message(data, max_bytes=self.settings.max_message_bytes)
            except ProtocolError as error:
                if self._invalid(conn, error, invalid):
                    self._penalize(peer)
                continue
            self._handle(conn, message)
            if not opened:
                opened = self._bind_room(conn)

    def _bind_room(self, conn: ConnId) -> bool:
        where = self.hub.where(conn)
        if where is None:
            return False
        room, seat = where
        bind(room=room, seat=seat)
        log.info("room_entered", role="spectator" if seat is None else "player")
        return True

    def _rate_limited(self, conn: ConnId, verdict: Verdict) -> bool:
        """Answer a message the rate limit did not accept; True if it closed (4001)."""
        if verdict is Verdict.REFUSE:
            log.info("rate_limited")
            message = Error(
                code=ErrorCode.RATE_LIMITED,
                message=(
                    f"too many messages: at most {self.settings.rate_limit:g} a second; "
                    "this one was dropped"
                ),
            )
            self._execute([Send((conn,), message)])
        elif verdict is Verdict.CLOSE:
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
        exhausted = not closes and not budget.take(time.monotonic())
        if exhausted:
            log.info("invalid_message_close")
            self._execute([Close(conn, CloseCode.POLICY_VIOLATION, "too many invalid")])
        return exhausted

    def _aborted(self, ws: GuardedConnection, reason: str, unsent: int) -> None:
        """The guard dropped ``ws`` (`server.adapters._connection`): log it; a client that
        let more than --max-send-buffer pile up is penalized as for other abuse."""
        peer = ws.client if ws.client is not None else ws.peer
        log.warning("connection_aborted", reason=reason, unsent=unsent, peer=peer)
        if reason == "send_buffer_full":
            self._penalize(peer)

    def _handshake_refused(self, key: str) -> None:
        """An address has --max-handshakes-per-ip connections in the handshake already."""
        now = self._clock()
        suppressed = self._quiet.allow(("handshake_refused", key), now)
        if suppressed is not None:
            log.warning(
                "handshake_refused",
                peer=key,
                reason="too many connections in the opening handshake",
                limit=self.settings.max_handshakes_per_ip,
                also_refused=suppressed,
            )

    def _penalize(self, peer: str) -> None:
        """``peer``'s connection was just closed for abuse: refuse its address a while."""
        seconds = self._gate.penalize(peer, self._clock())
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

    def _handle(self, conn: ConnId, message: ClientMessage) -> None:
        now = self._clock()
        try:
            output = self.hub.handle(conn, message, now)
        except Exception:
            output = self._hub_failed(conn, "handle")
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
        answers a bug (`server.core.replies.internal_error`); the other rooms carry on."""
        where = self.hub.where(conn) if not self._stopping else None
        log.exception("hub_failed", call=call, room=where[0] if where else None)
        return Output(internal_error(conn) if conn in self._sockets else [], [])

    # --- group commit ----------------------------------------------------------------
    def _take(self, output: Output, now: float) -> None:
        """Add a Hub call's ``output`` to the batch (`server.adapters.batch`): its rows go
        into the batch's one store transaction, and its actions wait for the commit, at
        the end of this turn of the event loop (the next callback the loop runs), or at
        once when the batch holds `server.adapters.batch.MAX_HELD_ACTIONS` actions (a
        connection's answers are checked against its send buffer as they go). Persist,
        then broadcast, for the batch as a whole; one commit for every message read
        together (docs/performance.md, "Group commit")."""
        self._batch.add(output, now)
        if self._batch.full:
            self._commit()
        elif not self._turn_armed:
            self._turn_armed = True
            asyncio.get_running_loop().call_soon(self._end_turn)
        self._maybe_rearm()

    def _end_turn(self) -> None:
        self._turn_armed = False
        self._commit()

    def _commit(self) -> None:
        """Commit the batch and carry out what it releases."""
        self._perform(self._batch.commit(self._clock()))
        self._maybe_rearm()

    # --- actions -------------------------------------------------------------------------
    def _execute(self, actions: list[Action]) -> None:
        """Carry out the app's own ``actions`` (they store nothing) after those of the
        Hub calls before them, in the batch's order."""
        self._take(Output(actions, []), self._clock())

    def _perform(self, actions: Iterable[Action]) -> None:
        """Carry out ``actions`` in order.

        Frames are queued per connection and written when the list ends (or before a
        `Close`, so they go out ahead of its close frame): a step's three messages reach
        a connection in one write instead of three. bench/load.py measured 53% of the
        server's time in socket writes at full speed, and +22% steps/s from this.
        """
        queued: dict[ConnId, GuardedConnection] = {}
        for action in actions:
            if isinstance(action, Send):
                self._send(action, queued)
            else:
                _flush(queued)
                self._close(action)
        _flush(queued)

    def _send(self, action: Send, queued: dict[ConnId, GuardedConnection]) -> None:
        try:
            data = encode(action.message)
        except EncodeError:
            log.exception("encode_failed", message_type=type(action.message).__name__)
            return
        for conn in action.to:
            ws = self._sockets.get(conn)
            # like websockets.broadcast: skip connections that are not open (closing)
            if ws is None or ws.protocol.state is not State.OPEN:
                continue
            ws.queue(data)
            queued[conn] = ws

    def _close(self, action: Close) -> None:
        ws = self._sockets.get(action.conn)
        if ws is None or action.conn in self._closing:
            return
        self._closing.add(action.conn)
        task = asyncio.create_task(ws.close(action.code, _short(action.reason)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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


@asynccontextmanager
async def serving(
    settings: Settings,
    *,
    hub: HubLike | None = None,
    store: Store | None = None,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[WarServer]:
    """Start a server: the real Hub over the SQLite store at ``settings.db``, or ``hub``
    (built from ``store``'s rooms; a stand-in that writes nothing needs none).

    Yields once it accepts connections; on exit it stops as on SIGTERM (clients get
    1012, the last batch is committed, the store is closed).

    Raises:
        OSError: the address cannot be bound, or the store's folder cannot be made.
        ssl.SSLError: the TLS files do not load.
        server.errors.TlsKeyError: the TLS key needs a passphrase.
        server.errors.StoreError: the store cannot be opened, or another server holds it.
    """
    tls_context(settings)  # fail on bad TLS files before opening the store
    async with _store_locked(settings, hub is None):
        if hub is None:
            store = open_store(settings)
            try:
                hub = build_hub(settings, store, clock())
            except BaseException:
                store.close()
                raise
        server = WarServer(settings, hub, store, clock=clock)
        try:
            await server.start()
        except BaseException:
            if store is not None:
                store.close()
            raise
        async with _serving(settings, server) as started:
            yield started


@asynccontextmanager
async def _store_locked(settings: Settings, lock: bool) -> AsyncIterator[None]:
    """Hold `StoreLock` on ``settings.db`` for the block (if ``lock``): a second server
    on the same store refuses to start."""
    if not lock:
        yield
        return
    from server.adapters.store import StoreLock  # noqa: PLC0415 (keep the app importable alone)

    settings.db.parent.mkdir(parents=True, exist_ok=True)
    held = StoreLock(settings.db)
    try:
        yield
    finally:
        held.release()


@asynccontextmanager
async def _serving(settings: Settings, server: WarServer) -> AsyncIterator[WarServer]:
    """Announce a started ``server`` (and warn about its exposure); stop it at the end."""
    log.info(
        "listening",
        host=settings.host,
        port=server.port,
        tls=settings.tls,
        db=str(settings.db),
        rooms=server.hub.rooms,
        password_required=settings.password is not None,
        open_files_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    )
    for warning in _exposure.startup_warnings(
        _exposure.bound_addresses(server.sockets),
        tls=settings.tls,
        password=settings.password is not None,
        behind_proxy=bool(settings.trusted_proxies),
    ):
        log.warning(warning.event, **warning.fields)
    try:
        yield server
    finally:
        await server.stop()


async def run_server(
    settings: Settings,
    *,
    on_ready: Callable[[WarServer], Any] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set), then shut down cleanly.

    ``on_ready`` is called with the running server once it accepts connections.
    Raises what `serving` raises.
    """
    stopping = stop if stop is not None else asyncio.Event()
    raise_open_files_limit()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, _on_signal, sig, stopping)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or a platform without signal handlers
        installed.append(sig)
    try:
        async with serving(settings) as server:
            if on_ready is not None:
                on_ready(server)
            await stopping.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


_NOFILE_CEILING = 1 << 20  # what "unlimited" is raised to (Linux's usual fs.nr_open)


def _open_files_limit() -> int:
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return _NOFILE_CEILING if soft == resource.RLIM_INFINITY else soft


def raise_open_files_limit() -> int:
    """Raise this process's soft open-files limit to its hard limit; return the limit.

    Every connection is a file descriptor; the soft limit is often 1,024 while the hard
    one (systemd's LimitNOFILE, compose's ``ulimits``) allows far more. A raise is logged
    (``open_files_limit``), as is a refusal; the ``listening`` line shows the limit in
    any case. Never raises: a system that refuses (a seccomp filter, a container) leaves
    the limit as it was.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _NOFILE_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError) as error:
            log.warning("open_files_limit", limit=soft, hard_limit=hard, error=str(error))
            return soft
        log.info("open_files_limit", limit=target, hard_limit=hard, raised_from=soft)
        return target
    return soft  # already there: the "listening" line shows it


def _too_many_requests(connection: ServerConnection, peer: str, refusal: Throttle) -> Response:
    """HTTP 429 with Retry-After (whole seconds, at least 1), instead of the handshake."""
    seconds = max(1, math.ceil(refusal.retry_after))
    if refusal.penalized:
        why = "a connection from this address was closed for abuse"
    else:
        why = "too many new connections from this address"
    if refusal.first:
        log.info(
            "connection_throttled",
            peer=peer,
            reason="penalty" if refusal.penalized else "connect rate",
            retry_after=seconds,
        )
    response = connection.respond(
        http.HTTPStatus.TOO_MANY_REQUESTS, f"{why}; retry after {seconds} s\n"
    )
    response.headers["Retry-After"] = str(seconds)
    return response


def _flush(queued: dict[ConnId, GuardedConnection]) -> None:
    """Write each connection's queued frames in one go (each checks its send buffer)."""
    for ws in queued.values():
        ws.flush()
    queued.clear()


def _on_signal(sig: signal.Signals, stopping: asyncio.Event) -> None:
    log.info("signal_received", signal=sig.name)
    stopping.set()
