"""Two war-server processes on one store: the second refuses to start with one line.

Both would otherwise overwrite each other's seat tokens, and a player would later be
refused. The lock dies with its process, kill -9 included, so a restart after a crash
is never locked out.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from protocol import CreateRoom, Welcome
from tests.e2e._client import Client
from tests.e2e._process import server_process

WAR_SERVER = Path(sys.executable).with_name("war-server")

pytestmark = pytest.mark.slow


async def second_server(db: Path) -> tuple[int, list[str]]:
    """Run another war-server on ``db``; its exit status and its log lines."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    process = await asyncio.create_subprocess_exec(
        str(WAR_SERVER), "--host", "127.0.0.1", "--port", "0", "--db", str(db),
        "--log-format", "json",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, err.decode().splitlines()


async def test_a_second_server_on_the_same_store_refuses_to_start(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    async with server_process(db) as first:
        status, lines = await second_server(db)
        assert status == 1
        assert len(lines) == 1, lines
        assert '"startup_failed"' in lines[0]
        assert "in use by another war-server" in lines[0]
        assert f"process {first.pid}" in lines[0]
        client = await Client.connect(first.url)  # the first one is untouched
        await client.send(CreateRoom(name="Ann"))
        await client.expect(Welcome)
        await client.close()
        assert await first.stop() == 0
    async with server_process(db) as again:  # free once the first stopped
        assert again.events("listening")[0]["rooms"] == 1


async def test_a_killed_server_leaves_no_lock_behind(tmp_path: Path) -> None:
    db = tmp_path / "war.sqlite3"
    async with server_process(db) as first:
        await first.kill()
    async with server_process(db) as again:
        assert again.events("listening")
