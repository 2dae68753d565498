"""Players and spectators that play whole games over real ``websockets`` connections,
survive server restarts, and are checked against a fresh engine replay.

Shared by ``tests/e2e/test_soak.py``, ``test_chaos.py``, ``test_abuse.py`` and
``bench/soak.py``, ``bench/chaos.py``. Every frame is decoded with the protocol's strict
client-side decoder. Nothing sleeps: every wait is a read with a timeout or an event.

The replay (`replay`) is computed from a fresh engine through the server's own engine →
wire mapping (``server/core/room/wire.py``), and both sides are compared as the same tuples
(`normalize`): what is checked here is that the live server broadcasts exactly what its
engine and its mapping say, across restarts and reconnects. The mapping itself is checked
against hand-written messages in ``tests/server/core/test_wire.py``, and the engine
against its independent tiny-deck oracle (``tests/server/engine/test_engine_tiny.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import (
    AutoPlay,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ClientMessage,
    CreateRoom,
    Error,
    GameOver,
    GameStarted,
    JoinRoom,
    PlayerOut,
    Ready,
    Rematch,
    RematchDeal,
    ResumeSeat,
    RulesSpec,
    SecondPathReady,
    ServerMessage,
    SetAutoPlay,
    Snapshot,
    VoteFinish,
    WaitingFor,
    WarDeclared,
    WatchRoom,
    Welcome,
    decode_server_message,
    encode,
)
from server import engine
from server.core.room.wire import engine_rules, event_message, game_over_message

__all__ = [
    "DROPPED",
    "Event",
    "GameLog",
    "Participant",
    "ParticipantError",
    "Resumed",
    "check_game",
    "counts_at",
    "normalize",
    "open_room",
    "print_report",
    "replay",
    "verify_room",
]

Event = tuple[Any, ...]
"""A game event as a comparable tuple: ``(type, step, …fields)``."""

DROPPED = frozenset({None, 1006, 1011, 1012})
"""Close codes after which a participant reconnects (a drop, a server bug, a restart)."""
RECV_TIMEOUT = 30.0
_GAME_EVENTS = (CardsTurned, CardsLaidDown, WarDeclared, CardsTaken, CardsReturned, PlayerOut)


class ParticipantError(AssertionError):
    """A participant could not go on (refused, closed for good, or nothing arrived)."""


# --- the engine side --------------------------------------------------------------------
def normalize(message: ServerMessage) -> Event | None:
    """A game event (received, or mapped from the replay) as a comparable tuple without
    ``seq``; None for any other message."""
    match message:
        case CardsTurned(step=st, round=r, depth=d, cards=cards):
            return ("cards_turned", st, r, d, tuple((s, c) for s, c in cards))
        case CardsLaidDown(step=st, round=r, depth=d, counts=counts):
            return ("cards_laid_down", st, r, d, tuple(tuple(p) for p in counts))
        case WarDeclared(step=st, round=r, depth=d, seats=seats):
            return ("war_declared", st, r, d, tuple(seats))
        case CardsTaken(step=st, round=r, seat=seat, count=count, counts=counts):
            return ("cards_taken", st, r, seat, count, tuple(counts))
        case CardsReturned(step=st, round=r, counts=counts):
            return ("cards_returned", st, r, tuple(counts))
        case PlayerOut(step=st, round=r, seat=seat, reason=reason):
            return ("player_out", st, r, seat, str(reason))
        case GameOver(step=st, winner=w, termination=t, summary=s, counts=counts):
            figures = (s.rounds, s.wars, s.longest_war, s.biggest_haul, s.deal)
            return ("game_over", st, w, str(t), figures, tuple(counts))
    return None


def replay(
    spec: RulesSpec, deal: int, *, steps: int | None = None, finish: bool = False
) -> tuple[dict[int, list[Event]], engine.Game]:
    """The events of ``deal`` by step, from a fresh engine, and the game at the end.

    All steps to the end, or only ``steps`` of them; then with ``finish`` the rest is
    played out at once (as a finish vote does) and its ``game_over`` is the last event,
    under the step count the game has after finishing.
    """
    game = engine.Game(engine_rules(spec), deal)
    by_step: dict[int, list[Event]] = {}
    while game.outcome is None and (steps is None or game.steps < steps):
        events = game.step()
        by_step[game.steps] = [_normalized(event_message(e, game, 0)) for e in events]
    if finish and game.outcome is None:
        game.finish()
        by_step.setdefault(game.steps, []).append(_normalized(game_over_message(game, 0)))
    return by_step, game


def _normalized(message: ServerMessage) -> Event:
    event = normalize(message)
    if event is None:
        raise TypeError(f"not a game event: {message!r}")
    return event


def counts_at(spec: RulesSpec, deal: int, steps: int) -> tuple[int, ...]:
    """Every seat's pile after ``steps`` steps of ``deal`` (a fresh engine)."""
    game = engine.Game(engine_rules(spec), deal)
    while game.outcome is None and game.steps < steps:
        game.step()
    return tuple(game.counts)


# --- the client side --------------------------------------------------------------------
@dataclass(slots=True)
class GameLog:
    """What one participant saw of one game."""

    number: int
    events: list[Event] = field(default_factory=list)
    """game events in arrival order (across reconnects)"""
    over: Event | None = None

    @property
    def deal(self) -> int | None:
        """The deal, as revealed by ``game_over``."""
        return None if self.over is None else int(self.over[4][4])

    def by_step(self) -> dict[int, list[Event]]:
        """The events grouped by step, in arrival order."""
        out: dict[int, list[Event]] = {}
        for event in self.events:
            out.setdefault(event[1], []).append(event)
        return out


@dataclass(frozen=True, slots=True)
class Resumed:
    """One reconnection: what the participant had seen, and what the welcome said."""

    game: int
    seen_step: int
    ready_for: int | None
    state_game: int
    state_step: int
    counts: tuple[int, ...]


@dataclass(slots=True)
class Participant:
    """A player (``seat`` set by the welcome) or a spectator, for one room, many games.

    ``url`` is called at each (re)connection. ``up`` (optional) is set while the server is
    believed to be running: after a drop the participant waits for it, then resumes its
    seat with its latest token (a spectator watches again). ``on_step(self, step)`` is
    called when seat 0 sees a new step (for chaos schedules); ``on_message(message)`` for
    every message received; ``on_event(self)`` after each resume and when play ends.
    """

    url: Callable[[], str]
    name: str = "p"
    up: asyncio.Event | None = None
    auto: AutoPlay | None = None
    on_step: Callable[[Participant, int], None] | None = None
    on_message: Callable[[ServerMessage], None] | None = None
    on_event: Callable[[Participant], None] | None = None
    """called after each resume's welcome, and when `play` ends"""
    finished: bool = False
    seat: int | None = None
    room: str = ""
    token: str = ""
    player_code: str = ""
    watch_code: str = ""
    spectator: bool = False
    ws: ClientConnection | None = None
    games: dict[int, GameLog] = field(default_factory=dict)
    game: int = 0
    step: int = 0
    waiting: tuple[int, ...] = ()
    phase: str = ""
    last_seq: int = 0
    ready_for: int | None = None
    errors: list[tuple[str, str]] = field(default_factory=list)
    seq_gaps: int = 0
    resumes: list[Resumed] = field(default_factory=list)
    closes: list[int | None] = field(default_factory=list)
    messages: int = 0
    recent: list[str] = field(default_factory=list)
    """the last few messages received (type:seq), for error reports"""
    finish: asyncio.Event | None = None
    stop: asyncio.Event | None = None
    _finish_sent: bool = False
    _rematch_sent: int = 0

    # -- opening -------------------------------------------------------------------------
    async def _connect(self) -> ClientConnection:
        self.ws = await asyncio.wait_for(
            connect(self.url(), compression=None, max_queue=None, open_timeout=10), 15
        )
        return self.ws

    async def _send(self, message: ClientMessage) -> None:
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode(message))

    async def _welcome(self, within: float = RECV_TIMEOUT) -> Welcome:
        while True:
            message = await self._recv(within)
            if isinstance(message, Welcome):
                return message
            if isinstance(message, Error):
                raise ParticipantError(f"{self.name}: refused {message.code}: {message.message}")

    async def create(self, rules: RulesSpec, *, deal: int | None = None, **more: Any) -> None:
        """Connect and create a room (seat 0)."""
        await self._connect()
        await self._send(CreateRoom(name=self.name, rules=rules, deal=deal, **more))
        await self._welcome()

    async def join(self, code: str) -> None:
        """Connect and take a seat with the player code."""
        await self._connect()
        await self._send(JoinRoom(code=code, name=self.name))
        await self._welcome()

    async def watch(self, code: str) -> None:
        """Connect and watch with the watch code."""
        self.spectator = True
        self.watch_code = code
        await self._connect()
        await self._send(WatchRoom(code=code))
        await self._welcome()

    # -- reading ---------------------------------------------------------------------------
    async def _recv(self, within: float) -> ServerMessage:
        assert self.ws is not None
        data = await asyncio.wait_for(self.ws.recv(), within)
        if not isinstance(data, bytes):
            raise ParticipantError(f"{self.name}: a text frame from the server: {data!r}")
        message = decode_server_message(data)
        self.messages += 1
        self.recent = [*self.recent[-11:], f"{message.TYPE}:{getattr(message, 'seq', '-')}"]
        self._track(message)
        if self.on_message is not None:
            self.on_message(message)
        return message

    def _log(self) -> GameLog:
        log = self.games.get(self.game)
        if log is None:
            log = self.games[self.game] = GameLog(self.game)
        return log

    def _track(self, message: ServerMessage) -> None:
        if isinstance(message, Welcome | Snapshot):
            state = message.state
            if isinstance(message, Welcome):
                self.seat = message.seat
                self.room = state.room
                self.token = message.token or self.token
                self.player_code = message.player_code or self.player_code
                self.watch_code = message.watch_code or self.watch_code
            self.game, self.step, self.phase = state.game, state.step, state.phase.value
            self.waiting = tuple(state.waiting_for)
            self.last_seq = message.seq
            self._log()
            return
        if isinstance(message, Error):
            self.errors.append((message.code, message.message))
            return
        if isinstance(message, SecondPathReady):
            return  # a second path's own reply: no room message
        if message.seq > self.last_seq + 1:
            self.seq_gaps += 1
        self.last_seq = max(self.last_seq, message.seq)
        if isinstance(message, GameStarted):
            self.game, self.step, self.phase, self.waiting = message.game, 0, "playing", ()
            self.ready_for = None
            self._log()
        elif isinstance(message, WaitingFor):
            self.waiting = tuple(message.seats)
        else:
            event = normalize(message)
            if event is None:
                return
            log = self._log()
            log.events.append(event)
            step = event[1]
            if step > self.step:
                self.step = step
                self.waiting = ()
                if self.on_step is not None and self.seat == 0:
                    self.on_step(self, step)
            if isinstance(message, GameOver):
                log.over = event
                self.phase = "over"

    # -- playing ---------------------------------------------------------------------------
    async def _act(self, games: int) -> None:
        if self.seat is None or self.spectator:
            return
        if self.finish is not None and self.finish.is_set() and not self._finish_sent:
            if self.phase == "playing":
                self._finish_sent = True
                await self._send(VoteFinish())
            return
        if self.phase == "playing" and self.auto is None:
            if self.seat in self.waiting and self.ready_for != self.step:
                self.ready_for = self.step
                await self._send(Ready(step=self.step))
        elif self.phase == "over" and self.game < games and self._rematch_sent < self.game:
            if self.stop is not None and self.stop.is_set():
                return
            self._rematch_sent = self.game
            await self._send(Rematch(deal=RematchDeal.NEW))

    def _done(self, games: int) -> bool:
        log = self.games.get(games)
        if log is not None and log.over is not None:
            return True
        if self.stop is not None and self.stop.is_set():
            current = self.games.get(self.game)
            return current is not None and current.over is not None
        return False

    async def play(self, games: int = 1, *, within: float = RECV_TIMEOUT) -> None:
        """Play (or watch) until game number ``games`` is over, across reconnects.

        Players ready whenever the game waits for their seat (unless on ``auto``, which
        is set at the start), vote a rematch with a new deal after each game but the last,
        and vote to finish once ``finish`` is set. Once ``stop`` is set, the game being
        played is the last one.

        Raises:
            ParticipantError: refused, closed for good, or nothing for ``within`` seconds.
        """
        if self.auto is not None and self.seat is not None:
            await self._send(SetAutoPlay(mode=self.auto))
        finishing: asyncio.Task[None] | None = None
        if self.finish is not None and self.seat is not None:
            finishing = asyncio.create_task(self._finish_when_told(games))
        try:
            await self._act(games)
            while not self._done(games):
                try:
                    await self._recv(within)
                except ConnectionClosed as closed:
                    await self._reconnect(closed)
                    await self._act(games)
                    continue
                except TimeoutError:
                    raise ParticipantError(
                        f"{self.name}: nothing for {within} s at game {self.game} step "
                        f"{self.step} (waiting {self.waiting}, ready for {self.ready_for}); "
                        f"last: {self.recent}; closes {self.closes}"
                    ) from None
                await self._act(games)
        finally:
            self.finished = True
            if finishing is not None:
                finishing.cancel()
            if self.on_event is not None:
                self.on_event(self)

    async def _finish_when_told(self, games: int) -> None:
        assert self.finish is not None
        await self.finish.wait()
        await self._act(games)

    async def _reconnect(self, closed: ConnectionClosed) -> None:
        code = closed.rcvd.code if closed.rcvd is not None else None
        self.closes.append(code)
        if code not in DROPPED or self.up is None:
            raise ParticipantError(f"{self.name}: closed with {code} at step {self.step}")
        if len(self.closes) > 50:
            raise ParticipantError(f"{self.name}: more than 50 reconnections")
        seen_game, seen_step, ready_for = self.game, self.step, self.ready_for
        failures = 0
        while True:
            await asyncio.wait_for(self.up.wait(), RECV_TIMEOUT)
            try:
                await self._connect()
                if self.spectator:
                    await self._send(WatchRoom(code=self.watch_code))
                else:
                    await self._send(ResumeSeat(room=self.room, token=self.token))
                welcome = await self._welcome()
                break
            except (OSError, ConnectionClosed) as error:
                # the server died again between `up` and here: `up` is cleared before
                # each kill, so this repeats only while a new server is starting
                failures += 1
                if failures > 100:
                    raise ParticipantError(f"{self.name}: cannot reconnect: {error}") from None
        self.ready_for = None
        counts = tuple(s.count for s in welcome.state.seats)
        self.resumes.append(
            Resumed(seen_game, seen_step, ready_for, welcome.state.game, self.step, counts)
        )
        if self.on_event is not None:
            self.on_event(self)

    async def close(self) -> None:
        """Close the connection (1000) if open."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)


# --- checks -----------------------------------------------------------------------------
def check_game(
    log: GameLog,
    spec: RulesSpec,
    *,
    finish: bool = False,
    complete: bool = True,
) -> list[str]:
    """Compare what a participant saw of one game with a fresh replay of its deal.

    Returns a list of problems (empty: all good). With ``complete`` every step's events
    must be exactly the replay's; without it (a server was killed mid-broadcast) each
    step's events must be a prefix of the replay's, and a step may be missing entirely.
    Steps must arrive in order and no event twice (a step played twice shows as a
    repeated or out-of-order event). The round results (``cards_taken`` /
    ``cards_returned``), deduplicated by step and round, must equal the replay's for every
    round seen, and ``game_over`` must equal the replay's exactly.
    """
    problems: list[str] = []
    if log.over is None or log.deal is None:
        return [f"game {log.number}: no game_over seen"]
    played = max((e[1] for e in log.events if e[0] != "game_over"), default=0)
    expected, _ = replay(spec, log.deal, steps=played if finish else None, finish=finish)
    seen = log.by_step()
    last = 0
    for event in log.events:
        if event[1] < last:
            problems.append(f"game {log.number}: step {event[1]} arrived after step {last}")
        last = max(last, event[1])
    for step, events in seen.items():
        want = expected.get(step)
        if want is None:
            problems.append(f"game {log.number}: step {step} is not in the replay")
            continue
        ok = events == want if complete else events == want[: len(events)]
        if not ok:
            problems.append(f"game {log.number} step {step}: saw {events}, replay {want}")
    if complete and set(seen) != set(expected):
        missing = sorted(set(expected) - set(seen))[:10]
        problems.append(f"game {log.number}: steps missing {missing}")
    # by step and round: a round everyone ran short in (3-4 players) is not counted, and
    # the next one has the same number (docs/rules.md, "Running short in a war")
    rounds_seen: dict[tuple[int, int], Event] = {}
    for event in log.events:
        if event[0] in ("cards_taken", "cards_returned"):
            key = (event[1], event[2])
            if key in rounds_seen and rounds_seen[key] != event:
                problems.append(f"game {log.number}: round {event[2]} seen twice, differently")
            rounds_seen[key] = event
    rounds_want = {
        (e[1], e[2]): e
        for evs in expected.values()
        for e in evs
        if e[0] in ("cards_taken", "cards_returned")
    }
    for key, event in rounds_seen.items():
        if rounds_want.get(key) != event:
            problems.append(
                f"game {log.number} round {key[1]}: saw {event}, replay {rounds_want.get(key)}"
            )
    final = [e for evs in expected.values() for e in evs if e[0] == "game_over"]
    if final != [log.over]:
        problems.append(f"game {log.number}: game_over {log.over}, replay {final}")
    return problems


async def open_room(
    url: Callable[[], str],
    spec: RulesSpec,
    deal: int | None,
    tag: str,
    *,
    spectators: int = 1,
    auto: AutoPlay | None = None,
    up: asyncio.Event | None = None,
    on_step: Callable[[Participant, int], None] | None = None,
    stop: asyncio.Event | None = None,
) -> list[Participant]:
    """A room: the creator (seat 0, with ``on_step``), the joiners, then the spectators."""
    seats = [Participant(url, name=f"{tag}-0", auto=auto, up=up, on_step=on_step, stop=stop)]
    await seats[0].create(spec, deal=deal)
    for n in range(1, spec.players):
        seats.append(Participant(url, name=f"{tag}-{n}", auto=auto, up=up, stop=stop))
        await seats[-1].join(seats[0].player_code)
    for n in range(spectators):
        watcher = Participant(url, name=f"{tag}-w{n}", up=up, stop=stop)
        await watcher.watch(seats[0].watch_code)
        seats.append(watcher)
    return seats


def verify_room(
    room: list[Participant],
    spec: RulesSpec,
    *,
    games: int | None = None,
    complete: bool = True,
    finish: bool = False,
) -> list[str]:
    """Everything a room's participants saw, checked; returns the problems (none: good).

    No error message, no ``seq`` gap; without reconnections (``complete``) no close
    either, and every participant saw exactly the same events. Every game a participant
    saw (``games`` of them if given) is checked with `check_game`.
    """
    problems: list[str] = []
    for participant in room:
        name = participant.name
        if participant.errors:
            problems.append(f"{name}: errors {participant.errors[:5]}")
        if participant.seq_gaps:
            problems.append(f"{name}: {participant.seq_gaps} seq gaps")
        if complete and participant.closes:
            problems.append(f"{name}: closed {participant.closes}")
        numbers = sorted(participant.games)
        if games is not None and numbers != list(range(1, games + 1)):
            problems.append(f"{name}: games {numbers}, expected 1..{games}")
        for log in participant.games.values():
            if log.over is None and games is None and log.number == max(numbers):
                continue  # a time-bounded run may stop a spectator before the last game
            problems += [
                f"{name}: {p}" for p in check_game(log, spec, complete=complete, finish=finish)
            ]
    if complete:
        first = room[0].games
        for participant in room[1:]:
            common = set(first) & set(participant.games)
            for number in common:
                if first[number].events != participant.games[number].events:
                    problems.append(f"{participant.name} saw other events in game {number}")
    return problems


def print_report(report: dict[str, Any], *, as_json: bool) -> int:
    """Print a soak or chaos ``report`` (JSON, or one ``key: value`` a line with the
    first 50 problems); return the exit status: 1 if it has problems, else 0."""
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            if key != "problems":
                print(f"{key}: {value}")
        print(f"problems: {len(report['problems'])}")
        for problem in report["problems"][:50]:
            print(f"  {problem}")
    return 1 if report["problems"] else 0
