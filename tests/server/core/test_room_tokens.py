"""Seat tokens across lost welcomes and restarts: the token a seat was resumed with stays
accepted until the new one is confirmed, so a kill -9 between storing a new token and the
client reading it never locks a seat out; once confirmed, the earlier token is refused."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import (
    AutoPlay,
    ClientMessage,
    CloseCode,
    ConnectionChanged,
    ErrorCode,
    ProtocolError,
    Ready,
    ResumeSeat,
    Resync,
    RoomPhase,
    SetAutoPlay,
    WatchRoom,
    Welcome,
)
from server.adapters.store.sqlite import SqliteStore
from server.core.codes import hash_token
from server.core.room.actions import Action, Send
from server.core.settings import HubSettings
from tests._kit.stores import FlakyStore, MemoryStore
from tests.server.core._roomkit import Peer, RoomKit, error_codes, seated


def _resume(kit: RoomKit, room_id: str, token: str) -> Peer:
    """A new connection resumes with ``token`` and reads its welcome."""
    peer = kit.connect()
    kit.send(peer, ResumeSeat(room=room_id, token=token))
    return peer


def _resume_unread(kit: RoomKit, room_id: str, token: str) -> tuple[Peer, str, list[Action]]:
    """A new connection resumes with ``token``; its welcome is *not* delivered.

    Returns the connection, the token the undelivered welcome carried and the hub's
    actions (not carried out: the caller decides what reaches whom).
    """
    peer = kit.connect()
    actions = kit.commit(kit.hub.handle(peer.conn, ResumeSeat(room=room_id, token=token), kit.now))
    welcomes = [
        a.message
        for a in actions
        if isinstance(a, Send) and isinstance(a.message, Welcome) and a.to == (peer.conn,)
    ]
    assert len(welcomes) == 1, actions
    token_sent = welcomes[0].token
    assert token_sent is not None
    return peer, token_sent, actions


def _welcome_lost(kit: RoomKit, room_id: str, token: str) -> str:
    """Resume with ``token`` on a connection that dies before its welcome is read (the
    others get what was sent to them); returns the token of the lost welcome."""
    peer, token_sent, actions = _resume_unread(kit, room_id, token)
    delivered: list[Action] = []
    for action in actions:
        if isinstance(action, Send):
            to = tuple(conn for conn in action.to if conn != peer.conn)
            if to:
                delivered.append(dataclasses.replace(action, to=to))
        else:
            delivered.append(action)
    kit.apply(delivered)
    kit.drop(peer)
    return token_sent


def _stored_seat(path: Path, seat: int) -> tuple[str | None, str | None]:
    """(token hash, previous token hash) as committed in the file (another connection)."""
    db = sqlite3.connect(path)
    try:
        row = db.execute(
            "SELECT token_hash, previous_token_hash FROM seats WHERE seat = ?", (seat,)
        ).fetchone()
    finally:
        db.close()
    return row[0], row[1]


def test_a_kill_after_the_new_token_was_stored_but_before_its_welcome_was_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "war.db"
    first = RoomKit(store=SqliteStore(path), now=1000.0)
    ann, ben = seated(first)
    room_id = ann.welcome.state.room
    first.send(ann, Ready(step=0))
    first.drop(ben)
    t0 = ben.welcome.token or ""
    _, t1, _ = _resume_unread(first, room_id, t0)
    # persist, then send: the new token is committed before the welcome carrying it leaves
    assert _stored_seat(path, 1) == (hash_token(t1), hash_token(t0))
    # kill -9 now: nothing of that call reaches anyone; the hub and its store are abandoned

    second = RoomKit(store=SqliteStore(path), now=1010.0, seed=1)
    ann2 = _resume(second, room_id, ann.welcome.token or "")
    ben2 = _resume(second, room_id, t0)  # all Ben's client has: accepted
    welcome = ben2.welcome
    assert welcome.seat == 1
    assert welcome.token not in (None, t0, t1)
    assert ann2.of(ConnectionChanged)[-1] == ConnectionChanged(
        seq=welcome.seq, seat=1, connected=True
    )
    # the token of the lost welcome was dropped: refused, and the seat stays with ben2
    thief = second.connect()
    actions = second.send(thief, ResumeSeat(room=room_id, token=t1))
    assert error_codes(actions) == ["bad_token"]
    assert thief.closed == CloseCode.REFUSED
    assert ben2.closed is None
    room = second.room(ann2)
    assert room.seat_of(ben2.conn) == 1
    # the game carries on from where it was
    for peer in (ann2, ben2):
        second.send(peer, Ready(step=0))
    assert room.game.steps == 1
    assert ann2.gaps == ben2.gaps == []
    # Ben has spoken on the connection that got the new token: t0 is spent now
    assert _stored_seat(path, 1) == (hash_token(welcome.token or ""), None)
    actions = second.send(second.connect(), ResumeSeat(room=room_id, token=t0))
    assert error_codes(actions) == ["bad_token"]
    assert ben2.closed is None


def test_every_lost_welcome_in_a_row_still_leaves_the_first_token_working() -> None:
    kit = RoomKit(HubSettings(max_failed_joins=2))
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    kit.drop(ben)
    t0 = ben.welcome.token or ""
    lost = [_welcome_lost(kit, room_id, t0) for _ in range(5)]
    assert len(set(lost)) == 5
    back = _resume(kit, room_id, t0)  # never counted as failures: no too_many_failures
    assert back.welcome.seat == 1
    for token in lost[:2]:  # dropped tokens are real bad tokens: counted
        assert error_codes(kit.send(kit.connect(), ResumeSeat(room=room_id, token=token))) == [
            "bad_token"
        ]
    actions = kit.send(kit.connect(), ResumeSeat(room=room_id, token=t0))
    assert error_codes(actions) == ["too_many_failures"]
    assert back.closed is None


def test_resuming_with_the_new_token_confirms_it() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    kit.drop(ben)
    t0 = ben.welcome.token or ""
    back = _resume(kit, room_id, t0)
    t1 = back.welcome.token or ""
    kit.drop(back)  # gone before it sent anything
    again = _resume(kit, room_id, t1)
    assert again.welcome.seat == 1
    thief = kit.connect()
    assert error_codes(kit.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    assert again.closed is None
    assert kit.room(ann).seat_of(again.conn) == 1


@pytest.mark.parametrize(
    "message",
    [Resync(), Ready(step=0), Ready(step=7), SetAutoPlay(mode=AutoPlay.CALM)],
    ids=["resync", "ready", "stale-ready", "auto"],
)
def test_any_message_on_the_welcomed_connection_confirms_its_token(
    message: ClientMessage,
) -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    t0 = ben.welcome.token or ""
    back = _resume(kit, room_id, t0)
    assert ben.closed == CloseCode.REPLACED
    kit.send(back, message)  # a refused command (a stale ready) confirms as well
    thief = kit.connect()
    assert error_codes(kit.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    assert thief.closed == CloseCode.REFUSED
    assert back.closed is None
    assert kit.room(ann).seat_of(back.conn) == 1


@pytest.mark.parametrize(
    "error",
    [
        ProtocolError(ErrorCode.MALFORMED, "truncated msgpack"),
        ProtocolError(ErrorCode.UNKNOWN_TYPE, "unknown message type 'flp'"),
        ProtocolError(ErrorCode.BAD_VALUE, "ready.step must be an int, not 'x'"),
        ProtocolError(ErrorCode.MISSING_FIELD, "ready needs step"),
    ],
    ids=lambda error: error.code.value,
)
def test_a_frame_that_does_not_decode_confirms_the_token_too(
    error: ProtocolError, tmp_path: Path
) -> None:
    kit = RoomKit(store=SqliteStore(tmp_path / "war.db"))
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    t0 = ben.welcome.token or ""
    back = _resume(kit, room_id, t0)
    kit.apply(kit.hub.refuse(back.conn, error, kit.now))
    assert back.errors() == [error.code.value]
    assert back.closed is None
    thief = kit.connect()
    assert error_codes(kit.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    # stored before the error went out: a restart does not bring the earlier token back
    kit.store.close()
    later = RoomKit(store=SqliteStore(tmp_path / "war.db"), now=kit.now + 1)
    thief = later.connect()
    assert error_codes(later.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]


def test_a_second_opening_message_confirms_the_token_too() -> None:
    kit = RoomKit()
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    t0 = ben.welcome.token or ""
    back = _resume(kit, room_id, t0)
    again = ResumeSeat(room=room_id, token=back.welcome.token or "")
    assert error_codes(kit.send(back, again)) == ["already_in_room"]
    assert back.closed is None
    thief = kit.connect()
    assert error_codes(kit.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    assert kit.room(ann).seat_of(back.conn) == 1


def test_a_bad_frame_whose_confirmation_cannot_be_stored_sends_the_client_back() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    t0 = ben.welcome.token or ""
    back = _resume(kit, room_id, t0)
    store.broken = True
    kit.apply(kit.hub.refuse(back.conn, ProtocolError(ErrorCode.MALFORMED, "no"), kit.now))
    assert back.errors() == ["store_unavailable"]
    assert back.closed == CloseCode.TRY_AGAIN_LATER
    store.broken = False
    again = _resume(kit, room_id, t0)  # nothing was stored: the earlier token still works
    assert again.welcome.seat == 1


def test_a_spectators_bad_frame_changes_nothing_in_the_room() -> None:
    kit = RoomKit()
    ann, _ = seated(kit)
    watcher = kit.connect()
    kit.send(watcher, WatchRoom(code=ann.welcome.watch_code or ""))
    record = kit.room(ann).record()
    kit.apply(kit.hub.refuse(watcher.conn, ProtocolError(ErrorCode.MALFORMED, "no"), kit.now))
    assert kit.room(ann).record() is record


def test_before_confirmation_the_earlier_token_takes_the_seat_only_openly() -> None:
    """A stolen earlier token, used before the rightful client spoke: the seat is never
    held twice, the client it replaced is told (4002), and its token stops working."""
    kit = RoomKit()
    ann, ben = seated(kit)
    room = kit.room(ann)
    room_id = room.room_id
    t0 = ben.welcome.token or ""
    rightful = _resume(kit, room_id, t0)
    t1 = rightful.welcome.token or ""
    mark = len(ann.inbox)
    taker = _resume(kit, room_id, t0)
    assert taker.welcome.seat == 1
    assert rightful.closed == CloseCode.REPLACED
    assert room.seat_of(taker.conn) == 1
    assert room.seat_of(rightful.conn) is None
    assert ann.inbox[mark:] == []  # the seat never looked away
    actions = kit.send(kit.connect(), ResumeSeat(room=room_id, token=t1))
    assert error_codes(actions) == ["bad_token"]
    assert taker.closed is None


def test_a_failed_token_write_changes_nothing() -> None:
    store = FlakyStore()
    kit = RoomKit(store=store)
    ann, ben = seated(kit)
    room_id = ann.welcome.state.room
    kit.drop(ben)
    t0 = ben.welcome.token or ""
    store.broken = True
    failed = kit.connect()
    assert error_codes(kit.send(failed, ResumeSeat(room=room_id, token=t0))) == [
        "store_unavailable",
        "store_unavailable",  # Ann, in the room too, is asked to come back as well
    ]
    assert failed.closed == ann.closed == CloseCode.TRY_AGAIN_LATER
    store.broken = False
    back = _resume(kit, room_id, t0)  # the seat kept the token the store holds
    t1 = back.welcome.token or ""
    store.broken = True
    assert error_codes(kit.send(back, Resync())) == ["store_unavailable"]  # not confirmed
    store.broken = False
    assert _resume(kit, room_id, t0).welcome.seat == 1  # so t0 still resumes (t1 dropped)
    assert error_codes(kit.send(kit.connect(), ResumeSeat(room=room_id, token=t1))) == ["bad_token"]


# --- property: whatever happens, the client comes back, and only its tokens work --------

_OPS = st.lists(
    st.sampled_from(["lost", "resume", "speak", "drop", "restart", "play"]), max_size=25
)


class _Model:
    """Ben's client as it really is: the token it holds, its connection, and what the
    server may still accept from it."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.seed = 0
        self.kit = RoomKit(store=self.store)
        self.ann, ben = seated(self.kit)
        self.room_id = self.ann.welcome.state.room
        self.ann_token = self.ann.welcome.token or ""
        self.held = ben.welcome.token or ""
        self.conn: Peer | None = ben
        self.allowed = {self.held}
        self.steps = 0

    def apply(self, op: str) -> None:
        kit = self.kit
        if op == "restart":  # kill -9: abandon the hub, start another on the same store
            self.seed += 1
            self.kit = RoomKit(store=self.store, now=kit.now + 1, seed=self.seed)
            self.conn = None
            self.ann = _resume(self.kit, self.room_id, self.ann_token)
            self.ann_token = self.ann.welcome.token or ""
            self.kit.send(self.ann, Resync())
        elif op == "drop" and self.conn is not None:
            kit.drop(self.conn)
            self.conn = None
        elif op == "lost":
            lost = _welcome_lost(kit, self.room_id, self.held)
            self.conn = None
            self.allowed = {self.held, lost}
        elif op == "resume":
            peer = _resume(kit, self.room_id, self.held)
            assert peer.welcome.seat == 1, peer.inbox
            self.allowed = {self.held, peer.welcome.token or ""}
            self.held = peer.welcome.token or ""
            self.conn = peer
        elif op == "speak" and self.conn is not None:
            kit.send(self.conn, Resync())
            self.allowed = {self.held}
        elif op == "play" and self.conn is not None:
            room = kit.room(self.ann)
            playing = room.phase is RoomPhase.PLAYING
            for peer in (self.ann, self.conn):
                kit.send(peer, Ready(step=self.steps))
            assert room.game.steps == self.steps + playing
            self.steps = room.game.steps
            self.allowed = {self.held}

    def check(self) -> None:
        (record,) = self.store.load_all()
        seat = record.seats[1]
        accepted = {seat.token_hash, seat.previous_token_hash} - {None}
        assert hash_token(self.held) in accepted  # the client can always come back
        assert accepted <= {hash_token(t) for t in self.allowed}  # and nobody else
        room = self.kit.room(self.ann)
        holders = [p for p in self.kit.peers.values() if p.closed is None]
        assert sum(room.seat_of(p.conn) == 1 for p in holders) <= 1
        assert room.game.steps == record.game.steps == self.steps


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_lost_welcomes_and_restarts_never_lock_a_seat_out(ops: list[str]) -> None:
    model = _Model()
    for op in ops:
        model.apply(op)
        model.check()
    back = _resume(model.kit, model.room_id, model.held)
    assert back.welcome.seat == 1
    assert back.welcome.state.step == model.steps
