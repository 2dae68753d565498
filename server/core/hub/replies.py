"""The room core's refusals and its answers that are not a room's: a bug, a store that
cannot write.

A `server.core.room.actions.Refusal` is a value: the core never raises one. Every check that
can refuse a
command (the phase table, admission, a room's checks of a command's content) returns
`Refusal | None`, a room call returns it in its `Effects`, and the hub turns it into an
``error`` message (`refusal_actions`), and a close where ``protocol/PROTOCOL.md`` says so.

`come_back` and `internal_error` are built here once, for the hub and for the app (which
answers with `internal_error` if a hub call ever raised): an ``error`` message to the
connection, then its close, with the close code `protocol.CLOSE_CODE_FOR_ERROR` gives and
the error code as the close reason (``protocol/PROTOCOL.md`` §7).
"""

from __future__ import annotations

from protocol import CLOSE_CODE_FOR_ERROR, CloseCode, Error, ErrorCode
from server.core.refusals import Refusal
from server.core.room.actions import Action, Close, ConnId, Send

__all__ = [
    "INTERNAL_ERROR_TEXT",
    "MAX_ERROR_TEXT",
    "STORE_UNAVAILABLE_TEXT",
    "come_back",
    "internal_error",
    "refusal_actions",
]

STORE_UNAVAILABLE_TEXT = "the server cannot save games right now; try again in a moment"
INTERNAL_ERROR_TEXT = "a bug on the server; reconnect and resume"
MAX_ERROR_TEXT = 500
"""An ``error`` message's sentence is cut to this many characters."""
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


def refusal_actions(conn: ConnId, refusal: Refusal, *, in_room: bool) -> list[Action]:
    """The ``error`` that answers ``refusal``, then the close `protocol.CLOSE_CODE_FOR_ERROR`
    gives it, or 4004 (refused) for any refusal before a room is open (not ``in_room``)."""
    actions: list[Action] = [
        Send((conn,), Error(code=refusal.code, message=refusal.text[:MAX_ERROR_TEXT]))
    ]
    close = CLOSE_CODE_FOR_ERROR.get(refusal.code)
    if close is None and not in_room:
        close = CloseCode.REFUSED
    if close is not None:
        actions.append(Close(conn, close, refusal.code.value))
    return actions
