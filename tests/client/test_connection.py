"""The connection against a scripted WebSocket server on 127.0.0.1.

Each test scripts what the "server" sends per connection and checks what the client sent
and which events it yielded: resync on a gap, tokens kept in the state file, reconnect and
resume after 1012, fallback to joining when a stored token is refused, refusals, leave.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from websockets.asyncio.server import ServerConnection, serve

from client.net.connection import (
    Connection,
    Dialing,
    Ended,
    LinkEvent,
    Notice,
    Received,
    Reconnecting,
)
from client.net.policy import Policy
from client.net.statefile import SeatRecord, StateFile
from client.words.catalog import catalog
from protocol import (
    AutoPlay,
    ClientMessage,
    CloseCode,
    CreateRoom,
    Error,
    JoinRoom,
    Leave,
    ReadyChanged,
    ResumeSeat,
    Resync,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    SetAutoPlay,
    Snapshot,
    WatchRoom,
    Welcome,
    decode_client_message,
    encode,
)

TIMEOUT = 10.0
CODE = "K7MX-QD4R"
EN = catalog("en", strict=True)


def ended(event: LinkEvent) -> tuple[object, ...]:
    """How the link ended, its reason said in English (and the code when there is one)."""
    assert isinstance(event, Ended), event
    if event.code is None:
        return (event.ok, EN.say(event.reason))
    return (event.ok, EN.say(event.reason), event.code)


class Peer:
    """The server's side of one client connection."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.commitments: list[str | None] = []

    async def receive(self) -> ClientMessage:
        """The next message, without the seed commitment every opening carries (fresh each
        time: tests/client/test_seeds.py checks it)."""
        message = decode_client_message(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
        self.commitments.append(getattr(message, "seed_commitment", None))
        if isinstance(message, CreateRoom | JoinRoom):
            message = dataclasses.replace(message, seed_commitment=None)
        return message

    async def send(self, *messages: ServerMessage) -> None:
        for message in messages:
            await self.ws.send(encode(message))

    async def close(self, code: int, reason: str = "") -> None:
        await self.ws.close(code, reason)


Script = Callable[[Peer], Awaitable[None]]


@asynccontextmanager
async def scripted(*scripts: Script) -> AsyncIterator[str]:
    """A server on 127.0.0.1 whose n-th connection runs ``scripts[n]``."""
    queue = list(scripts)
    failures: list[BaseException] = []

    async def handler(ws: ServerConnection) -> None:
        script = queue.pop(0)
        try:
            await script(Peer(ws))
        except BaseException as error:  # reported by the test, not lost in the server
            failures.append(error)
            raise

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}"
    assert not failures, failures
    assert not queue, f"{len(queue)} scripted connections never came"


def state(players: int = 2, phase: RoomPhase = RoomPhase.PLAYING) -> RoomState:
    seats = tuple(
        SeatState(seat=s, name=name, connected=True, count=26)
        for s, name in zip(range(players), ("Ann", "Ben"), strict=False)
    )
    return RoomState(room="r8k2", phase=phase, rules=RulesSpec(players=players), seats=seats)


def welcome(seq: int, token: str | None, seat: int | None = 1) -> Welcome:
    return Welcome(
        seq=seq,
        seat=seat,
        token=token,
        player_code=CODE if seat is not None else None,
        watch_code="9HWT-2CBN",
        state=state(),
    )


async def collect(connection: Connection) -> list[LinkEvent]:
    async def run() -> list[LinkEvent]:
        return [event async for event in connection.events()]

    return await asyncio.wait_for(run(), TIMEOUT)


def fast(
    url: str,
    opening: JoinRoom | WatchRoom,
    *,
    seats: StateFile | None = None,
    auto: AutoPlay | None = None,
    give_up_after: float = 300.0,
) -> Connection:
    policy = Policy(base=0.01, cap=0.05, give_up_after=give_up_after)
    dialing = Dialing(policy=policy, rng=random.Random(1))
    return Connection(url, opening, seats=seats, auto=auto, dialing=dialing)


T1, T2 = "token-one-0123456789", "token-two-0123456789"


async def test_a_gap_sends_resync_and_the_snapshot_heals(tmp_path: Path) -> None:
    seats = StateFile(tmp_path / "state.json")

    async def script(peer: Peer) -> None:
        assert await peer.receive() == JoinRoom(code=CODE, name="Ben")
        await peer.send(welcome(1, T1), ReadyChanged(seq=3, seat=0, ready=True))
        assert await peer.receive() == Resync()
        await peer.send(Snapshot(seq=3, state=state()), ReadyChanged(seq=4, seat=0, ready=True))
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(script) as url:
        connection = fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats)
        events = await collect(connection)
        stored = seats.get(url, CODE, "Ben")
    received = [e for e in events if isinstance(e, Received)]
    assert [e.view.needs_resync for e in received] == [False, True, False, False]
    assert received[-1].view.seats[0].ready and received[-1].view.last_seq == 4
    assert ended(events[-1]) == (False, "the room was closed")
    assert stored is not None and (stored.room, stored.token, stored.seat) == ("r8k2", T1, 1)


async def test_a_restart_reconnects_and_resumes_with_the_newest_token(tmp_path: Path) -> None:
    seats = StateFile(tmp_path / "state.json")

    async def first(peer: Peer) -> None:
        await peer.receive()
        await peer.send(welcome(1, T1))
        assert await peer.receive() == SetAutoPlay(mode=AutoPlay.QUICK)
        await peer.close(CloseCode.SERVICE_RESTART)

    async def second(peer: Peer) -> None:
        assert await peer.receive() == ResumeSeat(room="r8k2", token=T1)
        await peer.send(welcome(5, T2))
        await peer.close(CloseCode.REPLACED)

    async with scripted(first, second) as url:
        connection = fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats, auto=AutoPlay.QUICK)
        events = await collect(connection)
        stored = seats.get(url, CODE, "Ben")
    reconnects = [e for e in events if isinstance(e, Reconnecting)]
    assert len(reconnects) == 1
    assert (reconnects[0].attempt, EN.say(reconnects[0].reason)) == (1, "the server is restarting")
    assert 0.005 <= reconnects[0].delay <= 0.01
    assert ended(events[-1]) == (False, "this seat was taken over by another window or device")
    assert stored is not None and stored.token == T2


async def test_a_refused_stored_token_falls_back_to_joining(tmp_path: Path) -> None:
    seats = StateFile(tmp_path / "state.json")

    async def resume(peer: Peer) -> None:
        assert await peer.receive() == ResumeSeat(room="old-room", token=T1)
        await peer.send(Error(code="bad_token", message="that seat token is not valid"))
        await peer.close(CloseCode.REFUSED)

    async def join(peer: Peer) -> None:
        assert await peer.receive() == JoinRoom(code=CODE, name="Ben")
        await peer.send(welcome(2, T2))
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(resume, join) as url:
        seats.put(url, CODE, SeatRecord(room="old-room", token=T1, seat=1, name="Ben", saved=1e9))
        events = await collect(fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats))
        stored = seats.get(url, CODE, "Ben")
    notices = [EN.say(e.text) for e in events if isinstance(e, Notice)]
    assert "the stored seat could not be resumed; joining as new" in notices
    assert not any(isinstance(e, Reconnecting) for e in events)
    assert stored is not None and (stored.room, stored.token) == ("r8k2", T2)


async def test_a_refusal_ends_at_once_with_the_servers_sentence() -> None:
    async def refuse(peer: Peer) -> None:
        await peer.receive()
        await peer.send(Error(code="unknown_code", message="no room has the code 'NOPE'"))
        await peer.close(CloseCode.REFUSED)

    async with scripted(refuse) as url:
        events = await collect(fast(url, WatchRoom(code="NOPE")))
    assert ended(events[-1]) == (False, "there is no game with that code", "unknown_code")
    assert not any(isinstance(e, Reconnecting) for e in events)


async def test_a_spectator_watches_again_after_a_drop() -> None:
    async def first(peer: Peer) -> None:
        assert await peer.receive() == WatchRoom(code="9HWT-2CBN")
        await peer.send(welcome(1, None, seat=None))
        await peer.close(CloseCode.INTERNAL_ERROR)

    async def second(peer: Peer) -> None:
        assert await peer.receive() == WatchRoom(code="9HWT-2CBN")
        await peer.send(welcome(3, None, seat=None))
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(first, second) as url:
        events = await collect(fast(url, WatchRoom(code="9HWT-2CBN")))
    assert sum(isinstance(e, Received) for e in events) == 2
    assert ended(events[-1]) == (True, "the room was closed"), "a room that ends is no failure"


async def test_bad_frames_are_noticed_and_skipped() -> None:
    async def script(peer: Peer) -> None:
        await peer.receive()
        await peer.ws.send(b"\xc1")
        await peer.ws.send("a text frame")
        await peer.send(welcome(1, T1))
        await peer.close(CloseCode.ROOM_CLOSED)

    async with scripted(script) as url:
        events = await collect(fast(url, JoinRoom(code=CODE, name="Ben")))
    notices = [EN.say(e.text) for e in events if isinstance(e, Notice)]
    assert len(notices) == 2
    assert all(text.startswith("ignored a bad message from the server: ") for text in notices)
    assert any(isinstance(e, Received) for e in events)


async def test_leave_and_close_end_quietly(tmp_path: Path) -> None:
    seats = StateFile(tmp_path / "state.json")
    sent: list[ClientMessage] = []

    async def script(peer: Peer) -> None:
        await peer.receive()
        await peer.send(welcome(1, T1))
        sent.append(await peer.receive())
        await peer.close(CloseCode.NORMAL)

    async with scripted(script) as url:
        connection = fast(url, JoinRoom(code=CODE, name="Ben"), seats=seats)
        assert not await connection.send(Leave()), "nothing is sent before the welcome"
        events: list[LinkEvent] = []
        async for event in connection.events():
            events.append(event)
            if isinstance(event, Received):
                assert seats.get(url, CODE, "Ben") is not None
                assert await connection.send(Leave())
        gone = seats.get(url, CODE, "Ben")
    assert sent == [Leave()]
    assert ended(events[-1]) == (True, "you left the room")
    assert gone is None, "leaving forgets the seat"

    async def closing(peer: Peer) -> None:
        await peer.receive()
        await peer.send(welcome(1, T1))
        await peer.ws.wait_closed()

    async with scripted(closing) as url:
        connection = fast(url, JoinRoom(code=CODE, name="Ben"))
        async for event in connection.events():
            if isinstance(event, Received):
                await connection.close()
            last = event
    assert ended(last) == (True, "closed")


async def test_it_gives_up_when_the_server_stays_away() -> None:
    async def once(peer: Peer) -> None:
        await peer.receive()
        await peer.send(welcome(1, T1))
        await peer.close(CloseCode.SERVICE_RESTART)

    async with scripted(once) as url:
        connection = fast(url, JoinRoom(code=CODE, name="Ben"), give_up_after=0.0)
        iterator = connection.events()
        first = await asyncio.wait_for(anext(iterator), TIMEOUT)
        assert isinstance(first, Received)
    rest = [event async for event in iterator]
    assert isinstance(rest[-1], Ended) and not rest[-1].ok
    assert EN.say(rest[-1].reason).startswith("gave up reconnecting: ")


async def test_a_server_that_cannot_save_games_is_retried_slowly_saying_so_once() -> None:
    sentence = "the server cannot save games right now; your game waits"

    def unavailable(welcomed: bool) -> Script:
        async def script(peer: Peer) -> None:
            await peer.receive()
            if welcomed:
                await peer.send(welcome(1, T1))
            await peer.send(Error(code="store_unavailable", message=sentence))
            await peer.close(CloseCode.TRY_AGAIN_LATER)

        return script

    async def back(peer: Peer) -> None:
        assert await peer.receive() == ResumeSeat(room="r8k2", token=T1)
        await peer.send(welcome(9, T2))
        await peer.close(CloseCode.REPLACED)

    policy = Policy(base=0.001, cap=0.002, store_base=0.02, store_cap=0.04)
    async with scripted(unavailable(True), unavailable(False), unavailable(False), back) as url:
        dialing = Dialing(policy=policy, rng=random.Random(2))
        connection = Connection(url, JoinRoom(code=CODE, name="Ben"), dialing=dialing)
        events = await collect(connection)
    reconnects = [e for e in events if isinstance(e, Reconnecting)]
    assert [EN.say(r.reason) for r in reconnects] == [
        "the server cannot save games right now",  # what the code means, said once
        "the server still cannot save games",
        "the server still cannot save games",
    ]
    assert all(0.01 <= r.delay <= 0.04 for r in reconnects), "the slow backoff, not the fast one"
    assert ended(events[-1]) == (False, "this seat was taken over by another window or device")


async def test_a_seat_kept_for_another_name_is_left_to_its_owner(tmp_path: Path) -> None:
    # Two relatives on one computer: Grandma's seat, kept here, is not Ben's to resume.
    seats = StateFile(tmp_path / "state.json")

    async def join(peer: Peer) -> None:
        assert await peer.receive() == JoinRoom(code=CODE, name=" ben ")
        await peer.send(welcome(2, T2))
        await peer.close(CloseCode.ROOM_CLOSED)

    async def resume(peer: Peer) -> None:
        assert await peer.receive() == ResumeSeat(room="r8k2", token=T1)
        await peer.send(welcome(1, T2))
        await peer.close(CloseCode.ROOM_CLOSED)

    grandma = SeatRecord(room="r8k2", token=T1, seat=0, name="Grandma", saved=time.time())
    async with scripted(join) as url:
        seats.put(url, CODE, grandma)
        await collect(fast(url, JoinRoom(code=CODE, name=" ben "), seats=seats))
        kept, ben = seats.get(url, CODE, "Grandma"), seats.get(url, CODE, "Ben")
    assert kept == grandma, "her seat stays kept on this computer beside Ben's"
    assert ben is not None and ben.token == T2
    async with scripted(resume) as url:  # the same name, as typed: her seat is resumed
        seats.put(url, CODE, grandma)
        await collect(fast(url, JoinRoom(code=CODE, name="GRANDMA"), seats=seats))
