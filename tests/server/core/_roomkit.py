"""The room test kit: the sans-I/O hub on a fake clock, fake connections, and inboxes.

Every `Output` the hub returns is applied here as the app applies it: its changes are
committed to the kit's store by the app's own batch (`server.adapters.ws.batch.Batch`, one
batch per hub call here), the hub is told, and the actions it releases are carried
out: a `Send` appends the message to each recipient's inbox (after an encode/decode
round trip through the real codec, so whatever the hub sends is valid on the wire), a
`Close` records the code and ends the connection (and tells the hub, as the app does).
Each connection also checks the protocol's seq rule: after its ``welcome``, room
messages arrive with seq +1 each.

Shared helpers of the room tests live here too: `seated` (a room with every seat taken),
`expected_events` (a whole game's event messages, from the engine through the server's
own mapping `server.core.room.wire`) and `game_events` (the event messages a peer received).
The engine's independent oracle is the reference game of
``tests/server/engine/test_engine_tiny.py``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ClientMessage,
    CreateRoom,
    Error,
    ErrorCode,
    GameOver,
    JoinRoom,
    PlayerOut,
    Ready,
    ResumeSeat,
    RulesSpec,
    SecondPathReady,
    ServerMessage,
    Snapshot,
    WarDeclared,
    Welcome,
    decode_server_message,
    encode,
)
from protocol.seat_requests import SeatRequestWaiting
from server import engine
from server.adapters.ws.batch import Batch
from server.core.hub.hub import Hub
from server.core.logger import Logger
from server.core.room.actions import Action, Close, Output, Send
from server.core.room.records import RoomRecord
from server.core.room.room import Room
from server.core.room.wire import event_message
from server.core.settings import HubSettings
from tests._kit.stores import MemoryStore

if TYPE_CHECKING:
    from server.adapters.store.sqlite import Store

__all__ = [
    "GAME_EVENTS",
    "Peer",
    "RoomKit",
    "SeededSource",
    "error_codes",
    "expected_events",
    "game_events",
    "seated",
    "stored_record",
]

M = TypeVar("M")


class SeededSource:
    """A reproducible `RandomSource` for tests (never for real codes or tokens)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randbelow(self, exclusive_upper_bound: int, /) -> int:
        return self._random.randrange(exclusive_upper_bound)

    def token_bytes(self, nbytes: int | None = None, /) -> bytes:
        return self._random.randbytes(32 if nbytes is None else nbytes)


@dataclass
class Peer:
    """One fake connection: what it received, and how it was closed."""

    conn: int
    address: str
    inbox: list[ServerMessage] = field(default_factory=list)
    closed: int | None = None
    last_seq: int | None = None
    gaps: list[tuple[int, int]] = field(default_factory=list)
    last_welcome: Welcome | None = None

    def receive(self, message: ServerMessage) -> None:
        self.inbox.append(message)
        if isinstance(message, Welcome):
            self.last_welcome = message
        if isinstance(message, Welcome | Snapshot | SeatRequestWaiting):
            self.last_seq = message.seq
        elif not isinstance(message, Error | SecondPathReady):
            if self.last_seq is None or message.seq != self.last_seq + 1:
                self.gaps.append((self.last_seq or 0, message.seq))
            self.last_seq = message.seq

    @property
    def welcome(self) -> Welcome:
        """The last welcome received."""
        if self.last_welcome is None:
            raise AssertionError(f"conn {self.conn} got no welcome: {self.inbox}")
        return self.last_welcome

    def errors(self) -> list[str]:
        """Codes of the errors received, in order."""
        return [m.code for m in self.inbox if isinstance(m, Error)]

    def room_messages(self) -> list[Any]:
        """Room messages (everything but welcome, snapshot and error), in order."""
        return [m for m in self.inbox if not isinstance(m, Welcome | Snapshot | Error)]

    def of(self, kind: type[M]) -> list[M]:
        """Messages of one kind, in order."""
        return [m for m in self.inbox if isinstance(m, kind)]

    def take(self) -> list[ServerMessage]:
        """Empty the inbox and return what it held."""
        taken, self.inbox = self.inbox, []
        return taken


class RoomKit:
    """A hub on a fake clock with fake connections."""

    def __init__(
        self,
        settings: HubSettings | None = None,
        *,
        store: Store | None = None,
        now: float = 1_000_000.0,
        seed: int = 0,
        logger: Logger | None = None,
    ) -> None:
        self.now = now
        self.store: Store = MemoryStore() if store is None else store
        self.settings = HubSettings() if settings is None else settings
        self.hub = Hub(
            self.store.load_all(),
            self.settings,
            now=now,
            random=SeededSource(seed),
            logger=logger,
        )
        self.batch = Batch(self.store, self.hub)
        self.peers: dict[int, Peer] = {}
        self._next_conn = 1
        self.actions: list[Action] = []

    # --------------------------------------------------------------- connections
    def connect(self, address: str = "127.0.0.1") -> Peer:
        peer = Peer(self._next_conn, address)
        self._next_conn += 1
        self.peers[peer.conn] = peer
        self.apply(self.hub.connect(peer.conn, address, self.now))
        return peer

    def send(self, peer: Peer, message: ClientMessage) -> list[Action]:
        assert peer.closed is None, f"conn {peer.conn} is closed ({peer.closed})"
        return self.apply(self.hub.handle(peer.conn, message, self.now))

    def drop(self, peer: Peer) -> list[Action]:
        """The connection ends without a close from the server (network drop)."""
        peer.closed = peer.closed or 1006
        return self.apply(self.hub.disconnect(peer.conn, self.now))

    def apply(self, output: Output | Iterable[Action]) -> list[Action]:
        """Commit a hub call's ``output`` (as the app does) and carry out the actions it
        releases, or carry out ``actions`` as they are; returns what was carried out."""
        done = self.commit(output) if isinstance(output, Output) else list(output)
        self.actions += done
        for action in done:
            if isinstance(action, Send):
                wire = decode_server_message(encode(action.message))
                for conn in action.to:
                    target = self.peers[conn]
                    assert target.closed is None, f"sent to closed conn {conn}: {action}"
                    target.receive(wire)
            else:
                assert isinstance(action, Close)
                target = self.peers[action.conn]
                assert target.closed is None, f"closed twice: {action}"
                target.closed = action.code
                self.apply(self.hub.disconnect(action.conn, self.now))
        return done

    def commit(self, output: Output) -> list[Action]:
        """Commit a hub call's ``output`` as the app does (a batch of its own); return
        the actions it releases, not carried out."""
        self.batch.add(output, self.now)
        return self.batch.commit(self.now)

    # --------------------------------------------------------------- the clock
    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds``, waking the hub at each deadline on the way."""
        self.run_until(self.now + seconds)

    def run_until(self, when: float, stop: Callable[[], bool] | None = None) -> None:
        """Wake the hub at every deadline up to ``when`` (or until ``stop()``)."""
        while stop is None or not stop():
            due = self.hub.next_deadline()
            if due is None or due > when:
                break
            self.now = max(self.now, due)
            self.apply(self.hub.wake(self.now))
        if stop is None or not stop():
            self.now = max(self.now, when)
            self.apply(self.hub.wake(self.now))

    # --------------------------------------------------------------- shortcuts
    def resume(self, room_id: str, token: str) -> Peer:
        """A new connection resumes a seat of ``room_id`` with ``token``."""
        peer = self.connect()
        self.send(peer, ResumeSeat(room=room_id, token=token))
        return peer

    def come_back(self, peer: Peer) -> Peer:
        """A new connection resumes ``peer``'s seat with the token of its last welcome."""
        welcome = peer.welcome
        assert welcome.token is not None, f"conn {peer.conn} holds no seat"
        return self.resume(welcome.state.room, welcome.token)

    def room(self, peer: Peer) -> Room:
        room = self.hub.room(peer.welcome.state.room)
        assert room is not None
        return room

    def play_round_robin(self, peers: list[Peer], max_steps: int = 100_000) -> None:
        """Every awaited seat of ``peers`` readies until the game is over (or ``max_steps``).

        Seats that play by themselves (computer, auto-play) are left to the clock.
        """
        room = self.room(peers[0])
        by_seat = {room.seat_of(p.conn): p for p in peers}
        while room.phase == "playing" and room.game.steps < max_steps:
            step = room.game.steps
            for seat in room.waiting_for():
                peer = by_seat.get(seat)
                if peer is not None:
                    self.send(peer, Ready(step=step))
                if room.game.steps != step:
                    break
            if room.game.steps == step:  # the rest play by themselves: let time pass
                due = self.hub.next_deadline()
                assert due is not None, f"step {step} waits for seats nobody plays"
                self.run_until(due)


def error_codes(actions: Iterable[Action]) -> list[ErrorCode | str]:
    """Codes of the errors among ``actions``."""
    return [a.message.code for a in actions if isinstance(a, Send) and isinstance(a.message, Error)]


def seated(kit: RoomKit, players: int = 2, deal: int | None = 90210, **create: Any) -> list[Peer]:
    """A room of ``players`` humans, every seat taken: [creator, joiner, …]."""
    peers = [kit.connect() for _ in range(players)]
    rules = create.pop("rules", RulesSpec(players=players))
    kit.send(peers[0], CreateRoom(name="Ann", rules=rules, deal=deal, **create))
    code = peers[0].welcome.player_code
    assert code is not None
    for number, peer in enumerate(peers[1:], start=1):
        kit.send(peer, JoinRoom(code=code, name=f"P{number}"))
    return peers


GAME_EVENTS = (
    CardsTurned,
    CardsLaidDown,
    WarDeclared,
    CardsTaken,
    CardsReturned,
    PlayerOut,
    GameOver,
)
"""The room messages that mirror the engine's events."""


def stored_record(store: Store, room_id: str) -> RoomRecord:
    """The record of ``room_id`` that ``store`` holds (exactly one)."""
    (record,) = [r for r in store.load_all() if r.room_id == room_id]
    return record


def expected_events(rules: engine.Rules, deal: int) -> list[ServerMessage]:
    """A whole game's event messages, as the server maps them (seq 0 in each)."""
    game = engine.Game(rules, deal)
    out: list[ServerMessage] = []
    while game.outcome is None:
        out += [event_message(event, game, 0) for event in game.step()]
    return out


def game_events(peer: Peer) -> list[ServerMessage]:
    """The event messages ``peer`` received, in order, with seq 0 (see `expected_events`),
    and a ``game_over`` without its ``evening`` (the room's, not the game's) and its fair
    deal's reveal (tests/server/core/test_fairdeal.py checks that)."""
    return [
        dataclasses.replace(m, seq=0, evening=(), fairness=None)
        if isinstance(m, GameOver)
        else dataclasses.replace(m, seq=0)
        for m in peer.inbox
        if isinstance(m, GAME_EVENTS)
    ]
