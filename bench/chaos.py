"""Chaos: kill -9 the war-server at random moments while rooms play; check nothing is lost.

Run from the repository root::

    .venv/bin/python -m bench.chaos                      # 12 rooms, 10 kills
    .venv/bin/python -m bench.chaos --rooms 40 --kills 30 --seed 3 --json

Rooms of 2–4 players (various rules, a round limit so games end) play at full speed,
with spectators. At ``--kills`` seeded random points of progress (steps seen) the server
is SIGKILLed and started again on the same ``--db`` and port; every player resumes its
seat with its latest token, every spectator watches again. At the end every game is
checked against a fresh engine replay of its deal (`bench._play.check_game`, with steps
cut short by a kill allowed to show only their first events), and every resume is
checked: never behind what the client had seen (no round lost), at most one step ahead
and only if that client's ready for it was in flight (none played twice), with the piles
the replay has there. Exit status 1 if any problem was found.

A kill may land while clients are still resuming from the previous one; if it lands
after the server stored a seat's new token but before the client read its ``welcome``,
the seat must still be resumable with the earlier token (before commit 0c28029 it was
locked out: ``bad_token``). Such refusals are counted as ``seats_locked_out``.
``--settle`` instead waits until every client has resumed before the next kill.

The short version runs in the test suite: ``tests/e2e/test_chaos.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._play import (
    Participant,
    counts_at,
    open_room,
    print_report,
    replay,
    verify_room,
)
from bench._server import ServerProcess, raise_nofile_limit, war_server_spec
from protocol import Aces, RulesSpec, WonCards
from server import engine
from server.core.room.wire import engine_rules

__all__ = ["SPECS", "Chaos", "check_resumes", "main", "run"]

SPECS = (
    RulesSpec(players=2, round_limit=150),
    RulesSpec(players=2, face_down=3, round_limit=150),
    RulesSpec(players=3, round_limit=100),
    RulesSpec(players=2, won_cards=WonCards.FIXED, round_limit=150),
    RulesSpec(players=4, aces=Aces.LOW, round_limit=80),
)
"""Room rules, used in turn."""
EXTRA = (
    "--rate-limit", "1000000",
    "--max-connections-per-ip", "100000",
    "--max-rooms-per-ip", "100000",
    "--max-handshakes-per-ip", "100000",
)  # fmt: skip
"""limits high enough for every client to come back at once from 127.0.0.1 (after a
kill, all of them reconnect together: at the default 32 handshakes per address, the
rest were dropped and counted as lost)"""


@dataclass(slots=True)
class Chaos:
    """The server under test, killed at ``thresholds`` of progress and restarted.

    ``up`` is set while the server runs; participants wait on it after a drop.
    """

    db: Path
    thresholds: list[int]
    kills_wanted: int
    settle: bool = False
    """wait, after each restart, until every client has resumed before the next kill"""
    port: int = 0
    server: ServerProcess | None = None
    up: asyncio.Event = field(default_factory=asyncio.Event)
    progress: int = 0
    armed: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(0))
    kills: int = 0
    downtime: list[float] = field(default_factory=list)
    participants: list[Participant] = field(default_factory=list)
    epoch: int = 0
    welcomed: dict[int, int] = field(default_factory=dict)
    settled: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self) -> str:
        """Where the server is (the same port after every restart)."""
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> None:
        """Start the server (port 0 the first time, then the same port)."""
        self.server = ServerProcess(war_server_spec(self.db, port=self.port, extra=EXTRA))
        await self.server.start()
        self.port = self.server.port
        self.epoch += 1
        self.settled.clear()
        self.up.set()

    def on_event(self, participant: Participant) -> None:
        """A participant resumed (or finished): note it; everyone back → settled."""
        self.welcomed[id(participant)] = self.epoch
        self._check_settled()

    def _check_settled(self) -> None:
        if all(p.finished or self.welcomed.get(id(p)) == self.epoch for p in self.participants):
            self.settled.set()

    def on_step(self, player: Participant, step: int) -> None:
        """Count progress; arm the next kill when its threshold is reached."""
        self.progress += 1
        while self.thresholds and self.progress >= self.thresholds[0]:
            self.thresholds.pop(0)
            self.armed.release()

    async def killer(self) -> None:
        """Kill -9 and restart at each armed threshold, ``kills_wanted`` times."""
        while self.kills < self.kills_wanted:
            await self.armed.acquire()
            assert self.server is not None
            self.up.clear()
            started = time.perf_counter()
            await self.server.kill()
            if self.server.returncode != -9:
                raise RuntimeError(f"the server ended with {self.server.returncode}, not -9")
            self.kills += 1
            await self.start()
            self.downtime.append(time.perf_counter() - started)
            if self.settle:
                self._check_settled()
                await asyncio.wait_for(self.settled.wait(), 120)


def check_resumes(room: list[Participant], spec: RulesSpec, deal: int) -> list[str]:
    """Every player's resumes: not behind, at most its in-flight step ahead, right piles."""
    problems: list[str] = []
    for participant in room:
        if participant.spectator:
            continue
        for r in participant.resumes:
            name = participant.name
            if r.state_game != r.game:
                problems.append(f"{name}: resumed in game {r.state_game}, was in {r.game}")
                continue
            if r.state_step < r.seen_step:
                problems.append(f"{name}: round lost: saw step {r.seen_step}, resumed at {r}")
            if r.state_step > r.seen_step + 1:
                problems.append(f"{name}: played twice? saw {r.seen_step}, resumed at {r}")
            ahead = r.state_step == r.seen_step + 1 and r.ready_for != r.seen_step
            if ahead and participant.seat in needed_at(spec, deal, r.seen_step):
                problems.append(f"{name}: a step it did not ready for: {r}")
            if r.counts != counts_at(spec, deal, r.state_step):
                problems.append(f"{name}: piles {r.counts} at step {r.state_step} differ")
    return problems


def needed_at(spec: RulesSpec, deal: int, steps: int) -> tuple[int, ...]:
    """The seats whose ready the game needs after ``steps`` steps of ``deal``."""
    game = engine.Game(engine_rules(spec), deal)
    while game.outcome is None and game.steps < steps:
        game.step()
    return tuple(game.next_seats)


def missing_rounds(room: list[Participant], spec: RulesSpec, deal: int) -> list[int]:
    """Rounds of the game that no participant of the room was ever shown."""
    seen: set[int] = set()
    for participant in room:
        log = participant.games.get(1)
        if log is not None:
            seen |= {e[2] for e in log.events if e[0] in ("cards_taken", "cards_returned")}
    _, game = replay(spec, deal)
    return sorted(set(range(1, game.round + 1)) - seen)


async def run(
    db: Path,
    *,
    rooms: int,
    kills: int,
    seed: int,
    spectators: int = 1,
    within: float = 300.0,
    settle: bool = False,
) -> dict[str, Any]:
    """Play ``rooms`` rooms through ``kills`` kills; return figures and problems.

    ``settle``: never kill while clients are still resuming from the last kill (a kill
    in that moment can lose a seat's new token: see docs/performance.md).
    """
    rng = random.Random(seed)
    specs = [SPECS[i % len(SPECS)] for i in range(rooms)]
    deals = [rng.getrandbits(63) for _ in specs]
    total = sum(replay(spec, deal)[1].steps for spec, deal in zip(specs, deals, strict=True))
    thresholds = sorted(rng.sample(range(total // 10, total * 8 // 10), kills))
    chaos = Chaos(db, thresholds, kills, settle=settle)
    await chaos.start()
    started = time.perf_counter()
    try:
        tables = [
            await open_room(
                chaos.url, spec, deal, f"r{i}", spectators=spectators, up=chaos.up,
                on_step=chaos.on_step,
            )
            for i, (spec, deal) in enumerate(zip(specs, deals, strict=True))
        ]  # fmt: skip
        chaos.participants = [p for t in tables for p in t]
        for participant in chaos.participants:
            participant.on_event = chaos.on_event
        killing = asyncio.create_task(chaos.killer())
        plays = [asyncio.create_task(p.play(1)) for p in chaos.participants]
        try:
            ended = await asyncio.wait_for(asyncio.gather(*plays, return_exceptions=True), within)
        finally:
            for task in [*plays, killing]:
                task.cancel()
            await asyncio.gather(*plays, killing, return_exceptions=True)
        if killing.done() and not killing.cancelled() and killing.exception() is not None:
            raise RuntimeError("the killer failed") from killing.exception()
        failures = [str(e) for e in ended if isinstance(e, BaseException)]
        problems: list[str] = failures[:]
        # a room that could not finish cannot be checked against its replay
        broken = {f.split(":", 1)[0].rsplit("-", 1)[0] for f in failures}
        finished = [
            (spec, deal, table)
            for spec, deal, table in zip(specs, deals, tables, strict=True)
            if table[0].name.rsplit("-", 1)[0] not in broken
        ]
        missing = 0
        for spec, deal, table in finished:
            problems += verify_room(table, spec, games=1, complete=False)
            problems += check_resumes(table, spec, deal)
            lost = missing_rounds(table, spec, deal)
            missing += len(lost)
            if len(lost) > chaos.kills:
                problems.append(f"{table[0].name}: rounds never shown to anyone: {lost}")
            if any(p.games[1].deal != deal for p in table):
                problems.append(f"{table[0].name}: a game_over with another deal")
        if chaos.kills < kills:
            problems.append(f"only {chaos.kills} of {kills} kills: the games ended first")
        resumes = [r for t in tables for p in t for r in p.resumes]
        for table in tables:
            for participant in table:
                await participant.close()
        return {
            "rooms": rooms,
            "participants": sum(len(t) for t in tables),
            "steps": total,
            "kills": chaos.kills,
            "resumes": len(resumes),
            "resumed_one_step_ahead": sum(r.state_step > r.seen_step for r in resumes),
            "rounds_never_shown": missing,
            "rooms_not_finished": len(tables) - len(finished),
            "seats_locked_out": sum("bad_token" in f for f in failures),
            "restart_seconds_max": round(max(chaos.downtime, default=0.0), 2),
            "seconds": round(time.perf_counter() - started, 1),
            "problems": problems,
        }
    finally:
        chaos.up.clear()
        if chaos.server is not None:
            await chaos.server.kill()


def main(argv: list[str] | None = None) -> None:
    """Parse flags, run, print the figures; exit 1 if there was any problem."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.chaos",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rooms", type=int, default=12, help="rooms playing at once")
    parser.add_argument("--kills", type=int, default=10, help="kill -9 + restart this often")
    parser.add_argument("--seed", type=int, default=1, help="deals and kill points")
    parser.add_argument("--spectators", type=int, default=1, help="spectators per room")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="bound on the run")
    parser.add_argument(
        "--settle",
        action="store_true",
        help="never kill while clients are still resuming (the test suite's mode)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    raise_nofile_limit()
    with tempfile.TemporaryDirectory(prefix="war-chaos-") as tmp:
        report = asyncio.run(
            run(
                Path(tmp) / "war.sqlite3",
                rooms=args.rooms,
                kills=args.kills,
                seed=args.seed,
                spectators=args.spectators,
                within=args.max_seconds,
                settle=args.settle,
            )
        )
    sys.exit(print_report(report, as_json=args.json))


if __name__ == "__main__":
    main()
