"""A computer seat is a kind and a number on the wire (protocol/PROTOCOL.md, "How a
computer seat is named"): ``computer_number`` 1, 2, 3 in seat order on the seats the room
was created with for the computer, in the state and in ``player_joined``, whatever the
English name kept for older clients; never on a person's seat, even once the computer
plays it for someone who left."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from msgpack import packb

from protocol import (
    CreateRoom,
    JoinRoom,
    Leave,
    PlayerJoined,
    ProtocolError,
    RulesSpec,
    decode_server_message,
    encode,
)
from tests.server.core._roomkit import RoomKit


def test_the_seats_created_for_the_computer_carry_their_number() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=4), computers=3))
    seats = ann.welcome.state.seats
    assert [(s.name, s.computer, s.computer_number) for s in seats] == [
        ("Ann", False, None),
        ("Computer 1", True, 1),
        ("Computer 2", True, 2),
        ("Computer 3", True, 3),
    ]


def test_the_number_crosses_the_wire_checked_like_any_field() -> None:
    joined = PlayerJoined(seq=2, seat=3, name="Computer 3", computer=True, computer_number=3)
    assert decode_server_message(encode(joined)) == joined
    older = decode_server_message(encode(PlayerJoined(seq=2, seat=1, name="Ben")))
    assert isinstance(older, PlayerJoined) and older.computer_number is None
    wrong = packb({**asdict(joined), "type": "player_joined", "computer_number": 4})
    with pytest.raises(ProtocolError, match="computer_number"):
        decode_server_message(wrong)


def test_the_only_computer_is_number_1_and_a_seat_left_to_it_has_none() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=3), computers=1))
    assert ann.welcome.state.seats[2].computer_number == 1
    assert ann.welcome.state.seats[2].name == "Computer"
    ben = kit.connect()
    code = ann.welcome.player_code
    assert code is not None
    kit.send(ben, JoinRoom(code=code, name="Ben"))  # the table is full: the game starts
    kit.send(ben, Leave())  # the computer plays Ben's seat from now on
    room = kit.hub.room(ann.welcome.state.room)
    assert room is not None
    seats = room.state(kit.now).seats
    assert [(s.name, s.computer, s.computer_number) for s in seats] == [
        ("Ann", False, None),
        ("Ben", True, None),
        ("Computer", True, 1),
    ]
