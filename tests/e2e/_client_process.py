"""``war-client`` as a real subprocess, its stdout and stderr read live, line by line.

``await client.expect(r"Player code: (\\S+)\\.")`` waits (with a timeout, never a sleep)
until a line matches and returns the match. Every line read stays in ``client.out`` /
``client.err``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["WAR_CLIENT", "ClientProcess", "client_process"]

WAR_CLIENT = Path(sys.prefix) / "bin" / "war-client"
TIMEOUT = 60.0


@dataclass(slots=True)
class ClientProcess:
    """A running war-client; ``out``/``err`` hold the lines read so far."""

    process: asyncio.subprocess.Process
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False

    async def expect(
        self, pattern: str, *, start: int = 0, within: float = TIMEOUT
    ) -> re.Match[str]:
        """The first stdout line from index ``start`` on that matches ``pattern``."""
        regex = re.compile(pattern)

        async def find() -> re.Match[str]:
            while True:
                self.changed.clear()
                for line in self.out[start:]:
                    if match := regex.search(line):
                        return match
                if self.done:
                    raise AssertionError(
                        f"war-client ended without a line matching {pattern!r}; "
                        f"stdout: {self.out[-20:]}, stderr: {self.err[-10:]}"
                    )
                await self.changed.wait()

        try:
            return await asyncio.wait_for(find(), within)
        except TimeoutError:
            raise AssertionError(
                f"no line matching {pattern!r} within {within} s; stdout: {self.out[-20:]}"
            ) from None

    async def wait(self, within: float = TIMEOUT) -> int:
        """Wait for the exit (and the last lines); return the exit status."""
        status = await asyncio.wait_for(self.process.wait(), within)
        while not self.done:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), within)
        return status

    async def kill(self) -> None:
        """kill -9, as a crash would."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
        await self.wait()


async def _pump(stream: asyncio.StreamReader, lines: list[str], client: ClientProcess) -> None:
    while line := await stream.readline():
        lines.append(line.decode("utf-8", "replace").rstrip("\n"))
        client.changed.set()


@asynccontextmanager
async def client_process(
    args: Sequence[str],
    state: Path,
    stdin: int | None = asyncio.subprocess.DEVNULL,
    *,
    locale: str = "C.UTF-8",
) -> AsyncIterator[ClientProcess]:
    """Start ``war-client ARGS`` with ``WAR_CLIENT_STATE=state``; kill it on exit.
    ``locale``: its ``LANG`` (``LC_ALL`` and ``LC_MESSAGES`` unset), which decides its
    language without ``--lang``: English by default, whatever the machine's locale."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("WAR_") and k not in ("LC_ALL", "LC_MESSAGES")
    }
    env.update(WAR_CLIENT_STATE=str(state), PYTHONUNBUFFERED="1", LANG=locale)
    process = await asyncio.create_subprocess_exec(
        str(WAR_CLIENT),
        *args,
        env=env,
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    client = ClientProcess(process)
    assert process.stdout is not None and process.stderr is not None
    pumps = [
        asyncio.create_task(_pump(process.stdout, client.out, client)),
        asyncio.create_task(_pump(process.stderr, client.err, client)),
    ]

    async def finish() -> None:
        await asyncio.gather(*pumps)
        client.done = True
        client.changed.set()

    finisher = asyncio.create_task(finish())
    try:
        yield client
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(finisher, TIMEOUT)
