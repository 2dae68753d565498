"""Abusive clients for ``bench/load.py --scenarios abuse``: they loop until told to stop.

Each kind opens a connection, watches a room (so it gets that room's broadcasts), abuses,
waits to be closed by the server, records the close code, and starts over:

- ``flood``: hundreds of ``resync`` messages at once (rate limit → ``rate_limited``, 4001);
- ``garbage``: random bytes as frames (errors, then 1008 after the invalid-message budget);
- ``slow``: stops reading, with a small receive buffer, and asks for snapshots it never
  reads (the server's keepalive ping goes unanswered → closed after the ping timeout);
- ``hog``: opens connections without an opening message (4005 after the opening
  timeout, or refused with 1013 at the per-address limit).

Each starts over at once, whatever happened: a refused handshake (HTTP 429 from the
server's per-address gate, counted as "429") too. With ``forwarded``, every abuser sends
its own X-Forwarded-For address (203.0.113.N), for a server that trusts 127.0.0.1 as a
proxy: each abuser is then an address of its own. Connections are raw
(`bench._rawws`); all loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from dataclasses import dataclass, field

from bench._rawws import HandshakeError, RawWebSocket, connect
from protocol import Resync, WatchRoom, encode

__all__ = ["KINDS", "Abuse"]

KINDS = ("flood", "garbage", "slow", "hog")


@dataclass(slots=True)
class Abuse:
    """Runs ``per_kind`` abusers of every kind against ``watch_codes`` until `stop`."""

    host: str
    port: int
    watch_codes: list[str]
    per_kind: int = 1
    seed: int = 0
    forwarded: bool = False
    kinds: tuple[str, ...] = ()
    """the kinds to run (default: all of `KINDS`)"""
    closes: dict[str, Counter[str]] = field(default_factory=dict)
    rounds: Counter[str] = field(default_factory=Counter)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        """Start every abuser."""
        for kind in self.kinds or KINDS:
            self.closes[kind] = Counter()
            for n in range(self.per_kind):
                rng = random.Random(f"{self.seed}-{kind}-{n}")
                address = f"203.0.113.{len(self._tasks) + 1}"
                headers = [("X-Forwarded-For", address)] if self.forwarded else []
                self._tasks.append(asyncio.create_task(self._loop(kind, rng, headers)))

    async def stop(self) -> None:
        """Stop every abuser and close what they hold."""
        self._stopping.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _loop(self, kind: str, rng: random.Random, headers: list[tuple[str, str]]) -> None:
        while not self._stopping.is_set():
            try:
                code = await getattr(self, f"_{kind}")(rng, headers)
            except HandshakeError as error:
                code = "429" if " 429 " in str(error) else type(error).__name__
            except (OSError, TimeoutError, ConnectionError) as error:
                code = type(error).__name__
            self.closes[kind][str(code)] += 1
            self.rounds[kind] += 1

    async def _watching(
        self, rng: random.Random, headers: list[tuple[str, str]], rcvbuf: int | None = None
    ) -> RawWebSocket:
        ws = await connect(self.host, self.port, _ignore, rcvbuf=rcvbuf, within=30, headers=headers)
        ws.send(encode(WatchRoom(code=rng.choice(self.watch_codes))))
        return ws

    async def _flood(self, rng: random.Random, headers: list[tuple[str, str]]) -> int | str | None:
        ws = await self._watching(rng, headers)
        frame = encode(Resync())
        for _ in range(400):
            ws.send(frame)
        return await _closed(ws, 60)

    async def _garbage(
        self, rng: random.Random, headers: list[tuple[str, str]]
    ) -> int | str | None:
        ws = await self._watching(rng, headers)
        for _ in range(40):
            ws.send(rng.randbytes(rng.randint(1, 80)))
        return await _closed(ws, 60)

    async def _slow(self, rng: random.Random, headers: list[tuple[str, str]]) -> int | str | None:
        ws = await self._watching(rng, headers, rcvbuf=2048)
        ws.pause_reading()
        frame = encode(Resync())
        for _ in range(15):
            ws.send(frame)
        # The server's ping goes unanswered: it closes, then aborts. With reading paused
        # the end shows only when a write fails, so write a ping now and then.
        try:
            for _ in range(120):
                with contextlib.suppress(TimeoutError):
                    return await asyncio.wait_for(asyncio.shield(ws.closed), 1.0)
                ws.ping()
            return "still open"
        finally:
            ws.abort()

    async def _hog(self, rng: random.Random, headers: list[tuple[str, str]]) -> int | str | None:
        held = [
            await connect(self.host, self.port, _ignore, within=30, headers=headers)
            for _ in range(20)
        ]
        codes = [await _closed(ws, 120) for ws in held]
        return Counter(codes).most_common(1)[0][0]


def _ignore(payload: bytes, is_text: bool) -> None:
    return None


async def _closed(ws: RawWebSocket, within: float) -> int | str | None:
    try:
        return await asyncio.wait_for(asyncio.shield(ws.closed), within)
    finally:
        with contextlib.suppress(Exception):
            ws.abort()
