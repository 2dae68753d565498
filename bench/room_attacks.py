"""Attacks on the room core, measured: other rooms' round trip and the server's memory.

(The transport's attacks are ``bench/load.py --scenarios abuse``, with ``bench/_attack.py``.)

Run from the repository root::

    .venv/bin/python -m bench.room_attacks                     # both attacks, about 4 minutes
    .venv/bin/python -m bench.room_attacks --attacks finish --json
    .venv/bin/python -m bench.room_attacks --war-server OTHER  # another war-server command

Each attack runs against a freshly started ``war-server`` (fresh database, its default
limits; 127.0.0.1 trusted as a proxy so that every honest room and every attacker has an
address of its own through X-Forwarded-For, as behind Caddy). ``--rooms`` honest rooms
of two players and a spectator step at a steady pace (``--pace`` seconds a step per
room, as in ``bench/load.py``); the delay from the last ``ready`` of a step to its first
event at every player and spectator is measured for ``--duration`` s with nobody
attacking, then for ``--duration`` s while the attack runs:

``finish``  ``--finishers`` strangers (one address each) each take one seat against
            three computers with ``won_cards: fixed``, ``fixed_order: seat0``,
            ``round_limit: 1000000`` and deal 374 (20,525 steps to play out), then
            send ``vote_finish`` and, after ``game_over``, ``rematch same``, in a
            loop, as fast as the server answers.
``rooms``   one stranger (one address) opens connections as fast as the server lets
            it and creates a room on each, then drops the connection, in a loop.
``headers``, ``takeover``: see ``bench/_trust.py`` (duplicated headers and other bad
            requests from ``--flooders`` addresses; strangers asking for an away seat).
``talkflood``, ``askloop``, ``squat``: see ``bench/_share.py`` (one address: talk from
            ``--flooders`` spectator connections; asking for a seat and withdrawing in a
            loop; taking every spectator place it can).

Reported per attack: the honest delay (p50, p99, max) without and with the attack, the
server's RSS and CPU in both windows, and what the attacker got (finishes played out;
rooms created and refused). For ``rooms``, an honest ``create_room`` from another
address is tried at the end. Everything is loopback and ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import resource
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench._loadlib import LoadStats, Mode, RoomLoad, percentile
from bench._server import ServerProcess, raise_nofile_limit, war_server_spec
from bench._share import ask_loop, spectator_squat, talk_flood
from bench._trust import header_flooder, takeover_attempts
from protocol import (
    CreateRoom,
    Error,
    FixedOrder,
    GameOver,
    GameStarted,
    Rematch,
    RematchDeal,
    RulesSpec,
    ServerMessage,
    VoteFinish,
    Welcome,
    WonCards,
    decode_server_message,
    encode,
)

__all__ = ["main"]

M = TypeVar("M")

HOST = "127.0.0.1"
LONG_RULES = RulesSpec(
    players=4, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0, round_limit=1_000_000
)
LONG_DEAL = 374
ATTACKS = ("finish", "rooms", "headers", "takeover", "talkflood", "askloop", "squat")
SERVER_FLAGS = ("--trusted-proxies", "127.0.0.1")
"""the server's defaults otherwise: the limits an attacker meets"""


@dataclass(slots=True)
class Attacker:
    """What the attack's clients did (filled while they run)."""

    counts: Counter[str] = field(default_factory=Counter)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)

    async def stop(self) -> None:
        self.stopping.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def _open(port: int, address: str) -> ClientConnection:
    return await connect(
        f"ws://{HOST}:{port}/",
        additional_headers={"X-Forwarded-For": address},
        compression=None,
        max_queue=None,
        open_timeout=20,
    )


async def _until(ws: ClientConnection, kind: type[M]) -> M:
    """Read until a ``kind`` message; raise on an error message."""
    while True:
        data = await ws.recv()
        assert isinstance(data, bytes)
        message: ServerMessage = decode_server_message(data)
        if isinstance(message, kind):
            return message
        if isinstance(message, Error):
            raise ConnectionError(f"{message.code}: {message.message}")


async def _finisher(port: int, address: str, attacker: Attacker) -> None:
    """A stranger finishing and rematching a long game in a loop."""
    while not attacker.stopping.is_set():
        try:
            async with await _open(port, address) as ws:
                create = CreateRoom(name="Eve", rules=LONG_RULES, deal=LONG_DEAL, computers=3)
                await ws.send(encode(create))
                await _until(ws, Welcome)
                while not attacker.stopping.is_set():
                    await ws.send(encode(VoteFinish()))
                    await _until(ws, GameOver)
                    attacker.counts["finishes"] += 1
                    await ws.send(encode(Rematch(deal=RematchDeal.SAME)))
                    await _until(ws, GameStarted)
        except (OSError, ConnectionError, ConnectionClosed, InvalidStatus, TimeoutError) as error:
            attacker.counts[f"finisher {type(error).__name__}"] += 1
            await asyncio.sleep(0.5)


async def _room_flooder(port: int, address: str, attacker: Attacker) -> None:
    """A stranger creating rooms and leaving them behind, as fast as it may."""
    while not attacker.stopping.is_set():
        try:
            async with await _open(port, address) as ws:
                await ws.send(encode(CreateRoom(name="Eve")))
                data = await ws.recv()
                assert isinstance(data, bytes)
                reply = decode_server_message(data)
                if isinstance(reply, Welcome):
                    attacker.counts["rooms created"] += 1
                elif isinstance(reply, Error):
                    attacker.counts[f"refused {reply.code}"] += 1
        except InvalidStatus as status:  # HTTP 429: connecting too fast from one address
            attacker.counts[f"http {status.response.status_code}"] += 1
            await asyncio.sleep(0.2)
        except (OSError, ConnectionError, ConnectionClosed, TimeoutError) as error:
            attacker.counts[type(error).__name__] += 1


async def _honest_create(port: int) -> str:
    """One create_room from an address of its own: 'welcome' or the error code."""
    async with await _open(port, "198.51.100.200") as ws:
        await ws.send(encode(CreateRoom(name="Ann")))
        data = await ws.recv()
        assert isinstance(data, bytes)
        reply = decode_server_message(data)
        return "welcome" if isinstance(reply, Welcome) else getattr(reply, "code", "?")


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)


async def _window(server: ServerProcess, load: RoomLoad, seconds: float) -> dict[str, Any]:
    load.stats.reset()
    cpu0 = server.cpu_seconds()
    rss_peak = server.rss_kib()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        await asyncio.sleep(0.5)
        with contextlib.suppress(OSError, KeyError):
            rss_peak = max(rss_peak, server.rss_kib())
    elapsed = time.perf_counter() - t0
    stats: LoadStats = load.stats
    delays = stats.delays()
    return {
        "seconds": round(elapsed, 1),
        "delay_samples": len(delays),
        "delay_p50_ms": _ms(percentile(delays, 0.5)),
        "delay_p99_ms": _ms(percentile(delays, 0.99)),
        "delay_max_ms": _ms(max(delays) if delays else float("nan")),
        "honest_errors": stats.error_total,
        "server_cpu_pct": round(100 * (server.cpu_seconds() - cpu0) / elapsed, 1),
        "rss_end_kib": server.rss_kib(),
        "rss_peak_kib": rss_peak,
    }


async def _run_attack(attack: str, args: argparse.Namespace, db_dir: Path) -> dict[str, Any]:
    spec = war_server_spec(
        db_dir / f"{attack}-{time.monotonic_ns()}.sqlite3",
        host=HOST,
        extra=SERVER_FLAGS,
        exe=args.war_server,
        generous=False,
    )
    server = ServerProcess(spec)
    await server.start()
    try:
        rss_start = server.rss_kib()
        load = RoomLoad(HOST, server.port, spectators=1, seed=args.seed, forwarded=True)
        made = await load.add_rooms(args.rooms)
        load.start(Mode.PACE)
        await asyncio.sleep(args.pace + 0.5)  # every room has beaten once
        quiet = await _window(server, load, args.duration)
        attacker = Attacker()
        cleanup = None
        log_bytes = server.log_bytes
        if attack == "headers":
            for n in range(args.flooders):
                coroutine = header_flooder(
                    server.port, f"203.0.113.{n + 1}", attacker.counts, attacker.stopping
                )
                attacker.tasks.append(asyncio.create_task(coroutine))
        elif attack == "takeover":
            cleanup = await takeover_attempts(
                server.port, args.flooders, attacker.counts, attacker.stopping
            )
        elif attack == "talkflood":
            cleanup = await talk_flood(
                server.port, args.flooders, attacker.counts, attacker.stopping
            )
        elif attack == "askloop":
            cleanup = await ask_loop(server.port, attacker.counts, attacker.stopping)
        elif attack == "squat":
            cleanup = await spectator_squat(server.port, attacker.counts, attacker.stopping)
        elif attack == "finish":
            for n in range(args.finishers):
                coroutine = _finisher(server.port, f"203.0.113.{n + 1}", attacker)
                attacker.tasks.append(asyncio.create_task(coroutine))
        elif attack == "rooms":
            coroutine = _room_flooder(server.port, "203.0.113.66", attacker)
            attacker.tasks.append(asyncio.create_task(coroutine))
        started = time.perf_counter()
        await asyncio.sleep(args.ramp)
        attacked = await _window(server, load, args.duration)
        attacker_seconds = time.perf_counter() - started
        logged = server.log_bytes - log_bytes
        await attacker.stop()
        if cleanup is not None:
            await cleanup()
        load.pause()
        honest_create = await _honest_create(server.port) if attack == "rooms" else None
        await load.close()
        return {
            "attack": attack,
            "honest_rooms": made,
            "rss_start_kib": rss_start,
            "without_attack": quiet,
            "under_attack": attacked,
            "attacker_seconds": round(attacker_seconds, 1),
            "log_bytes_per_minute": round(logged * 60 / attacker_seconds),
            "attacker": dict(attacker.counts),
            "honest_create_after": honest_create,
        }
    finally:
        await server.stop()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.room_attacks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--attacks", default=",".join(ATTACKS), help="comma list of: " + ", ".join(ATTACKS))
    add("--rooms", type=int, default=50, help="honest paced rooms (2 players + 1 spectator)")
    add("--pace", type=float, default=1.0, help="seconds between steps per honest room")
    add("--duration", type=float, default=30.0, help="seconds of each measured window")
    add("--ramp", type=float, default=5.0, help="seconds of attack before measuring")
    add("--finishers", type=int, default=1, help="strangers finishing in a loop (finish)")
    add(
        "--flooders",
        type=int,
        default=8,
        help="addresses flooding (headers, takeover); connections of one (talkflood)",
    )
    add("--seed", type=int, default=7, help="honest deals are seed + room index")
    add("--war-server", default=None, help="war-server command; none: this venv's")
    add("--json", action="store_true", help="print one JSON document instead of text")
    return parser


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    raise_nofile_limit()
    db_dir = Path(tempfile.mkdtemp(prefix="war-attack-"))
    results = []
    for attack in [a for a in args.attacks.split(",") if a]:
        if attack not in ATTACKS:
            raise SystemExit(f"unknown attack {attack!r} (choose from {', '.join(ATTACKS)})")
        print(f"== {attack}", file=sys.stderr, flush=True)
        results.append(await _run_attack(attack, args, db_dir))
    load1, load5, _ = os.getloadavg()
    return {
        "conditions": {
            "when": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, "
            f"Python {platform.python_version()}",
            "loadavg_at_start": [round(load1, 2), round(load5, 2)],
            "load_process_max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "argv": sys.argv[1:],
        },
        "results": results,
    }


def _print_text(report: dict[str, Any]) -> None:
    conditions = report["conditions"]
    print(f"# bench.room_attacks  {conditions['when']}  {conditions['machine']}")
    for row in report["results"]:
        print(f"{row['attack']}: {row['honest_rooms']} honest rooms; attacker {row['attacker']}")
        print(f"  log while attacked: {row['log_bytes_per_minute']} bytes a minute")
        for name in ("without_attack", "under_attack"):
            w = row[name]
            print(
                f"  {name:<15} p50 {w['delay_p50_ms']} ms  p99 {w['delay_p99_ms']} ms  "
                f"max {w['delay_max_ms']} ms  ({w['delay_samples']} samples, "
                f"{w['honest_errors']} errors)  cpu {w['server_cpu_pct']}%  "
                f"rss {w['rss_end_kib']} KiB (peak {w['rss_peak_kib']})"
            )
        if row["honest_create_after"] is not None:
            print(f"  an honest create_room afterwards: {row['honest_create_after']}")


def main(argv: list[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    report = asyncio.run(_main(args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
