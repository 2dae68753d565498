"""Any bytes decode to a message or raise ProtocolError: never another exception."""

from __future__ import annotations

import math
import struct
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol import (
    CLIENT_MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    CardsTurned,
    Direction,
    EncodeError,
    ErrorCode,
    ProtocolError,
    ReadyChanged,
    WaitingFor,
    decode,
    decode_client_message,
    decode_server_message,
    encode,
)
from tests.protocol.strategies import client_messages, server_messages

BOTH = [Direction.FROM_CLIENT, Direction.FROM_SERVER]


def decode_or_protocol_error(data: bytes, direction: Direction) -> object:
    """Decode; a ProtocolError is a fine answer, any other exception fails the test."""
    try:
        message = decode(data, direction=direction)
    except ProtocolError as error:
        assert isinstance(error.code, ErrorCode)
        assert str(error) == str(error).strip() and str(error)
        assert len(str(error)) < 300
        return error
    # whatever the decoder accepts, the encoder accepts too, and it reads back the same
    assert decode(encode(message), direction=direction, max_bytes=1 << 20) == message
    return message


def pack(value: Any) -> bytes:
    data = msgpack.packb(value, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def nested_arrays(depth: int) -> bytes:
    return b"\x91" * depth + b"\xc0"


def nested_maps(depth: int) -> bytes:
    return b"\x81\xa1k" * depth + b"\xc0"


# (name, bytes, direction, expected code)
CORPUS: list[tuple[str, bytes | str, Direction, ErrorCode]] = [
    ("empty", b"", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("text frame", "hello", Direction.FROM_CLIENT, ErrorCode.BINARY_ONLY),
    (
        "truncated map",
        pack({"type": "ready", "step": 1})[:-1],
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("truncated str header", b"\xdb\x00\x00", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("4-GiB array header", b"\xdd\xff\xff\xff\xff", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("4-GiB map header", b"\xdf\xff\xff\xff\xff", Direction.FROM_SERVER, ErrorCode.MALFORMED),
    (
        "4-GiB str header",
        b"\xdb\xff\xff\xff\xff" + b"a" * 10,
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("4-GiB bin header", b"\xc6\xff\xff\xff\xff", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("1100 nested arrays", nested_arrays(1100), Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    (
        "1100 nested arrays to client",
        nested_arrays(1100),
        Direction.FROM_SERVER,
        ErrorCode.MALFORMED,
    ),
    ("1100 nested maps", nested_maps(1100), Direction.FROM_SERVER, ErrorCode.MALFORMED),
    ("50000 nested arrays", nested_arrays(50_000), Direction.FROM_SERVER, ErrorCode.MALFORMED),
    (
        "nesting inside a field",
        pack({"type": "ready", "step": [[[[1]]]]}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "integer map key",
        b"\x82\xa4type\xa5ready\x01\x01",
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("nil map key", b"\x81\xc0\x01", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    (
        "bytes map key",
        pack({b"type": "ready", "step": 1}),
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    (
        "invalid utf-8 value",
        b"\x82\xa4type\xa5ready\xa4step\xa2\xff\xfe",
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("invalid utf-8 key", b"\x81\xa2\xc3\x28\x01", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("surrogate in utf-8", b"\x81\xa3\xed\xa0\x80\x01", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    (
        "trailing bytes",
        pack({"type": "resync"}) + b"\x00",
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("two messages", pack({"type": "resync"}) * 2, Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("reserved byte 0xc1", b"\xc1", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("ext type", b"\xd4\x05\x00", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    ("zero-length ext", b"\xc7\x00\x05", Direction.FROM_CLIENT, ErrorCode.MALFORMED),
    (
        "timestamp ext",
        pack({"type": "ready", "step": msgpack.Timestamp(1, 0)}),
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("ext as type", b"\x81\xa4type\xd4\x05\x00", Direction.FROM_SERVER, ErrorCode.MALFORMED),
    (
        "bin value",
        pack({"type": "join_room", "v": 1, "code": b"ABCD", "name": "x"}),
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    (
        "huge string",
        pack({"type": "join_room", "v": 1, "code": "A" * 5000, "name": "x"}),
        Direction.FROM_CLIENT,
        ErrorCode.TOO_LARGE,
    ),
    (
        "long name under the size limit",
        pack({"type": "join_room", "v": 1, "code": "ABCD", "name": "x" * 1000}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "long array",
        pack({"type": "waiting_for", "seq": 1, "seats": [0] * 200}),
        Direction.FROM_SERVER,
        ErrorCode.MALFORMED,
    ),
    (
        "big map",
        pack({"type": "resync", **{f"k{i}": i for i in range(40)}}),
        Direction.FROM_CLIENT,
        ErrorCode.MALFORMED,
    ),
    ("not a map", pack([1, 2, 3]), Direction.FROM_CLIENT, ErrorCode.BAD_MESSAGE),
    ("bare int", pack(7), Direction.FROM_SERVER, ErrorCode.BAD_MESSAGE),
    ("no type", pack({"step": 1}), Direction.FROM_CLIENT, ErrorCode.BAD_MESSAGE),
    ("int type", pack({"type": 3}), Direction.FROM_CLIENT, ErrorCode.BAD_MESSAGE),
    ("unknown type", pack({"type": "flp"}), Direction.FROM_CLIENT, ErrorCode.UNKNOWN_TYPE),
    (
        "server type from client",
        pack({"type": "welcome"}),
        Direction.FROM_CLIENT,
        ErrorCode.UNKNOWN_TYPE,
    ),
    (
        "unknown version",
        pack({"type": "join_room", "v": 99, "code": "ABCD", "name": "x"}),
        Direction.FROM_CLIENT,
        ErrorCode.UNSUPPORTED_VERSION,
    ),
    (
        "unknown version wins over unknown fields",
        pack({"type": "watch_room", "v": 2, "code": "ABCD", "new": 1}),
        Direction.FROM_CLIENT,
        ErrorCode.UNSUPPORTED_VERSION,
    ),
    (
        "missing version",
        pack({"type": "watch_room", "code": "ABCD"}),
        Direction.FROM_CLIENT,
        ErrorCode.MISSING_FIELD,
    ),
    (
        "bool version",
        pack({"type": "watch_room", "v": True, "code": "ABCD"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "welcome of another version",
        pack({"type": "welcome", "v": 7, "seq": 0}),
        Direction.FROM_SERVER,
        ErrorCode.UNSUPPORTED_VERSION,
    ),
    ("missing field", pack({"type": "ready"}), Direction.FROM_CLIENT, ErrorCode.MISSING_FIELD),
    (
        "unknown field from client",
        pack({"type": "ready", "step": 1, "seat": 2}),
        Direction.FROM_CLIENT,
        ErrorCode.UNKNOWN_FIELD,
    ),
    (
        "bool where int",
        pack({"type": "ready", "step": True}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "float where int",
        pack({"type": "ready", "step": 1.0}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "nan where int",
        pack({"type": "ready", "step": math.nan}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "inf where int",
        pack({"type": "time_up", "seq": math.inf}),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "nan float32",
        b"\x82\xa4type\xa5ready\xa4step\xca" + struct.pack(">f", math.nan),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "negative int",
        pack({"type": "ready", "step": -1}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "uint64 max step",
        pack({"type": "ready", "step": 2**64 - 1}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "str where int",
        pack({"type": "ready", "step": "1"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "int where str",
        pack({"type": "join_room", "v": 1, "code": 1234, "name": "x"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "int where bool",
        pack({"type": "ready_changed", "seq": 1, "seat": 0, "ready": 1}),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "nil where required",
        pack({"type": "ready", "step": None}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "seat out of range",
        pack({"type": "player_left", "seq": 1, "seat": 4}),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "unknown enum value",
        pack({"type": "set_auto_play", "mode": "turbo"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "enum value in wrong case",
        pack({"type": "set_auto_play", "mode": "CALM"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "bad card",
        pack(
            {
                "type": "cards_turned",
                "seq": 1,
                "step": 1,
                "round": 1,
                "depth": 0,
                "cards": [[0, "1H"]],
            }
        ),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "lowercase card",
        pack(
            {
                "type": "cards_turned",
                "seq": 1,
                "step": 1,
                "round": 1,
                "depth": 0,
                "cards": [[0, "qh"]],
            }
        ),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "pair of three",
        pack(
            {
                "type": "cards_turned",
                "seq": 1,
                "step": 1,
                "round": 1,
                "depth": 0,
                "cards": [[0, "QH", 1]],
            }
        ),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "map where array",
        pack({"type": "waiting_for", "seq": 1, "seats": {"a": 1}}),
        Direction.FROM_SERVER,
        ErrorCode.BAD_VALUE,
    ),
    (
        "control char in name",
        pack({"type": "join_room", "v": 1, "code": "ABCD", "name": "a\x1b[2J"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "blank name",
        pack({"type": "join_room", "v": 1, "code": "ABCD", "name": "   "}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "empty name",
        pack({"type": "join_room", "v": 1, "code": "ABCD", "name": ""}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "code with spaces",
        pack({"type": "join_room", "v": 1, "code": "AB CD", "name": "x"}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "face_down 2",
        pack({"type": "create_room", "v": 1, "name": "x", "rules": {"face_down": 2}}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "five players",
        pack({"type": "create_room", "v": 1, "name": "x", "rules": {"players": 5}}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "round limit 0",
        pack({"type": "create_room", "v": 1, "name": "x", "rules": {"round_limit": 0}}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "unknown rule",
        pack({"type": "create_room", "v": 1, "name": "x", "rules": {"jokers": True}}),
        Direction.FROM_CLIENT,
        ErrorCode.UNKNOWN_FIELD,
    ),
    (
        "rules not a map",
        pack({"type": "create_room", "v": 1, "name": "x", "rules": [2]}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "no seat left for the creator",
        pack({"type": "create_room", "v": 1, "name": "x", "computers": 2}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "two limits",
        pack(
            {"type": "create_room", "v": 1, "name": "x", "minutes": 5, "rules": {"round_limit": 26}}
        ),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "minutes nan",
        pack({"type": "create_room", "v": 1, "name": "x", "minutes": math.nan}),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
    (
        "deal too big for msgpack int",
        b"\x84\xa4type\xabcreate_room\xa1v\x01\xa4name\xa1x\xa4deal\xcb" + struct.pack(">d", 1e30),
        Direction.FROM_CLIENT,
        ErrorCode.BAD_VALUE,
    ),
]


@pytest.mark.parametrize(
    ("data", "direction", "code"),
    [pytest.param(d, dr, c, id=name) for name, d, dr, c in CORPUS],
)
def test_nasty_corpus_gives_the_expected_code(
    data: bytes | str, direction: Direction, code: ErrorCode
) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(data, direction=direction)
    assert caught.value.code is code, caught.value


def test_unknown_fields_are_ignored_from_the_server() -> None:
    message = decode_server_message(
        pack({"type": "ready_changed", "seq": 3, "seat": 1, "ready": True, "glow": [1]})
    )
    assert isinstance(message, ReadyChanged)
    assert message.seq == 3


def test_unknown_fields_are_ignored_in_nested_server_records() -> None:
    summary = {"rounds": 1, "wars": 0, "longest_war": 0, "biggest_haul": 2, "deal": 5, "new": "x"}
    data = pack(
        {"type": "game_over", "seq": 2, "step": 9, "winner": None, "termination": "endless",
         "summary": summary, "counts": [26, 26]}
    )  # fmt: skip
    assert decode_server_message(data).summary.deal == 5  # type: ignore[union-attr]


def test_size_limit_is_the_parameter() -> None:
    data = pack({"type": "join_room", "v": 1, "code": "ABCD", "name": "x" * 20})
    assert decode_client_message(data, max_bytes=len(data)).name == "x" * 20  # type: ignore[union-attr]
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(data, max_bytes=len(data) - 1)
    assert caught.value.code is ErrorCode.TOO_LARGE


def test_bytearray_and_memoryview_are_accepted() -> None:
    data = pack({"type": "ready", "step": 4})
    assert decode_client_message(bytearray(data)) == decode_client_message(memoryview(data))


@pytest.mark.parametrize("direction", BOTH)
@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300))
@example(data=b"\x91" * 1100 + b"\xc0")
@example(data=b"\xdd\xff\xff\xff\xff")
def test_any_bytes_give_a_message_or_protocol_error(data: bytes, direction: Direction) -> None:
    decode_or_protocol_error(data, direction)


_json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=30)
    | st.binary(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
_field_names = st.sampled_from(
    ["v", "seq", "step", "round", "depth", "seat", "seats", "name", "code", "token", "room",
     "rules", "state", "cards", "counts", "count", "mode", "deal", "summary", "winner",
     "termination", "players", "face_down", "computers", "minutes", "password", "message"]
)  # fmt: skip


@settings(deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    tag=st.sampled_from(sorted({*CLIENT_MESSAGE_TYPES, *SERVER_MESSAGE_TYPES})),
    fields=st.dictionaries(_field_names | st.text(max_size=8), _json_like, max_size=8),
    direction=st.sampled_from(BOTH),
)
def test_any_map_with_a_known_type_gives_a_message_or_protocol_error(
    tag: str, fields: dict[str, Any], direction: Direction
) -> None:
    decode_or_protocol_error(pack({**fields, "type": tag}), direction)


@settings(deadline=None, max_examples=300)
@given(
    message=client_messages,
    cut=st.integers(0, 400),
    flip=st.integers(0, 255),
    at=st.integers(0, 400),
)
def test_damaged_client_messages_give_a_message_or_protocol_error(
    message: Any, cut: int, flip: int, at: int
) -> None:
    wire = bytearray(encode(message))
    if wire:
        wire[at % len(wire)] ^= flip
    decode_or_protocol_error(
        bytes(wire[: max(1, len(wire) - cut % len(wire))]), Direction.FROM_CLIENT
    )


@settings(deadline=None, max_examples=300)
@given(
    message=server_messages,
    cut=st.integers(0, 2000),
    flip=st.integers(0, 255),
    at=st.integers(0, 2000),
)
def test_damaged_server_messages_give_a_message_or_protocol_error(
    message: Any, cut: int, flip: int, at: int
) -> None:
    wire = bytearray(encode(message))
    wire[at % len(wire)] ^= flip
    decode_or_protocol_error(
        bytes(wire[: max(1, len(wire) - cut % len(wire))]), Direction.FROM_SERVER
    )


@settings(deadline=None, max_examples=200)
@given(message=client_messages)
def test_every_strict_prefix_of_a_message_is_malformed(message: Any) -> None:
    wire = encode(message)
    for end in range(1, len(wire)):
        with pytest.raises(ProtocolError) as caught:
            decode_client_message(wire[:end])
        assert caught.value.code is ErrorCode.MALFORMED


def test_deep_nesting_is_refused_even_with_a_generous_size_limit() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(nested_arrays(500_000), direction=Direction.FROM_SERVER, max_bytes=1 << 20)
    assert caught.value.code is ErrorCode.MALFORMED


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    message=client_messages | server_messages,
    key=_field_names | st.just("type"),
    replacement=_json_like,
    drop=st.booleans(),
)
def test_valid_maps_with_one_field_replaced_or_dropped(
    message: Any, key: str, replacement: Any, drop: bool
) -> None:
    direction = (
        Direction.FROM_CLIENT
        if type(message).TYPE in CLIENT_MESSAGE_TYPES
        else Direction.FROM_SERVER
    )
    fields = msgpack.unpackb(encode(message))
    if drop:
        fields.pop(key, None)
    else:
        fields[key] = replacement
    result = decode_or_protocol_error(pack(fields), direction)
    if drop and key != "type" and not isinstance(result, ProtocolError):
        assert type(result) is type(message)


@pytest.mark.parametrize(
    ("data", "direction"),
    [
        (pack({"type": "resync"}), Direction.FROM_CLIENT),
        (pack({"type": "vote_finish"}), Direction.FROM_CLIENT),
        (pack({"type": "time_up", "seq": 0}), Direction.FROM_SERVER),
        (pack({"type": "error", "code": "stale"}), Direction.FROM_SERVER),
    ],
)
def test_the_smallest_valid_messages_decode(data: bytes, direction: Direction) -> None:
    assert not isinstance(decode_or_protocol_error(data, direction), ProtocolError)


def test_an_error_in_an_array_names_the_item_and_its_index() -> None:
    # Paths leave indexes out while every item is fine (protocol._schema._name_the_item);
    # a bad item is named by its index, decoding and encoding alike.
    turned = {"type": "cards_turned", "seq": 4, "step": 2, "round": 2, "depth": 0,
              "cards": [[0, "QS"], [1, "9H"], [2, 17]]}  # fmt: skip
    with pytest.raises(ProtocolError) as caught:
        decode_server_message(pack(turned))
    assert caught.value.code is ErrorCode.BAD_VALUE
    assert str(caught.value).startswith("cards_turned.cards[2][1] must be "), str(caught.value)
    seats = {"type": "waiting_for", "seq": 1, "seats": [0, 1, 9]}
    with pytest.raises(ProtocolError, match=r"^waiting_for\.seats\[2\] must be an int in 0\.\.3"):
        decode_server_message(pack(seats))
    with pytest.raises(EncodeError, match=r"^waiting_for\.seats\[1\] must be an int in 0\.\.3"):
        encode(WaitingFor(seq=1, seats=(0, 7)))
    with pytest.raises(EncodeError, match=r"^cards_turned\.cards\[0\]\[1\] must be "):
        encode(CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "??"),)))
    fine = CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "QS"), (1, "9H")))
    assert decode_server_message(encode(fine)) == fine
