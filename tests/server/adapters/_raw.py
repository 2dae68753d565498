"""A raw attacker's socket for transport tests: it does the opening handshake, then never
reads again (or never finishes the handshake at all).

Its receive buffer is made small (``SO_RCVBUF``, set before connecting, so the TCP window
is small from the start): loopback's large default buffers would otherwise hold megabytes
the server already counts as sent, hiding a server that never looks at what it queued.
Frames it sends are masked as RFC 6455 asks of a client.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
from collections.abc import Sequence

__all__ = [
    "SMALL_RCVBUF",
    "handshake_request",
    "masked_frame",
    "open_raw",
    "ping_frames",
    "send_until_reset",
    "upgrade",
]

SMALL_RCVBUF = 4096
_PING = 0x9


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked client frame (payload up to 65535 bytes)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    if len(payload) < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload))
    else:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, len(payload))
    return head + mask + masked


def ping_frames(count: int) -> bytes:
    """``count`` pings of the largest control payload (125 bytes): each asks for a pong."""
    return b"".join(masked_frame(_PING, os.urandom(125)) for _ in range(count))


def handshake_request(
    host: str, port: int, headers: Sequence[tuple[str, str]] = (), path: str = "/"
) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\n{extra}\r\n"
    ).encode()


async def open_raw(
    host: str,
    port: int,
    *,
    rcvbuf: int | None = SMALL_RCVBUF,
    source: str | None = None,
) -> socket.socket:
    """A connected non-blocking TCP socket (``rcvbuf`` set before connecting; ``source``:
    the local address to connect from)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if source is not None:
            sock.bind((source, 0))
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
    except BaseException:
        sock.close()
        raise
    return sock


async def upgrade(
    host: str,
    port: int,
    *,
    rcvbuf: int | None = SMALL_RCVBUF,
    headers: Sequence[tuple[str, str]] = (),
    first: bytes = b"",
) -> socket.socket:
    """`open_raw`, then the opening handshake; returns once the 101 arrived (and
    ``first``, e.g. an opening message's frame, was sent). Nothing is read after that.

    Raises:
        ConnectionError: the server answered something else than 101.
    """
    loop = asyncio.get_running_loop()
    sock = await open_raw(host, port, rcvbuf=rcvbuf)
    try:
        await loop.sock_sendall(sock, handshake_request(host, port, headers) + first)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = await loop.sock_recv(sock, 1)  # one byte at a time: read no frame
            if not chunk:
                raise ConnectionError(f"closed during the handshake: {head!r}")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"no upgrade: {head.splitlines()[0]!r}")
    except BaseException:
        sock.close()
        raise
    return sock


async def send_until_reset(sock: socket.socket, data: bytes, *, limit: int) -> int:
    """Send ``data`` again and again until the server drops the connection (a reset or
    broken pipe) or ``limit`` bytes went out; return the bytes sent."""
    loop = asyncio.get_running_loop()
    sent = 0
    while sent < limit:
        try:
            await loop.sock_sendall(sock, data)
        except (ConnectionResetError, BrokenPipeError):
            return sent
        sent += len(data)
    return sent
