"""Run a server under test as a child process, and read its memory and CPU from /proc.

Used by ``bench/load.py``, ``bench/soak.py``, ``bench/chaos.py`` and the end-to-end
soak/chaos/abuse tests. The child gets the open-files limit raised to its hard limit (or
set to a given one) and may be pinned to a set of CPUs (``os.sched_setaffinity`` in the
child before exec). Its stdout and stderr are drained continuously into a bounded tail
(so a chatty log never blocks it), and :meth:`ServerProcess.start` returns once a line
matching the ready pattern appears — waiting on the server's own "listening" line, not
on a timer.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import resource
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago on ``host`` (loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
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


GENEROUS_CONNECTS = ("--connect-rate", "1000000", "--connect-burst", "1000000")
"""war-server flags that let any number of new connections in from one address."""


def war_server_spec(
    db: Path,
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
    exe: str | None = None,
) -> ServerSpec:
    """``war-server`` from this virtualenv on ``host:port`` with ``--db`` and JSON logs.

    ``port`` 0 lets the server pick one; `ServerProcess.port` reads it from the
    ``listening`` line. ``exe``: another war-server command (default: this venv's).
    New connections per address are not limited (`GENEROUS_CONNECTS`: a load generator
    opens thousands at once from 127.0.0.1, and reconnects them all after a restart);
    ``extra`` comes later on the command line, so it can set them again.
    """
    command = exe or str(Path(sys.executable).with_name("war-server"))
    argv: tuple[str, ...] = (command, "--host", host, "--port", str(port), "--db", str(db))
    argv += ("--log-format", "json", *GENEROUS_CONNECTS, *extra)
    return ServerSpec(
        name="war-server",
        argv=argv,
        ready=re.compile(r'"port": (?P<port>\d+).*"event": "listening"'),
        env=dict(env or {}),
    )


def baseline_spec(port: int = 0, *, host: str = "127.0.0.1", frames: str = "mirror") -> ServerSpec:
    """The bare-websockets baseline (``bench/baseline_ws.py``) on ``host:port``.

    ``frames``: "mirror" (the war-server's frames) or "one" (one frame per ready).
    """
    argv: tuple[str, ...] = (sys.executable, "-m", "bench.baseline_ws", "--host", host)
    argv += ("--port", str(port), "--frames", frames)
    ready = re.compile(r"baseline listening on \S+:(?P<port>\d+)")
    return ServerSpec(name="baseline", argv=argv, ready=ready)


def _child_setup(cpus: frozenset[int] | None, nofile: int | None) -> Callable[[], None]:
    def setup() -> None:
        if nofile is None:
            raise_nofile_limit()
        else:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        if cpus:
            os.sched_setaffinity(0, cpus)

    return setup


class ServerProcess:
    """One running server child. Use ``async with ServerProcess(spec) as server:``."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        cpus: frozenset[int] | None = None,
        tail: int = 200,
        nofile: int | None = None,
    ) -> None:
        """``nofile``: the child's open-files limit (soft = hard); None: raised to the
        hard limit."""
        self.spec = spec
        self.cpus = cpus
        self.nofile = nofile
        self.lines: collections.deque[str] = collections.deque(maxlen=tail)
        self.line_count = 0
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
        env = {**os.environ, **self.spec.env, "PYTHONUNBUFFERED": "1"}
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
    async def stop(self, within: float = 15.0) -> int | None:
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

    async def kill(self) -> None:
        """SIGKILL (kill -9) the child and wait for it."""
        if self._proc is None:
            return
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
        await self._proc.wait()
        await self._finish_drain()

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
