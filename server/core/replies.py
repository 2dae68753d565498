"""The room core's answers that are not a room's: a bug, a store that cannot write.

Built here once, for the hub and for the app (which answers with `internal_error` if a
hub call ever raised): an ``error`` message to the connection, then its close, with the
close code `protocol.CLOSE_CODE_FOR_ERROR` gives and the error code as the close reason
(``protocol/PROTOCOL.md`` §7).
"""

from __future__ import annotations

from protocol import CLOSE_CODE_FOR_ERROR, Error, ErrorCode
from server.core.actions import Action, Close, ConnId, Send

__all__ = ["INTERNAL_ERROR_TEXT", "STORE_UNAVAILABLE_TEXT", "come_back", "internal_error"]

STORE_UNAVAILABLE_TEXT = "the server cannot save games right now; try again in a moment"
INTERNAL_ERROR_TEXT = "a bug on the server; reconnect and resume"
_TEXT = {
    ErrorCode.STORE_UNAVAILABLE: STORE_UNAVAILABLE_TEXT,
    ErrorCode.INTERNAL_ERROR: INTERNAL_ERROR_TEXT,
}


def come_back(conn: ConnId, code: ErrorCode) -> list[Action]:
    """Tell ``conn`` to come back: ``store_unavailable`` (close 1013, try again later) or
    ``internal_error`` (close 1011); its client resumes, as after a restart."""
    return [
        Send((conn,), Error(code=code, message=_TEXT[code])),
        Close(conn, CLOSE_CODE_FOR_ERROR[code], code.value),
    ]


def internal_error(conn: ConnId) -> list[Action]:
    """A bug while handling what ``conn`` sent: ``internal_error``, close 1011."""
    return come_back(conn, ErrorCode.INTERNAL_ERROR)
