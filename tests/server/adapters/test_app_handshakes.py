"""Connections still in the opening handshake: a cap per address, a deadline, and what
happens to one past the cap (held unread until its deadline while descriptors are
plentiful, dropped at once when they are not).

The attacker's connections send the start of an upgrade request and never finish it.
Every wait is for an event (the server's refusal, the socket's end), bounded.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from server.adapters.ws.app import WarServer
from tests.server.adapters._raw import open_raw
from tests.server.adapters._standin import StandInHub, standin_server

HOST = "127.0.0.1"
WAIT = 20.0
CAP = 2
HALF = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"


class Refusals:
    """Counts the server's handshake refusals; `reached` waits for a number of them."""

    def __init__(self, server: WarServer) -> None:
        self.count = 0
        self._changed = asyncio.Event()
        guard = server._guard
        report = guard.on_handshake_refused

        def counted(key: str) -> None:
            self.count += 1
            self._changed.set()
            if report is not None:
                report(key)

        guard.on_handshake_refused = counted

    async def reached(self, count: int) -> None:
        while self.count < count:
            self._changed.clear()
            await self._changed.wait()


@asynccontextmanager
async def half_upgrades(port: int, count: int) -> AsyncIterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = await open_raw(HOST, port, rcvbuf=None)
            socks.append(sock)
            await asyncio.get_running_loop().sock_sendall(sock, HALF)
        yield socks
    finally:
        for sock in socks:
            sock.close()


async def dropped(sock: socket.socket) -> None:
    """Return once the server has dropped ``sock`` (end of stream or a reset)."""
    try:
        while await asyncio.get_running_loop().sock_recv(sock, 4096):
            pass
    except ConnectionResetError:
        return


def still_open(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True  # nothing to read, and not closed
    except ConnectionResetError:
        return False


@asynccontextmanager
async def past_the_cap(
    tmp_path: Path, extra: int, *, deadline: float, hold_limit: int | None = None
) -> AsyncIterator[tuple[WarServer, StandInHub, list[socket.socket]]]:
    """A server with a cap of CAP handshakes per address, and CAP + ``extra`` half
    upgrades from this address, once the server has refused ``extra`` of them."""
    async with standin_server(tmp_path, max_handshakes_per_ip=CAP, handshake_timeout=deadline) as (
        server,
        hub,
    ):
        if hold_limit is not None:
            server._guard.hold_limit = hold_limit
        refusals = Refusals(server)
        async with half_upgrades(server.port, CAP + extra) as socks:
            await asyncio.wait_for(refusals.reached(extra), WAIT)
            yield server, hub, socks


async def test_past_the_cap_a_connection_is_held_unread_until_its_deadline(
    tmp_path: Path,
) -> None:
    async with past_the_cap(tmp_path, 3, deadline=2.0) as (server, _hub, socks):
        assert len(server._guard.held) == 3
        assert all(still_open(sock) for sock in socks)  # nothing dropped at once
        for sock in socks:  # every one, held or in its handshake, ends at the deadline
            await asyncio.wait_for(dropped(sock), WAIT)
        assert not server._guard.held
        assert not server._guard.connecting


async def test_past_the_hold_limit_a_connection_is_dropped_at_once(tmp_path: Path) -> None:
    # hold limit 0: as if descriptors were scarce
    async with past_the_cap(tmp_path, 2, deadline=600.0, hold_limit=0) as (server, _hub, socks):
        for sock in socks[CAP:]:  # long before their handshake deadline
            await asyncio.wait_for(dropped(sock), WAIT)
        assert all(still_open(sock) for sock in socks[:CAP])
        assert not server._guard.held


async def test_stop_drops_connections_in_the_handshake_and_held_ones(tmp_path: Path) -> None:
    async with past_the_cap(tmp_path, 2, deadline=600.0) as (server, hub, socks):
        stopping = asyncio.create_task(server.stop())
        done, _ = await asyncio.wait({stopping}, timeout=WAIT)
        assert stopping in done, "stop() waited for handshakes that never finish"
        for sock in socks:
            await asyncio.wait_for(dropped(sock), WAIT)
    assert hub.closed
