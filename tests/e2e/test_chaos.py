"""Chaos: kill -9 the ``war-server`` process at random moments while rooms play.

Rooms play at full speed; at seeded random points of progress the server is killed with
SIGKILL and started again on the same ``--db`` and port, several times. Every client
resumes its seat with its latest token (the spectator watches again) and plays on.
Then, for every room:

- every game completes, and its ``game_over`` equals a fresh engine replay of its deal;
- what each client saw of each step is the replay's (a step cut short by the kill may
  show only its first events), steps in order, no event twice;
- the round results seen, deduplicated by round number, equal the replay's;
- at each resume the game is where the client left it: never behind (no round lost), at
  most one step ahead and only if that client's ready for it was sent (none played
  twice), with the piles the replay has at that step.

The long version is ``bench/chaos.py``.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bench._play import Participant, check_game, counts_at, replay
from bench._server import ServerProcess, war_server_spec
from protocol import RulesSpec, WonCards

pytestmark = pytest.mark.slow

SEED = 7
KILLS = 4
SPECS = (
    RulesSpec(players=2, round_limit=150),
    RulesSpec(players=2, face_down=3, round_limit=150),
    RulesSpec(players=3, round_limit=100),
    RulesSpec(players=2, won_cards=WonCards.FIXED, round_limit=150),
)
EXTRA = ("--rate-limit", "100000", "--max-connections-per-ip", "200")


class Chaos:
    """The server under test, restarted on the same db and port after each kill."""

    def __init__(self, db: Path, thresholds: list[int]) -> None:
        self.db = db
        self.port = 0
        self.server: ServerProcess | None = None
        self.up = asyncio.Event()
        self.thresholds = thresholds
        self.progress = 0
        self.kill_now = asyncio.Event()
        self.kills = 0

    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> None:
        self.server = ServerProcess(war_server_spec(self.db, port=self.port, extra=EXTRA))
        await self.server.start()
        self.port = self.server.port
        self.up.set()

    def on_step(self, player: Participant, step: int) -> None:
        self.progress += 1
        if self.thresholds and self.progress >= self.thresholds[0]:
            self.thresholds.pop(0)
            self.kill_now.set()

    async def killer(self) -> None:
        while self.kills < KILLS:
            await self.kill_now.wait()
            self.kill_now.clear()
            assert self.server is not None
            self.up.clear()
            await self.server.kill()
            assert self.server.returncode == -9
            self.kills += 1
            await self.start()


async def _room(chaos: Chaos, spec: RulesSpec, deal: int, tag: str) -> list[Participant]:
    seats = [Participant(chaos.url, name=f"{tag}-0", up=chaos.up, on_step=chaos.on_step)]
    await seats[0].create(spec, deal=deal)
    for n in range(1, spec.players):
        seats.append(Participant(chaos.url, name=f"{tag}-{n}", up=chaos.up))
        await seats[-1].join(seats[0].player_code)
    return seats


async def test_kill_9_during_play_loses_no_round_and_plays_none_twice(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    deals = [rng.getrandbits(63) for _ in SPECS]
    total = sum(replay(spec, deal)[1].steps for spec, deal in zip(SPECS, deals, strict=True))
    thresholds = sorted(rng.sample(range(total // 10, total * 8 // 10), KILLS))
    chaos = Chaos(tmp_path / "war.sqlite3", thresholds)
    await chaos.start()
    try:
        rooms = [
            await _room(chaos, spec, deal, f"r{i}")
            for i, (spec, deal) in enumerate(zip(SPECS, deals, strict=True))
        ]
        watcher = Participant(chaos.url, name="r0-w", up=chaos.up)
        await watcher.watch(rooms[0][0].watch_code)
        rooms[0].append(watcher)
        killing = asyncio.create_task(chaos.killer())
        await asyncio.wait_for(asyncio.gather(*(p.play(1) for r in rooms for p in r)), 90)
        assert chaos.kills == KILLS, f"only {chaos.kills} kills: the games ended first"
        await killing

        for spec, deal, room in zip(SPECS, deals, rooms, strict=True):
            seen_rounds: set[int] = set()
            for participant in room:
                name = participant.name
                assert participant.errors == [], (name, participant.errors)
                assert participant.seq_gaps == 0, name
                log = participant.games[1]
                assert log.deal == deal, name
                assert check_game(log, spec, complete=False) == [], name
                seen_rounds |= {
                    e[2] for e in log.events if e[0] in ("cards_taken", "cards_returned")
                }
                for resumed in participant.resumes:
                    if participant.spectator:
                        continue
                    assert resumed.state_game == resumed.game == 1, (name, resumed)
                    assert resumed.state_step >= resumed.seen_step, f"{name}: round lost {resumed}"
                    assert resumed.state_step <= resumed.seen_step + 1, f"{name}: twice {resumed}"
                    if resumed.state_step == resumed.seen_step + 1:
                        assert resumed.ready_for == resumed.seen_step, (name, resumed)
                    assert resumed.counts == counts_at(spec, deal, resumed.state_step), name
            _, game = replay(spec, deal)
            missing = set(range(1, game.round + 1)) - seen_rounds
            assert len(missing) <= KILLS, f"rounds never shown to anyone: {sorted(missing)}"
        resumes = sum(len(p.resumes) for room in rooms for p in room)
        ahead = sum(r.state_step > r.seen_step for room in rooms for p in room for r in p.resumes)
        print(f"{chaos.kills} kills, {resumes} resumes, {ahead} with a step persisted unseen")
        assert resumes >= KILLS, f"only {resumes} resumes for {KILLS} kills"
        for room in rooms:
            for participant in room:
                await participant.close()
    finally:
        if chaos.server is not None:
            await chaos.server.kill()
