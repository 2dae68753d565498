"""A small protocol-speaking test client over a real ``websockets`` connection.

    client = await Client.connect(url)
    await client.send(CreateRoom(name="Ann"))
    welcome = await client.expect(Welcome)
    taken = await client.expect(CardsTaken, within=5)

`expect` reads messages in order until one of the wanted type arrives, keeping every
message read in `Client.log`. An ``error`` that arrives while something else is expected
fails the test at once (with the error's code and sentence), so a refused message never
turns into a mysterious timeout. Nothing here sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ClientMessage,
    Error,
    GameOver,
    GameStarted,
    PlayerOut,
    SecondPathReady,
    ServerMessage,
    Snapshot,
    WaitingFor,
    WarDeclared,
    Welcome,
    decode_server_message,
    encode,
)

__all__ = ["GAME_EVENTS", "Client", "ClosedError", "ExpectError"]

T = TypeVar("T")
DEFAULT_TIMEOUT = 10.0
GAME_EVENTS = (CardsTurned, CardsLaidDown, WarDeclared, CardsTaken, CardsReturned, PlayerOut)


class ExpectError(AssertionError):
    """The expected message did not come (timeout, an error message, or a close)."""


class ClosedError(ExpectError):
    """The server closed the connection while a message was expected."""

    def __init__(self, text: str, code: int | None, reason: str | None) -> None:
        super().__init__(text)
        self.code = code
        self.reason = reason


@dataclass(slots=True)
class Client:
    """One connection; ``log`` holds every server message read, in order.

    It follows the room as a client would: ``seat``/``token``/codes from ``welcome``,
    ``step`` from game events (what ``ready`` must echo), ``waiting`` from ``waiting_for``.
    """

    ws: ClientConnection
    log: list[ServerMessage] = field(default_factory=list)
    seat: int | None = None
    token: str | None = None
    room: str | None = None
    player_code: str | None = None
    watch_code: str | None = None
    step: int = 0
    waiting: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()
    last_seq: int = 0

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        ssl_context: ssl.SSLContext | None = None,
        max_size: int = 1 << 20,
        source: str | None = None,
    ) -> Client:
        """Open a WebSocket to ``url`` (loopback only in this project's tests), from the
        loopback address ``source`` if given (127.0.0.2: another household)."""
        ws = await asyncio.wait_for(
            # max_queue None: a test client that stops reading still answers a close
            connect(
                url,
                ssl=ssl_context,
                max_size=max_size,
                max_queue=None,
                compression=None,
                open_timeout=10,
                local_addr=None if source is None else (source, 0),
            ),
            DEFAULT_TIMEOUT,
        )
        return cls(ws)

    async def send(self, message: ClientMessage) -> None:
        """Encode and send one message."""
        await self.ws.send(encode(message))

    async def send_raw(self, data: bytes | str) -> None:
        """Send a frame as is (bytes: binary frame, str: text frame)."""
        await self.ws.send(data)

    async def recv(self, within: float = DEFAULT_TIMEOUT) -> ServerMessage:
        """Read and decode the next message; raises ClosedError or TimeoutError."""
        try:
            data = await asyncio.wait_for(self.ws.recv(), within)
        except ConnectionClosed as closed:
            rcvd = closed.rcvd
            raise ClosedError(
                f"connection closed ({rcvd.code if rcvd else None} "
                f"{rcvd.reason if rcvd else ''!r}) after {self._seen()}",
                rcvd.code if rcvd else None,
                rcvd.reason if rcvd else None,
            ) from None
        assert isinstance(data, bytes), f"the server sent a text frame: {data!r}"
        message = decode_server_message(data)
        self._track(message)
        self.log.append(message)
        return message

    async def expect(
        self,
        kind: type[T],
        *,
        within: float = DEFAULT_TIMEOUT,
        where: Callable[[T], bool] | None = None,
    ) -> T:
        """Read until a ``kind`` message (matching ``where``) arrives; return it.

        Raises ExpectError on an ``error`` message (unless ``kind`` is Error), a close,
        or when ``within`` seconds pass without it.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            left = deadline - loop.time()
            try:
                message = await self.recv(max(left, 0.0))
            except TimeoutError:
                raise ExpectError(
                    f"no {kind.__name__} within {within} s; seat {self.seat} saw {self._seen()}"
                ) from None
            if isinstance(message, kind) and (where is None or where(message)):
                return message
            if isinstance(message, Error) and kind is not Error:
                raise ExpectError(
                    f"expected {kind.__name__}, got error {message.code}: {message.message}"
                )

    async def expect_error(self, code: str, *, within: float = DEFAULT_TIMEOUT) -> Error:
        """Read until an ``error`` arrives and check its code."""
        error = await self.expect(Error, within=within)
        assert error.code == code, f"expected error {code}, got {error.code}: {error.message}"
        return error

    async def expect_close(self, *, within: float = DEFAULT_TIMEOUT) -> tuple[int | None, str]:
        """Read (and keep) messages until the server closes; return (code, reason)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            try:
                await self.recv(max(deadline - loop.time(), 0.0))
            except ClosedError as closed:
                return closed.code, closed.reason or ""
            except TimeoutError:
                raise ExpectError(
                    f"the connection stayed open for {within} s; saw {self._seen()}"
                ) from None

    def of(self, kind: type[T]) -> list[T]:
        """Every message of ``kind`` read so far."""
        return [m for m in self.log if isinstance(m, kind)]

    def events(self) -> list[ServerMessage]:
        """Every game event read so far (``game_started`` and ``game_over`` included)."""
        return [m for m in self.log if isinstance(m, (GameStarted, *GAME_EVENTS, GameOver))]

    async def close(self) -> None:
        """Close the connection from this side (1000)."""
        await self.ws.close()

    def _track(self, message: Any) -> None:
        if isinstance(message, Welcome):
            self.seat = message.seat
            self.token = message.token
            self.room = message.state.room
            self.player_code = message.player_code
            self.watch_code = message.watch_code
            self._from_state(message.state, message.seq)
        elif isinstance(message, Snapshot):
            self._from_state(message.state, message.seq)
        elif not isinstance(message, Error | SecondPathReady):
            self.last_seq = message.seq
        if isinstance(message, GAME_EVENTS):
            self.step = message.step
        if isinstance(message, WaitingFor):
            self.waiting = message.seats
        if isinstance(message, CardsTaken | CardsReturned | GameOver):
            self.counts = message.counts
        if isinstance(message, GameStarted):
            self.step = 0
            self.counts = message.counts

    def _from_state(self, state: Any, seq: int) -> None:
        self.step = state.step
        self.waiting = state.waiting_for
        self.counts = tuple(s.count for s in state.seats)
        self.last_seq = seq

    def _seen(self) -> str:
        names = [type(m).__name__ for m in self.log[-12:]]
        return f"{len(self.log)} messages, last: {names}"
