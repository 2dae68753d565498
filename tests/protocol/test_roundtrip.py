"""decode(encode(m)) == m for every message type, both directions."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    CLIENT_MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    Direction,
    Ready,
    decode,
    decode_client_message,
    decode_server_message,
    encode,
)
from tests.protocol.strategies import CLIENT_STRATEGIES, SERVER_STRATEGIES


def test_every_message_type_has_a_strategy() -> None:
    assert set(CLIENT_STRATEGIES) == set(CLIENT_MESSAGE_TYPES.values())
    assert set(SERVER_STRATEGIES) == set(SERVER_MESSAGE_TYPES.values())


def test_no_type_is_shared_between_directions() -> None:
    assert not set(CLIENT_MESSAGE_TYPES) & set(SERVER_MESSAGE_TYPES)


@pytest.mark.parametrize("cls", list(CLIENT_STRATEGIES), ids=lambda c: c.__name__)
@settings(deadline=None, max_examples=60)
@given(data=st.data())
def test_client_message_round_trips(cls: type[Any], data: st.DataObject) -> None:
    message = data.draw(CLIENT_STRATEGIES[cls])
    wire = encode(message)
    decoded = decode_client_message(wire)  # every valid one fits the default limit
    assert type(decoded) is cls
    assert decoded == message
    assert msgpack.unpackb(wire)["type"] == cls.TYPE


@pytest.mark.parametrize("cls", list(SERVER_STRATEGIES), ids=lambda c: c.__name__)
@settings(deadline=None, max_examples=60)
@given(data=st.data())
def test_server_message_round_trips(cls: type[Any], data: st.DataObject) -> None:
    message = data.draw(SERVER_STRATEGIES[cls])
    wire = encode(message)
    decoded = decode_server_message(wire)
    assert type(decoded) is cls
    assert decoded == message
    assert encode(decoded) == wire


@pytest.mark.parametrize("cls", list(CLIENT_STRATEGIES), ids=lambda c: c.__name__)
@settings(deadline=None, max_examples=10)
@given(data=st.data())
def test_client_messages_are_not_server_messages(cls: type[Any], data: st.DataObject) -> None:
    wire = encode(data.draw(CLIENT_STRATEGIES[cls]))
    with pytest.raises(Exception) as caught:
        decode(wire, direction=Direction.FROM_SERVER)
    assert getattr(caught.value, "code", None) == "unknown_type"


def test_first_key_is_type() -> None:
    assert next(iter(msgpack.unpackb(encode(Ready(step=7))))) == "type"
