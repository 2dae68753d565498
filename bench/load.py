"""Load generator: how many rooms one war-server holds, how fast a flip reaches everyone.

Run from the repository root::

    .venv/bin/python -m bench.load                       # the issue's targets, both servers
    .venv/bin/python -m bench.load --quick               # a one-minute smoke run
    .venv/bin/python -m bench.load --json > load.json    # machine-readable figures

What it does, for each target (``war``: the real ``war-server``; ``baseline``:
``bench/baseline_ws.py``, bare websockets + msgpack sending the same frames with no game
logic, each message with ``websockets.broadcast``; ``baseline1``, not in the default list:
the same with a single frame per ready, the issue's wording taken literally), each
scenario on a freshly started server with a fresh database:

``idle``  open ``--idle-connections`` connections as rooms of 2 players + spectators that
          never ready; memory per connection = (RSS with them − RSS with none) / N.
``pace``  ``--rooms`` rooms × (2 players + ``--spectators``); every ``--pace`` seconds each
          room's two players ready (rooms spread evenly over the period); measure for
          ``--duration`` s after one period of warm-up.
``full``  ``--full-rooms`` rooms, each player readying as soon as the server waits for it;
          measure steps and rounds per second for ``--full-duration`` s after warm-up.
``talk``  (war-server only, not in the default list) ``--talk-rooms`` paced rooms as in
          ``pace``, measured for ``--duration`` s, then as long again while one more
          room's creator sends ``say`` at ``--talk-send-rate`` a second (the transport's
          default rate limit, 20: the most a connection may send without being closed;
          the server takes one every 2 seconds after a burst of 5 and refuses the rest):
          the honest delay without and with the talker, the server's CPU both times,
          and what the talker sent, got through and had refused (bench/_talker.py).
``abuse`` (war-server only, not in the default list) ``--abuse-rooms`` paced rooms as in
          ``pace`` while ``--abusers`` clients of each kind (``--abuse-kinds``: flood,
          garbage, slow consumer, connection hog by default, bench/_abuse.py; also
          ``nonreader``, clients that never read what they ask for, and ``trickle``,
          ``--trickle`` half-finished upgrades, run in a process of their own by
          bench/_attack.py) attack over and over, with the server's default limits
          (rate limit, new connections per address, penalty after a close for abuse,
          send buffer, handshakes per address): the honest delay, the server's RSS before
          and during the attack, its log lines, and how the abusers were closed or
          refused. The server trusts 127.0.0.1 as a proxy and every room and every
          abuser names its own address in X-Forwarded-For, as players behind a reverse
          proxy would be: an abuser's penalty is its own, not the honest rooms'.
          ``--server-nofile`` gives war-server a low open-files limit;
          ``--server-env PYTHONPATH=DIR`` runs the war-server of another checkout (the
          code before a fix, for a "before" figure).

``--old [LABEL=]DIR`` adds a target LABEL (``old`` by default): the war-server of another
checkout (e.g. release 0.2 in a ``git worktree``) with this venv's libraries, under the
same load as ``war``. With ``--repeat N`` every scenario runs N times against each
target in turn (A, B, A, B...), so the machine's load falls on all alike, and the report
adds the medians and the ratios war / each old target, among them the server's CPU time
per step (``cpu_us_per_step``) and the memory per paced room (``kib_per_room``).

Release 0.1's server (whose entry point is ``server.cli``, not this venv's) runs with
``--war-server`` naming a script that starts it, and ``--compat 0.1``, which leaves out
what 0.1 refuses (docs/performance.md, "Server load": the script and the commands).

Reported: steps/s and rounds/s (a step is one flip: both players ready → the server
broadcasts the result; a round is one or more steps, more with wars), the delay from the
last ``ready`` sent to the first event of the resulting step at every player and
spectator (p50, p99, max; client side, one monotonic clock), errors (error messages,
unexpected closes, ``seq`` gaps, setup failures), the server's CPU use, RSS and peak RSS
(VmHWM from /proc), and the ratios war / baseline.

The server runs pinned to ``--server-cpu`` and this load process to ``--load-cpu``
(``--no-pin`` to let the OS choose). The open-files limit is raised to the hard limit in
both. The war-server gets limits high enough not to refuse the load (``--server-arg`` adds
or overrides flags). Everything is loopback; the run is bounded by ``--max-seconds`` and
ends by itself. ``--profile DIR`` records the war-server with py-spy during the measured
windows (``pip install py-spy`` into the venv) and prints its hottest functions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._abuse import KINDS, Abuse
from bench._loadlib import (
    FIELDS_0_3,
    LEGACY_DROPPED_RULES,
    RULES_0_2,
    LoadStats,
    Mode,
    RoomLoad,
    percentile,
)
from bench._server import (
    ServerProcess,
    ServerSpec,
    baseline_spec,
    raise_nofile_limit,
    self_rss_kib,
    war_server_spec,
)
from bench._talker import Talker

__all__ = ["main"]

HOST = "127.0.0.1"
REPO = Path(__file__).resolve().parent.parent
WAR_LIMIT_FLAGS = (
    "--max-rooms", "1000000",
    "--max-spectators", "100000",
    "--max-connections-per-ip", "1000000",
    "--max-rooms-per-ip", "1000000",
    "--rate-limit", "1000000",
    "--max-failed-joins", "1000000",
    "--max-handshakes-per-ip", "1000000",
)  # fmt: skip
"""limits high enough not to refuse the load (it opens 64 connections at once from 127.0.0.1)"""
ABUSE = "abuse"
ATTACKS = ("nonreader", "trickle")
"""abuser kinds run by ``bench/_attack.py`` in a process of their own"""
ABUSE_FLAGS = (
    "--rate-limit", "20",
    "--connect-rate", "5",
    "--connect-burst", "32",
    "--abuse-penalty", "10",
    "--abuse-penalty-max", "300",
    "--trusted-proxies", "127.0.0.1",
    "--max-handshakes-per-ip", "32",
)  # fmt: skip
"""the server's defaults for the limits abusers meet, and 127.0.0.1 trusted as a proxy"""
LEGACY_UNKNOWN_FLAGS = ("--max-rooms-per-ip", "--max-handshakes-per-ip")
"""flags (each with a value) release 0.1's war-server does not know: ``--compat 0.1``"""
TALK = "talk"
SCENARIOS = (Mode.IDLE, Mode.PACE, Mode.FULL, ABUSE, TALK)
TARGETS = ("war", "baseline", "baseline1")
"""the fixed targets; each ``--old [LABEL=]DIR`` adds one more (its label, ``old`` by default)"""
MEDIAN_KEYS = (
    "steps_per_s", "cpu_us_per_step", "delay_p50_ms", "delay_p99_ms", "server_cpu_pct",
    "kib_per_room", "kib_per_connection", "errors",
)  # fmt: skip
"""figures summarised over ``--repeat`` runs (median, and every run's value)"""


@dataclass(slots=True)
class Result:
    """One target × scenario."""

    target: str
    scenario: str
    figures: dict[str, Any] = field(default_factory=dict)


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown, description kept as written."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load",
        description=__doc__,
        epilog="Targets of issue 7 (2 cores, server on one, load on the other): "
        "1,000 rooms x (2+2) at one round per second per room with p99 < 20 ms and no "
        "errors; full-speed throughput >= 70% of the baseline; < 20 KiB per idle "
        "connection with 10,000 of them. The defaults run exactly those (about 5 "
        "minutes). The figures and conditions published: docs/performance.md.",
        formatter_class=_Help,
    )
    add = parser.add_argument
    add("--targets", default="war,baseline", help="comma list of: war, baseline, baseline1")
    add("--scenarios", default="idle,pace,full", help="comma list of: idle, pace, full, abuse")
    add("--rooms", type=int, default=1000, help="rooms in the paced scenario")
    add("--spectators", type=int, default=2, help="spectators per room (pace and full)")
    add("--pace", type=float, default=1.0, help="seconds between steps per room (pace)")
    add(
        "--ready-gap",
        type=float,
        default=0.0,
        help="paced: seconds between the two players' readies of a step (0: back to back, "
        "one loop turn; people at a table press at different moments)",
    )
    add("--duration", type=float, default=30.0, help="measured seconds of the paced scenario")
    add("--full-rooms", type=int, default=100, help="rooms in the full-speed scenario")
    add("--full-duration", type=float, default=20.0, help="measured seconds at full speed")
    add("--warmup", type=float, default=3.0, help="seconds of full speed before measuring")
    add("--abuse-rooms", type=int, default=200, help="honest paced rooms in the abuse scenario")
    add("--abusers", type=int, default=2, help="abusers of each kind in the abuse scenario")
    add(
        "--abuse-kinds",
        default=",".join(KINDS),
        help=f"comma list of abuser kinds: {', '.join(KINDS + ATTACKS)}",
    )
    add("--talk-rooms", type=int, default=200, help="honest paced rooms in the talk scenario")
    add(
        "--talk-send-rate",
        type=float,
        default=20.0,
        help="say messages a second the talker sends (talk scenario)",
    )
    add("--trickle", type=int, default=400, help="half-finished upgrades kept open (trickle)")
    add("--server-env", action="append", default=[], help="NAME=VALUE for war-server (repeat)")
    add("--server-nofile", type=int, default=None, help="war-server's open-files limit")
    add("--idle-connections", type=int, default=10000, help="connections in the idle scenario")
    add("--idle-spectators", type=int, default=2, help="spectators per idle room")
    add("--server-cpu", type=int, default=0, help="CPU the server is pinned to")
    add("--load-cpu", type=int, default=1, help="CPU this load process is pinned to")
    add("--no-pin", action="store_true", help="do not pin either process")
    add("--connect-concurrency", type=int, default=64, help="rooms being set up at once")
    add("--seed", type=int, default=7, help="deals are seed + room index; beat phases")
    add("--server-arg", action="append", default=[], help="extra war-server flag (repeat)")
    add("--war-server", default=None, help="war-server command; none: this venv's")
    add(
        "--old",
        metavar="[LABEL=]DIR",
        action="append",
        default=[],
        help="a checkout of an earlier commit (git worktree add): target LABEL (default "
        "'old') runs its war-server with this venv's libraries (PYTHONPATH=DIR python -P -m "
        "server.adapters.cli), the same load as 'war', for a side-by-side comparison "
        "(repeat for several)",
    )
    add(
        "--repeat",
        type=int,
        default=1,
        help="run every scenario x target this many times, interleaved (A, B, A, B...), "
        "so that the machine's load falls on each target alike; medians reported",
    )
    add(
        "--compat",
        choices=("0.1",),
        default=None,
        help="speak to a war-server of release 0.1 (--war-server): create rooms without the "
        "rule fields 0.1 refuses and leave out the flags it does not know",
    )
    add("--db-dir", default=None, help="folder for the war-server's database; none: a tmp one")
    add("--profile", metavar="DIR", default=None, help="py-spy the war-server into DIR")
    add("--max-seconds", type=float, default=1800.0, help="hard bound on the whole run")
    add("--quick", action="store_true", help="small smoke run: 200 rooms, 1,000 idle, 8 s")
    add("--json", action="store_true", help="print one JSON document instead of text")
    return parser


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2) if not math.isnan(seconds) else float("nan")


def _delay_figures(stats: LoadStats) -> dict[str, Any]:
    every = stats.delays()
    return {
        "delay_samples": len(every),
        "delay_p50_ms": _ms(percentile(every, 0.50)),
        "delay_p99_ms": _ms(percentile(every, 0.99)),
        "delay_max_ms": _ms(max(every) if every else float("nan")),
        "player_p99_ms": _ms(percentile(stats.player_delays, 0.99)),
        "spectator_p99_ms": _ms(percentile(stats.spectator_delays, 0.99)),
    }


def _error_figures(load: RoomLoad) -> dict[str, Any]:
    stats = load.stats
    return {
        "errors": stats.error_total + sum(load.setup_failures.values()),
        "error_codes": dict(stats.errors),
        "unexpected_closes": dict(stats.closes),
        "seq_gaps": stats.seq_gaps,
        "setup_failures": dict(load.setup_failures),
    }


class _Sampler:
    """Peak of a server's RSS sampled every ``period`` seconds (plus VmHWM at the end)."""

    def __init__(self, server: ServerProcess, period: float = 0.5) -> None:
        self.server = server
        self.period = period
        self.peak = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(OSError, KeyError):
                self.peak = max(self.peak, self.server.rss_kib())
            await asyncio.sleep(self.period)

    def __enter__(self) -> _Sampler:
        self._task = asyncio.create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


class _Profiler:
    """py-spy record of the server for one window (raw collapsed stacks)."""

    def __init__(self, directory: str | None, server: ServerProcess, name: str) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.path: Path | None = None
        if directory is None:
            return
        exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        if not Path(exe).exists():
            print("py-spy not found: pip install py-spy (skipping profile)", file=sys.stderr)
            return
        try:
            Path(directory).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"cannot profile into {directory}: {error}", file=sys.stderr)
            return
        self.path = Path(directory) / f"{name}.txt"
        argv = [exe, "record", "--pid", str(server.pid), "--format", "raw", "--rate", "200"]
        argv += ["--output", str(self.path)]
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=directory
        )

    def stop(self) -> dict[str, Any]:
        if self.proc is None or self.path is None:
            return {}
        self.proc.send_signal(2)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(20)
        if self.proc.returncode is None:
            self.proc.kill()
        if not self.path.exists():
            return {}
        return {"profile": str(self.path), "hot": summarize_profile(self.path)}


def summarize_profile(path: Path, top: int = 15) -> dict[str, list[tuple[str, float]]]:
    """Own-time and inclusive-time shares of the hottest functions in py-spy raw output."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [_function_of(f) for f in stack.split(";")]
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    if not total:
        return {"own": [], "inclusive": []}
    return {
        "own": [(f, round(100 * c / total, 1)) for f, c in own.most_common(top)],
        "inclusive": [(f, round(100 * c / total, 1)) for f, c in inclusive.most_common(top)],
    }


def _function_of(frame: str) -> str:
    """``name (path/file.py:12)`` → ``name file.py`` (lines of one function merged)."""
    name, _, where = frame.partition(" (")
    return f"{name} {where.rsplit('/', 1)[-1].split(':', 1)[0].rstrip(')')}"


class Bench:
    """Runs the scenarios against the targets; collects :class:`Result` rows."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.results: list[Result] = []
        self.tmp = Path(args.db_dir or tempfile.mkdtemp(prefix="war-load-"))
        self.server_cpus = None if args.no_pin else frozenset({args.server_cpu})
        self.olds: dict[str, Path] = {}
        for item in args.old:
            label, _, where = item.rpartition("=")
            self.olds[label or "old"] = Path(where).resolve()

    def is_war(self, target: str) -> bool:
        """``target`` is a war-server (this one or an ``--old`` checkout's)."""
        return target == "war" or target in self.olds

    def _spec(self, target: str, tag: str) -> ServerSpec:
        if target == "baseline":
            return baseline_spec(host=HOST)
        if target == "baseline1":
            return baseline_spec(host=HOST, frames="one")
        db = self.tmp / f"{target}-{tag}-{time.monotonic_ns()}.sqlite3"
        extra = list(WAR_LIMIT_FLAGS)
        if tag == ABUSE:  # the default limits: the abusers must meet them
            extra += ABUSE_FLAGS
        if tag == TALK:  # the talker meets the transport's default rate limit
            extra += ("--rate-limit", "20")
        if self.args.compat == "0.1":
            pairs = zip(extra[::2], extra[1::2], strict=True)
            extra = [x for pair in pairs if pair[0] not in LEGACY_UNKNOWN_FLAGS for x in pair]
        extra += self.args.server_arg  # last: --server-arg overrides the rest
        env = dict(item.split("=", 1) for item in self.args.server_env)
        exe: str | list[str] | None = self.args.war_server
        if target in self.olds:
            env["PYTHONPATH"] = str(self.olds[target])
            exe = [sys.executable, "-P", "-m", "server.adapters.cli"]
        return war_server_spec(db, host=HOST, extra=extra, exe=exe, env=env)

    def _log(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    async def run(self) -> None:
        targets = [t for t in self.args.targets.split(",") if t]
        scenarios = [s for s in self.args.scenarios.split(",") if s]
        for target in targets:
            if target not in TARGETS and target not in self.olds:
                known = ", ".join((*TARGETS, *self.olds))
                raise SystemExit(f"unknown target {target!r} (choose from {known})")
        for scenario in scenarios:
            if scenario not in SCENARIOS:
                raise SystemExit(f"unknown scenario {scenario!r} ({', '.join(SCENARIOS)})")
        for repeat in range(max(1, self.args.repeat)):
            for scenario in scenarios:
                for target in targets:
                    await self._one(target, scenario, repeat)

    async def _one(self, target: str, scenario: str, repeat: int) -> None:
        """One run of ``scenario`` against a fresh server of ``target``."""
        if (scenario in {ABUSE, TALK} and target != "war") or (
            scenario == Mode.IDLE and target == "baseline1"
        ):
            return  # no defenses to measure; the same idle connections
        self._log(f"== {target} / {scenario}" + (f" (run {repeat + 1})" if repeat else ""))
        runner = {
            Mode.IDLE: self._idle,
            Mode.PACE: self._pace,
            Mode.FULL: self._full,
            ABUSE: self._abuse,
            TALK: self._talk,
        }[scenario]
        server = ServerProcess(
            self._spec(target, scenario),
            cpus=self.server_cpus,
            nofile=self.args.server_nofile if self.is_war(target) else None,
        )
        await server.start()
        try:
            result = await runner(target, server)
            result.figures["run"] = repeat + 1
            self.results.append(result)
        finally:
            status = await server.stop()
            if status not in (0, None):
                self._log(f"{target} exited with {status}; last lines:\n{server.tail(10)}")

    def _profiler(self, server: ServerProcess, target: str, scenario: str) -> _Profiler | None:
        if not self.is_war(target):
            return None
        runs = sum(1 for r in self.results if (r.target, r.scenario) == (target, scenario))
        return _Profiler(self.args.profile, server, f"{target}-{scenario}-{runs + 1}")

    def _unknown_fields(self, target: str) -> tuple[str, ...]:
        """The create_room fields an ``--old`` checkout does not know (`FIELDS_0_3`)."""
        if self.args.compat == "0.1":
            return FIELDS_0_3
        if target not in self.olds:
            return ()
        source = "".join(
            p.read_text(encoding="utf-8") for p in (self.olds[target] / "protocol").glob("*.py")
        )
        return tuple(name for name in FIELDS_0_3 if f"    {name}:" not in source)

    def _unknown_rules(self, target: str) -> tuple[str, ...]:
        """The rule fields an ``--old`` checkout does not know (0.2: `RULES_0_2`)."""
        if target not in self.olds:
            return ()
        state = (self.olds[target] / "protocol" / "state.py").read_text(encoding="utf-8")
        return tuple(name for name in RULES_0_2 if name not in state)

    def _load(
        self, server: ServerProcess, spectators: int, *, forwarded: bool = False, target: str
    ) -> RoomLoad:
        dropped = LEGACY_DROPPED_RULES if self.args.compat == "0.1" else ()
        return RoomLoad(
            HOST,
            server.port,
            spectators=spectators,
            seed=self.args.seed,
            pace=self.args.pace,
            ready_gap=self.args.ready_gap,
            connect_concurrency=self.args.connect_concurrency,
            forwarded=forwarded,
            dropped_rules=dropped or self._unknown_rules(target),
            dropped_fields=self._unknown_fields(target),
        )

    async def _idle(self, target: str, server: ServerProcess) -> Result:
        args = self.args
        per_room = 2 + args.idle_spectators
        rooms = max(1, math.ceil(args.idle_connections / per_room))
        await asyncio.sleep(1.0)
        before = server.rss_kib()
        load_before = self_rss_kib()
        load = self._load(server, args.idle_spectators, target=target)
        started = time.perf_counter()
        made = await load.add_rooms(rooms)
        setup_s = time.perf_counter() - started
        await asyncio.sleep(2.0)  # a bench (not a test): let the server settle, then sample
        conns = load.connections
        after = server.rss_kib()
        per_conn = (after - before) / conns if conns else float("nan")
        figures = {
            "rooms": made,
            "connections": conns,
            "setup_seconds": round(setup_s, 1),
            "rss_none_kib": before,
            "rss_idle_kib": after,
            "kib_per_connection": round(per_conn, 2),
            "peak_rss_kib": server.peak_rss_kib(),
            "load_kib_per_connection": round((self_rss_kib() - load_before) / max(conns, 1), 2),
            **_error_figures(load),
        }
        await load.close()
        return Result(target, Mode.IDLE, figures)

    async def _pace(self, target: str, server: ServerProcess) -> Result:
        args = self.args
        load = self._load(server, args.spectators, target=target)
        rss_none = server.rss_kib()
        made = await load.add_rooms(args.rooms)
        rss_held = server.rss_kib()
        load.start(Mode.PACE)
        await asyncio.sleep(args.pace + 0.1)  # one period of warm-up: every room has beaten
        load.stats.reset()
        profiler = self._profiler(server, target, Mode.PACE)
        figures = await self._window(server, load, args.duration)
        load.pause()
        figures = {
            "rooms": made,
            "connections": load.connections,
            "pace_s": args.pace,
            "ready_gap_s": args.ready_gap,
            "rss_none_kib": rss_none,
            "rss_held_kib": rss_held,
            "kib_per_room": round((rss_held - rss_none) / made, 2) if made else float("nan"),
            **figures,
            "overruns": load.stats.overruns,
            "load_beat_late_p99_ms": _ms(percentile(load.stats.tick_lateness, 0.99)),
        }
        if profiler is not None:
            figures.update(profiler.stop())
        await load.close()
        return Result(target, Mode.PACE, figures)

    async def _talk(self, target: str, server: ServerProcess) -> Result:
        """``--talk-rooms`` paced rooms, measured without and then with one connection
        sending ``say`` at ``--talk-send-rate`` (the transport's limit by default)."""
        args = self.args
        load = self._load(server, args.spectators, target=target)
        made = await load.add_rooms(args.talk_rooms)
        talker = Talker(HOST, server.port, args.talk_send_rate)
        await talker.open()
        load.start(Mode.PACE)
        await asyncio.sleep(args.pace + 0.1)
        load.stats.reset()
        quiet = await self._window(server, load, args.duration)
        load.stats.reset()
        talker.start()
        loud = await self._window(server, load, args.duration)
        await talker.stop()
        load.pause()
        keep = ("delay_p50_ms", "delay_p99_ms", "delay_max_ms", "errors", "server_cpu_pct")
        figures = {
            "rooms": made,
            "connections": load.connections + 2,
            "pace_s": args.pace,
            **{f"quiet_{k}": v for k, v in quiet.items() if k in keep},
            **{f"talking_{k}": v for k, v in loud.items() if k in keep},
            "steps_per_s": loud["steps_per_s"],
            **talker.figures(loud["seconds"]),
        }
        await load.close()
        return Result(target, TALK, figures)

    async def _abuse(self, target: str, server: ServerProcess) -> Result:
        args = self.args
        load = self._load(server, args.spectators, forwarded=True, target=target)
        made = await load.add_rooms(args.abuse_rooms)
        load.start(Mode.PACE)
        await asyncio.sleep(args.pace + 0.1)
        codes = [room.watch_code for room in load.rooms]
        kinds = tuple(k for k in args.abuse_kinds.split(",") if k)
        unknown = set(kinds) - set(KINDS + ATTACKS)
        if unknown:
            raise SystemExit(f"unknown abuser kinds: {', '.join(sorted(unknown))}")
        inside = tuple(k for k in kinds if k in KINDS)
        abuse = Abuse(
            HOST,
            server.port,
            codes,
            per_kind=args.abusers,
            seed=args.seed,
            forwarded=True,
            kinds=inside,
        )
        rss_before = server.rss_kib()
        lines_before = server.line_count
        if inside:
            abuse.start()
        attacks = [
            await self._attack(kind, server.port, codes) for kind in kinds if kind in ATTACKS
        ]
        load.stats.reset()
        figures = await self._window(server, load, args.duration)
        log_lines = server.line_count - lines_before
        load.pause()
        await abuse.stop()
        for attack in attacks:
            attack.send_signal(signal.SIGTERM)
        ends = {}
        for attack in attacks:
            out, _ = await attack.communicate()
            report = json.loads(out.decode().strip().splitlines()[-1])
            ends[report["kind"]] = report["ends"]
        figures = {
            "rooms": made,
            "connections": load.connections,
            "pace_s": args.pace,
            "abuse_kinds": list(kinds),
            "rss_before_attack_kib": rss_before,
            "log_lines_in_window": log_lines,
            **figures,
            "overruns": load.stats.overruns,
            "abuser_rounds": dict(abuse.rounds),
            "abuser_closes": {
                **{kind: dict(codes) for kind, codes in abuse.closes.items()},
                **ends,
            },
        }
        await load.close()
        return Result(target, ABUSE, figures)

    async def _attack(self, kind: str, port: int, codes: list[str]) -> asyncio.subprocess.Process:
        """Start ``bench/_attack.py`` for ``kind`` on this process's CPU, at the lowest
        priority (nice 19): it takes what the load generator leaves, so that the honest
        delays are the server's, not a load generator starved by the attacker."""
        argv = [sys.executable, "-m", "bench._attack", kind, "--port", str(port)]
        if kind == "nonreader":
            argv += ["--count", str(self.args.abusers), "--forwarded"]
            argv += [arg for code in codes[: self.args.abusers] for arg in ("--watch-code", code)]
        else:
            argv += ["--count", str(self.args.trickle)]
        cpus = None if self.args.no_pin else {self.args.load_cpu}

        def setup() -> None:
            os.nice(19)
            if cpus:
                os.sched_setaffinity(0, cpus)

        return await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, cwd=REPO, preexec_fn=setup
        )

    async def _full(self, target: str, server: ServerProcess) -> Result:
        args = self.args
        load = self._load(server, args.spectators, target=target)
        made = await load.add_rooms(args.full_rooms)
        load.start(Mode.FULL)
        await asyncio.sleep(args.warmup)
        load.stats.reset()
        profiler = self._profiler(server, target, Mode.FULL)
        figures = await self._window(server, load, args.full_duration)
        load.pause()
        figures = {"rooms": made, "connections": load.connections, **figures}
        if profiler is not None:
            figures.update(profiler.stop())
        await load.close()
        return Result(target, Mode.FULL, figures)

    async def _window(
        self, server: ServerProcess, load: RoomLoad, seconds: float
    ) -> dict[str, Any]:
        cpu0 = server.cpu_seconds()
        own0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        wall0 = time.time()
        with _Sampler(server) as sampler:
            await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - t0
        stats = load.stats
        own1 = resource.getrusage(resource.RUSAGE_SELF)
        own_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
        per_room = 2 + load.spectators
        server_cpu = server.cpu_seconds() - cpu0
        return {
            "seconds": round(elapsed, 2),
            "steps_per_s": round(stats.steps / elapsed, 1),
            "rounds_per_s": round(stats.rounds / elapsed, 1),
            "games": stats.games,
            "frames_per_step_per_conn": round(stats.frames / max(stats.steps, 1) / per_room, 2),
            **_delay_figures(stats),
            **_error_figures(load),
            "server_cpu_pct": round(100 * server_cpu / elapsed, 1),
            "cpu_us_per_step": round(1e6 * server_cpu / stats.steps, 1) if stats.steps else None,
            "load_cpu_pct": round(100 * own_cpu / elapsed, 1),
            "rss_end_kib": server.rss_kib(),
            "rss_peak_sampled_kib": sampler.peak,
            "peak_rss_kib": server.peak_rss_kib(),
            "window_start_unix": round(wall0, 3),
            "worst_delay_ms_by_second": [
                _ms(stats.worst.get(second, 0.0))
                for second in range(int(t0), int(t0 + elapsed) + 1)
            ],
        }


def _medians(results: list[Result]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per target x scenario: the median of each of `MEDIAN_KEYS` over the runs, and the
    runs' values in order (``<key>_runs``)."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for result in results:
        row = table.setdefault((result.target, result.scenario), {})
        for key in MEDIAN_KEYS:
            value = result.figures.get(key)
            if isinstance(value, int | float) and not math.isnan(value):
                row.setdefault(f"{key}_runs", []).append(value)
    for row in table.values():
        for key in MEDIAN_KEYS:
            if f"{key}_runs" in row:
                row[key] = round(statistics.median(row[f"{key}_runs"]), 2)
    return table


def _ratio(table: dict[tuple[str, str], dict[str, Any]], a: str, b: str, key: str, scenario: str,
           digits: int = 3) -> float | None:  # fmt: skip
    top, bottom = table.get((a, scenario), {}).get(key), table.get((b, scenario), {}).get(key)
    return round(top / bottom, digits) if top is not None and bottom else None


def _ratios(results: list[Result], olds: Sequence[str] = ()) -> dict[str, float]:
    """Ratios of the medians over the runs (one run: of that run's figures)."""
    table = _medians(results)
    pairs = {
        "full_speed_throughput_war_over_baseline": ("war", "baseline", "steps_per_s", Mode.FULL),
        "full_speed_throughput_war_over_one_frame_baseline": (
            "war", "baseline1", "steps_per_s", Mode.FULL,
        ),
        "full_speed_cpu_per_step_war_over_baseline": (
            "war", "baseline", "cpu_us_per_step", Mode.FULL,
        ),
        "pace_cpu_per_step_war_over_baseline": ("war", "baseline", "cpu_us_per_step", Mode.PACE),
        "pace_p99_war_over_baseline": ("war", "baseline", "delay_p99_ms", Mode.PACE),
        "idle_memory_war_over_baseline": ("war", "baseline", "kib_per_connection", Mode.IDLE),
    }  # fmt: skip
    for old in olds:
        pairs |= {
            f"full_speed_throughput_{old}_over_baseline": (
                old, "baseline", "steps_per_s", Mode.FULL,
            ),
            f"full_speed_throughput_war_over_{old}": ("war", old, "steps_per_s", Mode.FULL),
            f"full_speed_cpu_per_step_war_over_{old}": ("war", old, "cpu_us_per_step", Mode.FULL),
            f"pace_cpu_per_step_war_over_{old}": ("war", old, "cpu_us_per_step", Mode.PACE),
            f"pace_p99_war_over_{old}": ("war", old, "delay_p99_ms", Mode.PACE),
            f"pace_memory_per_room_war_over_{old}": ("war", old, "kib_per_room", Mode.PACE),
        }  # fmt: skip
    ratios: dict[str, float] = {}
    for name, (a, b, key, scenario) in pairs.items():
        value = _ratio(table, a, b, key, scenario)
        if value is not None:
            ratios[name] = value
    return ratios


def _verdicts(results: list[Result], ratios: dict[str, float]) -> dict[str, str]:
    table = {(r.target, r.scenario): r.figures for r in results}
    verdicts: dict[str, str] = {}
    pace = table.get(("war", Mode.PACE))
    if pace:
        ok = pace["delay_p99_ms"] < 20 and pace["errors"] == 0 and pace["rooms"] >= 1000
        verdicts["1000 rooms, p99 < 20 ms, no errors"] = (
            f"{'met' if ok else 'missed'}: {pace['rooms']} rooms, p99 {pace['delay_p99_ms']} ms, "
            f"{pace['errors']} errors"
        )
    if "full_speed_throughput_war_over_baseline" in ratios:
        ratio = ratios["full_speed_throughput_war_over_baseline"]
        verdicts["throughput >= 70% of baseline"] = (
            f"{'met' if ratio >= 0.7 else 'missed'}: {100 * ratio:.0f}%"
        )
    idle = table.get(("war", Mode.IDLE))
    if idle:
        ok = idle["kib_per_connection"] < 20 and idle["connections"] >= 10000
        verdicts["< 20 KiB per idle connection, 10,000 held"] = (
            f"{'met' if ok else 'missed'}: {idle['kib_per_connection']} KiB, "
            f"{idle['connections']} connections"
        )
    return verdicts


_TEXT_KEYS = (
    "rooms", "connections", "steps_per_s", "rounds_per_s", "delay_p50_ms", "delay_p99_ms",
    "delay_max_ms", "errors", "server_cpu_pct", "load_cpu_pct", "kib_per_connection",
    "rss_none_kib", "rss_idle_kib", "rss_held_kib", "peak_rss_kib", "overruns",
    "load_beat_late_p99_ms", "frames_per_step_per_conn", "rss_before_attack_kib",
    "rss_end_kib", "rss_peak_sampled_kib", "log_lines_in_window", "cpu_us_per_step",
    "kib_per_room", "run",
)  # fmt: skip


def _print_text(report: dict[str, Any]) -> None:
    print(f"# bench.load  {report['conditions']['when']}  {report['conditions']['machine']}")
    for row in report["results"]:
        figures = row["figures"]
        shown = "  ".join(f"{k}={figures[k]}" for k in _TEXT_KEYS if k in figures)
        print(f"{row['target']:>8} {row['scenario']:<5} {shown}")
        if figures.get("errors"):
            print(f"{'':>14} errors: {figures['error_codes']} closes: "
                  f"{figures['unexpected_closes']} setup: {figures['setup_failures']}")  # fmt: skip
        if "abuser_closes" in figures:
            print(f"{'':>14} abusers closed: {figures['abuser_closes']}")
        hot = figures.get("hot")
        if hot:
            print(f"{'':>14} hottest (own time %): {hot['own'][:8]}")
    for name, row in report.get("medians", {}).items():
        shown = "  ".join(f"{k}={row[k]} {row[k + '_runs']}" for k in MEDIAN_KEYS if k in row)
        print(f"median {name}: {shown}")
    for name, value in report["ratios"].items():
        print(f"ratio {name}: {value}")
    for name, verdict in report["verdicts"].items():
        print(f"target {name}: {verdict}")


def _conditions(args: argparse.Namespace) -> dict[str, Any]:
    load1, load5, _ = os.getloadavg()
    return {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}",
        "loadavg_at_start": [round(load1, 2), round(load5, 2)],
        "pinned": not args.no_pin,
        "server_cpu": args.server_cpu,
        "load_cpu": args.load_cpu,
        "argv": sys.argv[1:],
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    conditions = _conditions(args)
    bench = Bench(args)
    try:
        await asyncio.wait_for(bench.run(), args.max_seconds)
    except TimeoutError:
        print(f"stopped after --max-seconds {args.max_seconds}", file=sys.stderr)
    finally:
        if args.db_dir is None:
            shutil.rmtree(bench.tmp, ignore_errors=True)
    ratios = _ratios(bench.results, list(bench.olds))
    return {
        "conditions": conditions,
        "results": [
            {"target": r.target, "scenario": r.scenario, "figures": r.figures}
            for r in bench.results
        ],
        "medians": {
            f"{target}/{scenario}": row
            for (target, scenario), row in _medians(bench.results).items()
        }
        if args.repeat > 1
        else {},
        "ratios": ratios,
        "verdicts": _verdicts(bench.results, ratios),
    }


def main(argv: list[str] | None = None) -> None:
    """Parse flags, run the bench, print the report."""
    args = _build_parser().parse_args(argv)
    if args.quick:
        args.rooms, args.full_rooms, args.idle_connections = 200, 50, 1000
        args.duration = args.full_duration = 8.0
    raise_nofile_limit()
    if not args.no_pin:
        os.sched_setaffinity(0, {args.load_cpu})
    report = asyncio.run(_main(args))
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        _print_text(report)


if __name__ == "__main__":
    main()
