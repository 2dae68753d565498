"""`war-server` as a real subprocess on 127.0.0.1 with a free port, its JSON log kept whole.

A thin wrapper over the repository's one server-process harness (`bench._server`): the
server is started with ``--port 0`` (its ``listening`` log line tells the port), keeps its
default limits, and every output line is kept (`ServerProcess.lines`, `ServerProcess.events`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bench._server import ServerProcess, war_server_spec

__all__ = ["ServerProcess", "server_process"]


@asynccontextmanager
async def server_process(
    db: Path, *args: str, nofile: int | tuple[int, int] | None = None
) -> AsyncIterator[ServerProcess]:
    """Start ``war-server --port 0 --db DB --log-format json ARGS``; kill it on exit.

    ``ARGS`` come last, so ``--port N`` among them picks the port. ``nofile``: the
    process's open-files limit (`bench._server.ServerProcess`). Raises
    `bench._server.ServerExitedError` (with the output so far) if it exits or prints no
    ``listening`` line within its start timeout.
    """
    spec = war_server_spec(db, extra=args, generous=False)
    server = ServerProcess(spec, tail=None, nofile=nofile)
    await server.start()
    try:
        yield server
    finally:
        await server.kill()
