"""server.adapters.ws.app over real loopback sockets, with a stand-in Hub so only the app is tested.

The stand-in (`EchoHub`) opens a connection on ``watch_room``, answers ``resync`` by
broadcasting ``spectators_changed`` to every open connection, raises on a ``join_room``
named "boom" (a bug), and wakes on deadlines a test schedules. Room behaviour proper is
tested with the real Hub in tests/e2e.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from protocol import (
    CLOSE_CODE_FOR_ERROR,
    ClientMessage,
    CloseCode,
    Error,
    ErrorCode,
    JoinRoom,
    ProtocolError,
    Resync,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    WatchRoom,
    encode,
)
from server.adapters.serving import serving
from server.adapters.settings.config import INVALID_MESSAGE_BURST, Settings
from server.adapters.ws.app import Clocks, WarServer
from server.core.room.actions import Action, Close, ConnId, Output, Send
from tests._kit.net import http_get
from tests.e2e._client import Client, ExpectError
from tests.server.adapters._raw import upgrade
from tests.server.adapters._standin import BaseHub, output
from tests.server.adapters._tls import self_signed

STATE = RoomState(
    room="r1",
    phase=RoomPhase.WAITING,
    rules=RulesSpec(),
    seats=(SeatState(seat=0), SeatState(seat=1)),
)


class EchoHub(BaseHub):
    """A stand-in Hub: just enough behaviour to exercise the connection layer."""

    def __init__(self) -> None:
        super().__init__()
        self.seq = 0
        self.deadlines: list[float] = []
        self.woken: list[float] = []
        self.disconnected: list[ConnId] = []
        self.gone = asyncio.Event()

    def connect(self, conn: ConnId, peer: str, now: float) -> Output:
        assert peer == "127.0.0.1"
        return super().connect(conn, peer, now)

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        if isinstance(message, JoinRoom) and message.name == "boom":
            raise RuntimeError("a bug in the room")
        if isinstance(message, WatchRoom):
            self.open.add(conn)
            return output(Send((conn,), Snapshot(seq=self.seq, state=STATE)))
        if isinstance(message, Resync):
            self.seq += 1
            everyone = tuple(sorted(self.open))
            return output(Send(everyone, SpectatorsChanged(seq=self.seq, count=len(everyone))))
        return output(Send((conn,), Error(code="not_needed", message="echo hub ignores this")))

    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output:
        actions: list[Action] = [Send((conn,), Error(code=error.code.value, message=str(error)))]
        close = CLOSE_CODE_FOR_ERROR.get(error.code)
        if close is None and conn not in self.open:
            close = CloseCode.REFUSED
        if close is not None:
            actions.append(Close(conn, close, error.code.value))
        return output(*actions)

    def disconnect(self, conn: ConnId, now: float) -> Output:
        self.disconnected.append(conn)
        self.gone.set()
        return super().disconnect(conn, now)

    def wake(self, now: float) -> Output:
        due = [d for d in self.deadlines if d <= now]
        if not due:
            return output()
        self.deadlines = [d for d in self.deadlines if d > now]
        self.woken.append(now)
        self.seq += 1
        return output(Send(tuple(sorted(self.open)), TimeUp(seq=self.seq)))

    def next_deadline(self) -> float | None:
        return min(self.deadlines, default=None)


class FakeClock:
    """Wall-clock time a test can push forward."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def settings_for(tmp_path: Path, **changes: object) -> Settings:
    values: dict[str, object] = {"port": 0, "db": tmp_path / "unused.sqlite3"}
    values.update(changes)
    return Settings(**values)  # type: ignore[arg-type]


@asynccontextmanager
async def echo_server(
    tmp_path: Path, *, clock: Callable[[], float] | None = None, **changes: object
) -> AsyncIterator[tuple[WarServer, EchoHub]]:
    hub = EchoHub()
    async with serving(
        settings_for(tmp_path, **changes),
        hub=hub,
        store=hub.store,
        clocks=Clocks(wall=clock or time.time),
    ) as server:
        yield server, hub


def url(server: WarServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


async def watcher(server: WarServer) -> Client:
    client = await Client.connect(url(server))
    await client.send(WatchRoom(code="WATCH-CODE"))
    await client.expect(Snapshot)
    return client


async def test_healthz_answers_json_with_counts(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        first = await http_get("127.0.0.1", server.port, "/healthz")
        client = await watcher(server)
        second = await http_get("127.0.0.1", server.port, "/healthz?probe=1")
        await client.close()
    assert first.status == 200
    assert first.headers["content-type"] == "application/json"
    assert first.json() == {"status": "ok", "rooms": 1, "connections": 0}
    assert second.json() == {"status": "ok", "rooms": 1, "connections": 1}


async def test_plain_http_elsewhere_is_refused(tmp_path: Path) -> None:
    async with echo_server(tmp_path, no_web=True) as (server, _hub):  # the page: test_web.py
        answer = await http_get("127.0.0.1", server.port, "/")
    assert answer.status == 426  # Upgrade Required: only WebSocket here


async def test_broadcast_reaches_every_open_connection(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        clients = [await watcher(server) for _ in range(3)]
        await clients[0].send(Resync())
        for client in clients:
            changed = await client.expect(SpectatorsChanged)
            assert changed.count == 3


async def test_text_frame_gets_binary_only_then_1003(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        client = await watcher(server)
        await client.send_raw('{"type": "resync"}')
        await client.expect_error(ErrorCode.BINARY_ONLY)
        code, _ = await client.expect_close()
    assert code == CloseCode.UNSUPPORTED_DATA


async def test_garbage_is_answered_and_the_connection_stays(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        client = await watcher(server)
        for garbage in (b"\xc1", b"\x92\x01\x02", encode(Resync()) + b"\x00"):
            await client.send_raw(garbage)
        await client.expect_error(ErrorCode.MALFORMED)
        await client.expect_error(ErrorCode.BAD_MESSAGE)
        await client.expect_error(ErrorCode.MALFORMED)
        await client.send(Resync())
        await client.expect(SpectatorsChanged)


async def test_repeated_garbage_closes_with_1008(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        client = await watcher(server)
        for _ in range(INVALID_MESSAGE_BURST + 1):
            await client.send_raw(b"\xc1")
        code, _ = await client.expect_close()
    assert code == CloseCode.POLICY_VIOLATION
    errors = client.of(Error)
    assert [e.code for e in errors] == [ErrorCode.MALFORMED] * (INVALID_MESSAGE_BURST + 1)


async def test_garbage_before_opening_closes_4004(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        client = await Client.connect(url(server))
        await client.send_raw(b"\x80")  # an empty map: no type
        await client.expect_error(ErrorCode.BAD_MESSAGE)
        code, _ = await client.expect_close()
    assert code == CloseCode.REFUSED


@pytest.mark.parametrize("size", [1025, 4096, 1 << 20])
async def test_oversize_frame_gets_too_large_then_1009(tmp_path: Path, size: int) -> None:
    """PROTOCOL.md: error too_large, then close 1009, however large the frame (the
    WebSocket layer refuses it from its header, before reading its payload).

    When the server stops, the failed connection's megabyte is not all read yet: the stop
    ends it (the next test), and waits for no keepalive ping."""
    async with echo_server(tmp_path, max_message_bytes=1024) as (server, _hub):
        client = await watcher(server)
        await client.send_raw(b"\x00" * size)
        error = await client.expect_error(ErrorCode.TOO_LARGE)
        assert "1024" in error.message
        code, reason = await client.expect_close()
        other = await watcher(server)  # the server is fine
        await other.send(Resync())
        await other.expect(SpectatorsChanged)
    assert (code, reason) == (CloseCode.MESSAGE_TOO_BIG, "too_large")  # §7: the error code


STOP_BOUND = 30.0
"""Seconds the tests below give a stop or an end that comes at once or within
``close_timeout`` (1 s): far below the keepalive ping (an hour), which ended such a
connection before."""


async def test_a_connection_failed_with_1009_mid_payload_does_not_hold_the_stop(
    tmp_path: Path,
) -> None:
    """A client whose message is over the limit, its payload still arriving (the rest never
    comes, and it never closes its side): the server fails it with 1009 and half-closes,
    and its stop aborts the connection rather than wait for the peer until the next
    keepalive ping (``server.adapters.ws.app`` ``stop``,
    ``server.adapters.ws.connection`` ``TransportGuard.abort_closing``)."""
    # close_timeout an hour too: the stop ends it at once, not at close_timeout
    async with patient_1009(tmp_path, close_timeout=3600.0) as (server, hub):
        sock = await failed_mid_payload(server)
        try:
            await asyncio.wait_for(server.stop(), STOP_BOUND)
            assert len(hub.disconnected) == 1  # the hub heard it leave
        finally:
            sock.close()


async def test_a_connection_failed_with_1009_mid_payload_ends_within_close_timeout(
    tmp_path: Path,
) -> None:
    """The same connection, the server running on: it is aborted ``close_timeout`` after
    its 1009 (its slot and descriptor are not held until the keepalive ping)."""
    async with patient_1009(tmp_path, close_timeout=1.0) as (server, _hub):
        sock = await failed_mid_payload(server)
        try:
            (connection,) = server._guard.live
            await asyncio.wait_for(connection.wait_closed(), STOP_BOUND)
            assert connection.aborted == "close_timeout"
        finally:
            sock.close()


def patient_1009(
    tmp_path: Path, *, close_timeout: float
) -> contextlib.AbstractAsyncContextManager[tuple[WarServer, EchoHub]]:
    """A server whose keepalive ping and opening timeout never come in a test."""
    return echo_server(
        tmp_path,
        max_message_bytes=1024,
        ping_interval=3600.0,
        opening_timeout=3600.0,
        close_timeout=close_timeout,
    )


async def failed_mid_payload(server: WarServer) -> socket.socket:
    """A raw client that says a message of a megabyte and sends 4 KiB of it, then neither
    sends more nor closes; returned once the server answered too_large, closed with 1009
    and ended its side of the stream."""
    loop = asyncio.get_running_loop()
    sock = await upgrade("127.0.0.1", server.port, rcvbuf=None)
    try:
        mask = b"\x01\x02\x03\x04"
        head = bytes([0x82, 0x80 | 127]) + (1 << 20).to_bytes(8, "big") + mask
        await loop.sock_sendall(sock, head + b"\x00" * 4096)
        said = b""
        while chunk := await asyncio.wait_for(loop.sock_recv(sock, 65536), STOP_BOUND):
            said += chunk  # the error, the close frame, then the server's end of stream
        assert b"too_large" in said and bytes([0x88]) in said
    except BaseException:
        sock.close()
        raise
    return sock


async def test_a_flood_is_refused_once_then_closed_4001(tmp_path: Path) -> None:
    async with echo_server(tmp_path, rate_limit=2.0) as (server, _hub):
        calm = await watcher(server)
        flooder = await watcher(server)
        for _ in range(40):  # far more than burst (4) + a burst dropped (4) + 1
            await flooder.send(Resync())
        code, _ = await flooder.expect_close()
        await calm.send(Resync())
        await calm.expect(SpectatorsChanged, where=lambda m: m.count == 1)
    assert code == CloseCode.RATE_LIMITED
    errors = [e.code for e in flooder.of(Error)]  # one a burst (a slow machine: more bursts)
    assert errors and set(errors) == {ErrorCode.RATE_LIMITED}
    assert 3 <= len(flooder.of(SpectatorsChanged)) < 40  # burst 4, watch_room took one


async def test_a_bug_answers_internal_error_to_that_connection_only(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, _hub):
        bystander = await watcher(server)
        victim = await Client.connect(url(server))
        await victim.send(JoinRoom(code="PLAY-CODE", name="boom"))
        await victim.expect_error(ErrorCode.INTERNAL_ERROR)
        code, _ = await victim.expect_close()
        await bystander.send(Resync())
        changed = await bystander.expect(SpectatorsChanged)
    assert code == CloseCode.INTERNAL_ERROR
    assert changed.count == 1


async def test_too_many_connections_from_one_address(tmp_path: Path) -> None:
    async with echo_server(tmp_path, max_connections_per_ip=2) as (server, hub):
        first = await watcher(server)
        second = await watcher(server)
        third = await Client.connect(url(server))
        await third.expect_error(ErrorCode.TOO_MANY_CONNECTIONS)
        code, reason = await third.expect_close()
        assert reason == "too_many_connections"  # PROTOCOL.md §7: the error code
        assert hub.connections == 2  # the refused one never reached the Hub
        hub.gone.clear()
        await first.close()
        await asyncio.wait_for(hub.gone.wait(), 10)  # the server saw it go: a slot is free
        fourth = await watcher(server)
        await fourth.send(Resync())
        await second.expect(SpectatorsChanged)
    assert code == CloseCode.TRY_AGAIN_LATER


async def test_no_opening_message_closes_4005(tmp_path: Path) -> None:
    async with echo_server(tmp_path, opening_timeout=0.2) as (server, _hub):
        idle = await Client.connect(url(server))
        code, _ = await idle.expect_close()
    assert code == CloseCode.OPENING_TIMEOUT


async def test_timer_wakes_the_hub_when_the_clock_reaches_a_deadline(tmp_path: Path) -> None:
    clock = FakeClock()
    async with echo_server(tmp_path, clock=clock) as (server, hub):
        client = await watcher(server)
        hub.deadlines.append(clock.now + 3600)
        server.poke()
        with pytest.raises(ExpectError):  # an hour of fake time has not passed
            await client.expect(TimeUp, within=0.2)
        clock.now += 3600
        server.poke()
        await client.expect(TimeUp)
    assert hub.woken == [clock.now]


async def test_timer_sleeps_until_a_near_deadline_by_itself(tmp_path: Path) -> None:
    async with echo_server(tmp_path) as (server, hub):
        client = await watcher(server)
        hub.deadlines.append(time.time() + 0.05)
        await client.send(Resync())  # any Hub call re-arms the timer
        await client.expect(TimeUp)
    assert len(hub.woken) == 1 and not hub.deadlines


class StuckHub(EchoHub):
    """A buggy Hub whose wake leaves its past deadline in place."""

    def __init__(self) -> None:
        super().__init__()
        self.wakes = 0

    def wake(self, now: float) -> Output:
        self.wakes += 1
        return output()


async def test_a_deadline_the_hub_never_clears_does_not_spin_the_loop(tmp_path: Path) -> None:
    hub = StuckHub()
    hub.deadlines.append(0.0)  # long past, and wake never clears it
    async with serving(settings_for(tmp_path), hub=hub, store=hub.store) as server:
        client = await watcher(server)  # the loop still serves connections
        for _ in range(3):
            await client.send(Resync())
            await client.expect(SpectatorsChanged)
    assert 1 <= hub.wakes <= 50  # one try a second, not a busy loop


async def test_shutdown_closes_clients_with_1012_and_closes_the_store(tmp_path: Path) -> None:
    hub = EchoHub()
    async with serving(settings_for(tmp_path), hub=hub, store=hub.store) as server:
        clients = [await watcher(server) for _ in range(2)]
    for client in clients:
        code, _ = await client.expect_close()
        assert code == CloseCode.SERVICE_RESTART
    assert hub.closed
    assert sorted(hub.disconnected) == [1, 2]


async def test_tls_serves_wss_and_https_healthz(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    trust = ssl.create_default_context(cafile=str(cert))
    async with echo_server(tmp_path, certfile=cert, keyfile=key) as (server, _hub):
        client = await Client.connect(f"wss://127.0.0.1:{server.port}/", ssl_context=trust)
        await client.send(WatchRoom(code="WATCH-CODE"))
        await client.expect(Snapshot)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=trust)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        raw = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert json.loads(body)["status"] == "ok"


async def test_bad_tls_files_fail_before_anything_starts(tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not a certificate")
    hub = EchoHub()
    with pytest.raises(ssl.SSLError):
        async with serving(settings_for(tmp_path, certfile=cert, keyfile=cert), hub=hub):
            pass
