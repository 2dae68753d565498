"""The HTTP edge, with raw requests on loopback: a malformed or duplicated header gets
400 and no traceback, ``POST`` gets 405, a host name not allowed gets 403 (the page and
the WebSocket), the refusals are logged once a minute per kind with their counts, and
``/healthz`` tells the counts only to loopback or with ``--health-counts``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from server.adapters.settings.values import networks
from tests._kit.net import HTTP_TIMEOUT
from tests.server.adapters._standin import standin_server

_KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # fixed: the test ids must be the same on every worker
_UPGRADE = (
    f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {_KEY}\r\n"
    "Sec-WebSocket-Version: 13\r\n"
)


async def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` on a fresh loopback connection; the status, headers and body back
    (status 0: the server closed without an answer). An answer with a ``Content-Length``
    is read to its end, not to the connection's: a page's file is answered kept alive, and
    its connection stays open for the next request (`KEEP_ALIVE_IDLE`, 2 s)."""

    async def talk() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(raw)
            await writer.drain()
            return await _answer(reader)
        finally:
            writer.close()

    answer = await asyncio.wait_for(talk(), HTTP_TIMEOUT)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        return 0, {}, answer
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split(" ")[1]), headers, body


async def _answer(reader: asyncio.StreamReader) -> bytes:
    """One answer: to the end of its ``Content-Length`` when it has one, else to the end of
    the connection."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        more = await reader.read(65536)
        if not more:
            return answer
        answer += more
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").lower()
    sizes = [
        line.partition(":")[2] for line in head.split("\r\n") if line.startswith("content-length:")
    ]
    if len(sizes) != 1:
        return answer + await reader.read()
    whole = len(head) + 4 + int(sizes[0])
    while len(answer) < whole:
        more = await reader.read(65536)
        if not more:
            break
        answer += more
    return answer


def request(port: int, head: str, *, upgrade: bool = True, host: str | None = None) -> bytes:
    host_line = f"Host: {host or f'127.0.0.1:{port}'}\r\n"
    return (
        f"GET / HTTP/1.1\r\n{host_line}{head}" + (_UPGRADE if upgrade else "") + "\r\n"
    ).encode()


DUPLICATES = [
    "Host: other.example\r\n",
    "Origin: http://a.example\r\nOrigin: http://b.example\r\n",
    "Upgrade: websocket\r\n",
    f"Sec-WebSocket-Key: {_KEY}\r\n",
]


@pytest.mark.parametrize("extra", DUPLICATES)
@pytest.mark.parametrize("upgrade", [True, False])
async def test_a_duplicated_header_is_400_without_a_traceback(
    tmp_path: Path, extra: str, upgrade: bool
) -> None:
    with capture_logs() as logs:
        async with standin_server(tmp_path) as (server, hub):
            status, _, body = await exchange(
                server.port, request(server.port, extra if upgrade else extra * 2, upgrade=upgrade)
            )
            assert status == 400
            assert b"more than once" in body
            assert hub.known == set()
    assert [entry["event"] for entry in logs if entry.get("log_level") == "error"] == []
    assert not any("exc_info" in entry or "exception" in entry for entry in logs)
    assert [entry["event"] for entry in logs if entry["event"] == "bad_request"] == ["bad_request"]


@pytest.mark.parametrize(
    "raw",
    [
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n",
        b"GET /\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",  # TLS to a plain port
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n" + _UPGRADE.encode() + b"\r\n",
    ],
)
async def test_an_unreadable_request_is_400(tmp_path: Path, raw: bytes) -> None:
    with capture_logs() as logs:
        async with standin_server(tmp_path) as (server, _hub):
            status, _, _ = await exchange(server.port, raw)
    assert status in (400, 403)
    assert not any("exc_info" in entry or "exception" in entry for entry in logs)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_post_with_a_body_is_405(tmp_path: Path, method: str) -> None:
    async with standin_server(tmp_path) as (server, _hub):
        host = f"Host: 127.0.0.1:{server.port}\r\n"
        raw = f"{method} / HTTP/1.1\r\n{host}Content-Length: 5\r\n\r\nhello"
        status, headers, _ = await exchange(server.port, raw.encode())
        assert status == 405
        assert headers["allow"] == "GET, HEAD"
        bare = f"{method} / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
        assert (await exchange(server.port, bare.encode()))[0] == 405


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "[::1]:{port}", "localhost:{port}", "Family.Home.Arpa.", "x.lan"]
)
async def test_allowed_host_names(tmp_path: Path, host: str) -> None:
    async with standin_server(tmp_path, allowed_hosts=("family.home.arpa", ".lan")) as (
        server,
        _hub,
    ):
        raw = request(server.port, "", upgrade=False, host=host.format(port=server.port))
        assert (await exchange(server.port, raw))[0] == 200


@pytest.mark.parametrize("upgrade", [True, False])
async def test_other_host_names_are_403_and_logged_once(tmp_path: Path, upgrade: bool) -> None:
    with capture_logs() as logs:
        async with standin_server(tmp_path, public_url="https://war.example.org/") as (
            server,
            hub,
        ):
            for name in ("rebind.example", "war.example.org.evil", "lan"):
                origin = f"Origin: http://{name}:{server.port}\r\n"
                raw = request(server.port, origin, upgrade=upgrade, host=f"{name}:{server.port}")
                status, _, body = await exchange(server.port, raw)
                assert status == 403
                assert b"--allowed-hosts" in body
            raw = request(server.port, "", upgrade=False, host="WAR.example.org")
            assert (await exchange(server.port, raw))[0] == 200
            assert hub.known == set()
    lines = [entry for entry in logs if entry["event"] == "host_refused"]
    assert len(lines) == 1
    assert lines[0]["host"].startswith("rebind.example:")


async def test_refusals_are_counted_and_logged_once_a_minute_per_kind(tmp_path: Path) -> None:
    with capture_logs() as logs:
        async with standin_server(tmp_path) as (server, _hub):
            for _ in range(20):
                await exchange(server.port, request(server.port, "Host: x\r\n"))
                await exchange(server.port, b"POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx")
            edge = server._edge
            assert edge.totals["bad_request"] == 20
            assert edge.totals["method_not_allowed"] == 20
            # a minute later, the next refusal's line says how many were left out
            edge._quiet.period = 0.0
            await exchange(server.port, request(server.port, "Host: x\r\n"))
    lines = [entry for entry in logs if entry["event"] == "bad_request"]
    assert len(lines) == 2
    assert lines[1]["also_refused"] == 19
    assert lines[1]["addresses"] == 1
    assert lines[1]["top_peer"] == "127.0.0.1"
    assert [entry["event"] for entry in logs].count("method_not_allowed") == 1


async def test_healthz_counts_for_loopback_only_unless_told(tmp_path: Path) -> None:
    async with standin_server(tmp_path, trusted_proxies=()) as (server, _hub):
        raw = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
        status, _, body = await exchange(server.port, raw)
        assert status == 200
        assert set(json.loads(body)) == {"status", "rooms", "connections"}


async def test_healthz_behind_a_proxy_tells_a_remote_client_only_the_status(
    tmp_path: Path,
) -> None:
    proxy = networks("127.0.0.1")
    raw = b"GET /healthz HTTP/1.1\r\nHost: war.example.org\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n"
    async with standin_server(tmp_path, trusted_proxies=proxy) as (server, _hub):
        status, _, body = await exchange(server.port, raw)
        assert (status, json.loads(body)) == (200, {"status": "ok"})
    async with standin_server(tmp_path, trusted_proxies=proxy, health_counts=True) as (
        server,
        _hub,
    ):
        status, _, body = await exchange(server.port, raw)
        assert set(json.loads(body)) == {"status", "rooms", "connections"}
