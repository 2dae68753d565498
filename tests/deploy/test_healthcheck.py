"""deploy/healthcheck.py, the image's HEALTHCHECK, against small stand-in servers."""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.deploy._repo import HEALTHCHECK_SCRIPT

TIMEOUT = 20.0


@dataclass(slots=True)
class StubServer:
    """A one-response-per-connection HTTP server on loopback that records request lines."""

    port: int
    requests: list[str] = field(default_factory=list)


@asynccontextmanager
async def stub_server(
    response: bytes, *, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None
) -> AsyncIterator[StubServer]:
    """Serve ``response`` (a full HTTP response) to every connection on host:<free port>."""
    stub = StubServer(port=0)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        stub.requests.append(head.split(b"\r\n", 1)[0].decode("ascii"))
        writer.write(response)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, host, 0, ssl=tls)
    stub.port = server.sockets[0].getsockname()[1]
    async with server:
        yield stub


def http_response(status: str, body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode("ascii") + body


async def run_check(env: dict[str, str]) -> tuple[int, str]:
    """Run the script exactly as the image does (python <script>); return (status, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HEALTHCHECK_SCRIPT),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode is not None
    return process.returncode, stderr.decode()


HEALTHY = http_response("200 OK", b'{"status": "ok", "rooms": 0, "connections": 0}')


async def test_healthy_server_on_wildcard_host_is_asked_on_loopback() -> None:
    async with stub_server(HEALTHY) as stub:
        status, stderr = await run_check({"WAR_HOST": "0.0.0.0", "WAR_PORT": str(stub.port)})
    assert (status, stderr) == (0, "")
    assert stub.requests == ["GET /healthz HTTP/1.1"]


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (http_response("503 Service Unavailable", b"{}"), "answered 503"),
        (http_response("200 OK", b"not json"), "answered non-JSON"),
        (http_response("200 OK", b"[1, 2]"), "not an object"),
        (b"garbage\r\n\r\n", "bad answer from"),
    ],
)
async def test_unhealthy_answers(response: bytes, message: str) -> None:
    async with stub_server(response) as stub:
        status, stderr = await run_check({"WAR_HOST": "127.0.0.1", "WAR_PORT": str(stub.port)})
    assert status == 1
    assert message in stderr


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_nothing_listening() -> None:
    status, stderr = await run_check({"WAR_HOST": "127.0.0.1", "WAR_PORT": str(_closed_port())})
    assert status == 1
    assert "no answer from 127.0.0.1" in stderr


@pytest.mark.parametrize("port", ["eighty", "70000"])
async def test_bad_port_setting(port: str) -> None:
    status, stderr = await run_check({"WAR_PORT": port})
    assert status == 1
    assert port in stderr


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
async def test_ipv6_wildcard_is_asked_on_ipv6_loopback() -> None:
    async with stub_server(HEALTHY, host="::1") as stub:
        status, stderr = await run_check({"WAR_HOST": "::", "WAR_PORT": str(stub.port)})
    assert (status, stderr) == (0, "")


async def test_tls_when_a_certificate_is_configured(self_signed: tuple[Path, Path]) -> None:
    cert, key = self_signed
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    async with stub_server(HEALTHY, tls=context) as stub:
        env = {"WAR_HOST": "0.0.0.0", "WAR_PORT": str(stub.port), "WAR_CERTFILE": str(cert)}
        status, stderr = await run_check(env)
    assert (status, stderr) == (0, "")
    assert stub.requests == ["GET /healthz HTTP/1.1"]
