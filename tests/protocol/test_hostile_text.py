"""Hostile nesting and hostile text: refused with a ProtocolError, never another exception.

A value nested about 1,000 levels deep is below msgpack's own stack limit (1,024) but
deep enough to break Python's recursion when the value is shown in an error sentence;
the codec refuses anything nested deeper than `protocol.codec.MAX_DEPTH` as
``malformed`` before it looks at a field. Names (and passwords) refuse Unicode format
characters (category Cf: bidirectional overrides and isolates, zero-width characters,
the byte order mark) as they refuse control characters: they make a name read
differently from what it is.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import (
    CreateRoom,
    Direction,
    ErrorCode,
    JoinRoom,
    PlayerJoined,
    ProtocolError,
    decode,
    decode_client_message,
    decode_server_message,
    encode,
)
from protocol.codec import MAX_DEPTH
from tests.protocol.strategies import client_messages, names, server_messages


def pack(value: Any) -> bytes:
    data = msgpack.packb(value, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def nested_list(depth: int, inner: Any = 1) -> Any:
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def refused(data: bytes, direction: Direction = Direction.FROM_CLIENT) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(data, direction=direction, max_bytes=1 << 20)
    return caught.value


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100, 900, 990, 1000, 1010, 1023, 1024])
@pytest.mark.parametrize("direction", [Direction.FROM_CLIENT, Direction.FROM_SERVER])
def test_deep_arrays_are_malformed_at_every_depth(depth: int, direction: Direction) -> None:
    error = refused(b"\x91" * depth + b"\x01", direction)
    assert error.code is ErrorCode.MALFORMED


@pytest.mark.parametrize("depth", [MAX_DEPTH, 500, 1000, 1020])
def test_deep_values_inside_a_field_are_malformed(depth: int) -> None:
    data = b"\x82\xa4type\xa5ready\xa4step" + b"\x91" * depth + b"\x01"
    error = refused(data)
    assert error.code is ErrorCode.MALFORMED
    assert f"deeper than {MAX_DEPTH}" in str(error)


@pytest.mark.parametrize("depth", [500, 1000, 1020])
def test_deep_maps_are_malformed(depth: int) -> None:
    error = refused(b"\x81\xa1k" * depth + b"\x01")
    assert error.code is ErrorCode.MALFORMED


def test_the_limit_is_above_what_the_protocol_needs() -> None:
    """A value nested just under the limit is judged by its fields, not refused for depth."""
    wire = pack({"type": "ready", "step": nested_list(MAX_DEPTH - 2)})
    error = refused(wire)
    assert error.code is ErrorCode.BAD_VALUE


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@given(client_messages | server_messages)
def test_every_valid_message_nests_well_within_the_limit(message: Any) -> None:
    assert _depth(msgpack.unpackb(encode(message))) <= MAX_DEPTH - 2


# --- format characters in names ----------------------------------------------------------
FORMAT_CHARACTERS = ["\u202e", "\u202a", "\u200b", "\u200d", "\u2066", "\u2069", "\ufeff", "\xad"]
format_characters = st.characters(categories=["Cf"])


@pytest.mark.parametrize("char", FORMAT_CHARACTERS, ids=lambda c: f"U+{ord(c):04X}")
def test_names_with_a_format_character_are_refused(char: str) -> None:
    assert unicodedata.category(char) == "Cf"
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(pack({"type": "join_room", "v": 1, "code": "ABCD", "name": char}))
    assert caught.value.code is ErrorCode.BAD_VALUE


@given(before=names, char=format_characters, after=st.text(max_size=3), at=st.integers(0, 24))
def test_a_format_character_anywhere_in_a_name_is_refused(
    before: str, char: str, after: str, at: int
) -> None:
    name = (before[:at] + char + before[at:] + after)[:24]
    if char not in name:
        name = char + name[:23]
    wire = pack({"type": "join_room", "v": 1, "code": "ABCD", "name": name})
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(wire)
    assert caught.value.code is ErrorCode.BAD_VALUE
    with pytest.raises(ProtocolError):  # the server never sends one either
        decode_server_message(pack({"type": "player_joined", "seq": 1, "seat": 1, "name": name}))


@given(char=format_characters)
def test_passwords_refuse_format_characters_too(char: str) -> None:
    wire = pack({"type": "create_room", "v": 1, "name": "Ann", "password": f"secret{char}x"})
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(wire)
    assert caught.value.code is ErrorCode.BAD_VALUE


@given(names)
def test_names_without_format_characters_still_pass(name: str) -> None:
    assert not any(unicodedata.category(c) == "Cf" for c in name)
    message = JoinRoom(code="ABCD", name=name)
    assert decode_client_message(encode(message)) == message
    joined = PlayerJoined(seq=1, seat=1, name=name)
    assert decode_server_message(encode(joined)) == joined


def test_the_encoder_refuses_a_name_with_a_format_character() -> None:
    from protocol import EncodeError  # noqa: PLC0415

    with pytest.raises(EncodeError):
        encode(CreateRoom(name="Ann\u202e"))
