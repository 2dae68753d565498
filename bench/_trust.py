"""The attacks of issue 21 for ``bench/room_attacks.py``: a flood of requests with
duplicated headers (the worst refusal before the WebSocket: it used to answer 500 with a
traceback per request), and strangers asking for an away seat by its name.

``headers``  ``--flooders`` raw sockets, each with its own X-Forwarded-For address (and
             one more on the bare TCP peer, as many addresses behind one), send upgrade
             requests with two ``Host`` headers, two ``Origin`` headers or two
             ``Upgrade`` headers, a ``POST`` with a body, and a ``Host`` not allowed, as
             fast as the server answers.
``takeover`` strangers with the player code of a room whose second player is away ask
             for that seat by name (``join_room``) in a loop; the host never answers, so
             each request waits, expires or is refused as pending.

Reported besides the honest delays: the requests or asks made, their answers, and the
bytes the server logged per minute while the attack ran.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol import CreateRoom, Error, JoinRoom, RulesSpec, Welcome, decode_server_message, encode

__all__ = ["BAD_REQUESTS", "header_flooder", "takeover_attempts"]

HOST = "127.0.0.1"


def _key() -> str:
    return base64.b64encode(os.urandom(16)).decode()


def _upgrade(port: int, extra: str, host: str | None = None) -> bytes:
    return (
        f"GET / HTTP/1.1\r\nHost: {host or f'{HOST}:{port}'}\r\n{extra}Upgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {_key()}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def _xff(address: str) -> str:
    return f"X-Forwarded-For: {address}\r\n"


BAD_REQUESTS: dict[str, Callable[[int, str], bytes]] = {
    "two Host": lambda port, xff: _upgrade(port, "Host: evil.example\r\n" + _xff(xff)),
    "two Origin": lambda port, xff: _upgrade(
        port, "Origin: http://a.example\r\nOrigin: http://b.example\r\n" + _xff(xff)
    ),
    "two Upgrade": lambda port, xff: _upgrade(port, "Upgrade: websocket\r\n" + _xff(xff)),
    "POST": lambda port, xff: (
        f"POST / HTTP/1.1\r\nHost: {HOST}:{port}\r\n{_xff(xff)}Content-Length: 5\r\n\r\nhello"
    ).encode(),
    "other Host": lambda port, xff: _upgrade(
        port,
        f"Origin: http://rebind.example:{port}\r\n" + _xff(xff),
        host=f"rebind.example:{port}",
    ),
}


def _open(port: int, address: str) -> Any:
    return connect(f"ws://{HOST}:{port}/", additional_headers={"X-Forwarded-For": address})


async def _one(port: int, raw: bytes) -> str:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(raw)
        await writer.drain()
        head = await reader.readline()
    finally:
        writer.close()
    parts = head.split(b" ", 2)
    return parts[1].decode() if len(parts) > 1 else "closed"


async def header_flooder(
    port: int, address: str, counts: Counter[str], stopping: asyncio.Event
) -> None:
    """Send every bad request in turn, as fast as the server answers, until ``stopping``."""
    kinds = list(BAD_REQUESTS.items())
    turn = 0
    while not stopping.is_set():
        name, build = kinds[turn % len(kinds)]
        turn += 1
        try:
            status = await _one(port, build(port, address))
        except OSError as error:
            status = type(error).__name__
        counts[f"{name}: {status}"] += 1


async def _room_with_an_away_seat(port: int) -> tuple[Any, str]:
    """A room of Ann (connected, never answers) and Grandma (gone): (Ann's socket, code)."""
    ann = await connect(
        f"ws://{HOST}:{port}/", additional_headers={"X-Forwarded-For": "198.51.100.1"}
    )
    await ann.send(encode(CreateRoom(name="Ann", rules=RulesSpec(players=2))))
    welcome = decode_server_message(await ann.recv())
    assert isinstance(welcome, Welcome) and welcome.player_code is not None
    code = welcome.player_code
    async with connect(
        f"ws://{HOST}:{port}/", additional_headers={"X-Forwarded-For": "198.51.100.2"}
    ) as grandma:
        await grandma.send(encode(JoinRoom(code=code, name="Grandma")))
        await grandma.recv()
    return ann, code


async def takeover_attempts(
    port: int, strangers: int, counts: Counter[str], stopping: asyncio.Event
) -> Callable[[], Coroutine[Any, Any, None]]:
    """Start ``strangers`` loops asking for Grandma's away seat; returns the cleanup."""
    ann, code = await _room_with_an_away_seat(port)

    async def drain() -> None:  # Ann's tab reads the questions and never answers
        try:
            async for _ in ann:
                counts["questions Ann saw"] += 1
        except ConnectionClosed:
            pass

    async def stranger(n: int) -> None:
        while not stopping.is_set():
            try:
                async with connect(
                    f"ws://{HOST}:{port}/",
                    additional_headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
                ) as ws:
                    await ws.send(encode(JoinRoom(code=code, name="Grandma")))
                    async for data in ws:
                        reply = decode_server_message(data)
                        if isinstance(reply, Welcome):
                            counts["SEAT TAKEN"] += 1
                        elif isinstance(reply, Error):
                            counts[f"refused {reply.code}"] += 1
                        else:
                            counts[reply.TYPE] += 1
            except InvalidStatus as status:
                counts[f"http {status.response.status_code}"] += 1
                await asyncio.sleep(0.2)
            except (OSError, ConnectionClosed, TimeoutError) as error:
                counts[type(error).__name__] += 1

    tasks = [asyncio.create_task(drain())] + [
        asyncio.create_task(stranger(n)) for n in range(strangers)
    ]

    async def cleanup() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await ann.close()

    return cleanup
