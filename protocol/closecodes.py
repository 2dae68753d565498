"""WebSocket close codes the server uses, and which refusal leads to which close.

Standard codes (RFC 6455) where one fits, application codes in 4000–4999 otherwise.
The server sends an ``error`` message first whenever it has something to explain, then
closes with the code below; a client shows the error's sentence, not the close code.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType

from protocol.errors import ErrorCode

__all__ = ["CLOSE_CODE_FOR_ERROR", "CloseCode"]


class CloseCode(IntEnum):
    """Close codes (values are the WebSocket close status)."""

    NORMAL = 1000
    """The client left (``leave``), or the client closed after game over."""
    GOING_AWAY = 1001
    """The server is shutting down for good (not a restart)."""
    UNSUPPORTED_DATA = 1003
    """A text frame: the protocol is binary frames only (after ``binary_only``)."""
    POLICY_VIOLATION = 1008
    """Too many invalid messages on one connection (after the last ``error``)."""
    MESSAGE_TOO_BIG = 1009
    """A frame over the size limit (sent by the WebSocket layer itself)."""
    INTERNAL_ERROR = 1011
    """A bug on the server ended this connection."""
    SERVICE_RESTART = 1012
    """The server is restarting: reconnect with backoff and resume with the seat token."""
    TRY_AGAIN_LATER = 1013
    """The server or this address is at a limit (connections, rooms), or the server
    cannot save games right now (``store_unavailable``); retry later, with backoff, and
    resume."""

    UNSUPPORTED_VERSION = 4000
    """The opening message's ``v`` is not spoken here (after ``unsupported_version``)."""
    RATE_LIMITED = 4001
    """Messages kept coming faster than the rate limit after a ``rate_limited`` error."""
    REPLACED = 4002
    """The same seat was resumed on another connection; this one is superseded.
    Do not reconnect automatically (the other connection is the seat now)."""
    ROOM_CLOSED = 4003
    """The room was removed (idle too long, or every player left)."""
    REFUSED = 4004
    """The opening message was refused (unknown code, bad token, full, bad password);
    reconnecting with the same message will be refused again."""
    OPENING_TIMEOUT = 4005
    """No opening message arrived in time after the WebSocket handshake."""
    SECOND_PATH_CLOSED = 4006
    """A second path (``second_path``) was closed by the server: its first connection
    closed (do not reconnect it), a newer second path replaced it, or it fell out of
    step (more than 16 messages or 64 KiB ahead of the first connection); the first
    connection is never affected."""


CLOSE_CODE_FOR_ERROR: Mapping[ErrorCode, CloseCode] = MappingProxyType(
    {
        # before a room is open: any refusal ends the connection
        ErrorCode.UNSUPPORTED_VERSION: CloseCode.UNSUPPORTED_VERSION,
        ErrorCode.PASSWORD_REQUIRED: CloseCode.REFUSED,
        ErrorCode.BAD_PASSWORD: CloseCode.REFUSED,
        ErrorCode.ASK_FOR_INVITATION: CloseCode.REFUSED,
        ErrorCode.UNKNOWN_CODE: CloseCode.REFUSED,
        ErrorCode.WATCH_CODE: CloseCode.REFUSED,
        ErrorCode.BAD_TOKEN: CloseCode.REFUSED,
        ErrorCode.BAD_PATH_KEY: CloseCode.REFUSED,
        ErrorCode.ROOM_FULL: CloseCode.REFUSED,
        ErrorCode.SPECTATORS_FULL: CloseCode.TRY_AGAIN_LATER,
        ErrorCode.TOO_MANY_ROOMS: CloseCode.TRY_AGAIN_LATER,
        ErrorCode.TOO_MANY_CONNECTIONS: CloseCode.TRY_AGAIN_LATER,
        ErrorCode.TOO_MANY_FAILURES: CloseCode.POLICY_VIOLATION,
        ErrorCode.BINARY_ONLY: CloseCode.UNSUPPORTED_DATA,
        ErrorCode.TOO_LARGE: CloseCode.MESSAGE_TOO_BIG,
        ErrorCode.INTERNAL_ERROR: CloseCode.INTERNAL_ERROR,
        # the device a seat was taken from took it back: this one is superseded
        ErrorCode.SEAT_TAKEN_BACK: CloseCode.REPLACED,
        # the room's connections after a failed write: come back and resume in a moment
        ErrorCode.STORE_UNAVAILABLE: CloseCode.TRY_AGAIN_LATER,
    }
)
"""Errors after which the server closes the connection, and with which code.

Errors not listed (``malformed``, ``unknown_type``, ``bad_value``, ``stale``,
``not_seated``, ``rate_limited`` …) leave the connection open: the offending message is
dropped and the room carries on. Before a room is open (no successful create/join/watch/
resume yet), *every* error closes the connection: with the code listed here, or
``REFUSED`` if the error is not listed. A connection that keeps sending invalid messages
is closed with ``POLICY_VIOLATION``, one that keeps exceeding the rate limit with
``RATE_LIMITED``; the thresholds are the server's (documented in its ``--help``).
"""
