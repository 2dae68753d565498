"""Run a server under test as a child process, and read its memory and CPU from /proc.

The one server-process harness of the repository: used by ``bench/load.py``,
``bench/soak.py``, ``bench/chaos.py``, the end-to-end tests (``tests/e2e/_process.py``
wraps it for the tests that restart a server) and ``tests/server/adapters/test_cli_gc.py``;
`free_port` is the one free-port finder of tests and bench. The child gets the open-files
limit raised to its hard limit (or set to a given one) and may be pinned to a set of CPUs
(``os.sched_setaffinity`` in the child before exec); it inherits this process's
environment without any ``WAR_*`` variable (the spec sets what it needs). Its stdout and
stderr are drained continuously into `ServerProcess.lines` (bounded by ``tail``, so a
chatty log never blocks it nor fills memory), and :meth:`ServerProcess.start` returns once
a line matching the ready pattern appears — waiting on the server's own "listening" line,
not on a timer.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import random
import re
import resource
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "GENEROUS_CONNECTS",
    "ServerExitedError",
    "ServerProcess",
    "ServerSpec",
    "baseline_spec",
    "free_port",
    "raise_nofile_limit",
    "read_cpu_seconds",
    "read_status_kib",
    "self_rss_kib",
    "war_server_spec",
]

REPO = Path(__file__).resolve().parent.parent
START_TIMEOUT = 30.0
_CLK_TCK = os.sysconf("SC_CLK_TCK")


class ServerExitedError(RuntimeError):
    """The server process ended (or never became ready); the message has its last lines."""


def raise_nofile_limit() -> int:
    """Raise this process's soft open-files limit to its hard limit; return the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
BELOW_EPHEMERAL = 12_000
"""how many ports below the ephemeral range `free_port` picks from"""


def _ephemeral_start() -> int:
    """The first port the kernel gives outgoing connections (Linux; 32768 elsewhere)."""
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago on ``host`` (loopback), below the ephemeral
    range: a port the kernel picks (port 0) is one it also gives outgoing connections,
    and with tests on six workers opening thousands of them, one of those sometimes held
    the port before the server bound it ("address already in use")."""
    high = _ephemeral_start()
    low = max(1024, high - BELOW_EPHEMERAL)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for _ in range(100):
        port = random.randrange(low, high)
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket(family, socket.SOCK_STREAM) as probe:  # every try taken: any
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """How to start one server: argv, extra environment, and its "ready" log pattern."""

    name: str
    argv: tuple[str, ...]
    ready: re.Pattern[str]
    """matches the line the server prints once it accepts connections; its group
    ``port`` (if any) is the port it bound"""
    env: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    """the loopback address it listens on"""


GENEROUS_CONNECTS = ("--connect-rate", "1000000", "--connect-burst", "1000000")
"""war-server flags that let any number of new connections in from one address."""


def war_server_spec(
    db: Path,
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
    exe: str | Sequence[str] | None = None,
    generous: bool = True,
) -> ServerSpec:
    """``war-server`` from this virtualenv on ``host:port`` with ``--db`` and JSON logs.

    ``port`` 0 lets the server pick one; `ServerProcess.port` reads it from the
    ``listening`` line. ``exe``: another war-server command (default: this venv's), a
    path or an argv prefix.
    With ``generous`` new connections per address are not limited (`GENEROUS_CONNECTS`:
    a load generator opens thousands at once from 127.0.0.1, and reconnects them all
    after a restart); without it the server keeps its defaults. ``extra`` comes later on
    the command line, so it can set any flag again.
    """
    command = exe or str(Path(sys.executable).with_name("war-server"))
    prefix = (command,) if isinstance(command, str) else tuple(command)
    argv: tuple[str, ...] = (*prefix, "--host", host, "--port", str(port), "--db", str(db))
    argv += ("--log-format", "json", *(GENEROUS_CONNECTS if generous else ()), *extra)
    return ServerSpec(
        name="war-server",
        argv=argv,
        ready=re.compile(r'"port": (?P<port>\d+).*"event": "listening"'),
        env=dict(env or {}),
        host=host,
    )


def baseline_spec(port: int = 0, *, host: str = "127.0.0.1", frames: str = "mirror") -> ServerSpec:
    """The bare-websockets baseline (``bench/baseline_ws.py``) on ``host:port``.

    ``frames``: "mirror" (the war-server's frames) or "one" (one frame per ready).
    """
    argv: tuple[str, ...] = (sys.executable, "-m", "bench.baseline_ws", "--host", host)
    argv += ("--port", str(port), "--frames", frames)
    ready = re.compile(r"baseline listening on \S+:(?P<port>\d+)")
    return ServerSpec(name="baseline", argv=argv, ready=ready, host=host)


def _child_setup(
    cpus: frozenset[int] | None, nofile: int | tuple[int, int] | None
) -> Callable[[], None]:
    limits = (nofile, nofile) if isinstance(nofile, int) else nofile

    def setup() -> None:
        if limits is None:
            raise_nofile_limit()
        else:
            resource.setrlimit(resource.RLIMIT_NOFILE, limits)
        if cpus:
            os.sched_setaffinity(0, cpus)

    return setup


class ServerProcess:
    """One running server child. Use ``async with ServerProcess(spec) as server:``.

    ``tail``: how many output lines `lines` keeps (the latest); None keeps them all (a
    test that reads the whole log). ``nofile``: the child's open-files limit (a number
    for soft and hard, or a (soft, hard) pair); None raises it to the hard limit.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        cpus: frozenset[int] | None = None,
        tail: int | None = 200,
        nofile: int | tuple[int, int] | None = None,
    ) -> None:
        self.spec = spec
        self.cpus = cpus
        self.nofile = nofile
        self.lines: collections.deque[str] = collections.deque(maxlen=tail)
        self.line_count = 0
        self.log_bytes = 0
        """bytes the server wrote to its log (stdout and stderr) so far"""
        self._proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self.port = 0
        """The port the server bound (from its ready line, else from its argv)."""
        self._watchers: list[tuple[re.Pattern[str], asyncio.Future[str]]] = []

    @property
    def pid(self) -> int:
        """The child's process id (raises if not started)."""
        if self._proc is None:
            raise ServerExitedError(f"{self.spec.name} is not running")
        return self._proc.pid

    @property
    def url(self) -> str:
        """The WebSocket URL of the server (once started)."""
        return f"ws://{self.spec.host}:{self.port}/"

    @property
    def running(self) -> bool:
        """True while the child has not exited."""
        return self._proc is not None and self._proc.returncode is None

    @property
    def returncode(self) -> int | None:
        """The exit status once the child has exited."""
        return None if self._proc is None else self._proc.returncode

    async def start(self, within: float = START_TIMEOUT) -> None:
        """Start the child and wait for its ready line.

        Raises:
            ServerExitedError: it exited, or printed no ready line within ``within`` s.
        """
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
        env = {**inherited, **self.spec.env, "PYTHONUNBUFFERED": "1"}
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._proc = await asyncio.create_subprocess_exec(
            *self.spec.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            cwd=REPO,
            preexec_fn=_child_setup(self.cpus, self.nofile),  # no threads started yet
        )
        self._drain = asyncio.create_task(self._read_output())
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), within)
        except TimeoutError:
            await self.kill()
            raise ServerExitedError(
                f"{self.spec.name} printed no ready line in {within} s:\n{self.tail()}"
            ) from None

    def _port_of(self, found: re.Match[str]) -> int:
        port = found.groupdict().get("port")
        if port:
            return int(port)
        argv = self.spec.argv
        return int(argv[argv.index("--port") + 1]) if "--port" in argv else 0

    def watch(self, pattern: str) -> asyncio.Future[str]:
        """A future set to the first later output line that matches ``pattern``."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._watchers.append((re.compile(pattern), future))
        return future

    async def _read_output(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        while True:
            try:
                raw = await stream.readline()
            except ValueError:  # a line longer than the stream limit: skip it
                continue
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            self.line_count += 1
            self.log_bytes += len(raw)
            if self._ready is not None and not self._ready.done():
                found = self.spec.ready.search(line)
                if found:
                    self.port = self._port_of(found)
                    self._ready.set_result(None)
            if self._watchers:
                for pattern, future in list(self._watchers):
                    if not future.done() and pattern.search(line):
                        future.set_result(line)
                self._watchers = [(p, f) for p, f in self._watchers if not f.done()]
        await self._proc.wait()
        error = ServerExitedError(
            f"{self.spec.name} exited with {self._proc.returncode}:\n{self.tail()}"
        )
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(error)
        for _, future in self._watchers:
            if not future.done():
                future.set_exception(error)

    def tail(self, lines: int = 30) -> str:
        """The last ``lines`` output lines, for error messages."""
        return "\n".join(list(self.lines)[-lines:])

    def events(self, name: str) -> list[dict[str, Any]]:
        """The JSON log lines kept in `lines` whose ``event`` is ``name``, parsed."""
        found = []
        for line in self.lines:
            if f'"{name}"' not in line:
                continue
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and entry.get("event") == name:
                    found.append(entry)
        return found

    # -- /proc readings --------------------------------------------------------------------
    def status_kib(self, key: str) -> int:
        """A ``/proc/PID/status`` field in KiB, e.g. ``VmRSS`` or ``VmHWM``."""
        return read_status_kib(self.pid, key)

    def rss_kib(self) -> int:
        """Resident memory now (KiB)."""
        return self.status_kib("VmRSS")

    def peak_rss_kib(self) -> int:
        """Peak resident memory so far (VmHWM, KiB)."""
        return self.status_kib("VmHWM")

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the child has used."""
        return read_cpu_seconds(self.pid)

    # -- stopping --------------------------------------------------------------------------
    async def stop(self, within: float = 30.0) -> int | None:
        """SIGTERM, wait up to ``within`` s, then SIGKILL. Returns the exit status."""
        if self._proc is None:
            return None
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self._proc.wait(), within)
            except TimeoutError:
                await self.kill()
        await self._finish_drain()
        return self._proc.returncode

    async def kill(self) -> int | None:
        """SIGKILL (kill -9) the child and wait for it. Returns the exit status (-9 if
        this kill ended it)."""
        if self._proc is None:
            return None
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
        await self._proc.wait()
        await self._finish_drain()
        return self._proc.returncode

    async def _finish_drain(self) -> None:
        if self._drain is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._drain), 5.0)
            if not self._drain.done():
                self._drain.cancel()

    async def __aenter__(self) -> ServerProcess:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def read_status_kib(pid: int, key: str) -> int:
    """Read one ``kB`` field of ``/proc/PID/status``.

    Raises:
        KeyError: no such field.
    """
    prefix = key + ":"
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(prefix):
                return int(line.split()[1])
    raise KeyError(f"no {key!r} in /proc/{pid}/status")


def read_cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds, from ``/proc/PID/stat``."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


def self_rss_kib() -> int:
    """This process's resident memory (KiB)."""
    return read_status_kib(os.getpid(), "VmRSS")
