"""A client that never reads cannot make the server hold unbounded memory, nor hold up a
timeout, an abuse close or the shutdown.

The attacker does the opening handshake with a small receive buffer (`tests.server.
adapters._raw`), then asks for answers it never reads: pings (websockets answers each
with a pong) or, as a spectator, ``resync`` (the app answers with snapshots). Its
unread answers pile up in the server's send buffer. The server must drop it (abort,
not a polite close that waits for a drain that never comes) once it has more than
``--max-send-buffer`` bytes unsent, or once its unsent data stayed above the high-water
mark for ``--send-timeout`` seconds; and shutdown, the opening timeout and abuse closes
must end such a connection too. Every wait is for the event (the stand-in Hub's
disconnect), bounded by a timeout; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs
from websockets.datastructures import Headers
from websockets.http11 import Request

from protocol import Ready, Resync, WatchRoom, encode
from server.adapters.settings.config import MIN_SEND_BUFFER, RECEIVE_BURST
from server.adapters.web.files import WebFiles
from server.adapters.ws.app import WarServer
from server.adapters.ws.connection import RECEIVE_BUFFER
from tests.server.adapters._raw import masked_frame, ping_frames, send_until_reset, upgrade
from tests.server.adapters._standin import StandInHub, standin_server

HOST = "127.0.0.1"
WAIT = 20.0
"""seconds to wait for the server to drop the attacker (it takes well under one)"""
ATTACK_LIMIT = 48 * 1024 * 1024
"""bytes of requests sent at most: far more than the kernel's buffers on both sides"""
NO_CAP = 64 * 1024 * 1024
"""the largest --max-send-buffer: a test of the send timeout must not hit the cap"""
FAST_READS: dict[str, Any] = {"receive_rate": 1e9, "receive_burst": 1e9}
"""the attacker's requests read as fast as they come (the receive budget is tested last)"""
NO_KEEPALIVE: dict[str, Any] = {"ping_interval": 600.0, "ping_timeout": 600.0}
"""websockets' keepalive out of the way: a client that never reads never answers its ping
either, and the keepalive would end the connection after ping_interval + ping_timeout
(40 s by default) without the abort a test waits for"""
PATIENT: dict[str, Any] = {
    "max_send_buffer": NO_CAP,
    "send_timeout": 600.0,
    **NO_KEEPALIVE,
    **FAST_READS,
}
"""a server whose own limits would not drop a stuck connection for minutes (and whose
keepalive, once it finds the connection closing, would not end it either)"""
CLOSE_TIMEOUT = 1.0
"""seconds a polite close of a stuck connection waits before it aborts (`close_timeout`, 5 s
by default): the end of the waits of the stop, opening-timeout and abuse-close tests"""
BINARY = 0x2
LOOPBACK_SEGMENT = 64 * 1024
"""the largest TCP segment over loopback (its MTU is 64 KiB)"""


def _kernel_send_buffer_max() -> int:
    """The most a TCP socket's send buffer grows to (Linux autotuning), else 4 MiB."""
    try:
        with open("/proc/sys/net/ipv4/tcp_wmem", encoding="ascii") as limits:
            return int(limits.read().split()[2])
    except (OSError, ValueError, IndexError):
        return 4 * 1024 * 1024


STUCK = 2 * _kernel_send_buffer_max()
"""unsent bytes that show a connection stuck: more than the kernel can ever take over
(its autotuned send buffer grows for seconds, and would let a smaller backlog drain)"""


def _frame(message: object) -> bytes:
    return masked_frame(BINARY, encode(message))  # type: ignore[arg-type]


async def _attack(sock: socket.socket, request: bytes) -> int:
    return await send_until_reset(sock, request * 100, limit=ATTACK_LIMIT)


def _aborted(logs: list[MutableMapping[str, Any]], reason: str) -> list[MutableMapping[str, Any]]:
    return [e for e in logs if e["event"] == "connection_aborted" and e.get("reason") == reason]


@pytest.mark.parametrize("request_kind", ["pings", "resyncs"])
async def test_unsent_bytes_past_the_cap_abort_the_connection(
    tmp_path: Path, request_kind: str
) -> None:
    cap = 64 * 1024
    hub = StandInHub(burst=20)
    settings = {"send_timeout": 300.0, "rate_limit": 1e6, **NO_KEEPALIVE, **FAST_READS}
    with capture_logs() as logs:
        async with standin_server(tmp_path, hub, max_send_buffer=cap, **settings) as (
            server,
            hub,
        ):
            sock = await upgrade(HOST, server.port, first=_frame(WatchRoom(code="WATCH")))
            if request_kind == "pings":
                # a pong per ping fills the send buffer slowly through the small window;
                # a resync's 20 snapshots fill it fast (and widened, one read would bring
                # thousands of resyncs that the app answers one by one after the abort)
                _widen_reads(server)
            request = ping_frames(1) if request_kind == "pings" else _frame(Resync())
            try:
                sent = await _attack(sock, request)
                await asyncio.wait_for(hub.gone.wait(), WAIT)
            finally:
                sock.close()
    assert sent < ATTACK_LIMIT, "the server kept answering a client that never reads"
    (abort,) = _aborted(logs, "send_buffer_full")
    unsent = abort["unsent"]
    assert isinstance(unsent, int)
    assert cap < unsent <= cap + 2 * 256 * 1024  # the cap, plus at most one read's answers


async def test_unsent_data_stuck_past_the_send_timeout_aborts_the_connection(
    tmp_path: Path,
) -> None:
    with capture_logs() as logs:
        async with standin_server(
            tmp_path, max_send_buffer=NO_CAP, send_timeout=0.5, **NO_KEEPALIVE, **FAST_READS
        ) as (server, hub):
            sock = await upgrade(HOST, server.port, first=_frame(WatchRoom(code="WATCH")))
            _widen_reads(server)
            try:
                await _attack(sock, ping_frames(1))
                await asyncio.wait_for(hub.gone.wait(), WAIT)
            finally:
                sock.close()
    assert _aborted(logs, "send_timeout")
    assert not _aborted(logs, "send_buffer_full")


def _unsent(server: WarServer) -> int:
    """The most unsent bytes any of the server's open connections holds."""
    assert server._server is not None
    sizes = [c.transport.get_write_buffer_size() for c in server._server.all_connections]
    return max(sizes, default=0)


def _widen_reads(server: WarServer) -> None:
    """Give the server's side of its open connections a wide receive buffer.

    With `RECEIVE_BUFFER`'s small window and loopback's 64 KiB segments, TCP's window
    updates lag (about 16 KiB per 200 ms retransmission tick): a flood would take 40 s
    or more to fill the kernel's send buffer, a time that grows with the machine's load
    (on a real link, segments are 1.5 KiB and it does not lag). Widened, it fills in a
    second or two. One read stays at most 256 KiB (asyncio's), so the server's bound on
    unsent bytes (the cap plus one read's answers) is tested at its largest read."""
    assert server._server is not None
    for connection in server._server.all_connections:
        peer = connection.transport.get_extra_info("socket")
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)


async def _stuck(server: WarServer, opening: bytes = b"") -> socket.socket:
    """A connection whose unsent answers sit well above the high-water mark (it never
    reads), on a server whose own limits would not drop it for minutes (its reads
    widened: `_widen_reads`)."""
    sock = await upgrade(HOST, server.port, first=opening)
    _widen_reads(server)
    pings = ping_frames(100)
    sent = 0
    while _unsent(server) < STUCK:
        assert sent < ATTACK_LIMIT, "the server's send buffer never filled"
        more = await send_until_reset(sock, pings, limit=len(pings))
        assert more, "the server dropped the connection before its send buffer filled"
        sent += more
    return sock


async def test_stop_ends_a_connection_that_never_reads(tmp_path: Path) -> None:
    async with standin_server(tmp_path, **PATIENT, close_timeout=CLOSE_TIMEOUT) as (server, hub):
        sock = await _stuck(server, _frame(WatchRoom(code="WATCH")))
        stopping = asyncio.create_task(server.stop())  # SIGTERM's path
        try:
            done, _ = await asyncio.wait({stopping}, timeout=WAIT)
        finally:
            sock.close()
        assert stopping in done, "stop() waited on a client that does not read"
        assert hub.closed
        assert hub.disconnects == 1


async def test_the_opening_timeout_ends_a_connection_that_never_reads(tmp_path: Path) -> None:
    """The opening timeout runs out once the connection is stuck, not before: the server
    looks at it again when a message comes (this one opens nothing), and by then the
    timeout is 0 (on a loaded machine, a fixed short timeout ran out while the buffer
    was still filling)."""
    async with standin_server(
        tmp_path, **PATIENT, opening_timeout=600.0, close_timeout=CLOSE_TIMEOUT
    ) as (server, hub):
        sock = await _stuck(server)  # no opening message, only pings
        server.settings = dataclasses.replace(server.settings, opening_timeout=0.0)
        try:
            await asyncio.get_running_loop().sock_sendall(sock, _frame(Resync()))
            await asyncio.wait_for(hub.gone.wait(), WAIT)
        finally:
            sock.close()
    assert not hub.opened.is_set()


async def test_an_abuse_close_ends_a_connection_that_never_reads(tmp_path: Path) -> None:
    async with standin_server(tmp_path, **PATIENT, close_timeout=CLOSE_TIMEOUT) as (server, hub):
        sock = await _stuck(server, _frame(WatchRoom(code="WATCH")))
        try:
            await asyncio.get_running_loop().sock_sendall(sock, _frame(Ready(step=0)))
            await asyncio.wait_for(hub.gone.wait(), WAIT)  # the stand-in closes it (4001)
        finally:
            sock.close()


async def test_a_ping_flood_is_read_no_faster_than_the_receive_budget(tmp_path: Path) -> None:
    """Pings never reach the app's rate limit (websockets answers each itself), so the
    transport reads a connection at a bounded rate: past its burst, reading pauses."""
    async with standin_server(tmp_path) as (server, hub):
        sock = await upgrade(HOST, server.port, rcvbuf=None, first=_frame(WatchRoom(code="WATCH")))
        await asyncio.wait_for(hub.opened.wait(), WAIT)
        (ws,) = server._sockets.values()
        consumed = at_pause = 0
        paused, resumed = asyncio.Event(), asyncio.Event()
        transport: Any = ws.transport
        pause, resume, receive = transport.pause_reading, transport.resume_reading, ws.data_received

        def counting(data: bytes) -> None:
            nonlocal consumed
            consumed += len(data)
            receive(data)

        def pausing() -> None:
            nonlocal at_pause
            if not paused.is_set():
                paused.set()
                at_pause = consumed
            pause()

        def resuming() -> None:
            if paused.is_set():
                resumed.set()
            resume()

        ws.data_received = counting  # type: ignore[method-assign]
        transport.pause_reading, transport.resume_reading = pausing, resuming
        reading = asyncio.ensure_future(_drain(sock))
        flooding = asyncio.ensure_future(send_until_reset(sock, ping_frames(100), limit=4 << 20))
        try:
            await asyncio.wait_for(paused.wait(), WAIT)
            await asyncio.wait_for(resumed.wait(), WAIT)  # slowed down, not cut off
        finally:
            flooding.cancel()
            reading.cancel()
            sock.close()
        assert not hub.gone.is_set()
        # the burst, plus what the last read brought: the kernel doubles SO_RCVBUF and
        # admits one segment past it (up to 64 KiB on loopback)
        assert at_pause <= RECEIVE_BURST + 2 * RECEIVE_BUFFER + LOOPBACK_SEGMENT, at_pause


async def _drain(sock: socket.socket) -> None:
    """Read and drop everything the server sends (this client reads its pongs)."""
    loop = asyncio.get_running_loop()
    while await loop.sock_recv(sock, 65536):
        pass


HEADER_ROOM = 4096  # an answer's status line and headers, generously


def test_every_file_of_the_page_fits_the_smallest_send_buffer() -> None:
    """A page file is one HTTP answer: one bigger than --max-send-buffer could get an
    honest browser on a slow link dropped while it downloads. What counts is what is sent
    (a message catalog goes out as compact JSON). A browser asks for a file only once the
    one before on the same connection has come, so one answer at a time is unsent: it
    must fit, with room for its headers."""
    files = WebFiles.load()
    assert files.paths
    for path in files.paths:
        answer = files.respond(Request(path, Headers()))
        assert answer is not None and answer.body is not None, path
        assert len(answer.body) + HEADER_ROOM < MIN_SEND_BUFFER, path
