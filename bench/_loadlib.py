"""The client side of ``bench/load.py``: rooms of players and spectators that play War.

Everything here runs in the load process's one event loop, on :mod:`bench._rawws`
connections. A room is two players (one creates it, one joins with the player code) and
``spectators`` watchers (with the watch code). Drivers:

- ``idle``: nobody readies; the connections just sit in their rooms.
- ``pace``: every ``pace`` seconds (each room at its own random phase) both players send
  ``ready`` for the current step, back to back, or the second ``ready_gap`` seconds after
  the first (as people at a table press at different moments).
- ``full``: each player sends ``ready`` as soon as a ``waiting_for`` names its seat.

When a game ends, both players vote ``rematch`` (new deal) and play goes on.

The delay measured is the one the issue asks for: from the moment the *last* ``ready``
of a step is sent to the moment the first event of the resulting step arrives, at every
player and spectator of the room, all on one ``time.perf_counter`` clock in this process.
Frames are parsed with bare ``msgpack.unpackb`` (the client's validating decoder would
cost the load process more than the server it is measuring); outgoing messages go through
the protocol's own ``encode``.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack

from bench._rawws import RawWebSocket, connect
from protocol import CreateRoom, JoinRoom, Ready, Rematch, RematchDeal, RulesSpec, WatchRoom
from protocol import encode as encode_message

__all__ = ["Conn", "LoadStats", "Mode", "Room", "RoomLoad", "percentile"]

GAME_EVENTS = frozenset(
    {
        "cards_turned",
        "cards_laid_down",
        "war_declared",
        "cards_taken",
        "cards_returned",
        "player_out",
        "game_over",
    }
)
ROUND_ENDS = frozenset({"cards_taken", "cards_returned"})
PLAYING = "playing"
OVER = "over"
_unpack = msgpack.unpackb
RULES_0_2 = ("taken_back",)
"""rule fields release 0.2 does not know (it refuses a create_room that names them); left
out, it plays its own rule for them (taken_back as_laid, where this release's default is
as_won: a rare case, a war nobody could settle)"""
FIELDS_0_3 = ("talk", "seed_commitment", "seed")
"""message fields of this round (talk, fair deals) that 0.1 and 0.2 do not know (they refuse
a message that names them); left out, they play as before"""
LEGACY_DROPPED_RULES = ("both_short", "fixed_order", *RULES_0_2)
"""rule fields release 0.1 does not know; left out, 0.1 plays its own rules for them"""
_now = time.perf_counter


class Mode:
    """Driver names."""

    IDLE = "idle"
    PACE = "pace"
    FULL = "full"


def percentile(values: array[float] | list[float], fraction: float) -> float:
    """The ``fraction`` (0..1) percentile by nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


@dataclass(slots=True)
class LoadStats:
    """Counters of one measurement window (reset by :meth:`reset`)."""

    player_delays: array[float] = field(default_factory=lambda: array("d"))
    spectator_delays: array[float] = field(default_factory=lambda: array("d"))
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    rounds: int = 0
    games: int = 0
    frames: int = 0
    readies: int = 0
    seq_gaps: int = 0
    overruns: int = 0
    tick_lateness: array[float] = field(default_factory=lambda: array("d"))
    worst: dict[int, float] = field(default_factory=dict)
    """the largest delay seen in each whole second of the perf_counter clock"""

    def reset(self) -> None:
        """Start a new window: every counter and sample back to zero."""
        self.player_delays = array("d")
        self.spectator_delays = array("d")
        self.errors.clear()
        self.closes.clear()
        self.steps = self.rounds = self.games = self.frames = self.readies = 0
        self.seq_gaps = self.overruns = 0
        self.tick_lateness = array("d")
        self.worst = {}

    def delays(self) -> array[float]:
        """Every delay sample, players' and spectators'."""
        both = array("d", self.player_delays)
        both.extend(self.spectator_delays)
        return both

    @property
    def error_total(self) -> int:
        """Error messages received plus unexpected closes plus seq gaps."""
        return sum(self.errors.values()) + sum(self.closes.values()) + self.seq_gaps


class Room:
    """One room's connections and the state its driver needs."""

    __slots__ = (
        "game",
        "index",
        "load",
        "players",
        "ready_step",
        "ready_times",
        "spectators",
        "watch_code",
    )

    def __init__(self, load: RoomLoad, index: int) -> None:
        self.load = load
        self.index = index
        self.players: list[Conn] = []
        self.spectators: list[Conn] = []
        self.watch_code = ""
        self.game = 1
        self.ready_step = -1
        self.ready_times: dict[tuple[int, int], float] = {}
        """(game, step) → when the last ready for it was sent (the latest few)"""

    def conns(self) -> list[Conn]:
        """Players then spectators."""
        return self.players + self.spectators

    def tick(self) -> None:
        """The paced driver's beat: both players ready the current step (or rematch)."""
        players = self.players
        if len(players) < 2:
            return
        if any(p.phase == OVER for p in players):
            for p in players:
                p.maybe_rematch()
            return
        step = players[0].step
        if any(p.step != step or p.phase != PLAYING for p in players):
            self.load.stats.overruns += 1
            return
        if self.ready_step == step:
            self.load.stats.overruns += 1
            return
        due = [p for p in players if p.seat in p.waiting and p.ready_sent != step]
        gap = self.load.ready_gap
        if gap > 0 and len(due) > 1:
            due[0].send_ready()
            asyncio.get_running_loop().call_later(gap, self._late_ready, due[1], step)
            return
        for p in due:
            p.send_ready()

    def _late_ready(self, player: Conn, step: int) -> None:
        """The second player's ready, ``ready_gap`` after the first (if still due)."""
        due = player.phase == PLAYING and player.step == step and player.ready_sent != step
        if self.load.running and due and player.seat in player.waiting:
            player.send_ready()


class Conn:
    """One player or spectator connection and what it has learned of the room."""

    __slots__ = (
        "game",
        "measured",
        "phase",
        "player_code",
        "ready_sent",
        "rematch_game",
        "room",
        "seat",
        "seq",
        "step",
        "token",
        "waiting",
        "welcomed",
        "ws",
    )

    def __init__(self, room: Room, seat: int | None) -> None:
        self.room = room
        self.seat = seat
        self.ws: RawWebSocket | None = None
        self.seq = 0
        self.step = 0
        self.phase = ""
        self.waiting: list[int] = []
        self.measured = 0
        self.ready_sent = -1
        self.rematch_game = 0
        self.game = 1
        self.token = ""
        self.player_code = ""
        self.welcomed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_close(self, code: int | None) -> None:
        load = self.room.load
        if not self.welcomed.done():
            self.welcomed.set_exception(ConnectionError(f"closed before welcome ({code})"))
        if not load.stopping:
            load.stats.closes[str(code)] += 1

    def on_message(self, payload: bytes, is_text: bool) -> None:
        now = _now()
        room = self.room
        stats = room.load.stats
        stats.frames += 1
        try:
            message: dict[str, Any] = _unpack(payload)
            kind = message["type"]
        except (ValueError, TypeError, KeyError, msgpack.UnpackException):
            stats.errors["undecodable"] += 1
            return
        if kind == "error":
            stats.errors[str(message.get("code"))] += 1
            if not self.welcomed.done():
                self.welcomed.set_exception(ConnectionError(f"refused: {message}"))
            return
        seq = message.get("seq")
        if kind == "welcome" or kind == "snapshot":
            self._apply_state(message)
            if kind == "welcome" and not self.welcomed.done():
                self.welcomed.set_result(None)
        else:
            if type(seq) is int and seq > self.seq:
                if seq != self.seq + 1:
                    stats.seq_gaps += 1
                self.seq = seq
            if kind in GAME_EVENTS:
                step = message["step"]
                if step > self.step:
                    self.step = step
                    # a step clears every flag: wait for waiting_for (the one-frame
                    # baseline says who it waits for in the event itself)
                    self.waiting = message.get("waiting", [])
                    if self.seat == 0:
                        stats.steps += 1
                    sent = room.ready_times.get((self.game, step - 1))
                    if sent is not None and self.measured < step:
                        self.measured = step
                        delays = (
                            stats.spectator_delays if self.seat is None else stats.player_delays
                        )
                        delay = now - sent
                        delays.append(delay)
                        second = int(now)
                        if delay > stats.worst.get(second, 0.0):
                            stats.worst[second] = delay
                if kind in ROUND_ENDS:
                    if self.seat == 0:
                        stats.rounds += 1
                elif kind == "game_over":
                    self.phase = OVER
                    if self.seat == 0:
                        stats.games += 1
            elif kind == "waiting_for":
                self.waiting = message["seats"]
            elif kind == "game_started":
                game = message["game"]
                if game > room.game:
                    room.game = game
                    room.ready_step = -1
                self.game = game
                self.step = 0
                self.measured = 0
                self.ready_sent = -1
                self.phase = PLAYING
        if self.seat is not None and room.load.mode == Mode.FULL and room.load.running:
            self.act_now()

    def _apply_state(self, message: dict[str, Any]) -> None:
        state = message["state"]
        self.seq = message["seq"]
        self.step = state["step"]
        self.game = state["game"]
        self.phase = state["phase"]
        self.waiting = list(state["waiting_for"])
        if message.get("token"):
            self.token = message["token"]
        if message.get("player_code"):
            self.player_code = message["player_code"]
        if message.get("watch_code"):
            self.room.watch_code = message["watch_code"]

    def act_now(self) -> None:
        """Full speed: ready if the game waits for this seat, rematch if it is over."""
        if self.phase == PLAYING:
            if self.seat in self.waiting and self.ready_sent != self.step:
                self.send_ready()
        elif self.phase == OVER:
            self.maybe_rematch()

    def send_ready(self) -> None:
        """Send ``ready`` for the step this connection knows; note when, for the room."""
        assert self.ws is not None
        step = self.step
        self.ws.send(self.room.load.encode(Ready(step=step)))
        self.ready_sent = step
        room = self.room
        room.ready_step = step
        times = room.ready_times
        times[self.game, step] = _now()
        if len(times) > 8:
            del times[next(iter(times))]
        room.load.stats.readies += 1

    def maybe_rematch(self) -> None:
        """Vote for a rematch with a new deal, once per game."""
        if self.ws is not None and self.rematch_game != self.game:
            self.rematch_game = self.game
            self.ws.send(self.room.load.encode(Rematch(deal=RematchDeal.NEW)))


@dataclass(slots=True)
class RoomLoad:
    """Rooms of 2 players + ``spectators`` against one server, driven by ``mode``."""

    host: str
    port: int
    spectators: int = 2
    mode: str = Mode.IDLE
    pace: float = 1.0
    ready_gap: float = 0.0
    """paced: seconds from the first player's ready of a step to the second's"""
    seed: int = 0
    connect_concurrency: int = 64
    timeout: float = 20.0
    forwarded: bool = False
    """send X-Forwarded-For 10.x.y.z, one address per room (for --trusted-proxies)"""
    dropped_rules: tuple[str, ...] = ()
    dropped_fields: tuple[str, ...] = ()
    """message fields left out for an older server (`FIELDS_0_3`)"""
    """rule fields left out of create_room, for an earlier release that refuses them
    (`LEGACY_DROPPED_RULES` for 0.1, `RULES_0_2` for 0.2)"""
    stats: LoadStats = field(default_factory=LoadStats)
    rooms: list[Room] = field(default_factory=list)
    running: bool = False
    stopping: bool = False
    setup_failures: Counter[str] = field(default_factory=Counter)

    @property
    def connections(self) -> int:
        """Open connections now."""
        return sum(
            1 for room in self.rooms for c in room.conns() if c.ws is not None and c.ws.is_open
        )

    async def _open(self, conn: Conn, message: bytes) -> None:
        index = conn.room.index
        address = f"10.{(index >> 16) & 255}.{(index >> 8) & 255}.{index & 255}"
        headers = [("X-Forwarded-For", address)] if self.forwarded else []
        conn.ws = await connect(
            self.host,
            self.port,
            conn.on_message,
            conn.on_close,
            within=self.timeout,
            headers=headers,
        )
        conn.ws.send(message)
        await asyncio.wait_for(asyncio.shield(conn.welcomed), self.timeout)

    def encode(self, message: CreateRoom | JoinRoom | Ready | Rematch) -> bytes:
        """``message`` as this server takes it (without the fields it does not know)."""
        if not self.dropped_rules and not self.dropped_fields:
            return encode_message(message)
        fields = _unpack(encode_message(message))
        for name in self.dropped_rules if "rules" in fields else ():
            del fields["rules"][name]
        for name in self.dropped_fields:
            fields.pop(name, None)
        return bytes(msgpack.packb(fields))

    async def _build(self, index: int, gate: asyncio.Semaphore) -> Room | None:
        room = Room(self, index)
        async with gate:
            try:
                creator = Conn(room, 0)
                room.players.append(creator)
                create = CreateRoom(
                    name=f"load{index}a", rules=RulesSpec(players=2), deal=self.seed + index
                )
                await self._open(creator, self.encode(create))
                joiner = Conn(room, 1)
                room.players.append(joiner)
                join = JoinRoom(code=creator.player_code, name=f"load{index}b")
                await self._open(joiner, self.encode(join))
                for _ in range(self.spectators):
                    watcher = Conn(room, None)
                    room.spectators.append(watcher)
                    await self._open(watcher, encode_message(WatchRoom(code=room.watch_code)))
            except (OSError, TimeoutError, ConnectionError) as error:
                self.setup_failures[type(error).__name__ + ": " + str(error)[:80]] += 1
                for conn in room.conns():
                    if conn.ws is not None:
                        conn.ws.abort()
                return None
        return room

    async def add_rooms(self, count: int) -> int:
        """Open ``count`` more rooms (bounded concurrency); return how many succeeded."""
        gate = asyncio.Semaphore(self.connect_concurrency)
        start = len(self.rooms)
        built = await asyncio.gather(*(self._build(start + i, gate) for i in range(count)))
        ok = [room for room in built if room is not None]
        self.rooms.extend(ok)
        return len(ok)

    def start(self, mode: str) -> None:
        """Start driving the rooms in ``mode`` (``pace`` schedules one beat per room)."""
        self.mode = mode
        self.running = True
        if mode == Mode.FULL:
            for room in self.rooms:
                for player in room.players:
                    player.act_now()
        elif mode == Mode.PACE:
            loop = asyncio.get_running_loop()
            rng = random.Random(self.seed)
            first = loop.time() + 0.05
            for room in self.rooms:
                self._schedule(loop, room, first + rng.random() * self.pace)

    def _schedule(self, loop: asyncio.AbstractEventLoop, room: Room, when: float) -> None:
        loop.call_at(when, self._beat, loop, room, when)

    def _beat(self, loop: asyncio.AbstractEventLoop, room: Room, when: float) -> None:
        if not self.running:
            return
        self.stats.tick_lateness.append(loop.time() - when)
        room.tick()
        nxt = when + self.pace
        now = loop.time()
        while nxt < now:  # a beat more than one period late is skipped, not bunched
            nxt += self.pace
            self.stats.overruns += 1
        self._schedule(loop, room, nxt)

    def pause(self) -> None:
        """Stop driving (no more readies; pending beats return at once); stay connected."""
        self.running = False

    async def close(self, within: float = 20.0) -> None:
        """Close every connection (close frame) and wait for them, up to ``within`` s."""
        self.pause()
        self.stopping = True
        waits = []
        for room in self.rooms:
            for conn in room.conns():
                if conn.ws is not None:
                    conn.ws.close()
                    waits.append(conn.ws.closed)
        if waits:
            await asyncio.wait(waits, timeout=within)
        for room in self.rooms:
            for conn in room.conns():
                if conn.ws is not None and not conn.ws.closed.done():
                    conn.ws.abort()
