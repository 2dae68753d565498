"""``war-client`` stopped with SIGTERM closes its WebSocket properly (1001, going away).

The client runs as a real process against a WebSocket server on 127.0.0.1 that welcomes
it into a room, then waits for the close frame and reads its code, as the server side of
the connection sees it. SIGTERM keeps the seat (the token stays in the state file), as a
drop would; the exit status is 128 + 15.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.net.statefile import StateFile
from protocol import (
    CloseCode,
    JoinRoom,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    Welcome,
    decode_client_message,
    encode,
)
from tests.e2e._client_process import client_process

pytestmark = pytest.mark.slow
TIMEOUT = 30.0
CODE = "K7MX-QD4R"


def welcome() -> Welcome:
    seats = (SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1, name="Ben"))
    state = RoomState(room="r8k2", phase=RoomPhase.WAITING, rules=RulesSpec(), seats=seats)
    return Welcome(seq=2, seat=1, token="token-of-ben-0123456789", player_code=CODE, state=state)


@pytest.mark.parametrize("output", ["--plain", "--json"])
async def test_sigterm_closes_the_websocket_with_1001(tmp_path: Path, output: str) -> None:
    closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()

    async def room(ws: ServerConnection) -> None:
        opening = decode_client_message(await ws.recv())
        assert isinstance(opening, JoinRoom)  # with this client's seed commitment (fair deals)
        assert (opening.code, opening.name, opening.seed_commitment is not None) == (
            CODE,
            "Ben",
            True,
        )
        await ws.send(encode(welcome()))
        await ws.wait_closed()
        closed.set_result(ws.close_code)

    state = tmp_path / "ben.json"
    async with serve(room, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        url = f"ws://127.0.0.1:{port}"
        args = [url, "--name", "Ben", "--join", CODE, output]
        async with client_process(args, state) as ben:
            await ben.expect(r"^You are Ben, at seat 2 of 2\.$|\"type\":\"welcome\"")
            ben.process.send_signal(signal.SIGTERM)
            assert await ben.wait() == 128 + signal.SIGTERM
            assert await asyncio.wait_for(closed, TIMEOUT) == CloseCode.GOING_AWAY
        assert ben.err == []
        kept = StateFile(state).get(url, CODE, "Ben")
    assert kept is not None and kept.room == "r8k2", "the seat is kept, as after a drop"
