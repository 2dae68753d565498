"""Soak: many rooms play game after game for minutes; every game checked, memory watched.

Run from the repository root::

    .venv/bin/python -m bench.soak                        # 3 minutes, 40 rooms
    .venv/bin/python -m bench.soak --minutes 10 --fast-rooms 50 --auto-rooms 50 --json

Two kinds of rooms play at once against one ``war-server`` process (fresh database):
``--auto-rooms`` with both seats on the server's quick auto-play (about 0.3 s a flip:
the server's timers drive them), and ``--fast-rooms`` whose players ready as fast as the
server answers (2, 3 and 4 players, several rule sets). Each has ``--spectators``. After
each game the players vote a rematch (new deal) until ``--minutes`` have passed; then
every room finishes the game it is playing.

Every game every participant saw is checked against a fresh engine replay of its deal,
event by event (`bench._play.check_game`). The server's RSS is sampled every
``--sample-seconds``; reported: the highest RSS in the first and in the last minute of
play and the growth between them (the issue asks for none). Exit status 1 if any game
differs from its replay or a client saw an error.

The short version runs in the test suite: ``tests/e2e/test_soak.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._play import Participant, open_room, print_report, verify_room
from bench._server import ServerProcess, raise_nofile_limit, war_server_spec
from protocol import Aces, AutoPlay, RulesSpec, WonCards

__all__ = ["AUTO_RULES", "FAST_RULES", "main", "run"]

AUTO_RULES = RulesSpec(players=2, round_limit=30)
FAST_RULES = (
    RulesSpec(players=2, round_limit=200),
    RulesSpec(players=3, face_down=3, round_limit=150),
    RulesSpec(players=2, aces=Aces.LOW, won_cards=WonCards.FIXED, round_limit=200),
    RulesSpec(players=4, round_limit=120),
)
EXTRA = (
    "--rate-limit", "1000000",
    "--max-connections-per-ip", "100000",
    "--max-rooms-per-ip", "100000",
    "--max-handshakes-per-ip", "100000",
)  # fmt: skip
"""limits high enough for every client to connect at once from 127.0.0.1 (the default
allows 32 handshakes per address at a time)"""


async def _sample(server: ServerProcess, every: float, samples: list[tuple[float, int]]) -> None:
    start = time.perf_counter()
    while True:
        samples.append((time.perf_counter() - start, server.rss_kib()))
        await asyncio.sleep(every)


async def run(
    db: Path,
    *,
    auto_rooms: int,
    fast_rooms: int,
    spectators: int,
    seconds: float,
    sample_every: float,
    seed: int,
) -> dict[str, Any]:
    """Play for ``seconds``; return figures and the problems found."""
    rng = random.Random(seed)
    server = ServerProcess(war_server_spec(db, extra=EXTRA))
    await server.start()
    url = f"ws://127.0.0.1:{server.port}/"
    stop = asyncio.Event()
    try:
        rooms: list[tuple[RulesSpec, list[Participant]]] = []
        for i in range(auto_rooms):
            room = await open_room(
                lambda: url, AUTO_RULES, rng.getrandbits(63), f"auto{i}",
                spectators=spectators, auto=AutoPlay.QUICK, stop=stop,
            )  # fmt: skip
            rooms.append((AUTO_RULES, room))
        for i in range(fast_rooms):
            spec = FAST_RULES[i % len(FAST_RULES)]
            room = await open_room(
                lambda: url, spec, rng.getrandbits(63), f"fast{i}",
                spectators=spectators, stop=stop,
            )  # fmt: skip
            rooms.append((spec, room))
        samples: list[tuple[float, int]] = []
        sampler = asyncio.create_task(_sample(server, sample_every, samples))
        cpu0, t0 = server.cpu_seconds(), time.perf_counter()
        plays = [asyncio.create_task(p.play(10**9)) for _, room in rooms for p in room]
        try:
            await asyncio.sleep(seconds)
            stop.set()
            await asyncio.wait_for(asyncio.gather(*plays), 300)
        finally:
            sampler.cancel()
            for task in plays:
                task.cancel()
            await asyncio.gather(*plays, sampler, return_exceptions=True)
        elapsed = time.perf_counter() - t0
        cpu = server.cpu_seconds() - cpu0
        problems: list[str] = []
        for spec, room in rooms:
            problems += verify_room(room, spec)
        games = sum(len(room[0].games) for _, room in rooms)
        steps = sum(g.over[1] for _, room in rooms for g in room[0].games.values() if g.over)
        first = [rss for at, rss in samples if at <= 60.0]
        last = [rss for at, rss in samples if at >= samples[-1][0] - 60.0]
        for _, room in rooms:
            for participant in room:
                await participant.close()
        return {
            "rooms": len(rooms),
            "participants": sum(len(room) for _, room in rooms),
            "seconds": round(elapsed, 1),
            "games": games,
            "steps": steps,
            "steps_per_s": round(steps / elapsed, 1),
            "server_cpu_pct": round(100 * cpu / elapsed, 1),
            "rss_first_minute_max_kib": max(first, default=0),
            "rss_last_minute_max_kib": max(last, default=0),
            "rss_growth_kib": max(last, default=0) - max(first, default=0),
            "peak_rss_kib": server.peak_rss_kib(),
            "problems": problems,
        }
    finally:
        await server.stop()


def main(argv: list[str] | None = None) -> None:
    """Parse flags, run, print the figures; exit 1 if there was any problem."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=3.0, help="how long rooms play")
    parser.add_argument("--auto-rooms", type=int, default=20, help="rooms on quick auto-play")
    parser.add_argument("--fast-rooms", type=int, default=20, help="rooms readying at once")
    parser.add_argument("--spectators", type=int, default=1, help="spectators per room")
    parser.add_argument("--sample-seconds", type=float, default=5.0, help="RSS sample period")
    parser.add_argument("--seed", type=int, default=1, help="first deals")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    raise_nofile_limit()
    with tempfile.TemporaryDirectory(prefix="war-soak-") as tmp:
        report = asyncio.run(
            run(
                Path(tmp) / "war.sqlite3",
                auto_rooms=args.auto_rooms,
                fast_rooms=args.fast_rooms,
                spectators=args.spectators,
                seconds=args.minutes * 60.0,
                sample_every=args.sample_seconds,
                seed=args.seed,
            )
        )
    sys.exit(print_report(report, as_json=args.json))


if __name__ == "__main__":
    main()
