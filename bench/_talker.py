"""One talker for ``bench/load.py``'s ``talk`` scenario: a room of two players in which
the creator sends ``say`` at a fixed rate (by default the transport's rate limit, the most
a connection may send without being closed), while the other player counts what arrives.

The server lets a connection say 5 at once and then one every 2 seconds
(`server.core.settings.HubSettings.say_rate`); the rest is refused with ``rate_limited``.
The figures: messages sent, ``said`` received by the other player, the refusals by code,
and whether either connection was closed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack

from bench._rawws import RawWebSocket, connect
from protocol import CreateRoom, JoinRoom, RulesSpec, Say, TalkSetting
from protocol import encode as encode_message

__all__ = ["Talker"]


@dataclass
class Talker:
    """The talking room; `start` it, `stop` it, read `figures`."""

    host: str
    port: int
    rate: float
    sent: int = 0
    said: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closes: list[int | None] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None
    _speaker: RawWebSocket | None = None
    _listener: RawWebSocket | None = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        code: asyncio.Future[str] = loop.create_future()
        joined: asyncio.Future[None] = loop.create_future()

        def speaker_hears(payload: bytes, is_text: bool) -> None:
            message = msgpack.unpackb(payload)
            kind = message.get("type")
            if kind == "welcome" and not code.done():
                code.set_result(message["player_code"])
            elif kind == "error":
                self.errors[message.get("code", "?")] += 1

        def listener_hears(payload: bytes, is_text: bool) -> None:
            message = msgpack.unpackb(payload)
            kind = message.get("type")
            if kind == "welcome" and not joined.done():
                joined.set_result(None)
            elif kind == "said":
                self.said += 1

        self._speaker = await connect(self.host, self.port, speaker_hears, self.closes.append)
        self._speaker.send(
            encode_message(
                CreateRoom(name="Talker", rules=RulesSpec(players=2), talk=TalkSetting.PLAYERS)
            )
        )
        player_code = await asyncio.wait_for(code, 10)
        self._listener = await connect(self.host, self.port, listener_hears, self.closes.append)
        self._listener.send(encode_message(JoinRoom(code=player_code, name="Listener")))
        await asyncio.wait_for(joined, 10)

    def start(self) -> None:
        self._task = asyncio.create_task(self._talk())

    async def _talk(self) -> None:
        loop = asyncio.get_running_loop()
        period = 1.0 / self.rate
        next_at = loop.time()
        assert self._speaker is not None
        while self._speaker.is_open:
            self._speaker.send(encode_message(Say(text=f"Message number {self.sent}")))
            self.sent += 1
            next_at += period
            await asyncio.sleep(max(0.0, next_at - loop.time()))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for ws in (self._speaker, self._listener):
            if ws is not None and ws.is_open:
                ws.close()

    def figures(self, seconds: float) -> dict[str, Any]:
        return {
            "talker_send_rate": self.rate,
            "talker_sent": self.sent,
            "talker_said_received": self.said,
            "talker_said_per_s": round(self.said / seconds, 2) if seconds else 0.0,
            "talker_refused": dict(self.errors),
            "talker_closed": [code for code in self.closes if code is not None],
        }
