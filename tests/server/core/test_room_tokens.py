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
    Ready,
    ResumeSeat,
    Resync,
    RoomPhase,
    SetAutoPlay,
    Welcome,
)
from server.adapters.store import SqliteStore
from server.core.actions import Action, Send
from server.core.codes import hash_token
from server.core.hub import HubSettings
from server.core.records import MemoryStore, SeatRecord
from server.errors import StoreError
from tests.server.core._roomkit import Bench, Peer, error_codes
from tests.server.core.test_room_play import seated


def _resume(bench: Bench, room_id: str, token: str) -> Peer:
    """A new connection resumes with ``token`` and reads its welcome."""
    peer = bench.connect()
    bench.send(peer, ResumeSeat(room=room_id, token=token))
    return peer


def _resume_unread(bench: Bench, room_id: str, token: str) -> tuple[Peer, str, list[Action]]:
    """A new connection resumes with ``token``; its welcome is *not* delivered.

    Returns the connection, the token the undelivered welcome carried and the hub's
    actions (not carried out: the caller decides what reaches whom).
    """
    peer = bench.connect()
    actions = bench.hub.handle(peer.conn, ResumeSeat(room=room_id, token=token), bench.now)
    welcomes = [
        a.message
        for a in actions
        if isinstance(a, Send) and isinstance(a.message, Welcome) and a.to == (peer.conn,)
    ]
    assert len(welcomes) == 1, actions
    token_sent = welcomes[0].token
    assert token_sent is not None
    return peer, token_sent, actions


def _welcome_lost(bench: Bench, room_id: str, token: str) -> str:
    """Resume with ``token`` on a connection that dies before its welcome is read (the
    others get what was sent to them); returns the token of the lost welcome."""
    peer, token_sent, actions = _resume_unread(bench, room_id, token)
    delivered: list[Action] = []
    for action in actions:
        if isinstance(action, Send):
            to = tuple(conn for conn in action.to if conn != peer.conn)
            if to:
                delivered.append(dataclasses.replace(action, to=to))
        else:
            delivered.append(action)
    bench.apply(delivered)
    bench.drop(peer)
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
    first = Bench(store=SqliteStore(path), now=1000.0)
    ann, ben = seated(first)
    room_id = ann.welcome.state.room
    first.send(ann, Ready(step=0))
    first.drop(ben)
    t0 = ben.welcome.token or ""
    _, t1, _ = _resume_unread(first, room_id, t0)
    # persist, then send: the new token is committed before the welcome carrying it leaves
    assert _stored_seat(path, 1) == (hash_token(t1), hash_token(t0))
    # kill -9 now: nothing of that call reaches anyone; the hub and its store are abandoned

    second = Bench(store=SqliteStore(path), now=1010.0, seed=1)
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
    bench = Bench(HubSettings(max_failed_joins=2))
    ann, ben = seated(bench)
    room_id = ann.welcome.state.room
    bench.drop(ben)
    t0 = ben.welcome.token or ""
    lost = [_welcome_lost(bench, room_id, t0) for _ in range(5)]
    assert len(set(lost)) == 5
    back = _resume(bench, room_id, t0)  # never counted as failures: no too_many_failures
    assert back.welcome.seat == 1
    for token in lost[:2]:  # dropped tokens are real bad tokens: counted
        assert error_codes(bench.send(bench.connect(), ResumeSeat(room=room_id, token=token))) == [
            "bad_token"
        ]
    actions = bench.send(bench.connect(), ResumeSeat(room=room_id, token=t0))
    assert error_codes(actions) == ["too_many_failures"]
    assert back.closed is None


def test_resuming_with_the_new_token_confirms_it() -> None:
    bench = Bench()
    ann, ben = seated(bench)
    room_id = ann.welcome.state.room
    bench.drop(ben)
    t0 = ben.welcome.token or ""
    back = _resume(bench, room_id, t0)
    t1 = back.welcome.token or ""
    bench.drop(back)  # gone before it sent anything
    again = _resume(bench, room_id, t1)
    assert again.welcome.seat == 1
    thief = bench.connect()
    assert error_codes(bench.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    assert again.closed is None
    assert bench.room(ann).seat_of(again.conn) == 1


@pytest.mark.parametrize(
    "message",
    [Resync(), Ready(step=0), Ready(step=7), SetAutoPlay(mode=AutoPlay.CALM)],
    ids=["resync", "ready", "stale-ready", "auto"],
)
def test_any_message_on_the_welcomed_connection_confirms_its_token(
    message: ClientMessage,
) -> None:
    bench = Bench()
    ann, ben = seated(bench)
    room_id = ann.welcome.state.room
    t0 = ben.welcome.token or ""
    back = _resume(bench, room_id, t0)
    assert ben.closed == CloseCode.REPLACED
    bench.send(back, message)  # a refused command (a stale ready) confirms as well
    thief = bench.connect()
    assert error_codes(bench.send(thief, ResumeSeat(room=room_id, token=t0))) == ["bad_token"]
    assert thief.closed == CloseCode.REFUSED
    assert back.closed is None
    assert bench.room(ann).seat_of(back.conn) == 1


def test_before_confirmation_the_earlier_token_takes_the_seat_only_openly() -> None:
    """A stolen earlier token, used before the rightful client spoke: the seat is never
    held twice, the client it replaced is told (4002), and its token stops working."""
    bench = Bench()
    ann, ben = seated(bench)
    room = bench.room(ann)
    room_id = room.room_id
    t0 = ben.welcome.token or ""
    rightful = _resume(bench, room_id, t0)
    t1 = rightful.welcome.token or ""
    mark = len(ann.inbox)
    taker = _resume(bench, room_id, t0)
    assert taker.welcome.seat == 1
    assert rightful.closed == CloseCode.REPLACED
    assert room.seat_of(taker.conn) == 1
    assert room.seat_of(rightful.conn) is None
    assert ann.inbox[mark:] == []  # the seat never looked away
    actions = bench.send(bench.connect(), ResumeSeat(room=room_id, token=t1))
    assert error_codes(actions) == ["bad_token"]
    assert taker.closed is None


class _FlakySeats(MemoryStore):
    """A store whose seat writes fail while ``broken``."""

    broken = False

    def update_seats(self, room_id: str, seats: tuple[SeatRecord, ...], seq: int) -> None:
        if self.broken:
            raise StoreError("disk full")
        super().update_seats(room_id, seats, seq)


def test_a_failed_token_write_changes_nothing() -> None:
    store = _FlakySeats()
    bench = Bench(store=store)
    ann, ben = seated(bench)
    room_id = ann.welcome.state.room
    bench.drop(ben)
    t0 = ben.welcome.token or ""
    store.broken = True
    failed = bench.connect()
    assert error_codes(bench.send(failed, ResumeSeat(room=room_id, token=t0))) == ["internal_error"]
    assert failed.closed == CloseCode.INTERNAL_ERROR
    store.broken = False
    back = _resume(bench, room_id, t0)  # the seat kept the token the store holds
    t1 = back.welcome.token or ""
    store.broken = True
    assert error_codes(bench.send(back, Resync())) == ["internal_error"]  # not confirmed
    store.broken = False
    assert _resume(bench, room_id, t0).welcome.seat == 1  # so t0 still resumes (t1 dropped)
    assert error_codes(bench.send(bench.connect(), ResumeSeat(room=room_id, token=t1))) == [
        "bad_token"
    ]


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
        self.bench = Bench(store=self.store)
        self.ann, ben = seated(self.bench)
        self.room_id = self.ann.welcome.state.room
        self.ann_token = self.ann.welcome.token or ""
        self.held = ben.welcome.token or ""
        self.conn: Peer | None = ben
        self.allowed = {self.held}
        self.steps = 0

    def apply(self, op: str) -> None:
        bench = self.bench
        if op == "restart":  # kill -9: abandon the hub, start another on the same store
            self.seed += 1
            self.bench = Bench(store=self.store, now=bench.now + 1, seed=self.seed)
            self.conn = None
            self.ann = _resume(self.bench, self.room_id, self.ann_token)
            self.ann_token = self.ann.welcome.token or ""
            self.bench.send(self.ann, Resync())
        elif op == "drop" and self.conn is not None:
            bench.drop(self.conn)
            self.conn = None
        elif op == "lost":
            lost = _welcome_lost(bench, self.room_id, self.held)
            self.conn = None
            self.allowed = {self.held, lost}
        elif op == "resume":
            peer = _resume(bench, self.room_id, self.held)
            assert peer.welcome.seat == 1, peer.inbox
            self.allowed = {self.held, peer.welcome.token or ""}
            self.held = peer.welcome.token or ""
            self.conn = peer
        elif op == "speak" and self.conn is not None:
            bench.send(self.conn, Resync())
            self.allowed = {self.held}
        elif op == "play" and self.conn is not None:
            room = bench.room(self.ann)
            playing = room.phase is RoomPhase.PLAYING
            for peer in (self.ann, self.conn):
                bench.send(peer, Ready(step=self.steps))
            assert room.game.steps == self.steps + playing
            self.steps = room.game.steps
            self.allowed = {self.held}

    def check(self) -> None:
        (record,) = self.store.load_all()
        seat = record.seats[1]
        accepted = {seat.token_hash, seat.previous_token_hash} - {None}
        assert hash_token(self.held) in accepted  # the client can always come back
        assert accepted <= {hash_token(t) for t in self.allowed}  # and nobody else
        room = self.bench.room(self.ann)
        holders = [p for p in self.bench.peers.values() if p.closed is None]
        assert sum(room.seat_of(p.conn) == 1 for p in holders) <= 1
        assert room.game.steps == record.game.steps == self.steps


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_lost_welcomes_and_restarts_never_lock_a_seat_out(ops: list[str]) -> None:
    model = _Model()
    for op in ops:
        model.apply(op)
        model.check()
    back = _resume(model.bench, model.room_id, model.held)
    assert back.welcome.seat == 1
    assert back.welcome.state.step == model.steps
