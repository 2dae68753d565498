"""The end-to-end harness: a real server in this process, clients, play helpers, replays.

`start_war` runs the real app and the real Hub over a SQLite file in a temporary folder,
on 127.0.0.1 and a free port, with fast auto-play paces (so a computer or a seat on auto
plays a step in about 10 ms) and a clock that tests may push forward (`War.clock`):
moving the clock and calling `War.poke` is how a time limit of minutes passes in no time.

`replay` gives, from the engine and the server's own engine → wire mapping
(`server.core.room.wire`), the game events a room must broadcast for a deal: what the tests
compare every client's log with.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol import (
    CreateRoom,
    GameOver,
    GameStarted,
    JoinRoom,
    Ready,
    RulesSpec,
    ServerMessage,
    Snapshot,
    WaitingFor,
    WatchRoom,
    Welcome,
)
from server import engine
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.ws.app import Clocks, WarServer
from server.core.hub.hub import Hub
from server.core.room.wire import engine_rules, event_message, game_over_message
from tests.e2e._client import GAME_EVENTS, Client

__all__ = [
    "FAST",
    "OffsetClock",
    "War",
    "play_step",
    "play_steps",
    "play_to_the_end",
    "replay",
    "start_war",
    "strip_seq",
]

FAST: dict[str, Any] = {"calm_delay": 0.02, "quick_delay": 0.01, "computer_delay": 0.01}
"""Paces for tests (`Settings` fields): a seat on auto (or the computer) readies 10-20 ms
after it may."""


class OffsetClock:
    """``time.time()`` plus an offset a test can raise (the Hub's wall clock), and
    `monotonic`, ``time.monotonic()`` plus the same offset (the transport limits')."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def monotonic(self) -> float:
        return time.monotonic() + self.offset


@dataclass(slots=True)
class War:
    """A running server and what tests need of it."""

    server: WarServer
    hub: Hub
    clock: OffsetClock
    db: Path
    clients: list[Client] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.server.port}/"

    def poke(self) -> None:
        """Make the server look at its timers again (after moving the clock)."""
        self.server.poke()

    async def client(self) -> Client:
        client = await Client.connect(self.url)
        self.clients.append(client)
        return client

    async def create(self, name: str = "Ann", **options: Any) -> Client:
        """A client that created a room (``options``: CreateRoom fields) and got welcome."""
        client = await self.client()
        await client.send(CreateRoom(name=name, **options))
        await client.expect(Welcome)
        return client

    async def join(self, code: str, name: str) -> Client:
        client = await self.client()
        await client.send(JoinRoom(code=code, name=name))
        await client.expect(Welcome)
        return client

    async def watch(self, code: str) -> Client:
        client = await self.client()
        await client.send(WatchRoom(code=code))
        await client.expect(Welcome)
        return client

    async def table(
        self, players: int = 2, *, rules: RulesSpec | None = None, **options: Any
    ) -> list[Client]:
        """A room with every seat taken by a client, the game started; seat order."""
        spec = rules if rules is not None else RulesSpec(players=players)
        creator = await self.create("Ann", rules=spec, **options)
        assert creator.player_code is not None
        seats = [creator]
        for name in ("Ben", "Cy", "Dee")[: spec.players - 1 - options.get("computers", 0)]:
            seats.append(await self.join(creator.player_code, name))
        for client in seats:
            await client.expect(GameStarted)
            await client.expect(WaitingFor)
        return seats


@asynccontextmanager
async def start_war(tmp_path: Path, **changes: Any) -> AsyncIterator[War]:
    """Run a server (``changes``: `Settings` fields, the room core's among them) until the
    block ends, then stop it."""
    values: dict[str, Any] = {"port": 0, "db": tmp_path / "war.sqlite3", "rate_limit": 1000.0}
    values.update(FAST)
    values.update(changes)
    settings = Settings(**values)
    clock = OffsetClock()
    async with serving(settings, clocks=Clocks(wall=clock, monotonic=clock.monotonic)) as server:
        assert isinstance(server.hub, Hub)
        war = War(server, server.hub, clock, settings.db)
        try:
            yield war
        finally:
            for client in war.clients:
                await client.close()


def strip_seq(messages: Iterable[ServerMessage]) -> list[ServerMessage]:
    """The messages with ``seq`` zeroed (rooms number them; the engine does not), and a
    ``game_over``'s ``evening`` left out (the room's, not the game's)."""
    out: list[ServerMessage] = []
    for message in messages:
        value: Any = message
        if isinstance(value, GameOver):
            value = dataclasses.replace(value, evening=())
        out.append(dataclasses.replace(value, seq=0))
    return out


def replay(
    spec: RulesSpec, deal: int, *, steps: int | None = None, finish: bool = False
) -> list[ServerMessage]:
    """The game events (seq 0) of ``deal`` from the engine: all of them, or ``steps``
    steps and then (``finish``) the game played out at once, as a finish vote does."""
    game = engine.Game(engine_rules(spec), deal)
    out: list[ServerMessage] = []
    while game.outcome is None and (steps is None or game.steps < steps):
        out += [event_message(e, game, 0) for e in game.step()]
    if finish and game.outcome is None:
        game.finish()
        out.append(game_over_message(game, 0))
    return out


def game_events(client: Client, game: int = 1) -> list[ServerMessage]:
    """The game events ``client`` read for game number ``game`` (seq 0; a ``game_over``
    without its fair deal's reveal, which tests/server/core/test_fairdeal.py checks)."""
    current = 0
    out: list[ServerMessage] = []
    for message in client.log:
        if isinstance(message, Welcome | Snapshot):
            current = message.state.game
        elif isinstance(message, GameStarted):
            current = message.game
        elif current == game and isinstance(message, GameOver):
            out.append(dataclasses.replace(message, fairness=None))
        elif current == game and isinstance(message, GAME_EVENTS):
            out.append(message)
    return strip_seq(out)


async def play_step(players: Sequence[Client], watchers: Sequence[Client] = ()) -> None:
    """Every awaited seat among ``players`` sends ready; everyone reads past the step.

    Precondition: every client has read up to the ``waiting_for`` after the last step
    (as `War.table` and this function leave them). Computer seats ready by themselves.
    """
    before = players[0].step
    awaited = players[0].waiting
    for player in players:
        if player.seat in awaited:
            await player.send(Ready(step=player.step))
    for client in (*players, *watchers):
        await client.expect(WaitingFor, where=_after(client, before))


async def play_steps(
    count: int, players: Sequence[Client], watchers: Sequence[Client] = ()
) -> None:
    """`play_step` ``count`` times (stops early at game over)."""
    for _ in range(count):
        if players[0].of(GameOver) and _over(players[0]):
            return
        await play_step(players, watchers)


async def play_to_the_end(
    players: Sequence[Client], watchers: Sequence[Client] = (), *, max_steps: int = 5000
) -> GameOver:
    """Play steps until ``game_over``; return it."""
    for _ in range(max_steps):
        if _over(players[0]):
            break
        await play_step(players, watchers)
    over = players[0].of(GameOver)
    assert over and _over(players[0]), f"no game over after {max_steps} steps"
    return over[-1]


def _after(client: Client, step: int) -> Callable[[WaitingFor], bool]:
    """A `Client.expect` filter: a waiting_for read once the client is past ``step``."""
    return lambda _message: client.step > step


def _over(client: Client) -> bool:
    """Whether the client's latest game has ended."""
    for message in reversed(client.log):
        if isinstance(message, GameOver):
            return True
        if isinstance(message, GameStarted):
            return False
    return False
