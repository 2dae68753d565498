"""Exact wire shapes, field checks in both directions, and the encode side's refusals."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from protocol import (
    ALL_CARDS,
    CLOSE_CODE_FOR_ERROR,
    PROTOCOL_VERSION,
    BothShort,
    CardsTurned,
    CloseCode,
    CreateRoom,
    EncodeError,
    Error,
    ErrorCode,
    FixedOrder,
    JoinRoom,
    ProtocolError,
    Ready,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    SetAutoPlay,
    Snapshot,
    TieBreak,
    WonCards,
    decode_client_message,
    decode_server_message,
    encode,
    is_card,
)


def wire(message: Any) -> Any:
    return msgpack.unpackb(encode(message))


def two_seat_state(**changes: Any) -> RoomState:
    fields: dict[str, Any] = {
        "room": "r-1",
        "phase": RoomPhase.PLAYING,
        "rules": RulesSpec(),
        "seats": (SeatState(seat=0, name="Ann"), SeatState(seat=1, name="Ben")),
    }
    fields.update(changes)
    return RoomState(**fields)


def test_ready_on_the_wire() -> None:
    assert wire(Ready(step=3)) == {"type": "ready", "step": 3, "seed": None}


def test_create_room_on_the_wire_has_every_field_and_the_version() -> None:
    assert wire(CreateRoom(name="Ann")) == {
        "type": "create_room",
        "v": PROTOCOL_VERSION,
        "name": "Ann",
        "rules": {
            "players": 2,
            "face_down": 1,
            "aces": "high",
            "short_war": "lose",
            "both_short": "play_on",
            "won_cards": "shuffle",
            "fixed_order": "winner",
            "taken_back": "as_won",
            "round_limit": None,
            "tie_break": "draw",
        },
        "deal": None,
        "computers": 0,
        "minutes": None,
        "password": None,
        "talk": "players",
        "seed_commitment": None,
    }


def test_cards_turned_pairs_are_arrays() -> None:
    message = CardsTurned(seq=4, step=2, round=2, depth=0, cards=((0, "QH"), (1, "TS")))
    assert wire(message)["cards"] == [[0, "QH"], [1, "TS"]]


def test_minimal_create_room_uses_defaults() -> None:
    data = msgpack.packb({"type": "create_room", "v": 1, "name": "Ann"})
    assert decode_client_message(data) == CreateRoom(name="Ann")


def test_nil_optional_equals_absent_optional() -> None:
    absent = msgpack.packb({"type": "create_room", "v": 1, "name": "Ann"})
    nil = msgpack.packb({"type": "create_room", "v": 1, "name": "Ann", "deal": None})
    assert decode_client_message(absent) == decode_client_message(nil)


def test_rules_map_matches_the_engine_shape() -> None:
    """The wire's rules map has the keys and values of the engine's ``Rules.to_dict()``
    minus ``ranks``/``suits`` (tests/server/core/test_wire.py checks the engine side)."""
    rules = RulesSpec(
        players=3,
        face_down=3,
        won_cards=WonCards.FIXED,
        fixed_order=FixedOrder.SEAT0,
        both_short=BothShort.END,
        round_limit=50,
        tie_break=TieBreak.BATTLE,
    )
    mapped = wire(CreateRoom(name="Ann", rules=rules))["rules"]
    assert mapped == {
        "players": 3,
        "face_down": 3,
        "aces": "high",
        "short_war": "lose",
        "both_short": "end",
        "won_cards": "fixed",
        "fixed_order": "seat0",
        "taken_back": "as_won",
        "round_limit": 50,
        "tie_break": "battle",
    }
    assert all(type(v) in (int, str, type(None)) for v in mapped.values())


def test_decoded_enums_are_enum_members() -> None:
    message = decode_client_message(msgpack.packb({"type": "set_auto_play", "mode": "calm"}))
    assert isinstance(message, SetAutoPlay)
    assert type(message.mode).__name__ == "AutoPlay"


def test_error_accepts_codes_newer_than_this_client() -> None:
    data = msgpack.packb({"type": "error", "code": "brand_new_refusal", "message": "no"})
    assert decode_server_message(data) == Error(code="brand_new_refusal", message="no")


def test_error_code_enum_encodes_as_its_string() -> None:
    assert wire(Error(code=ErrorCode.STALE, message="old"))["code"] == "stale"


def test_protocol_error_carries_code_and_shows_the_value() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(msgpack.packb({"type": "flp"}))
    assert caught.value.code is ErrorCode.UNKNOWN_TYPE
    assert str(caught.value) == "unknown message type 'flp'"
    assert caught.value.message == str(caught.value)


def test_error_sentence_truncates_a_huge_value() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(msgpack.packb({"type": "x" * 3000}))
    assert len(str(caught.value)) < 100


def test_snapshot_must_have_a_seat_per_player() -> None:
    state = two_seat_state(seats=(SeatState(seat=0),))
    with pytest.raises(EncodeError, match="needs 2 seats"):
        encode(Snapshot(seq=1, state=state))
    data = msgpack.packb(
        {
            "type": "snapshot",
            "seq": 1,
            "state": {
                **wire(Snapshot(seq=1, state=two_seat_state()))["state"],
                "seats": [{"seat": 0}],
            },
        }
    )
    with pytest.raises(ProtocolError) as caught:
        decode_server_message(data)
    assert caught.value.code is ErrorCode.BAD_VALUE


def test_snapshot_seats_are_numbered_in_order() -> None:
    with pytest.raises(EncodeError, match="seat 0 is numbered 1"):
        encode(Snapshot(seq=1, state=two_seat_state(seats=(SeatState(seat=1), SeatState(seat=0)))))


def test_snapshot_waits_only_for_seats_in_the_room() -> None:
    with pytest.raises(EncodeError, match="waiting_for names seat 3"):
        encode(Snapshot(seq=1, state=two_seat_state(waiting_for=(3,))))


@pytest.mark.parametrize(
    "message",
    [
        Ready(step=-1),
        Ready(step=True),
        Ready(step=1.0),  # type: ignore[arg-type]
        JoinRoom(code="ABCD", name=""),
        JoinRoom(code="AB", name="Ann"),
        JoinRoom(code="ABCD", name="Ann\n"),
        JoinRoom(code="ABCD", name="\ud800"),
        CreateRoom(name="Ann", computers=2),
        CreateRoom(name="Ann", minutes=5, rules=RulesSpec(round_limit=26)),
        CreateRoom(name="Ann", rules=RulesSpec(face_down=2)),
        CreateRoom(name="Ann", deal=2**64),
        SetAutoPlay(mode="turbo"),  # type: ignore[arg-type]
        CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "1H"),)),
        CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "QH", 2),)),  # type: ignore[arg-type]
        CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "QH"),) * 5),
    ],
    ids=repr,
)
def test_encode_refuses_what_the_decoder_would_refuse(message: Any) -> None:
    with pytest.raises(EncodeError):
        encode(message)


def test_encode_refuses_a_non_message() -> None:
    with pytest.raises(EncodeError, match="not a protocol message"):
        encode(RulesSpec())  # type: ignore[arg-type]


def test_messages_are_frozen_and_slotted() -> None:
    message = Ready(step=1)
    with pytest.raises(AttributeError):
        message.step = 2  # type: ignore[misc]
    assert not hasattr(message, "__dict__")


def test_cards() -> None:
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 52
    assert all(is_card(card) for card in ALL_CARDS)
    assert not any(is_card(x) for x in ("10H", "1H", "QX", "qh", "Q", "QHH", 5, None, b"QH"))


def test_refusals_before_a_room_close_with_documented_codes() -> None:
    assert CLOSE_CODE_FOR_ERROR[ErrorCode.UNSUPPORTED_VERSION] is CloseCode.UNSUPPORTED_VERSION
    assert CLOSE_CODE_FOR_ERROR[ErrorCode.BAD_TOKEN] is CloseCode.REFUSED
    assert CLOSE_CODE_FOR_ERROR[ErrorCode.BINARY_ONLY] == 1003
    assert all(1000 <= code <= 4999 for code in CloseCode)
    assert all(code < 1015 or code >= 4000 for code in CloseCode)
    assert ErrorCode.STALE not in CLOSE_CODE_FOR_ERROR
