"""The second path in a browser (PROTOCOL.md §11): a stalled connection does not hold a flip up.

The page reaches the server through a small TCP proxy on loopback that this test runs, so
that it can stall one connection in one direction, as a lost packet stalls a TCP
connection until it is sent again. Grandma plays from a protocol client straight to the
server; Ben plays in the page. Once Ben sits at the table, what the server sends on the
page's first connection is held in the proxy. With ``--second-path always`` every flip
still reaches the page, through its second connection. With ``--second-path never`` the
same stall leaves the page without the flip Grandma's own connection was told of, until
the proxy lets the first connection's bytes through: the test can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import pytest
from playwright.async_api import Browser, expect
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from protocol import CardsTurned, CreateRoom, Ready, ReadyChanged, Said, Say, Welcome
from tests.e2e._browser import Tab, open_tab
from tests.e2e._client import Client
from tests.e2e._process import ServerProcess, server_process

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_second_path"),
]

FLIPS = 4
HELD_MS = 3_000
"""How long the page without a second path is given to show a flip its first connection
holds back (it cannot: the flip is only in the proxy)."""


@dataclass(eq=False)
class Piped:
    """One connection through the proxy: whether it is a WebSocket, the type of the first
    message the page sent on it (its opening: ``join_room``, ``second_path``, ...), and the
    gate of what the server sends on it (set: bytes flow; cleared: they wait in the proxy)."""

    websocket: bool
    opening: str | None = None
    down: asyncio.Event = field(default_factory=asyncio.Event)
    open: bool = True

    def __post_init__(self) -> None:
        self.down.set()


class StallingProxy:
    """A TCP proxy on 127.0.0.1 to the server's port: every connection piped both ways, in
    order; `stall` holds what the server sends on one connection until `release`."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.pipes: list[Piped] = []
        self.changed = asyncio.Condition()
        self.tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[StallingProxy]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            server.close()
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

    def opened(self, *types: str) -> list[Piped]:
        """The connections still open whose first message was of one of ``types``."""
        return [p for p in self.pipes if p.open and p.opening in types]

    async def until(self, opening: str) -> Piped:
        """Wait until a connection that opened with ``opening`` is open; the latest."""
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: self.opened(opening)), 15)
            return self.opened(opening)[-1]

    async def _note(self, piped: Piped, opening: str) -> None:
        async with self.changed:
            piped.opening = opening
            self.changed.notify_all()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        try:
            head = await reader.read(65536)
            if not head:
                return
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
            piped = Piped(websocket=b"upgrade: websocket" in head.lower())
            async with self.changed:
                self.pipes.append(piped)
                self.changed.notify_all()
            up_writer.write(head)
            try:
                await asyncio.gather(
                    self._pump(reader, up_writer, None, piped if piped.websocket else None),
                    self._pump(up_reader, writer, piped.down, None),
                )
            finally:
                piped.open = False
                async with self.changed:
                    self.changed.notify_all()
                up_writer.close()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            self.tasks.discard(task)

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        gate: asyncio.Event | None,
        named: Piped | None,
    ) -> None:
        """Copy ``reader`` to ``writer``, waiting at ``gate``; ``named``: a WebSocket whose
        first message (from the page) names its `Piped.opening`."""
        seen = b""
        try:
            while data := await reader.read(65536):
                if named is not None:
                    seen += data
                    opening = _first_message_type(seen)
                    if opening is not None:
                        await self._note(named, opening)
                        named = None
                if gate is not None:
                    await gate.wait()  # a stalled direction: its bytes wait here, in order
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, OSError):
                writer.write_eof()


def _first_message_type(sent: bytes) -> str | None:
    """The ``type`` of the first message in ``sent``, what a page sent after its handshake
    (RFC 6455 frames, masked, as a browser sends them); None while it is not all there."""
    if len(sent) < 2:
        return None
    length, at = sent[1] & 0x7F, 2
    if length == 126:
        length, at = int.from_bytes(sent[2:4]), 4
    elif length == 127:
        length, at = int.from_bytes(sent[2:10]), 10
    mask, body = sent[at : at + 4], sent[at + 4 : at + 4 + length]
    if len(body) < length:
        return None
    message = msgpack.unpackb(bytes(b ^ mask[i % 4] for i, b in enumerate(body)))
    return str(message["type"])


async def _seated(
    browser: Browser, server: ServerProcess, proxy: StallingProxy
) -> tuple[Client, Tab]:
    """Grandma's room (her client straight to the server), Ben at it in the page, through
    the proxy, the game begun."""
    grandma = await Client.connect(f"ws://127.0.0.1:{server.port}/")
    await grandma.send(CreateRoom(name="Grandma"))
    joined = await grandma.expect(Welcome)
    ben = await open_tab(browser, f"http://127.0.0.1:{proxy.port}/#join={joined.player_code}")
    await ben.page.fill("#invite-name", "Ben")
    await ben.page.click("#invite-form button[type=submit]")
    await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 2.")
    await expect(ben.page.locator("#turn")).to_have_attribute("aria-disabled", "false")
    return grandma, ben


async def _caught_up(grandma: Client, ben: Tab, text: str) -> None:
    """Grandma says ``text``; the page shows it: every message the server sent before it
    reached the page (each is delivered in order)."""
    await grandma.send(Say(text=text))
    await grandma.expect(Said, where=lambda m: m.text == text)
    await expect(ben.page.locator("#log li", has_text=f"Grandma: {text}").first).to_be_visible()


async def _flip(grandma: Client, ben: Tab) -> tuple[int, int]:
    """Grandma turns over, then Ben taps in the page; the step before, and the step of the
    flip Grandma's own connection was told of."""
    await expect(ben.page.locator("#turn")).to_have_attribute("aria-disabled", "false")
    step = int(await ben.page.locator("#table").get_attribute("data-step") or 0)
    await grandma.send(Ready(step=step))
    await grandma.expect(ReadyChanged, where=lambda m: m.seat == 0 and m.ready)
    await ben.page.locator("#turn").click()
    turned = await grandma.expect(CardsTurned, where=lambda m: m.step > step)
    return step, turned.step


async def _shows(ben: Tab, step: int, within_ms: int | None = None) -> None:
    """Wait until the page's table is at ``step`` or later."""
    await ben.page.wait_for_function(
        "(step) => +document.getElementById('table').dataset.step >= step",
        arg=step,
        timeout=within_ms,
    )


async def test_a_stalled_first_connection_does_not_hold_the_flips_up(
    tmp_path: Path, browser: Browser
) -> None:
    async with server_process(tmp_path / "war.sqlite3", "--second-path", "always") as server:
        proxy = StallingProxy(server.port)
        async with proxy.running():
            grandma, ben = await _seated(browser, server, proxy)
            second = await proxy.until("second_path")
            (first,) = proxy.opened("join_room")  # the page's first connection
            await _caught_up(grandma, ben, "Both paths on")
            first.down.clear()  # from now on the first brings the page nothing
            for _ in range(FLIPS):
                _, flipped = await _flip(grandma, ben)
                await _shows(ben, flipped)
            assert second.open and first.open
            await _caught_up(grandma, ben, "Still here")
            first.down.set()
            await _caught_up(grandma, ben, "Both again")
            # each message once: the first's late copies were dropped
            log = await ben.log()
            assert log.count("Grandma: Still here") == 1
            await ben.assert_clean()
            await grandma.close()
        assert len(server.events("second_path_attached")) == 1


async def test_without_the_second_path_the_same_stall_holds_the_flip(
    tmp_path: Path, browser: Browser
) -> None:
    async with server_process(tmp_path / "war.sqlite3", "--second-path", "never") as server:
        proxy = StallingProxy(server.port)
        async with proxy.running():
            grandma, ben = await _seated(browser, server, proxy)
            only = await proxy.until("join_room")
            assert not proxy.opened("second_path")
            await _caught_up(grandma, ben, "One path")
            only.down.clear()
            before, flipped = await _flip(grandma, ben)
            # the server sent the flip (Grandma was told of it); the page has not got it
            with pytest.raises(PlaywrightTimeoutError):
                await _shows(ben, flipped, within_ms=HELD_MS)
            assert int(await ben.page.locator("#table").get_attribute("data-step") or 0) == before
            only.down.set()
            await _shows(ben, flipped)
            await ben.assert_clean()
            await grandma.close()
