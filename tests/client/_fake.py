"""A fake :class:`client.net.connection.Link`: the test pushes server messages, reads what
the renderer sent. Waiting is on events (with timeouts), never on sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

from client.net.connection import Ended, LinkEvent, Received
from client.state.view import ViewState, apply
from client.words.catalog import said
from protocol import ClientMessage, ServerMessage

TIMEOUT = 5.0


class FakeLink:
    """Messages pushed here go through the real reducer, as the real connection does."""

    def __init__(self) -> None:
        self.view = ViewState()
        self.sent: list[ClientMessage] = []
        self.closed = False
        self.close_code: int | None = None
        self._read = 0
        self.connected = True
        self._queue: asyncio.Queue[LinkEvent] = asyncio.Queue()
        self._drained = asyncio.Event()
        self._sent = asyncio.Event()

    # --- the test's side -----------------------------------------------------------------
    def push(self, *messages: ServerMessage) -> None:
        """Queue server messages (applied to the view now, delivered in order)."""
        for message in messages:
            before, self.view = self.view, apply(self.view, message)
            self.event(Received(message, before, self.view))

    def push_all(self, messages: Iterable[ServerMessage]) -> None:
        self.push(*messages)

    def event(self, event: LinkEvent) -> None:
        """Queue any link event."""
        self._drained.clear()
        self._queue.put_nowait(event)

    async def drained(self) -> None:
        """Wait until the renderer has taken (and, being synchronous, drawn) every event."""
        await asyncio.wait_for(self._drained.wait(), TIMEOUT)

    async def next_sent(self) -> ClientMessage:
        """The next sent message not read yet by this method (waiting for it if needed)."""
        while len(self.sent) <= self._read:
            self._sent.clear()
            await asyncio.wait_for(self._sent.wait(), TIMEOUT)
        self._read += 1
        return self.sent[self._read - 1]

    # --- the renderer's side -------------------------------------------------------------
    async def events(self) -> AsyncIterator[LinkEvent]:
        while True:
            if self._queue.empty():
                self._drained.set()
            event = await self._queue.get()
            yield event
            if isinstance(event, Ended):
                self._drained.set()
                return

    async def send(self, message: ClientMessage) -> bool:
        if not self.connected:
            return False
        self.sent.append(message)
        self._sent.set()
        return True

    async def close(self, code: int = 1000) -> None:
        self.closed = True
        self.close_code = code
        self.event(Ended(True, said("close.closed")))
