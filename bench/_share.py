"""The attacks of issue 32 for ``bench/room_attacks.py``: what one address may take of a
room (its talk, its table's attention, its spectator places).

``talkflood`` one address (``X-Forwarded-For``) watches a room whose talk is ``all``
              from ``--flooders`` connections and sends ``say`` on each as fast as the
              server answers (never past the transport's own rate, so the connections
              stay open); the room's players count the ``said`` lines they read.
``askloop``   one address asks for the away seat of the room (``join_room`` with its
              name) and withdraws (``leave``) as soon as the table is asked, in a loop;
              the room's host counts the questions she is shown.
``squat``     one address opens spectator connections to a room until it is refused,
              and holds them; then another address tries to watch.

Reported besides the honest delays: what the attacker got (lines said, questions shown,
places taken, and its refusals) and the bytes the server logged per minute meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol import (
    CreateRoom,
    Error,
    JoinRoom,
    Leave,
    RulesSpec,
    Said,
    Say,
    TalkSetting,
    WatchRoom,
    Welcome,
    decode_server_message,
    encode,
)
from protocol.seat_requests import SeatRequested, SeatRequestWaiting

__all__ = ["ask_loop", "spectator_squat", "talk_flood"]

HOST = "127.0.0.1"
ATTACKER = "203.0.113.99"
Cleanup = Callable[[], Coroutine[Any, Any, None]]


async def _open(port: int, address: str) -> ClientConnection:
    return await connect(
        f"ws://{HOST}:{port}/",
        additional_headers={"X-Forwarded-For": address},
        compression=None,
        max_queue=None,
        open_timeout=20,
    )


async def _first(ws: ClientConnection) -> Any:
    return decode_server_message(await ws.recv())


async def _room(port: int, *, away: bool) -> tuple[ClientConnection, Welcome]:
    """A room of Ann (198.51.100.1, connected) and Grandma (198.51.100.2: gone if
    ``away``, else connected too, and left open), talk ``all``: Ann's socket and welcome."""
    ann = await _open(port, "198.51.100.1")
    await ann.send(encode(CreateRoom(name="Ann", rules=RulesSpec(players=2), talk=TalkSetting.ALL)))
    welcome = await _first(ann)
    assert isinstance(welcome, Welcome) and welcome.player_code is not None
    grandma = await _open(port, "198.51.100.2")
    await grandma.send(encode(JoinRoom(code=welcome.player_code, name="Grandma")))
    await grandma.recv()
    if away:
        await grandma.close()
    return ann, welcome


def _reader(ws: ClientConnection, counts: Counter[str], count: Callable[[Any], str | None]) -> Any:
    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for data in ws:
                key = count(decode_server_message(data))
                if key is not None:
                    counts[key] += 1

    return asyncio.create_task(read())


async def _stop(tasks: list[asyncio.Task[None]], sockets: list[ClientConnection]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ws in sockets:
        with contextlib.suppress(Exception):
            await ws.close()


async def talk_flood(
    port: int, connections: int, counts: Counter[str], stopping: asyncio.Event
) -> Cleanup:
    """``connections`` spectators from one address flood the room's talk."""
    ann, welcome = await _room(port, away=False)
    assert welcome.watch_code is not None
    tasks = [_reader(ann, counts, lambda m: "lines Ann read" if isinstance(m, Said) else None)]
    sockets = [ann]

    async def flooder(n: int) -> None:
        try:
            ws = await _open(port, ATTACKER)
        except InvalidStatus as status:
            counts[f"http {status.response.status_code}"] += 1
            return
        sockets.append(ws)
        await ws.send(encode(WatchRoom(code=welcome.watch_code or "")))
        answer = await _first(ws)
        if not isinstance(answer, Welcome):
            counts[f"watch refused {getattr(answer, 'code', '?')}"] += 1
            return
        counts["spectator connections"] += 1
        turn = 0
        with contextlib.suppress(ConnectionClosed):
            while not stopping.is_set():
                turn += 1
                await ws.send(encode(Say(text=f"spam {n} {turn}")))
                counts["says sent"] += 1
                await asyncio.sleep(0.1)  # 10 a second a connection: under --rate-limit

    async def drain_all() -> None:
        await asyncio.gather(*(flooder(n) for n in range(connections)))

    tasks.append(asyncio.create_task(drain_all()))

    async def cleanup() -> None:
        await _stop(tasks, sockets)

    return cleanup


async def ask_loop(port: int, counts: Counter[str], stopping: asyncio.Event) -> Cleanup:
    """One address asks for Grandma's away seat and withdraws, in a loop."""
    ann, welcome = await _room(port, away=True)
    code = welcome.player_code or ""
    tasks = [
        _reader(
            ann, counts, lambda m: "questions Ann saw" if isinstance(m, SeatRequested) else None
        )
    ]

    async def asker() -> None:
        while not stopping.is_set():
            try:
                async with await _open(port, ATTACKER) as ws:
                    await ws.send(encode(JoinRoom(code=code, name="Grandma")))
                    answer = await _first(ws)
                    if isinstance(answer, SeatRequestWaiting):
                        counts["asked"] += 1
                        await ws.send(encode(Leave()))
                        with contextlib.suppress(ConnectionClosed):
                            await ws.recv()
                    elif isinstance(answer, Error):
                        counts[f"refused {answer.code}"] += 1
            except InvalidStatus as status:
                counts[f"http {status.response.status_code}"] += 1
                await asyncio.sleep(0.2)
            except (OSError, ConnectionClosed, TimeoutError) as error:
                counts[type(error).__name__] += 1

    tasks.append(asyncio.create_task(asker()))

    async def cleanup() -> None:
        await _stop(tasks, [ann])

    return cleanup


async def spectator_squat(port: int, counts: Counter[str], stopping: asyncio.Event) -> Cleanup:
    """One address takes every spectator place it can; then another tries to watch."""
    ann, welcome = await _room(port, away=False)
    code = welcome.watch_code or ""
    sockets = [ann]
    while True:
        try:
            ws = await _open(port, ATTACKER)
        except InvalidStatus as status:
            counts[f"http {status.response.status_code}"] += 1
            await asyncio.sleep(0.2)
            continue
        await ws.send(encode(WatchRoom(code=code)))
        answer = await _first(ws)
        if isinstance(answer, Welcome):
            counts["places taken"] += 1
            sockets.append(ws)
            continue
        counts[f"refused {getattr(answer, 'code', '?')}"] += 1
        await ws.close()
        break
    other = await _open(port, "198.51.100.3")
    await other.send(encode(WatchRoom(code=code)))
    answer = await _first(other)
    counts["another household: " + ("welcome" if isinstance(answer, Welcome) else "refused")] += 1
    sockets.append(other)
    tasks = [_reader(ann, counts, lambda m: None)]

    async def cleanup() -> None:
        await _stop(tasks, sockets)

    return cleanup
