"""Plain HTTP over loopback for tests: one GET on a fresh connection, the answer parsed.

Standard library only (no YAML, no Docker): used by ``tests/server/adapters`` against
the app in this process and by ``tests/deploy`` against the image's command.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from dataclasses import dataclass

__all__ = ["HTTP_TIMEOUT", "HttpAnswer", "http_get"]

HTTP_TIMEOUT = 10.0
"""Seconds one exchange may take."""


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    """An HTTP response: status code, lower-cased headers, body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> object:
        """The body decoded as JSON (raises ValueError if it is not)."""
        return json.loads(self.body)


async def http_get(host: str, port: int, path: str, *, tls: bool = False) -> HttpAnswer:
    """GET ``path`` over a fresh connection (TLS, unverified, if ``tls``); read the answer.

    Raises OSError if nothing accepts the connection, ValueError for a malformed answer,
    TimeoutError if the answer does not complete in HTTP_TIMEOUT seconds.
    """

    async def exchange() -> bytes:
        context = None
        if tls:  # the test's own self-signed certificate, on loopback
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        reader, writer = await asyncio.open_connection(host, port, ssl=context)
        try:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
            )
            await writer.drain()
            return await reader.read()
        finally:
            writer.close()

    raw = await asyncio.wait_for(exchange(), HTTP_TIMEOUT)
    head, sep, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"not an HTTP response: {raw[:80]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return HttpAnswer(int(parts[1]), headers, body)
