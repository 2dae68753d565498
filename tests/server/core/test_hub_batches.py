"""Group commit: the hub calls of one batch (`server.adapters.ws.batch.Batch`, as the app
runs them) are stored by one commit, and what they send waits for it.

The app adds each turn of its event loop's hub calls to a batch and commits it at the
turn's end; only then do the batch's actions go out. If the commit fails, nothing of the
batch is stored: every room written in it is rebuilt from the store, as after one failed
write, its people are told ``store_unavailable`` (close 1013), and the actions held for
them never go out; once the store works again they resume and the game goes on as the
deal says.
"""

from __future__ import annotations

from protocol import CloseCode, CreateRoom, Error, ErrorCode, Ready, RoomPhase
from server import engine
from server.core.room.actions import Close, Send, Write
from server.core.room.records import same_state
from tests._kit.stores import FlakyStore
from tests.server.core._roomkit import (
    Peer,
    RoomKit,
    expected_events,
    game_events,
    seated,
    stored_record,
)


def _readies(kit: RoomKit, peers: list[Peer]) -> None:
    """Each of ``peers`` readies for the room's next step, into the kit's open batch."""
    for peer in peers:
        step = kit.room(peer).game.steps
        kit.batch.add(kit.hub.handle(peer.conn, Ready(step=step), kit.now), kit.now)


def test_the_calls_of_a_batch_are_stored_by_one_commit() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    first, second = seated(kit, deal=11), seated(kit, deal=12)
    rooms = [kit.room(first[0]), kit.room(second[0])]
    commits, writes = store.commits, store.writes

    _readies(kit, first)
    _readies(kit, second)
    assert kit.batch.pending == 4
    # one write per room: each room's last record, against what the store holds
    changes = kit.batch.changes
    assert [c.record.room_id for c in changes if isinstance(c, Write)] == [
        room.room_id for room in rooms
    ]
    assert store.commits == commits  # nothing reached the store yet ...
    assert store.writes == writes
    released = kit.batch.commit(kit.now)
    assert store.commits == commits + 1  # ... and one commit stored it all
    assert store.writes == writes + 2
    for room in rooms:
        assert room.game.steps == 1
        assert same_state(room.record(), stored_record(store, room.room_id))
    kit.apply(released)
    kit.play_round_robin(first)
    kit.play_round_robin(second)
    assert game_events(first[0]) == expected_events(engine.Rules(), 11)
    assert game_events(second[1]) == expected_events(engine.Rules(), 12)


def test_a_failed_commit_rebuilds_every_room_of_the_batch() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    first, second = seated(kit, deal=21), seated(kit, deal=22)
    _readies(kit, first)
    kit.apply(kit.batch.commit(kit.now))  # one step, committed
    before = {p.conn: len(p.inbox) for p in first + second}
    stored = {r.room_id: r for r in store.load_all()}

    _readies(kit, first)
    _readies(kit, second[:1])
    assert len(kit.batch.changes) == 2  # a step and a ready, not yet stored
    store.broken = True
    released = kit.batch.commit(kit.now)
    # the held actions never go out: only the recovery's
    told = {a.conn for a in released if isinstance(a, Close)}
    assert told == {p.conn for p in first + second}
    assert all(
        isinstance(a, Close) or (isinstance(a, Send) and isinstance(a.message, Error))
        for a in released
    )
    kit.apply(released)
    for peer in first + second:
        news = peer.inbox[before[peer.conn] :]
        assert [type(m) for m in news] == [Error], news
        (error,) = news
        assert isinstance(error, Error)
        assert error.code == ErrorCode.STORE_UNAVAILABLE
        assert peer.closed == CloseCode.TRY_AGAIN_LATER
    assert kit.hub.store_failing
    assert {r.room_id: r for r in store.load_all()} == stored  # nothing of the batch
    for room_id, record in stored.items():
        room = kit.hub.room(room_id)
        assert room is not None
        assert same_state(room.record(), record)

    store.broken = False
    again = [kit.come_back(p) for p in first]
    assert kit.room(again[0]).game.steps == 1  # the committed step, not the batch's
    kit.play_round_robin(again)
    assert kit.room(again[0]).phase is RoomPhase.OVER
    events = game_events(first[0]) + game_events(again[0])
    assert events == expected_events(engine.Rules(), 21)
    assert not kit.hub.store_failing


def test_a_room_created_in_a_failed_batch_is_gone() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann = kit.connect()
    output = kit.hub.handle(ann.conn, CreateRoom(name="Ann", deal=5), kit.now)
    assert any(isinstance(a, Send) for a in output.actions)  # the welcome, held back
    kit.batch.add(output, kit.now)
    assert kit.hub.rooms == 1
    store.broken = True
    kit.apply(kit.batch.commit(kit.now))
    assert [m.TYPE for m in ann.inbox] == ["error"]  # no welcome, no token
    assert ann.closed == CloseCode.TRY_AGAIN_LATER
    assert kit.hub.rooms == 0
    assert store.load_all() == []
    store.broken = False
    again = kit.connect()
    kit.send(again, CreateRoom(name="Ann", deal=5))
    assert again.welcome.seat == 0
    assert len(store.load_all()) == 1
