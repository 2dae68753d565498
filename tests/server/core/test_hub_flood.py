"""A room-creation flood from one address cannot lock the family out.

Without a password, one address could fill every room of the server, and the rooms
lived a day (a restart even counted as activity). Now: rooms created from one address
(an IPv6 /64 counts as one) are capped, rooms still waiting for players expire in
minutes, and a restart is no activity (with a grace period after it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol import CloseCode, CreateRoom, JoinRoom, Leave, RoomPhase, RulesSpec
from server.adapters.store.sqlite import SqliteStore
from server.core.hub.rooms import RESTART_GRACE_SECONDS
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit, error_codes

HOUR = 3600.0


def _create(kit: RoomKit, address: str, **options: object) -> Peer:
    peer = kit.connect(address)
    kit.send(peer, CreateRoom(name="Eve", **options))  # type: ignore[arg-type]
    return peer


def test_one_address_holds_at_most_its_rooms() -> None:
    kit = RoomKit(HubSettings(max_rooms_per_ip=3))
    rooms = [_create(kit, "192.0.2.9") for _ in range(3)]
    for peer in rooms:
        kit.drop(peer)  # gone, but the rooms stay
    extra = kit.connect("192.0.2.9")
    assert error_codes(kit.send(extra, CreateRoom(name="Eve"))) == ["too_many_rooms"]
    assert extra.closed == CloseCode.TRY_AGAIN_LATER
    assert kit.hub.rooms == 3
    family = _create(kit, "198.51.100.7")  # another address is not affected
    assert family.welcome.seat == 0
    assert kit.hub.rooms_created_from("192.0.2.9") == 3
    # a room removed frees its slot
    back = kit.come_back(rooms[0])
    kit.send(back, Leave())
    assert kit.hub.rooms_created_from("192.0.2.9") == 2
    assert _create(kit, "192.0.2.9").welcome.seat == 0


def test_an_ipv6_slash_64_is_one_address() -> None:
    kit = RoomKit(HubSettings(max_rooms_per_ip=2))
    _create(kit, "2001:db8:1:2::1")
    _create(kit, "2001:db8:1:2:ffff::9")
    hopper = kit.connect("2001:db8:1:2:abcd::77")
    assert error_codes(kit.send(hopper, CreateRoom(name="Eve"))) == ["too_many_rooms"]
    neighbour = _create(kit, "2001:db8:1:3::1")  # the next /64: another household
    assert neighbour.welcome.seat == 0


def test_failed_joins_from_one_slash_64_are_counted_together() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=3))
    ann = _create(kit, "10.0.0.1", rules=RulesSpec(players=3))
    code = ann.welcome.player_code or ""
    for host in (1, 2, 3):
        peer = kit.connect(f"2001:db8:5:6::{host}")
        assert error_codes(kit.send(peer, JoinRoom(code="AAAA-AAAA", name="Eve"))) == [
            "unknown_code"
        ]
    blocked = kit.connect("2001:db8:5:6::4")
    assert error_codes(kit.send(blocked, JoinRoom(code=code, name="Eve"))) == ["too_many_failures"]
    other = kit.connect("2001:db8:5:7::1")
    kit.send(other, JoinRoom(code=code, name="Ben"))
    assert other.welcome.seat == 1


def test_the_per_address_memory_is_bounded_by_the_rooms_held() -> None:
    kit = RoomKit(HubSettings(max_rooms_per_ip=2, idle_waiting_room_minutes=1))
    for n in range(300):
        kit.drop(_create(kit, f"192.0.2.{n % 250}"))
        kit.advance(1)
    assert kit.hub.rooms <= 61
    assert kit.hub.addresses_with_rooms() <= kit.hub.rooms
    kit.advance(61)
    assert kit.hub.rooms == 0
    assert kit.hub.addresses_with_rooms() == 0


def test_a_room_still_waiting_expires_in_minutes() -> None:
    kit = RoomKit(
        HubSettings(
            idle_room_minutes=24 * 60,
            idle_waiting_room_minutes=10,
            idle_computer_room_minutes=24 * 60,
        )
    )
    waiting = _create(kit, "192.0.2.9")
    playing = _create(kit, "192.0.2.10", computers=1)
    assert kit.room(playing).phase is RoomPhase.PLAYING
    kit.drop(waiting)
    kit.drop(playing)
    kit.advance(599)
    assert kit.hub.rooms == 2
    kit.advance(1)
    assert kit.hub.rooms == 1  # the waiting one is gone; the game stays a day
    kit.advance(24 * HOUR - 600)
    assert kit.hub.rooms == 0


def test_a_waiting_room_with_someone_in_it_stays() -> None:
    kit = RoomKit(HubSettings(idle_waiting_room_minutes=10))
    _create(kit, "192.0.2.9")  # the creator waits, connected
    kit.advance(10 * 600)
    assert kit.hub.rooms == 1


def _left_at_zero(
    path: Path, settings: HubSettings, addresses: tuple[str, ...], computers: int = 1
) -> list[Peer]:
    """Rooms created from ``addresses`` and left (the seat away) at time 0, stored in the
    store at ``path``, which is then closed (the server stops)."""
    first = RoomKit(settings, store=SqliteStore(path), now=0.0)
    # a deal that lasts (3,000 flips and more), so that a game played on by the server's
    # away play is still on when its player comes back
    peers = [_create(first, address, computers=computers, deal=161) for address in addresses]
    for peer in peers:
        first.drop(peer)  # the last activity, stored with the seat going away
    first.store.close()
    return peers


def test_a_restart_is_no_activity(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    settings = HubSettings(idle_room_minutes=10 * 60, idle_computer_room_minutes=10 * 60)
    _left_at_zero(path, settings, ("192.0.2.9",))
    # back 6 hours later: the room is removed 10 hours after its last activity, not
    # 10 hours after the restart
    second = RoomKit(settings, store=SqliteStore(path), now=6 * HOUR)
    assert second.hub.rooms == 1
    second.advance(4 * HOUR - 1)
    assert second.hub.rooms == 1
    second.advance(1)
    assert second.hub.rooms == 0


def test_after_a_long_downtime_players_get_a_grace_period(tmp_path: Path) -> None:
    path = tmp_path / "war.db"
    settings = HubSettings(idle_room_minutes=10 * 60, idle_computer_room_minutes=10 * 60)
    ann, _ = _left_at_zero(path, settings, ("192.0.2.9", "192.0.2.10"))
    # the server was down for two days: both rooms are overdue, but their players may
    # still come back for a while
    second = RoomKit(settings, store=SqliteStore(path), now=48 * HOUR)
    assert second.hub.rooms == 2
    second.advance(RESTART_GRACE_SECONDS - 1)
    again = second.come_back(ann)
    assert again.welcome.state.phase is RoomPhase.PLAYING
    second.advance(1)  # nobody came back to Bob's room: it goes when the grace ends
    assert second.hub.rooms == 1
    assert second.room(again).room_id == ann.welcome.state.room


@pytest.mark.parametrize("waiting", [True, False])
def test_the_grace_period_is_never_longer_than_the_idle_time(tmp_path: Path, waiting: bool) -> None:
    path = tmp_path / "war.db"
    settings = HubSettings(idle_room_minutes=2, idle_waiting_room_minutes=1)
    _left_at_zero(path, settings, ("192.0.2.9",), computers=0 if waiting else 1)
    second = RoomKit(settings, store=SqliteStore(path), now=HOUR)
    second.advance(60 if waiting else 120)
    assert second.hub.rooms == 0
