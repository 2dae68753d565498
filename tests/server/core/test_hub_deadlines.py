"""The hub's deadlines are kept incrementally: always the true earliest, at O(1) rooms a call.

`Hub.next_deadline` is asked after every message (the app re-arms its timer), so it must
not look at every room (kit/load.py measured 83% of the server's time there with 1,000
rooms). These tests check it still gives exactly what looking at every room gives, through
a long random mix of everything that moves a deadline, and that handling a message or
waking one due room touches only that room.
"""

from __future__ import annotations

import random

import pytest

from protocol import (
    AutoPlay,
    CreateRoom,
    JoinRoom,
    Leave,
    Ready,
    ResumeSeat,
    RulesSpec,
    SetAutoPlay,
    WatchRoom,
)
from server.core.room.room import Room
from server.core.settings import HubSettings
from tests.server.core._roomkit import Peer, RoomKit

SETTINGS = HubSettings(
    idle_room_minutes=50 / 60,
    away_timeout=7.0,
    quick_delay=0.3,
    calm_delay=1.5,
    max_failed_joins=1_000_000,  # stale tokens are tried on purpose
    max_rooms_per_ip=1_000_000,  # every room is opened from one address
)


def brute_force_deadline(kit: RoomKit) -> float | None:
    """What the hub's earliest deadline must be: a look at every room."""
    times: list[float] = []
    for room in kit.hub.directory:
        due = room.next_deadline()
        if due is not None:
            times.append(due)
        if not room.connections:
            times.append(room.last_active + kit.settings.idle_room_minutes * 60.0)
    return min(times, default=None)


def open_room(kit: RoomKit, rng: random.Random) -> list[Peer]:
    players = rng.choice((2, 2, 3))
    computers = rng.choice((0, 0, 1))
    minutes = rng.choice((None, None, 1))
    creator = kit.connect()
    create = CreateRoom(
        name="Ann", rules=RulesSpec(players=players), computers=computers, minutes=minutes
    )
    kit.send(creator, create)
    peers = [creator]
    code = creator.welcome.player_code or ""
    for number in range(1, players - computers):
        peers.append(kit.connect())
        kit.send(peers[-1], JoinRoom(code=code, name=f"P{number}"))
    return peers


@pytest.mark.parametrize("seed", range(6))
def test_next_deadline_is_always_the_earliest_of_all_rooms(seed: int) -> None:
    rng = random.Random(seed)
    kit = RoomKit(SETTINGS, seed=seed)
    rooms = [open_room(kit, rng) for _ in range(4)]
    for _ in range(600):
        roll = rng.random()
        open_peers = [p for room in rooms for p in room if p.closed is None]
        if roll < 0.05:
            rooms.append(open_room(kit, rng))
        elif roll < 0.45 and open_peers:
            peer = rng.choice(open_peers)
            if peer.last_welcome is not None and peer.welcome.seat is not None:
                room = kit.hub.room(peer.welcome.state.room)
                step = room.game.steps if room is not None else 0
                kit.send(peer, Ready(step=step))
        elif roll < 0.55 and open_peers:
            peer = rng.choice(open_peers)
            kit.send(peer, SetAutoPlay(mode=rng.choice(list(AutoPlay))))
        elif roll < 0.65 and open_peers:
            kit.drop(rng.choice(open_peers))
        elif roll < 0.72:
            gone = [p for room in rooms for p in room if p.closed and p.last_welcome]
            if gone:
                old = rng.choice(gone)
                new = kit.connect()
                token = old.welcome.token or "x" * 16
                kit.send(new, ResumeSeat(room=old.welcome.state.room, token=token))
                rooms.append([new])
        elif roll < 0.76 and open_peers:
            kit.send(rng.choice(open_peers), Leave())
        elif roll < 0.80 and open_peers:
            watcher = kit.connect()
            code = rng.choice(open_peers).last_welcome
            if code is not None and code.watch_code:
                kit.send(watcher, WatchRoom(code=code.watch_code))
                rooms.append([watcher])
        else:
            due = kit.hub.next_deadline()
            if due is not None:
                kit.now = max(kit.now, due + rng.choice((0.0, 0.001, 3.0)))
            kit.apply(kit.hub.wake(kit.now))
        assert kit.hub.next_deadline() == brute_force_deadline(kit)
    assert kit.hub.rooms >= 0


def count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Record the room id of every call of ``Room.<name>``."""
    calls: list[str] = []
    original = getattr(Room, name)

    def counted(self: Room, *args: object) -> object:
        calls.append(self.room_id)
        return original(self, *args)

    monkeypatch.setattr(Room, name, counted)
    return calls


def test_a_message_and_a_wake_touch_only_their_room(monkeypatch: pytest.MonkeyPatch) -> None:
    kit = RoomKit(HubSettings(max_rooms=1000, max_rooms_per_ip=1000, quick_delay=0.3))
    rooms = []
    for _ in range(300):
        ann, ben = kit.connect(), kit.connect()
        kit.send(ann, CreateRoom(name="Ann", rules=RulesSpec(players=2)))
        kit.send(ben, JoinRoom(code=ann.welcome.player_code or "", name="Ben"))
        rooms.append((ann, ben))
    kit.hub.next_deadline()
    looked = count_calls(monkeypatch, "next_deadline")
    woken = count_calls(monkeypatch, "wake")

    ann, ben = rooms[123]
    kit.send(ann, Ready(step=0))
    kit.send(ben, Ready(step=0))
    assert kit.hub.next_deadline() is None  # every seat is a person, all connected
    assert set(looked) == {kit.room(ann).room_id}
    assert len(looked) <= 2

    looked.clear()
    kit.send(ben, SetAutoPlay(mode=AutoPlay.QUICK))  # seat 1 now readies by itself
    kit.send(ann, Ready(step=1))
    due = kit.hub.next_deadline()
    assert due is not None
    kit.now = due
    kit.apply(kit.hub.wake(kit.now))
    assert woken == [kit.room(ann).room_id]
    assert kit.room(ann).game.steps == 2
    assert set(looked) == {kit.room(ann).room_id}
