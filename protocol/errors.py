"""Errors of the wire protocol, and the stable error codes a server sends back.

Exception tree (who is at fault is in the name):

- ``ProtocolError`` (``ValueError``): *the peer* sent something invalid: bytes that are
  not one msgpack value within the limits, an unknown message type, a missing, unknown
  or ill-typed field, a value out of range, an unsupported protocol version. It carries
  ``code``, an :class:`ErrorCode` the server puts into its ``error`` message.
- ``EncodeError`` (``ValueError``): *our own code* asked to encode a message that would
  not pass the decoder (a bug on the sending side, never the peer's fault).

:class:`ErrorCode` is the complete, stable list of machine-readable codes the server
sends in an ``error`` message, the codec's own codes and every refusal the server makes.
Codes are never renamed or reused; new ones may be added (clients must treat an unknown
code as a generic error and show its ``message``).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["EncodeError", "ErrorCode", "ProtocolError"]


class ErrorCode(StrEnum):
    """Machine-readable error codes (values are the wire strings)."""

    # --- the codec: the bytes or the message shape are wrong --------------------------
    MALFORMED = "malformed"
    """Not exactly one msgpack value within the limits (truncated, trailing bytes,
    nesting, lengths, invalid UTF-8, ext types, non-string map keys)."""
    TOO_LARGE = "too_large"
    """The frame is larger than the size limit."""
    BINARY_ONLY = "binary_only"
    """A text frame was sent; every message is a binary frame."""
    BAD_MESSAGE = "bad_message"
    """The value is not a map, or it has no string ``type`` field."""
    UNKNOWN_TYPE = "unknown_type"
    """The ``type`` names no message of this direction."""
    MISSING_FIELD = "missing_field"
    """A required field is absent."""
    UNKNOWN_FIELD = "unknown_field"
    """A client message carries a field the protocol does not define."""
    BAD_VALUE = "bad_value"
    """A field has the wrong type (bool is not int, float is not int) or is out of range."""
    UNSUPPORTED_VERSION = "unsupported_version"
    """The ``v`` of an opening message is a protocol version the peer does not speak."""

    # --- opening a connection: create / join / watch / resume -------------------------
    PASSWORD_REQUIRED = "password_required"  # noqa: S105 (an error code, not a secret)
    """The server needs a password to create rooms and none was given."""
    BAD_PASSWORD = "bad_password"  # noqa: S105 (an error code, not a secret)
    """The password to create rooms is wrong."""
    ASK_FOR_INVITATION = "ask_for_invitation"
    """A ``create_room`` from outside the house of a server reached from the internet
    (``war-server --outside`` with no password): only the house creates rooms; ask the
    host for an invitation (joining by code needs nothing)."""
    UNKNOWN_CODE = "unknown_code"
    """No room has this player code (join) or watch code (watch)."""
    WATCH_CODE = "watch_code"
    """A ``join_room`` (or ``look_up``) with the room's watch code: it lets you watch
    (``watch_room``), not sit down."""
    BAD_TOKEN = "bad_token"  # noqa: S105 (an error code, not a secret)
    """The seat token is unknown or was replaced by a newer one."""
    ROOM_FULL = "room_full"
    """Every seat of the room is taken."""
    SPECTATORS_FULL = "spectators_full"
    """The room has as many spectators as the server allows."""
    TOO_MANY_ROOMS = "too_many_rooms"
    """The server holds as many rooms as it allows; try later."""
    TOO_MANY_CONNECTIONS = "too_many_connections"
    """Too many connections from this address."""
    TOO_MANY_FAILURES = "too_many_failures"
    """Too many wrong codes, tokens or passwords from this address; wait a minute."""
    ALREADY_IN_ROOM = "already_in_room"
    """This connection already opened a room; open another connection instead."""
    NOT_IN_ROOM = "not_in_room"
    """The first message must be create_room, join_room, watch_room or resume_seat."""
    BAD_PATH_KEY = "bad_path_key"
    """A ``second_path`` whose key is not a live connection's ``welcome.path_key`` (never
    given, or its connection closed)."""

    NAME_TAKEN = "name_taken"
    """Another seat of the room has this name, or one that looks the same (case, accents
    folded, invisible characters removed, look-alike letters: `protocol.names`)."""
    NAME_INVISIBLE = "name_invisible"
    """The name shows no character (only spaces, blank or invisible characters)."""
    NAME_RESERVED = "name_reserved"
    """The name is (or looks like) a word the clients use for others: "you", "Computer"."""
    SEAT_IN_USE = "seat_in_use"
    """The seat of that name is connected: only its own device (its token) takes it."""
    SEAT_REQUEST_PENDING = "seat_request_pending"
    """Someone already asks the table for a seat of this room; try again in a minute."""
    SEAT_REQUEST_REFUSED = "seat_request_refused"
    """The table refused to let this device take the seat."""
    SEAT_REQUEST_EXPIRED = "seat_request_expired"
    """Nobody at the table answered the request in time."""
    SEAT_AWAY_TOO_BRIEFLY = "seat_away_too_briefly"
    """Nobody is at the table to ask, and the seat has not been away long enough to be
    taken by its name alone."""
    SEAT_TAKEN = "seat_taken"
    """This device's seat was taken over on another device (the table allowed it, or it
    was away long): this token no longer takes it back."""
    # --- in a room -----------------------------------------------------------------------
    RATE_LIMITED = "rate_limited"
    """Too many messages per second on this connection."""
    NOT_SEATED = "not_seated"
    """Only a seated player may do this (spectators watch)."""
    GAME_NOT_STARTED = "game_not_started"
    """The game waits for players to join."""
    GAME_OVER = "game_over"
    """The game is over: only rematch or leave."""
    GAME_IN_PROGRESS = "game_in_progress"
    """Rematch is for a finished game."""
    NOT_NEEDED = "not_needed"
    """The game does not wait for this seat (not in the war, out of the game)."""
    ALREADY_READY = "already_ready"
    """This seat is already ready for the next flip."""
    STALE = "stale"
    """The message refers to a step that is no longer the current one."""
    NO_SEAT_REQUEST = "no_seat_request"
    """An answer to a seat request that is not (or no longer) asked."""
    OWN_SEAT_REQUEST = "own_seat_request"
    """An answer to a seat request from the asker's own address: someone at another
    address answers it (nobody approves their own request)."""
    SEAT_TAKEN_BACK = "seat_taken_back"
    """The device this seat was taken from took it back with its token (close 4002)."""
    TALK_NOT_ALLOWED = "talk_not_allowed"
    """The room's ``talk`` setting does not let this connection send this (a spectator's
    message in a ``players`` room, a message in a ``reactions`` room, anything when
    ``off``)."""
    SEED_MISMATCH = "seed_mismatch"
    """The ``seed`` of a ``ready`` does not hash to the ``seed_commitment`` the seat made."""
    SEED_REQUIRED = "seed_required"
    """A ``ready`` without ``seed`` from a seat that committed to one and has not revealed
    it: the server never readies a committed seat without its seed."""
    INTERNAL_ERROR = "internal_error"
    """A bug on the server; the room carries on if it can."""
    STORE_UNAVAILABLE = "store_unavailable"
    """The server cannot save games right now (its disk is full or failing): nothing of
    the message was done; reconnect a little later and resume (close 1013 follows)."""


class ProtocolError(ValueError):
    """The peer sent something invalid.

    ``code`` is the :class:`ErrorCode` to send back; ``str(error)`` is a lowercase,
    specific sentence that shows the offending value (safe to send: it never echoes more
    than a short prefix of a peer's string).
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        """The human sentence (same as ``str(self)``)."""
        return str(self)

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {str(self)!r})"


class EncodeError(ValueError):
    """Our own code tried to encode a message that is not valid on the wire."""
