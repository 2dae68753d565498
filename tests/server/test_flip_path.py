"""The path of one flip through the real server stays short (docs/architecture.md, "The
path of a flip").

A real server (`serving`: the app, the Hub, the SQLite store, the logs) runs in a thread
of its own, with its own event loop; two players in this thread's loop play a two-player
game over loopback, with a seeded Hub (the same deal every run). The first flip is
played untraced; then seat 0 readies (its ``ready_changed`` read by both) and, with
a profiler set in the server's thread alone (``sys.setprofile``, so that the clients'
decoding in this thread is not counted), seat 1's ready, the last one the step waits
for, is sent, and both players read the step's ``waiting_for``. Every Python function
the server ran meanwhile from the project's ``server/``, ``protocol/`` and
``vocabulary/`` is counted: the modules and the named functions (comprehensions and
lambdas left out) one flip crosses, from the frame read to the frames written and the
row stored. The server offers no second path to loopback (the house) by default: the
second test runs the same flip with ``--second-path always`` and a second path of Ben's
attached (his ready sent on both), and bounds what the second path adds.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from protocol import (
    CardsTaken,
    CreateRoom,
    GameStarted,
    JoinRoom,
    Ready,
    ReadyChanged,
    RulesSpec,
    SecondPath,
    SecondPathReady,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from server.adapters.logs import get_logger
from server.adapters.serving import open_store, serving
from server.adapters.settings.config import SecondPathOffer, Settings
from server.core.hub.hub import Hub
from tests.e2e._client import Client
from tests.server.core._roomkit import SeededSource

ROOT = Path(__file__).resolve().parents[2]
COUNTED = tuple(str(ROOT / folder) + "/" for folder in ("server", "protocol", "vocabulary"))
# What one flip crosses (34 modules and 121 functions before issue 29, 35 and 124 once
# the fair deal's reveal joined the path; the goal, 22 and 80, is reached:
# docs/architecture.md, "The path of one flip").
MOST_MODULES = 22
MOST_FUNCTIONS = 80
# What a second path adds to a flip: the modules protocol/paths and ws/paths, and the
# merge, the merged read and the mirror (PathMerge.receive, WarServer._merged,
# FirstPath.flushed); without one, nothing.
SECOND_PATH_MODULES = 2
SECOND_PATH_FUNCTIONS = 3
TIMEOUT = 10.0
SEED = 1  # its second flip is a plain battle, the ordinary case


class Trace:
    """The project's functions a thread calls while the profiler is set."""

    def __init__(self) -> None:
        self.functions: set[tuple[str, int, str]] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code.co_filename.startswith(COUNTED) and not code.co_name.startswith("<"):
            self.functions.add((code.co_filename, code.co_firstlineno, code.co_qualname))

    @property
    def modules(self) -> set[str]:
        return {filename for filename, _, _ in self.functions}

    def report(self) -> str:
        rows = sorted((str(Path(f).relative_to(ROOT)), name) for f, _, name in self.functions)
        return "\n".join(f"{module}: {name}" for module, name in rows)


class ServerThread:
    """A real server on a free loopback port, in a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.port = 0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)

    async def _main(self) -> None:
        try:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            store = open_store(self._settings)
            now = time.time()
            # The real Hub, with a seeded source: the same deal, so the same flip, each run.
            hub = Hub([], self._settings, now=now, random=SeededSource(SEED), logger=get_logger())
            async with serving(self._settings, hub=hub, store=store) as server:
                self.port = server.port
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:
            self.error = error
            self._ready.set()
            raise

    def start(self) -> None:
        self._thread.start()
        assert self._ready.wait(TIMEOUT), "the server did not start"
        assert self.error is None, self.error

    def run(self, function: Any, *args: Any) -> None:
        """Call ``function(*args)`` in the server's thread and wait for it."""
        assert self._loop is not None
        done = threading.Event()

        def call() -> None:
            function(*args)
            done.set()

        self._loop.call_soon_threadsafe(call)
        assert done.wait(TIMEOUT)

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(TIMEOUT)


@asynccontextmanager
async def server_thread(tmp_path: Path, **changes: Any) -> AsyncIterator[ServerThread]:
    thread = ServerThread(Settings(port=0, db=tmp_path / "war.sqlite3", **changes))
    await asyncio.to_thread(thread.start)
    try:
        yield thread
    finally:
        await asyncio.to_thread(thread.stop)


def _awaits_ben(message: WaitingFor) -> bool:
    return message.seats == (1,)


def _past(client: Client, step: int) -> Callable[[WaitingFor], bool]:
    """A `Client.expect` filter: a ``waiting_for`` read once ``client`` is past ``step``."""
    return lambda _message: client.step > step


async def _last_ready(tmp_path: Path, *, second_path: bool = False) -> Trace:
    changes = {"second_path": SecondPathOffer.ALWAYS} if second_path else {}
    async with server_thread(tmp_path, **changes) as server:
        url = f"ws://127.0.0.1:{server.port}/"
        ann = await Client.connect(url)
        await ann.send(CreateRoom(name="Ann", rules=RulesSpec(players=2)))
        await ann.expect(Welcome)
        assert ann.player_code is not None
        ben = await Client.connect(url)
        await ben.send(JoinRoom(code=ann.player_code, name="Ben"))
        welcome = await ben.expect(Welcome)
        paths = [ben]
        if second_path:  # Ben's messages and the server's go on both of his connections
            assert welcome.path_key is not None
            second = await Client.connect(url)
            await second.send(SecondPath(key=welcome.path_key, after=1))
            await second.expect(SecondPathReady)
            paths.append(second)
        players = (ann, ben)
        for client in players:
            await client.expect(GameStarted)
            await client.expect(WaitingFor)
        for client in players:  # the first flip, which deals the game, untraced
            await client.send(Ready(step=0))
        for client in players:
            await client.expect(WaitingFor, where=_past(client, 0))
        step = ann.step
        await ann.send(Ready(step=step))
        for client in players:
            await client.expect(ReadyChanged)
            await client.expect(WaitingFor, where=_awaits_ben)
        trace = Trace()
        await asyncio.to_thread(server.run, sys.setprofile, trace)
        try:
            for path in paths:
                await path.send(Ready(step=step))
            for client in players:
                await client.expect(WaitingFor, where=_past(client, step))
        finally:
            await asyncio.to_thread(server.run, sys.setprofile, None)
        assert ben.of(CardsTaken) and not ben.of(WarDeclared), "the flip was a plain battle"
        for client in (*players, *paths[1:]):
            await client.close()
        return trace


async def test_the_last_ready_of_a_flip_takes_the_short_way(tmp_path: Path) -> None:
    trace = await _last_ready(tmp_path)
    counted = f"{len(trace.modules)} modules, {len(trace.functions)} functions"
    assert len(trace.modules) <= MOST_MODULES, f"{counted}:\n{trace.report()}"
    assert len(trace.functions) <= MOST_FUNCTIONS, f"{counted}:\n{trace.report()}"


async def test_a_flip_over_a_second_path_takes_three_functions_more(tmp_path: Path) -> None:
    """With ``--second-path always`` and a second path of Ben's attached (he readies on
    both, as the browser table does), the flip crosses the merge (`protocol.paths`,
    `WarServer._merged`) and the mirror (`server.adapters.ws.paths.FirstPath.flushed`):
    `SECOND_PATH_MODULES` and `SECOND_PATH_FUNCTIONS` more, no more (docs/architecture.md,
    "The path of one flip"). Without a second path the flip is the one above: two
    attribute checks more (the reading's ``lane``, the connection's ``mirror``)."""
    trace = await _last_ready(tmp_path, second_path=True)
    counted = f"{len(trace.modules)} modules, {len(trace.functions)} functions"
    assert len(trace.modules) <= MOST_MODULES + SECOND_PATH_MODULES, f"{counted}:\n{trace.report()}"
    most = MOST_FUNCTIONS + SECOND_PATH_FUNCTIONS
    assert len(trace.functions) <= most, f"{counted}:\n{trace.report()}"
    names = {name for _, _, name in trace.functions}
    assert {"PathMerge.receive", "WarServer._merged", "FirstPath.flushed"} <= names
