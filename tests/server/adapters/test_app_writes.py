"""server.adapters.ws.app writes each connection's frames of one Hub call together, in order.

A stand-in Hub answers one ``resync`` with three room messages to every open connection
(as a step does: two game events and a ``waiting_for``), and ``vote_finish`` with an
error and a close. The server side's transport writes are counted: one per connection
per Hub call, the frames in order, and frames queued before a close go out before it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import websockets.asyncio.client

from protocol import (
    ClientMessage,
    CloseCode,
    Error,
    Resync,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    VoteFinish,
    WaitingFor,
    WatchRoom,
    decode_server_message,
    encode,
)
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.ws.app import WarServer
from server.core.room.actions import Close, ConnId, Output, Send
from tests.e2e._client import Client
from tests.server.adapters._standin import BaseHub, output

STATE = RoomState(
    room="r1",
    phase=RoomPhase.WAITING,
    rules=RulesSpec(),
    seats=(SeatState(seat=0), SeatState(seat=1)),
)


class BurstHub(BaseHub):
    """Answers ``resync`` with three room messages to everyone, ``vote_finish`` with an
    error and a close (4003) to the sender."""

    def __init__(self) -> None:
        super().__init__()
        self.seq = 0

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        if isinstance(message, WatchRoom):
            self.open.add(conn)
            return output(Send((conn,), Snapshot(seq=self.seq, state=STATE)))
        everyone = tuple(sorted(self.open))
        if isinstance(message, Resync):
            self.seq += 3
            return output(
                Send(everyone, SpectatorsChanged(seq=self.seq - 2, count=len(everyone))),
                Send(everyone, TimeUp(seq=self.seq - 1)),
                Send(everyone, WaitingFor(seq=self.seq, seats=(0, 1))),
            )
        if isinstance(message, VoteFinish):
            return output(
                Send((conn,), Error(code="game_over", message="bye")),
                Close(conn, CloseCode.ROOM_CLOSED, "room closed"),
                Send(everyone, WaitingFor(seq=self.seq, seats=())),
            )
        return output()


@asynccontextmanager
async def burst_server(tmp_path: Path) -> AsyncIterator[WarServer]:
    settings = Settings(port=0, db=tmp_path / "unused.sqlite3")
    async with serving(settings, hub=BurstHub()) as server:
        yield server


async def watching(server: WarServer) -> Client:
    client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
    await client.send(WatchRoom(code="WATCH-CODE"))
    await client.expect(Snapshot)
    return client


def count_writes(server: WarServer) -> list[Any]:
    """Record every write on the server side of each open connection."""
    writes: list[Any] = []
    for ws in server._sockets.values():
        transport: Any = ws.transport
        original = transport.write

        def counted(data: bytes, _original: Any = original, _ws: Any = ws) -> None:
            writes.append((_ws, bytes(data)))
            _original(data)

        transport.write = counted
    return writes


async def test_one_hub_call_is_one_write_per_connection(tmp_path: Path) -> None:
    async with burst_server(tmp_path) as server:
        clients = [await watching(server) for _ in range(3)]
        writes = count_writes(server)
        await clients[0].send(Resync())
        for client in clients:
            first = await client.expect(SpectatorsChanged)
            second = await client.expect(TimeUp)
            third = await client.expect(WaitingFor)
            assert (first.seq, second.seq, third.seq) == (1, 2, 3)
        assert len(writes) == 3
        assert len({id(ws) for ws, _ in writes}) == 3
        for client in clients:
            await client.close()


async def test_frames_queued_before_a_close_go_out_before_it(tmp_path: Path) -> None:
    async with burst_server(tmp_path) as server:
        leaving, staying = await watching(server), await watching(server)
        await leaving.send(VoteFinish())
        error = await leaving.expect(Error)
        assert error.code == "game_over"
        code, _ = await leaving.expect_close()
        assert code == CloseCode.ROOM_CLOSED
        update = await staying.expect(WaitingFor)
        assert update.seats == ()
        await staying.send(Resync())
        await staying.expect(TimeUp)
        await staying.close()


async def test_a_closing_connection_is_skipped_and_others_still_get_theirs(
    tmp_path: Path,
) -> None:
    async with burst_server(tmp_path) as server:
        clients = [await watching(server) for _ in range(2)]
        gone = clients[0]
        await gone.ws.close()
        await asyncio.wait_for(gone.ws.wait_closed(), 5)
        await clients[1].send(Resync())
        await clients[1].expect(WaitingFor)
        await clients[1].close()


async def test_a_message_is_one_frame_the_same_for_every_connection(tmp_path: Path) -> None:
    # The outbox frames a message once (server.adapters.ws.connection.binary_frame): right
    # only while no connection negotiates an extension, even one whose client offers
    # compression, as browsers do.
    async with burst_server(tmp_path) as server:
        clients = [await watching(server) for _ in range(2)]
        offering = await websockets.asyncio.client.connect(
            f"ws://127.0.0.1:{server.port}/", compression="deflate", open_timeout=10
        )
        assert offering.protocol.extensions == []
        await offering.send(encode(WatchRoom(code="WATCH-CODE")))
        assert isinstance(decode_server_message(await offering.recv()), Snapshot)
        writes = count_writes(server)
        await clients[0].send(Resync())
        for client in clients:
            await client.expect(WaitingFor)
        updates = [decode_server_message(await offering.recv()) for _ in range(3)]
        assert [type(update) for update in updates] == [SpectatorsChanged, TimeUp, WaitingFor]
        assert len(writes) == 3
        assert len({data for _, data in writes}) == 1, "the same bytes to each connection"
        assert all(ws.protocol.extensions == [] for ws in server._sockets.values())
        await offering.close()
        for client in clients:
            await client.close()
