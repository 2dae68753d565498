"""Half-finished HTTP upgrades from one address cannot use up the server's file descriptors.

A real ``war-server`` process runs with a low open-files limit (soft = hard, so it
cannot raise it). An attacker keeps hundreds of connections open that start an upgrade
request and never finish it, from 127.0.0.2 (the loopback network; the server listens
on 127.0.0.1, as every test does). Meanwhile honest clients from 127.0.0.1 connect,
create a room and leave: each must get through, and the server's log must stay short
(no line, let alone a traceback, per refused or timed-out connection).

A second test turns the per-address cap off so that the process does run out of file
descriptors: its failing accepts must be logged once a period, with a count, not once
per try with a traceback.
"""

from __future__ import annotations

import asyncio
import errno
import json
import resource
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from protocol import CreateRoom, Welcome
from tests.e2e._client import Client
from tests.e2e._process import ServerProcess, server_process

ATTACKER = "127.0.0.2"
NOFILE = 256
"""the server's open-files limit: about 30 of its own, the rest for connections"""
IN_FLIGHT = 400
"""attacker connections kept open at once (more than the server's descriptors)"""
assert IN_FLIGHT > NOFILE
HONEST = 8
CONNECT_TIMEOUT = 15.0
HONEST_HANDSHAKE_TIMEOUT = 2 * CONNECT_TIMEOUT
"""the server's --handshake-timeout while honest clients connect: above their own bound,
so that on a loaded machine a slow honest handshake is not cut off by the server"""


def _loopback_source_works() -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((ATTACKER, 0))
        except OSError:
            return False
    return True


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not _loopback_source_works(), reason=f"cannot bind to {ATTACKER}"),
    # one flood at a time: each keeps IN_FLIGHT connections churning, a load of its own
    pytest.mark.xdist_group("handshake_flood"),
]


class Trickle:
    """``IN_FLIGHT`` attacker connections that each start an upgrade request and never
    finish it; when the server drops one, another takes its place."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dropped = 0
        self._progress = asyncio.Event()
        self._stop = asyncio.Event()

    async def drops(self, count: int) -> None:
        """Wait until the server dropped ``count`` more attacker connections."""
        goal = self.dropped + count
        while self.dropped < goal:
            self._progress.clear()
            await self._progress.wait()

    async def _one(self) -> None:
        while not self._stop.is_set():
            writer: asyncio.StreamWriter | None = None
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(ATTACKER, 0)
                )
                writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n")
                await writer.drain()
                stopping = asyncio.ensure_future(self._stop.wait())
                reading = asyncio.ensure_future(reader.read(1))
                await asyncio.wait({stopping, reading}, return_when=asyncio.FIRST_COMPLETED)
                for task in (stopping, reading):
                    task.cancel()
            except OSError as error:
                if error.errno == errno.EADDRNOTAVAIL:
                    raise
            finally:
                if writer is not None:
                    writer.transport.abort()
            self.dropped += 1
            self._progress.set()


@asynccontextmanager
async def trickling(port: int) -> AsyncIterator[Trickle]:
    """Half-finished upgrades from ATTACKER for as long as the block runs."""
    trickle = Trickle(port)
    tasks = [asyncio.create_task(trickle._one()) for _ in range(IN_FLIGHT)]
    try:
        yield trickle
    finally:
        trickle._stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def honest_room(server: ServerProcess) -> None:
    client = await asyncio.wait_for(Client.connect(server.url), CONNECT_TIMEOUT)
    try:
        await client.send(CreateRoom(name="Ann"))
        await client.expect(Welcome, within=CONNECT_TIMEOUT)
    finally:
        await client.close()


async def test_honest_clients_get_through_a_trickle_of_half_upgrades(tmp_path: Path) -> None:
    async with server_process(
        tmp_path / "war.sqlite3",
        "--handshake-timeout",
        str(HONEST_HANDSHAKE_TIMEOUT),
        nofile=NOFILE,
    ) as server:
        await honest_room(server)
        before = server.line_count
        async with trickling(server.port):
            for _ in range(HONEST):
                await honest_room(server)
        during = list(server.lines)[before:]
        assert server.running
    refused = [text for text in during if '"handshake_refused"' in text]
    assert refused, "the attacker's address was never refused"
    assert not [text for text in during if "Traceback" in text]
    # per honest room: opened, entered, created, closed, ...; the attack adds a few lines
    assert len(during) <= 12 * HONEST + 20, "\n".join(during[-40:])


async def test_running_out_of_descriptors_is_logged_once_a_period(tmp_path: Path) -> None:
    async with server_process(
        tmp_path / "war.sqlite3",
        "--handshake-timeout",
        "2",
        "--max-handshakes-per-ip",
        "100000",
        nofile=NOFILE,
    ) as server:
        failed = server.watch('"event": "accept_failed"')
        async with trickling(server.port) as trickle:
            first = json.loads(await asyncio.wait_for(failed, CONNECT_TIMEOUT))
            attack = server.line_count
            # the attack goes on for a few handshake timeouts: the server stays quiet
            await asyncio.wait_for(trickle.drops(IN_FLIGHT), 60)
            quiet = list(server.lines)[attack:]
        assert server.running
        everything = list(server.lines)
    assert first["error"] == "Too many open files"
    assert not [text for text in everything if "Traceback" in text]
    assert len(quiet) <= 10, "\n".join(quiet[-40:])


async def test_the_server_raises_its_open_files_limit_to_the_hard_limit(tmp_path: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3", nofile=(64, 512)) as server:
        (line,) = server.events("open_files_limit")
        (listening,) = server.events("listening")
        limits = resource.prlimit(server.pid, resource.RLIMIT_NOFILE)
    assert (line["limit"], line["hard_limit"], line["raised_from"]) == (512, 512, 64)
    assert listening["open_files_limit"] == 512
    assert limits == (512, 512)
