"""A time-limited game on the real server (in this process, its clock pushed forward):
the client shows the time the server gives and ends when the server says time is up."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest

from client.lines import LineRenderer, Streams
from client.net.connection import Connection, Dialing
from client.words.catalog import catalog
from client.words.language import Viewer
from protocol import CreateRoom, RoomPhase
from tests.e2e._war import OffsetClock, start_war

EN = catalog("en", strict=True)

pytestmark = pytest.mark.slow

TIMEOUT = 30.0


class Said(io.StringIO):
    """stdout for the renderer; ``until`` waits for a line, never sleeping."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    def write(self, text: str) -> int:
        self.changed.set()
        return super().write(text)

    async def until(self, wanted: str) -> None:
        async def wait() -> None:
            while wanted not in self.getvalue().splitlines():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), TIMEOUT)


async def test_the_server_ends_a_timed_game_and_the_client_shows_it(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        opening = CreateRoom(name="Ann", computers=1, minutes=5)
        out = Said()
        streams = Streams(out, io.StringIO())
        client_clock = OffsetClock()
        link = Connection(war.url, opening, dialing=Dialing(clock=client_clock.monotonic))
        renderer = LineRenderer(link, streams, json_lines=False, viewer=Viewer(EN))
        task = asyncio.create_task(renderer.run())
        await out.until("The game begins: 26 cards each. 5 minutes on the clock.")
        assert renderer.view.phase is RoomPhase.PLAYING
        told = await renderer.command("s") or ""
        assert re.fullmatch(
            r"Round 1: .*\. Press enter to turn over\. (5:00|4:[0-5]\d) left\.", told
        ), told
        war.clock.offset += 5 * 60  # the server's clock: five minutes later
        war.poke()
        # The time limit waits for the deal's seeds, as the first cards do (docs/fairness.md):
        # Ann's turn over reveals hers, and the time that ran out meanwhile ends the game.
        client_clock.offset += 5 * 60  # this computer's too, or its check says "too early"
        await renderer.command("")
        war.poke()
        assert await asyncio.wait_for(task, TIMEOUT) == 0
    lines = out.getvalue().splitlines()
    assert lines[-5:-3] == ["Time is up.", "Fair deal: checked."]
    assert lines[-3].startswith("Game over: time is up. ")
    assert lines[-1].startswith("The evening so far — ")
