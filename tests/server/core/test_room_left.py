"""Rooms people left: a game against the computer whose one player has been away for
--idle-computer-room-minutes is removed, as is a two-player room where no card was turned;
a family's game under way stays for its day; an address's room allowance counts every
room it created while the room exists. On the fake clock."""

from __future__ import annotations

from protocol import CloseCode, CreateRoom, JoinRoom, Ready, RulesSpec
from server.core.settings import HubSettings
from tests.server.core._roomkit import RoomKit, error_codes


def test_a_game_against_the_computer_left_alone_is_removed_after_30_minutes() -> None:
    kit = RoomKit()
    ann = kit.connect()
    kit.send(ann, CreateRoom(name="Ann", computers=1, deal=3))
    room_id = ann.welcome.state.room
    kit.drop(ann)
    kit.advance(29 * 60)
    assert kit.hub.room(room_id) is not None
    kit.advance(2 * 60)
    assert kit.hub.room(room_id) is None


def test_a_family_room_left_alone_stays_for_its_idle_time() -> None:
    kit = RoomKit()
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=3))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room_id = ann.welcome.state.room
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))  # the first cards are turned: a game under way
    kit.drop(ann)
    kit.drop(ben)
    kit.advance(60 * 60)
    assert kit.hub.room(room_id) is not None


def test_a_two_player_room_where_no_card_was_turned_goes_after_30_minutes() -> None:
    kit = RoomKit()
    ann, ben = kit.connect(), kit.connect()
    kit.send(ann, CreateRoom(name="Ann", deal=3))
    kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
    room_id = ann.welcome.state.room
    kit.drop(ann)
    kit.drop(ben)
    kit.advance(29 * 60)
    assert kit.hub.room(room_id) is not None
    kit.advance(2 * 60)
    assert kit.hub.room(room_id) is None


def test_the_allowance_counts_every_room_while_it_exists() -> None:
    kit = RoomKit(HubSettings(max_rooms_per_ip=2, idle_waiting_room_minutes=120))
    family = []
    for name in ("Ann", "Ben"):
        peer = kit.connect()
        kit.send(peer, CreateRoom(name=name, rules=RulesSpec(players=3)))
        family.append(peer)
    third = kit.connect()
    assert error_codes(kit.send(third, CreateRoom(name="Cy"))) == ["too_many_rooms"]
    assert third.closed == CloseCode.TRY_AGAIN_LATER
    for peer in family:
        kit.drop(peer)  # tabs closed: the rooms wait (here 120 minutes), nobody uses them
    kit.advance(31 * 60)
    assert kit.hub.rooms == 2  # still held, for their players to come back: still counted
    early = kit.connect()
    assert error_codes(kit.send(early, CreateRoom(name="Cy"))) == ["too_many_rooms"]
    kit.advance(90 * 60)  # idle: removed, and their count with them
    late = kit.connect()
    kit.send(late, CreateRoom(name="Cy"))
    assert late.welcome.seat == 0
