"""Just enough HTTP/1.1, sans-I/O, to fetch a router's description and call its SOAP
actions: a request's bytes, and a strict parser of a whole answer read until the router
closed (we always send ``Connection: close``). Sizes are bounded; chunked bodies are read.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_HEAD = 8 * 1024
MAX_BODY = 64 * 1024
MAX_HEADERS = 64


class HttpFormatError(ValueError):
    """An answer that is not a well-formed, bounded HTTP/1.x answer."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def request(
    method: str, authority: str, path: str, headers: dict[str, str], body: bytes = b""
) -> bytes:
    """The bytes of one request to `authority` (``host:port``; ``Connection: close``)."""
    for text in (method, authority, path, *headers, *headers.values()):
        if any(c in text for c in "\r\n\0"):
            raise ValueError("a line break in a request line or header")
    lines = [f"{method} {path} HTTP/1.1", f"Host: {authority}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def parse_answer(data: bytes) -> Answer:
    """Parse a whole answer (status line, headers, body by its length, chunks or close)."""
    end = data.find(b"\r\n\r\n")
    if end < 0 or end > MAX_HEAD:
        raise HttpFormatError("an HTTP answer without a bounded head")
    head, rest = data[:end].decode("latin-1"), data[end + 4 :]
    lines = head.split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or status_line[0] not in ("HTTP/1.1", "HTTP/1.0"):
        raise HttpFormatError(f"not an HTTP answer: {lines[0][:60]!r}")
    if not (len(status_line[1]) == 3 and status_line[1].isdigit()):
        raise HttpFormatError(f"an HTTP status {status_line[1][:10]!r}")
    if len(lines) - 1 > MAX_HEADERS:
        raise HttpFormatError("too many HTTP headers")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise HttpFormatError(f"an HTTP header line {line[:60]!r}")
        headers[name.lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunk(rest)
    elif "content-length" in headers:
        length = headers["content-length"]
        if not length.isdigit() or int(length) > MAX_BODY or int(length) > len(rest):
            raise HttpFormatError(f"an HTTP Content-Length {length[:20]!r}")
        body = rest[: int(length)]
    else:
        body = rest
    if len(body) > MAX_BODY:
        raise HttpFormatError("an HTTP body too large")
    return Answer(int(status_line[1]), headers, body)


def _unchunk(data: bytes) -> bytes:
    body = bytearray()
    while True:
        line_end = data.find(b"\r\n")
        if line_end < 0 or line_end > 32:
            raise HttpFormatError("a malformed chunk size")
        size_text = data[:line_end].split(b";", 1)[0].strip()
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            raise HttpFormatError("a malformed chunk size")
        size = int(size_text, 16)
        if len(body) + size > MAX_BODY:
            raise HttpFormatError("chunks too large")
        if size == 0:
            return bytes(body)
        chunk = data[line_end + 2 : line_end + 2 + size]
        if len(chunk) != size or data[line_end + 2 + size : line_end + 4 + size] != b"\r\n":
            raise HttpFormatError("a chunk cut short")
        body += chunk
        data = data[line_end + 4 + size :]
