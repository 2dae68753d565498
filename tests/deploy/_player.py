"""A bare protocol client for the deployment tests: open, send, wait for a message.

It speaks only through the protocol package's codec (protocol/PROTOCOL.md), over a
real WebSocket on loopback, and keeps every server message it received, in order.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ClientMessage,
    GameOver,
    PlayerOut,
    ServerMessage,
    Snapshot,
    WaitingFor,
    WarDeclared,
    Welcome,
    decode_server_message,
    encode,
)

__all__ = ["GAME_EVENTS", "MESSAGE_TIMEOUT", "GameEvent", "Peer", "peer"]

GameEvent = (
    CardsTurned | CardsLaidDown | WarDeclared | CardsTaken | CardsReturned | PlayerOut | GameOver
)
GAME_EVENTS = (
    CardsTurned,
    CardsLaidDown,
    WarDeclared,
    CardsTaken,
    CardsReturned,
    PlayerOut,
    GameOver,
)

MESSAGE_TIMEOUT = 20.0  # one expected message; generous for a shared 2-core machine
M = TypeVar("M")


@dataclass(slots=True)
class Peer:
    """One connection: a player or a spectator."""

    connection: ClientConnection
    received: list[ServerMessage] = field(default_factory=list)

    async def send(self, message: ClientMessage) -> None:
        """Encode and send one message as a binary frame."""
        await self.connection.send(encode(message))

    async def receive(self) -> ServerMessage:
        """The next server message, decoded (raises ProtocolError for a bad one)."""
        frame = await self.connection.recv()
        assert isinstance(frame, bytes), f"text frame from the server: {frame!r}"
        message = decode_server_message(frame)
        self.received.append(message)
        return message

    async def expect(self, kind: type[M], where: Callable[[M], bool] = lambda _: True) -> M:
        """Receive until a message of ``kind`` satisfying ``where``; return it.

        Raises TimeoutError after MESSAGE_TIMEOUT seconds, ConnectionClosed if the
        server closes first.
        """

        async def loop() -> M:
            while True:
                message = await self.receive()
                if isinstance(message, kind) and where(message):
                    return message

        return await asyncio.wait_for(loop(), MESSAGE_TIMEOUT)

    async def expect_waiting_for(self, seat: int) -> WaitingFor:
        """Wait until the game waits for ``seat``'s ready."""
        return await self.expect(WaitingFor, lambda m: seat in m.seats)

    async def expect_step(self, step: int) -> GameEvent:
        """Wait for a game event of step ``step`` or later."""

        async def loop() -> GameEvent:
            while True:
                message = await self.receive()
                if isinstance(message, GAME_EVENTS) and message.step >= step:
                    return message

        return await asyncio.wait_for(loop(), MESSAGE_TIMEOUT)

    @property
    def step(self) -> int:
        """The game's step as this peer knows it: the latest event's, or the snapshot's."""
        for message in reversed(self.received):
            if isinstance(message, GAME_EVENTS):
                return message.step
            if isinstance(message, Welcome | Snapshot):
                return message.state.step
        return 0

    @property
    def events(self) -> list[GameEvent]:
        """Every game event received, in order."""
        return [m for m in self.received if isinstance(m, GAME_EVENTS)]

    async def closed_with(self) -> int | None:
        """Read until the server closes; return its close code."""

        async def drain() -> None:
            while True:
                await self.receive()

        try:
            await asyncio.wait_for(drain(), MESSAGE_TIMEOUT)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        raise AssertionError("unreachable: drain() only ends by ConnectionClosed")


@asynccontextmanager
async def peer(port: int) -> AsyncIterator[Peer]:
    """A connection to ws://127.0.0.1:port/ (closed on exit)."""
    async with connect(f"ws://127.0.0.1:{port}/", open_timeout=MESSAGE_TIMEOUT) as connection:
        yield Peer(connection)
