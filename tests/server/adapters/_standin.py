"""Stand-in Hubs for transport tests, so that only the app is under test.

`BaseHub` holds what every stand-in shares (and a `MemoryStore` of its own, which the
server closes when it stops); `StandInHub` is the one these tests use:

``watch_room`` opens a connection (a snapshot back); ``resync`` answers with ``burst``
snapshots to the sender (a spectator asking for the room again and again); ``ready``
closes the sender with 4001 (as an abuse close would). Every disconnect is counted and
sets `StandInHub.gone` (and every ``watch_room`` sets `StandInHub.opened`), which tests
await instead of sleeping.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from protocol import (
    ClientMessage,
    CloseCode,
    ProtocolError,
    Ready,
    Resync,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    Snapshot,
    WatchRoom,
)
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.ws.app import WarServer
from server.core.room.actions import Action, Change, Close, ConnId, Output, Send
from tests._kit.stores import MemoryStore

__all__ = ["STATE", "BaseHub", "StandInHub", "output", "standin_server"]

STATE = RoomState(
    room="r1",
    phase=RoomPhase.WAITING,
    rules=RulesSpec(),
    seats=(SeatState(seat=0, name="Ann"), SeatState(seat=1, name="Ben")),
)


def output(*actions: Action) -> Output:
    """A stand-in's answer: ``actions``, and nothing to store."""
    return Output(list(actions), [])


class BaseHub:
    """What every stand-in Hub of these tests shares: one room ``r1``, which holds the
    connections in `open`; no deadlines; refusals answered with nothing."""

    def __init__(self) -> None:
        self.open: set[ConnId] = set()
        self.known: set[ConnId] = set()
        self.store = MemoryStore()

    @property
    def closed(self) -> bool:
        """The server closed this hub's store (it stopped)."""
        return self.store.closed

    def connect(self, conn: ConnId, peer: str, now: float) -> Output:
        self.known.add(conn)
        return output()

    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> Output:
        return output()

    def disconnect(self, conn: ConnId, now: float) -> Output:
        self.open.discard(conn)
        self.known.discard(conn)
        return output()

    def wake(self, now: float) -> Output:
        return output()

    def committed(self, changes: list[Change]) -> None:
        pass

    def failed(self, error: Exception, changes: list[Change], now: float) -> Output:
        return output()

    def next_deadline(self) -> float | None:
        return None

    def where(self, conn: ConnId) -> tuple[str, int | None] | None:
        return ("r1", None) if conn in self.open else None

    @property
    def rooms(self) -> int:
        return 1

    @property
    def connections(self) -> int:
        return len(self.known)

    @property
    def store_failing(self) -> bool:
        return False


class StandInHub(BaseHub):
    """See the module docstring."""

    def __init__(self, burst: int = 1) -> None:
        super().__init__()
        self.burst = burst
        self.disconnects = 0
        self.gone = asyncio.Event()
        self.opened = asyncio.Event()

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        if isinstance(message, WatchRoom):
            self.open.add(conn)
            self.opened.set()
            return output(Send((conn,), Snapshot(seq=0, state=STATE)))
        if isinstance(message, Resync):
            return output(*(Send((conn,), Snapshot(seq=0, state=STATE)) for _ in range(self.burst)))
        if isinstance(message, Ready):
            return output(Close(conn, CloseCode.RATE_LIMITED, "rate limit exceeded"))
        return output()

    def disconnect(self, conn: ConnId, now: float) -> Output:
        self.disconnects += 1
        self.gone.set()
        return super().disconnect(conn, now)


@asynccontextmanager
async def standin_server(
    tmp_path: Path, hub: StandInHub | None = None, /, **changes: Any
) -> AsyncIterator[tuple[WarServer, StandInHub]]:
    """The real app on 127.0.0.1 and a free port over a `StandInHub` (``changes``:
    Settings fields)."""
    the_hub = hub if hub is not None else StandInHub()
    values: dict[str, Any] = {"port": 0, "db": tmp_path / "unused.sqlite3"}
    values.update(changes)
    async with serving(Settings(**values), hub=the_hub, store=the_hub.store) as server:
        yield server, the_hub
