"""The one codec: ``encode`` a message to bytes, ``decode`` bytes to a checked message.

Nothing else in the project calls msgpack for the wire.

Decoding is strict and bounded. Each call is a fresh ``msgpack.unpackb`` (no decoder
object survives an error), after a size check, with tight limits: strings at most
``max_bytes``, arrays at most 128 items, maps at most 32 pairs, no bin, no ext types
(``max_ext_len=0`` and an ext hook that refuses), string map keys only, UTF-8 only,
exactly one value (trailing bytes refused), and nesting at most `MAX_DEPTH` levels (no
message of ours nests more than five; deeper input is ``malformed``, checked level by
level without recursion). Then every field is checked:
present if required, exact type (``true`` is not an int, ``1.0`` is not an int, so NaN
and infinities never pass), range, length, pattern.

Unknown fields: a client → server message with a field the protocol does not define is
refused (``unknown_field``); a server → client message's unknown fields are ignored, so a
client keeps working against a newer server that adds fields.

Versions: opening messages (``create_room``, ``join_room``, ``watch_room``,
``resume_seat``, ``look_up``, ``second_path``) and ``welcome`` carry ``v``; it is checked
before any other field, and a version not in ``SUPPORTED_VERSIONS`` raises
``unsupported_version``.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Any, NoReturn, cast

import msgpack

from protocol._schema import RecordConverter, fail, show
from protocol.errors import EncodeError, ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    SUPPORTED_VERSIONS,
    ClientMessage,
    Message,
    ServerMessage,
)

__all__ = [
    "MAX_CLIENT_MESSAGE_BYTES",
    "MAX_DEPTH",
    "MAX_SERVER_MESSAGE_BYTES",
    "Direction",
    "decode",
    "decode_client_message",
    "decode_server_message",
    "encode",
    "encode_own",
]

MAX_CLIENT_MESSAGE_BYTES = 4096
"""Default size limit of a client → server message (the server's ``--max-message-bytes``)."""
MAX_SERVER_MESSAGE_BYTES = 131072
"""Default size limit of a server → client message (a snapshot is well under 4 KiB; one
with a full talk window and a hundred games of the evening, every name and message at its
longest in four-byte characters, under 80 KiB)."""

MAX_DEPTH = 8
"""Deepest nesting a message may have (a map is one level); no message of ours needs
more than five."""
_MAX_ARRAY_LEN = 128
_MAX_MAP_LEN = 32


class Direction(StrEnum):
    """Who sent the bytes being decoded."""

    FROM_CLIENT = "from_client"
    FROM_SERVER = "from_server"


_DECODERS: dict[Direction, dict[str, RecordConverter]] = {
    Direction.FROM_CLIENT: {
        tag: RecordConverter(cls, reject_unknown=True, tag=tag)
        for tag, cls in CLIENT_MESSAGE_TYPES.items()
    },
    Direction.FROM_SERVER: {
        tag: RecordConverter(cls, reject_unknown=False, tag=tag)
        for tag, cls in SERVER_MESSAGE_TYPES.items()
    },
}
_ENCODERS: dict[type[Any], RecordConverter] = {
    converter.cls: converter for table in _DECODERS.values() for converter in table.values()
}
_VERSIONED = frozenset(
    tag for table in _DECODERS.values() for tag, c in table.items() if "v" in c.known
)
_PACKER_OPTIONS: dict[str, Any] = {"use_bin_type": True, "strict_types": False}
_CHECK_OWN = sys.flags.dev_mode
"""Python's development mode (``python -X dev``, ``PYTHONDEVMODE=1``): `encode_own`
checks as `encode` does."""
_OWN_PACKER = msgpack.Packer(**_PACKER_OPTIONS)
"""`encode_own`'s packer, kept (a packer empties its buffer after each value, and after
a value it could not pack)."""


def encode(message: Message) -> bytes:
    """Give the msgpack bytes of ``message`` (a map whose first key is ``type``).

    The message is checked exactly as the peer's decoder will check it.

    Raises:
        EncodeError: ``message`` is not a protocol message or a field is invalid
            (our bug, never the peer's).
    """
    converter = _ENCODERS.get(type(message))
    if converter is None:
        raise EncodeError(f"not a protocol message: {show(message)}")
    try:
        wire = converter.encode(message, converter.tag or "message")
        return cast(bytes, msgpack.packb(wire, **_PACKER_OPTIONS))
    except ProtocolError as error:
        raise EncodeError(str(error)) from None
    except (ValueError, TypeError, OverflowError) as error:
        raise EncodeError(f"cannot pack {show(message)}: {error}") from None


def encode_own(message: Message) -> bytes:
    """Give the bytes `encode` gives for a valid ``message``, without checking its fields.

    For the messages a process builds itself from typed records (the server's to its
    clients): their fields come from the room's own state, so checking them again at
    every send is waste. A message that `encode` would refuse (our bug) is sent as it
    is here, and the peer's strict decoder refuses it. In Python's development mode
    (``python -X dev``, or ``PYTHONDEVMODE=1`` in the environment) this is `encode`,
    checks and all, to look for such a bug. What peers send is always checked (`decode`).

    Raises:
        EncodeError: ``message`` is not a protocol message, or msgpack cannot pack it.
    """
    if _CHECK_OWN:
        return encode(message)
    converter = _ENCODERS.get(type(message))
    if converter is None:
        raise EncodeError(f"not a protocol message: {show(message)}")
    try:
        return cast(bytes, _OWN_PACKER.pack(converter.emit(message)))
    except (ValueError, TypeError, OverflowError, AttributeError) as error:
        raise EncodeError(f"cannot pack {show(message)}: {error}") from None


def decode(
    data: bytes | bytearray | memoryview | str,
    *,
    direction: Direction,
    max_bytes: int | None = None,
) -> Message:
    """Decode one message sent in ``direction``; see :func:`decode_client_message`."""
    limit = max_bytes if max_bytes is not None else _default_limit(direction)
    value = _unpack(data, limit)
    if type(value) is not dict:
        fail(ErrorCode.BAD_MESSAGE, f"a message must be a map, not {show(value)}")
    tag = value.get("type")
    if type(tag) is not str:
        fail(ErrorCode.BAD_MESSAGE, f"a message needs a string 'type', not {show(tag)}")
    converter = _DECODERS[direction].get(tag)
    if converter is None:
        fail(ErrorCode.UNKNOWN_TYPE, f"unknown message type {show(tag)}")
    if tag in _VERSIONED:
        _check_version(value, tag)
    return cast(Message, converter.decode(value, tag))


def decode_client_message(
    data: bytes | bytearray | memoryview | str, *, max_bytes: int = MAX_CLIENT_MESSAGE_BYTES
) -> ClientMessage:
    """Decode bytes a client sent (the server's side).

    Returns one of the client message classes, every field checked.

    Raises:
        ProtocolError: anything invalid, with ``code`` to send back: ``binary_only``
            (a ``str``, i.e. a text frame), ``too_large``, ``malformed``, ``bad_message``,
            ``unknown_type``, ``unsupported_version``, ``missing_field``,
            ``unknown_field`` or ``bad_value``. Never any other exception.
    """
    return cast(ClientMessage, decode(data, direction=Direction.FROM_CLIENT, max_bytes=max_bytes))


def decode_server_message(
    data: bytes | bytearray | memoryview | str, *, max_bytes: int = MAX_SERVER_MESSAGE_BYTES
) -> ServerMessage:
    """Decode bytes the server sent (the client's side). Unknown fields are ignored.

    Raises:
        ProtocolError: as :func:`decode_client_message` (never ``unknown_field``).
    """
    return cast(ServerMessage, decode(data, direction=Direction.FROM_SERVER, max_bytes=max_bytes))


def _default_limit(direction: Direction) -> int:
    if direction is Direction.FROM_CLIENT:
        return MAX_CLIENT_MESSAGE_BYTES
    return MAX_SERVER_MESSAGE_BYTES


def _refuse_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"ext type {code} is not allowed")


def _unpack(data: bytes | bytearray | memoryview | str, limit: int) -> Any:
    if isinstance(data, str):
        fail(ErrorCode.BINARY_ONLY, "messages are binary frames, not text")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        fail(ErrorCode.MALFORMED, f"expected bytes, not {type(data).__name__}")
    size = len(data) if type(data) is bytes else memoryview(data).nbytes
    if size > limit:
        fail(ErrorCode.TOO_LARGE, f"message of {size} bytes exceeds the limit of {limit}")
    if size == 0:
        fail(ErrorCode.MALFORMED, "empty message")
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=limit,
            max_bin_len=0,
            max_array_len=_MAX_ARRAY_LEN,
            max_map_len=_MAX_MAP_LEN,
            max_ext_len=0,
            ext_hook=_refuse_ext,
        )
    except (msgpack.UnpackException, ValueError, TypeError, OverflowError, RecursionError) as e:
        reason = str(e) or type(e).__name__
        fail(ErrorCode.MALFORMED, f"not one valid msgpack value: {reason[:120]}")
    _check_depth(value)
    return value


def _check_depth(value: Any) -> None:
    """Refuse a value nested deeper than `MAX_DEPTH` (level by level, no recursion).

    msgpack's own stack allows 1,024 levels, far more than Python's recursion allows
    for showing such a value in an error sentence: a value ~1,000 levels deep raised
    RecursionError there instead of a ProtocolError.
    """
    level = [value]
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            fail(ErrorCode.MALFORMED, f"a value nested deeper than {MAX_DEPTH} levels")
        inner: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                inner += [v for v in item.values() if type(v) is dict or type(v) is list]
            elif kind is list:
                inner += [v for v in item if type(v) is dict or type(v) is list]
        level = inner


def _check_version(value: dict[Any, Any], tag: str) -> None:
    if "v" not in value:
        fail(ErrorCode.MISSING_FIELD, f"{tag} lacks the field 'v'")
    version = value["v"]
    if type(version) is not int:
        fail(ErrorCode.BAD_VALUE, f"{tag}.v must be an int, not {show(version)}")
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in sorted(SUPPORTED_VERSIONS))
        fail(
            ErrorCode.UNSUPPORTED_VERSION,
            f"protocol version {version} is not supported (this side speaks {supported})",
        )
