"""HTTP/1.1 keep-alive for the browser table's files (server.adapters.ws.connection):
a page's files over one connection, every other answer closing its connection, an idle
connection closed, the per-address bound, and a WebSocket opened after a file."""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.ws.app import WarServer
from server.adapters.ws.connection import KEEP_ALIVE_IDLE
from tests.server.adapters._tls import self_signed


@asynccontextmanager
async def running(tmp_path: Path, **changes: object) -> AsyncIterator[WarServer]:
    values: dict[str, object] = {"port": 0, "db": tmp_path / "war.sqlite3", **changes}
    async with serving(Settings(**values)) as server:  # type: ignore[arg-type]
        yield server


class Http:
    """A raw HTTP/1.1 client on one TCP connection (a browser's keep-alive socket)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, trust: ssl.SSLContext | None = None) -> Http:
        return cls(*await asyncio.open_connection("127.0.0.1", port, ssl=trust))

    async def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        status_line, *fields = head.decode("latin-1").split("\r\n")
        answer = {}
        for field in fields:
            if field:
                name, _, value = field.partition(":")
                answer[name.strip().lower()] = value.strip()
        length = int(answer.get("content-length", "0"))
        body = await asyncio.wait_for(self.reader.readexactly(length), 10)
        return int(status_line.split()[1]), answer, body

    @property
    def port(self) -> int:
        peer: tuple[str, int] = self.writer.get_extra_info("peername")
        return peer[1]

    async def closed(self) -> bool:
        """True once the server has closed the connection (end of stream)."""
        return await asyncio.wait_for(self.reader.read(1), KEEP_ALIVE_IDLE + 5) == b""

    def close(self) -> None:
        self.writer.close()


def _versioned(page: bytes) -> list[str]:
    return ["/" + path for path in re.findall(r'(?:href|src)="(v/[^"]+)"', page.decode())]


async def test_the_page_and_its_files_come_over_one_connection(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        http = await Http.open(server.port)
        try:
            status, headers, page = await http.get("/")
            assert status == 200 and headers["connection"] == "keep-alive"
            files = _versioned(page)
            assert len(files) > 10
            for path in files:
                status, headers, _ = await http.get(path)
                assert status == 200, path
            etag = headers["etag"]
            status, headers, body = await http.get(files[-1], If_None_Match=etag)
            assert status == 304 and body == b"" and headers["connection"] == "keep-alive"
        finally:
            http.close()


async def test_answers_other_than_files_close_their_connection(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        for path in ("/missing", "/healthz"):
            http = await Http.open(server.port)
            try:
                _, headers, _ = await http.get(path)
                assert headers["connection"] == "close"
                assert await http.closed()
            finally:
                http.close()


async def test_a_request_that_asks_to_close_is_not_kept(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        http = await Http.open(server.port)
        try:
            status, headers, _ = await http.get("/", Connection="close")
            assert status == 200 and headers["connection"] == "close"
            assert await http.closed()
        finally:
            http.close()


async def test_a_body_is_never_read_as_the_next_request(tmp_path: Path) -> None:
    # on a kept connection, a body read as a request would smuggle it past whatever
    # checked the first (a proxy in front): a request with a body is refused and closed
    async with running(tmp_path) as server:
        http = await Http.open(server.port)
        try:
            await http.get("/")
            smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(smuggled)}\r\n"
            http.writer.write(head.encode() + b"\r\n" + smuggled)
            answer = await asyncio.wait_for(http.reader.readuntil(b"\r\n\r\n"), 10)
            assert answer.startswith(b"HTTP/1.1 400 ") and b"Connection: close" in answer
            rest = await asyncio.wait_for(http.reader.read(), KEEP_ALIVE_IDLE + 5)
            assert b"HTTP/1.1" not in rest  # the body was not answered as a request
        finally:
            http.close()


async def test_an_idle_kept_connection_is_closed(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        http = await Http.open(server.port)
        try:
            _, headers, _ = await http.get("/")
            assert headers["connection"] == "keep-alive"
            assert await http.closed()  # nothing more asked: closed after KEEP_ALIVE_IDLE
        finally:
            http.close()


async def test_an_address_keeps_a_bounded_number_of_connections_alive(tmp_path: Path) -> None:
    async with running(tmp_path, max_handshakes_per_ip=2) as server:
        clients: list[Http] = []
        kept = []
        try:
            for _ in range(3):  # one after the other: an idle one holds no handshake slot
                clients.append(await Http.open(server.port))
                kept.append((await clients[-1].get("/"))[1]["connection"])
            assert kept == ["keep-alive", "keep-alive", "close"]
            for http in clients:  # the third at once, the others when idle
                assert await http.closed()
            later = await Http.open(server.port)  # their slots were given back
            try:
                assert (await later.get("/"))[1]["connection"] == "keep-alive"
            finally:
                later.close()
        finally:
            for http in clients:
                http.close()


async def test_a_websocket_opens_on_a_connection_that_served_a_file(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        http = await Http.open(server.port)
        try:
            await http.get("/")
            lines = [
                "GET / HTTP/1.1",
                f"Host: 127.0.0.1:{server.port}",
                "Upgrade: websocket",
                "Connection: Upgrade",
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version: 13",
            ]
            http.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
            head = await asyncio.wait_for(http.reader.readuntil(b"\r\n\r\n"), 10)
            assert head.startswith(b"HTTP/1.1 101 ")
        finally:
            http.close()


async def test_the_server_sends_at_once_without_waiting_for_acks(tmp_path: Path) -> None:
    # Nagle's algorithm would hold a flip's message behind the peer's delayed ACK of the
    # one before (up to 40 ms on Linux, 200 ms elsewhere): every connection sets
    # TCP_NODELAY (asyncio does it for each TCP transport, TLS's too; this holds it). Over
    # TLS, as the outside listener serves: the page's files over one connection too.
    cert, key = self_signed(tmp_path)
    trust = ssl.create_default_context(cafile=str(cert))
    async with running(tmp_path, certfile=cert, keyfile=key) as server:
        http = await Http.open(server.port, trust)
        try:
            _, _, page = await http.get("/")
            for path in _versioned(page):
                assert (await http.get(path))[0] == 200, path
            sockets = [c.transport.get_extra_info("socket") for c in server._guard.live]
            assert len(sockets) == 1
            assert sockets[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            http.close()
