"""What the server answers to an HTTP request it will not read further, sans-I/O.

Before anything looks at a request's headers (``/healthz``, the browser table's files,
the Origin and Host checks, the WebSocket handshake), `screen` refuses what none of them
should ever have to handle: a method other than ``GET`` and ``HEAD`` (405, with
``Allow``), a header that must come once sent twice or more (400: `SINGLE_HEADERS`; a
request with two ``Host`` headers is not one request, RFC 9112 §3.2), and a request
that carries a body (400). `unreadable` answers a request websockets could not parse
at all (a bad request line, a header line without a colon, a body, bytes that are not
ASCII where they must be): 405 if its first word is a method other than ``GET`` and
``HEAD``, else 400. Either way the answer is one short line of plain text and the log
gets one line per kind a minute (`server.adapters.web.edge`), never a traceback.
"""

from __future__ import annotations

import http
from dataclasses import dataclass

from websockets.datastructures import Headers

__all__ = ["ALLOWED_METHODS", "SINGLE_HEADERS", "Answer", "screen", "unreadable"]

ALLOWED_METHODS = ("GET", "HEAD")
SINGLE_HEADERS = (
    "Host",
    "Origin",
    "Upgrade",
    "Content-Length",
    "Transfer-Encoding",
    "Sec-WebSocket-Key",
    "Sec-WebSocket-Version",
    "If-None-Match",
)
"""Headers a request may carry at most once (``If-None-Match`` is a list, but the page
never sends two, and one is enough for anyone)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A refusal: the HTTP ``status``, the `server.adapters.web.edge` ``kind``, the one line
    of text answered, and what to log of the request (``detail``)."""

    status: http.HTTPStatus
    kind: str
    text: str
    detail: str

    @property
    def allow(self) -> bool:
        """The answer carries ``Allow: GET, HEAD``."""
        return self.status is http.HTTPStatus.METHOD_NOT_ALLOWED


def _method_not_allowed(method: str) -> Answer:
    return Answer(
        http.HTTPStatus.METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "only GET and HEAD\n",
        f"method {method}",
    )


def screen(method: str, headers: Headers) -> Answer | None:
    """Why a parsed request (``method``, ``headers``) is refused before anyone reads it,
    or None."""
    if method not in ALLOWED_METHODS:
        return _method_not_allowed(method)
    for name in SINGLE_HEADERS:
        if len(headers.get_all(name)) > 1:
            return Answer(
                http.HTTPStatus.BAD_REQUEST,
                "bad_request",
                f"the {name} header is sent more than once\n",
                f"duplicate {name}",
            )
    return None


def unreadable(head: bytes, error: Exception) -> Answer:
    """The answer to a request websockets could not parse (``error``); ``head``: the
    bytes of it still buffered or already read (its request line, if it came)."""
    method = head.split(b" ", 1)[0].decode("ascii", "replace") if head else ""
    if method and method.isalpha() and method.isupper() and method not in ALLOWED_METHODS:
        return _method_not_allowed(method)
    return Answer(
        http.HTTPStatus.BAD_REQUEST,
        "bad_request",
        "not an HTTP request this server reads\n",
        f"{type(error).__name__}: {error}",
    )
