"""A minimal WebSocket client on a bare asyncio protocol, for load generation only.

Why not the ``websockets`` client: one load process has to drive thousands of
connections and read tens of thousands of frames per second on a single core, so the
client must cost much less per frame than the server under test. This one does the
opening handshake (no extensions offered, so no compression), masks its frames with a
random key (RFC 6455 §5.3, using ``websockets``' C ``apply_mask``), answers pings, and
answers a close frame. Frames from the server are parsed in place; each complete data
message is handed to ``on_message`` synchronously, inside ``data_received``.

It is not a general client: no fragmentation of outgoing frames, no extensions, and a
handshake response is only checked for its ``101`` status line.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
from collections.abc import Callable, Sequence

from websockets.speedups import apply_mask

__all__ = ["HandshakeError", "RawWebSocket", "connect"]

_OP_CONT = 0x0
_OP_TEXT = 0x1
_OP_BINARY = 0x2
_OP_CLOSE = 0x8
_OP_PING = 0x9
_OP_PONG = 0xA
_MAX_HEAD = 65536


class HandshakeError(ConnectionError):
    """The server did not switch protocols (the status line is in the message)."""


def _header(opcode: int, length: int) -> bytes:
    first = 0x80 | opcode
    if length < 126:
        return struct.pack("!BB", first, 0x80 | length)
    if length < 65536:
        return struct.pack("!BBH", first, 0x80 | 126, length)
    return struct.pack("!BBQ", first, 0x80 | 127, length)


class RawWebSocket(asyncio.Protocol):
    """One client connection. Create it with :func:`connect`.

    ``on_message(payload, is_text)`` is called for every complete data message;
    ``on_close(code)`` once when the connection ends (``code`` from the server's close
    frame, or None if the TCP connection dropped without one).
    """

    __slots__ = (
        "_buffer",
        "_frag_text",
        "_fragments",
        "_headers",
        "_host",
        "_open",
        "_path",
        "_sent_close",
        "close_code",
        "close_reason",
        "closed",
        "on_close",
        "on_message",
        "opened",
        "transport",
    )

    def __init__(
        self,
        host: str,
        path: str,
        on_message: Callable[[bytes, bool], None],
        on_close: Callable[[int | None], None] | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        self._host = host
        self._path = path
        self._headers = "".join(f"{name}: {value}\r\n" for name, value in headers)
        self.on_message = on_message
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._open = False
        self._fragments: list[bytes] = []
        self._frag_text = False
        self._sent_close = False
        self.close_code: int | None = None
        self.close_reason = ""
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[int | None] = loop.create_future()

    # -- asyncio.Protocol ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self._path} HTTP/1.1\r\nHost: {self._host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{self._headers}\r\n"
        )
        transport.write(request.encode())

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        if not self._open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > _MAX_HEAD:
                    self._fail(HandshakeError("handshake response too long"))
                return
            status = bytes(buffer[: buffer.find(b"\r\n")])
            del buffer[: end + 4]
            if not status.startswith(b"HTTP/1.1 101"):
                self._fail(HandshakeError(status.decode("latin-1")))
                return
            self._open = True
            if not self.opened.done():
                self.opened.set_result(None)
        self._parse()

    def connection_lost(self, exc: Exception | None) -> None:
        self._open = False
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionResetError("closed during handshake"))
        if not self.closed.done():
            self.closed.set_result(self.close_code)
            if self.on_close is not None:
                self.on_close(self.close_code)

    # -- frames ----------------------------------------------------------------------------
    def _parse(self) -> None:
        buffer = self._buffer
        size = len(buffer)
        pos = 0
        while size - pos >= 2:
            first = buffer[pos]
            length = buffer[pos + 1] & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = (buffer[pos + 2] << 8) | buffer[pos + 3]
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                (length,) = struct.unpack_from("!Q", buffer, pos + 2)
                head = 10
            end = pos + head + length
            if end > size:
                break
            payload = bytes(buffer[pos + head : end])
            pos = end
            self._frame(first & 0x0F, bool(first & 0x80), payload)
            if self.transport is None or self.transport.is_closing():
                break
        if pos:
            del buffer[:pos]

    def _frame(self, opcode: int, fin: bool, payload: bytes) -> None:
        if opcode in (_OP_BINARY, _OP_TEXT):
            if fin:
                self.on_message(payload, opcode == _OP_TEXT)
            else:
                self._fragments = [payload]
                self._frag_text = opcode == _OP_TEXT
        elif opcode == _OP_CONT:
            self._fragments.append(payload)
            if fin:
                whole = b"".join(self._fragments)
                self._fragments = []
                self.on_message(whole, self._frag_text)
        elif opcode == _OP_PING:
            self._write(_OP_PONG, payload)
        elif opcode == _OP_CLOSE:
            if len(payload) >= 2:
                self.close_code = (payload[0] << 8) | payload[1]
                self.close_reason = payload[2:].decode("utf-8", "replace")
            else:
                self.close_code = 1005
            self.close(self.close_code if self.close_code != 1005 else 1000)

    def _write(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        mask = os.urandom(4)
        self.transport.write(_header(opcode, len(payload)) + mask + apply_mask(payload, mask))

    def _fail(self, error: Exception) -> None:
        if not self.opened.done():
            self.opened.set_exception(error)
        if self.transport is not None:
            self.transport.abort()

    # -- public ----------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        """True between the 101 response and the close."""
        return self._open and self.transport is not None and not self.transport.is_closing()

    def send(self, payload: bytes) -> None:
        """Send one binary frame (silently dropped once the connection is closing)."""
        self._write(_OP_BINARY, payload)

    def ping(self, payload: bytes = b"") -> None:
        """Send a ping frame (also a cheap way to notice a connection the peer closed)."""
        self._write(_OP_PING, payload)

    def send_text(self, text: str) -> None:
        """Send one text frame (for abuse tests: the protocol refuses them)."""
        self._write(_OP_TEXT, text.encode())

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are, framing included (for abuse tests)."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def close(self, code: int = 1000) -> None:
        """Send a close frame (once) and close the TCP connection after it."""
        if self.transport is None or self.transport.is_closing():
            return
        if not self._sent_close:
            self._sent_close = True
            self._write(_OP_CLOSE, struct.pack("!H", code))
        self.transport.close()

    def pause_reading(self) -> None:
        """Stop reading from the socket (a slow consumer); `resume_reading` undoes it."""
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Read from the socket again."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()

    def abort(self) -> None:
        """Drop the TCP connection at once, no close frame."""
        if self.transport is not None:
            self.transport.abort()


async def connect(
    host: str,
    port: int,
    on_message: Callable[[bytes, bool], None],
    on_close: Callable[[int | None], None] | None = None,
    *,
    path: str = "/",
    within: float = 10.0,
    rcvbuf: int | None = None,
    headers: Sequence[tuple[str, str]] = (),
) -> RawWebSocket:
    """Open a connection and finish the opening handshake.

    ``rcvbuf`` sets the socket's receive buffer before connecting (a small one makes a
    slow consumer's backlog reach the server quickly). ``headers`` go into the request
    (e.g. X-Forwarded-For, to stand in for a proxy's clients).

    Raises:
        HandshakeError: the server answered something else than 101.
        OSError: the TCP connection failed.
        TimeoutError: no handshake within ``within`` seconds.
    """
    loop = asyncio.get_running_loop()

    def factory() -> RawWebSocket:
        return RawWebSocket(f"{host}:{port}", path, on_message, on_close, headers)

    if rcvbuf is None:
        opening = loop.create_connection(factory, host, port)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, (host, port)), within)
        except BaseException:
            sock.close()
            raise
        opening = loop.create_connection(factory, sock=sock)
    _, protocol = await asyncio.wait_for(opening, within)
    try:
        await asyncio.wait_for(asyncio.shield(protocol.opened), within)
    except BaseException:
        protocol.abort()
        raise
    return protocol
