"""Abuse while playing: honest rooms keep playing correctly, abusers are closed as documented.

The real app and Hub run in this process (so the keepalive and opening timeouts can be
made short: the flags do not expose them) over a SQLite file, on 127.0.0.1. Two honest
rooms play (seat 0 on quick auto-play, seat 1 readying itself, one spectator each) while,
from the same address:

- a hog opens connections until one is refused (``too_many_connections``, 1013); the ones
  it got, never sending an opening message, are closed with 4005;
- a flooder sends hundreds of messages at once: one ``rate_limited`` error, then 4001;
- garbage: random bytes in a room (errors, then 1008), random bytes as the first message
  (error, then 4004), a text frame (``binary_only``, 1003), an oversized frame
  (``too_large``, 1009);
- a slow consumer watches a room and stops reading: the keepalive ping goes unanswered
  and the server drops it (1011, or a reset once its buffers are full).

Then the honest players vote to finish; every honest game must equal the engine's replay
of its deal (the steps played one by one, then the rest at once), with no error, no
``seq`` gap and no close seen by any honest client.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bench._play import Participant, check_game, replay
from bench._rawws import RawWebSocket, connect
from protocol import (
    AutoPlay,
    Error,
    ErrorCode,
    Resync,
    RulesSpec,
    ServerMessage,
    SpectatorsChanged,
    WatchRoom,
    Welcome,
    decode_server_message,
    encode,
)
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.ws.app import WarServer

pytestmark = pytest.mark.slow

HOST = "127.0.0.1"
SEED = 99
MAX_PER_ADDRESS = 12
SPEC = RulesSpec(players=2)
WITHIN = 20.0


@asynccontextmanager
async def running(tmp_path: Path) -> AsyncIterator[WarServer]:
    settings = Settings(
        host=HOST,
        port=0,
        db=tmp_path / "war.sqlite3",
        rate_limit=20.0,
        max_connections_per_ip=MAX_PER_ADDRESS,
        opening_timeout=1.0,
        ping_interval=0.5,
        ping_timeout=0.5,
        close_timeout=1.0,
        quick_delay=0.1,
        calm_delay=0.1,
        computer_delay=0.1,
    )
    async with serving(settings) as server:
        yield server


class Raw:
    """A raw connection that keeps every message it gets and its close code."""

    def __init__(self) -> None:
        self.messages: list[ServerMessage] = []
        self.ws: RawWebSocket | None = None
        self.got: asyncio.Queue[ServerMessage] = asyncio.Queue()

    def _on_message(self, payload: bytes, is_text: bool) -> None:
        assert not is_text, "the server sent a text frame"
        message = decode_server_message(payload)
        self.messages.append(message)
        self.got.put_nowait(message)

    async def open(self, port: int, *, rcvbuf: int | None = None) -> Raw:
        self.ws = await connect(HOST, port, self._on_message, rcvbuf=rcvbuf)
        return self

    async def watch(self, code: str) -> Welcome:
        assert self.ws is not None
        self.ws.send(encode(WatchRoom(code=code)))
        while True:
            message = await asyncio.wait_for(self.got.get(), WITHIN)
            if isinstance(message, Welcome):
                return message

    async def closed(self) -> int | None:
        """Wait for the connection to end; its close code (None: dropped without one)."""
        assert self.ws is not None
        return await asyncio.wait_for(asyncio.shield(self.ws.closed), WITHIN)

    def errors(self) -> list[str]:
        return [m.code for m in self.messages if isinstance(m, Error)]


def long_deals(rng: random.Random, count: int, steps: int) -> list[int]:
    """Deals whose game lasts at least ``steps`` steps (so play outlasts the abuse)."""
    deals: list[int] = []
    while len(deals) < count:
        deal = rng.getrandbits(63)
        if replay(SPEC, deal)[1].steps >= steps:
            deals.append(deal)
    return deals


async def hog(port: int, honest: int) -> None:
    """Open more connections at once than the address may hold; none sends anything."""
    extra = 4
    raws = await asyncio.gather(*(Raw().open(port) for _ in range(MAX_PER_ADDRESS + extra)))
    codes = [await raw.closed() for raw in raws]
    held = MAX_PER_ADDRESS - honest
    assert codes.count(1013) == honest + extra, codes
    assert codes.count(4005) == held, codes
    for raw, code in zip(raws, codes, strict=True):
        expected = [ErrorCode.TOO_MANY_CONNECTIONS] if code == 1013 else []
        assert raw.errors() == expected


async def flooder(port: int, code: str) -> None:
    raw = await Raw().open(port)
    await raw.watch(code)
    assert raw.ws is not None
    frame = encode(Resync())
    for _ in range(400):
        raw.ws.send(frame)
    assert await raw.closed() == 4001
    # one error a burst: a slow server (a loaded machine) lets one message through now and
    # then, and the next burst gets its own error, before a whole burst is dropped
    errors = raw.errors()
    assert errors and set(errors) == {ErrorCode.RATE_LIMITED}


async def garbage_in_room(port: int, code: str, rng: random.Random) -> None:
    raw = await Raw().open(port)
    await raw.watch(code)
    assert raw.ws is not None
    for _ in range(30):
        raw.ws.send(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 60))))
    assert await raw.closed() == 1008
    assert len(raw.errors()) >= 10
    assert set(raw.errors()) <= {
        ErrorCode.MALFORMED,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.MISSING_FIELD,
        ErrorCode.UNKNOWN_FIELD,
        ErrorCode.BAD_VALUE,
    }


async def garbage_first(port: int) -> None:
    raw = await Raw().open(port)
    assert raw.ws is not None
    raw.ws.send(b"\xc1\x00garbage")
    assert await raw.closed() == 4004
    assert raw.errors() == [ErrorCode.MALFORMED]


async def text_frame(port: int, code: str) -> None:
    raw = await Raw().open(port)
    await raw.watch(code)
    assert raw.ws is not None
    raw.ws.send_text('{"type": "ready", "step": 0}')
    assert await raw.closed() == 1003
    assert raw.errors() == [ErrorCode.BINARY_ONLY]


async def oversized(port: int, code: str) -> None:
    raw = await Raw().open(port)
    await raw.watch(code)
    assert raw.ws is not None
    raw.ws.send(b"\x00" * 5000)
    assert await raw.closed() == 1009
    assert raw.errors() == [ErrorCode.TOO_LARGE]


async def slow_consumer(port: int, code: str, watchers: asyncio.Queue[int]) -> None:
    """Watch, stop reading, and wait (on the honest spectator's ``spectators_changed``)
    until the server has dropped this connection."""
    raw = await Raw().open(port, rcvbuf=2048)
    await raw.watch(code)
    assert raw.ws is not None
    raw.ws.pause_reading()
    for _ in range(10):  # snapshots it will never read
        raw.ws.send(encode(Resync()))
    while await asyncio.wait_for(watchers.get(), WITHIN) != 2:
        pass
    while await asyncio.wait_for(watchers.get(), WITHIN) != 1:
        pass
    raw.ws.resume_reading()  # what was buffered, then the end
    assert await raw.closed() in (1011, None)


async def test_abusers_are_closed_while_honest_rooms_play_on(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    deals = long_deals(rng, 2, 350)
    async with running(tmp_path) as server:
        url = f"ws://{HOST}:{server.port}/"
        finish = asyncio.Event()
        watchers: list[asyncio.Queue[int]] = [asyncio.Queue(), asyncio.Queue()]  # spectators

        def counter(queue: asyncio.Queue[int]) -> Callable[[ServerMessage], None]:
            def seen(message: ServerMessage) -> None:
                if isinstance(message, SpectatorsChanged):
                    queue.put_nowait(message.count)

            return seen

        on_message = [counter(queue) for queue in watchers]
        rooms: list[list[Participant]] = []
        for index, deal in enumerate(deals):
            ann = Participant(lambda: url, name=f"h{index}-0", auto=AutoPlay.QUICK, finish=finish)
            await ann.create(SPEC, deal=deal)
            ben = Participant(lambda: url, name=f"h{index}-1", finish=finish)
            await ben.join(ann.player_code)
            eve = Participant(lambda: url, name=f"h{index}-w", on_message=on_message[index])
            await eve.watch(ann.watch_code)
            rooms.append([ann, ben, eve])
        playing = asyncio.gather(*(p.play(1) for room in rooms for p in room))
        codes = [room[0].watch_code for room in rooms]

        await hog(server.port, honest=6)
        await asyncio.gather(
            flooder(server.port, codes[0]),
            garbage_in_room(server.port, codes[0], rng),
            garbage_first(server.port),
            text_frame(server.port, codes[0]),
            oversized(server.port, codes[0]),
            slow_consumer(server.port, codes[1], watchers[1]),  # alone in room 1
        )
        assert all(not p.games[1].over for room in rooms for p in room), "a game ended early"
        finish.set()
        await asyncio.wait_for(playing, WITHIN)

        for room in rooms:
            for participant in room:
                assert participant.errors == [], (participant.name, participant.errors)
                assert participant.seq_gaps == 0, participant.name
                assert participant.closes == [], participant.name
                log = participant.games[1]
                assert len(log.events) > 20, "the honest room hardly played"
                assert check_game(log, SPEC, finish=True) == [], participant.name
        for room in rooms:
            for participant in room:
                await participant.close()
