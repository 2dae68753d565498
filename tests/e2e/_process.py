"""`war-server` as a real subprocess on 127.0.0.1 with a free port, its JSON log read live.

The server is started with ``--port 0``; its ``listening`` log line tells the port. Its
stderr is read continuously (so it never blocks on a full pipe) into `ServerProcess.lines`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["START_TIMEOUT", "ServerProcess", "server_process"]

WAR_SERVER = Path(sys.prefix) / "bin" / "war-server"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0


@dataclass(slots=True)
class ServerProcess:
    """A running war-server process."""

    process: asyncio.subprocess.Process
    port: int = 0
    lines: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    grew: asyncio.Event = field(default_factory=asyncio.Event)
    """set whenever a log line arrives (and when the log ends)"""

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def kill(self) -> int:
        """SIGKILL (kill -9) and wait; return the exit status (negative: the signal)."""
        self.process.send_signal(signal.SIGKILL)
        return await asyncio.wait_for(self.process.wait(), STOP_TIMEOUT)

    async def terminate(self) -> int:
        """SIGTERM and wait for the exit; return the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), STOP_TIMEOUT)

    def events(self, name: str) -> list[dict[str, Any]]:
        """Log lines whose event is ``name``."""
        return [line for line in self.lines if line.get("event") == name]

    async def logged(self, name: str) -> dict[str, Any]:
        """Wait for the first log line whose event is ``name``; return it.

        Raises EOFError if the log ends first (the caller bounds the wait).
        """
        while True:
            found = self.events(name)
            if found:
                return found[0]
            if self.process.returncode is not None:
                raise EOFError(f"war-server exited before logging {name!r}")
            self.grew.clear()
            await self.grew.wait()


@asynccontextmanager
async def server_process(
    db: Path,
    *args: str,
    nofile: int | tuple[int, int] | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[ServerProcess]:
    """Start ``war-server --port 0 --db DB --log-format json ARGS``; kill it on exit.

    ``nofile``: the process's open-files limit (soft = hard, or a (soft, hard) pair).
    ``env``: extra variables.

    Raises AssertionError (with the output so far) if it exits or stays silent for
    START_TIMEOUT seconds instead of listening.
    """
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    environment["PYTHONUNBUFFERED"] = "1"
    environment.update(env or {})

    limits = (nofile, nofile) if isinstance(nofile, int) else nofile

    def limit_files() -> None:
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, limits)

    process = await asyncio.create_subprocess_exec(
        str(WAR_SERVER),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--db",
        str(db),
        "--log-format",
        "json",
        *args,
        env=environment,
        preexec_fn=limit_files if nofile is not None else None,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    server = ServerProcess(process)
    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    reader = asyncio.create_task(_read_log(server, listening))
    try:
        try:
            server.port = await asyncio.wait_for(asyncio.shield(listening), START_TIMEOUT)
        except (TimeoutError, EOFError) as error:
            raise AssertionError(
                f"war-server did not start ({error!r}); output:\n" + "\n".join(server.raw[-40:])
            ) from None
        yield server
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


async def _read_log(server: ServerProcess, listening: asyncio.Future[int]) -> None:
    stream = server.process.stderr
    assert stream is not None
    while True:
        line = await stream.readline()
        server.grew.set()
        if not line:
            if not listening.done():
                listening.set_exception(EOFError("war-server exited before listening"))
            return
        text = line.decode(errors="replace").rstrip("\n")
        server.raw.append(text)
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        if isinstance(entry, dict):
            server.lines.append(entry)
            if entry.get("event") == "listening" and not listening.done():
                listening.set_result(int(entry["port"]))
