"""The backup and restore commands of docs/hosting.md, run against the real server's store.

The guide runs them with `docker compose exec`/`run` inside the image; here the same
Python one-liners run with this interpreter, /data replaced by the test's volume folder.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path

from protocol import CardsTurned, CreateRoom, JoinRoom, Ready, ResumeSeat, Welcome
from tests.deploy._repo import HOSTING_DOC
from tests.deploy._server import free_port, image_command, running
from tests.e2e._client import Client

TIMEOUT = 30.0


def _guide_one_liners() -> dict[str, str]:
    """The guide's ``python ... -c "..."`` snippets: 'backup' and 'restore'."""
    snippets = re.findall(r' -c "([^"]+)"', HOSTING_DOC.read_text(encoding="utf-8"))
    found = {
        "backup": [s for s in snippets if "/data/backup.sqlite3" in s],
        "restore": [s for s in snippets if "/restore.sqlite3" in s],
    }
    assert all(len(v) == 1 for v in found.values()), found
    return {name: code for name, (code,) in found.items()}


async def _python(code: str) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode == 0, stderr.decode()


async def test_backup_while_running_then_restore_into_a_new_volume(tmp_path: Path) -> None:
    snippets = _guide_one_liners()
    live = image_command(tmp_path / "live", port=free_port())
    url = f"ws://127.0.0.1:{live.port}/"
    async with running(live) as server:
        ann = await Client.connect(url)
        ben = await Client.connect(url)
        await ann.send(CreateRoom(name="Ann", password=live.env["WAR_PASSWORD"]))
        welcome = await ann.expect(Welcome)
        assert welcome.player_code and welcome.token
        await ben.send(JoinRoom(code=welcome.player_code, name="Ben"))
        await ben.expect(Welcome)
        for client in (ann, ben):
            await client.send(Ready(step=0))
        await ann.expect(CardsTurned, where=lambda m: m.step == 1)

        # The guide's backup, while the server runs (its WAL may hold the latest step).
        await _python(snippets["backup"].replace("/data/", f"{live.data_dir}/"))
        for client in (ann, ben):
            await client.close()
        server.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(server.wait(), TIMEOUT) == 0

    backup = live.data_dir / "backup.sqlite3"
    restored = image_command(tmp_path / "restored", port=free_port())
    code = snippets["restore"].replace("/data/", f"{restored.data_dir}/")
    await _python(code.replace("/restore.sqlite3", str(backup)))

    async with running(restored) as server:
        ann = await Client.connect(f"ws://127.0.0.1:{restored.port}/")
        await ann.send(ResumeSeat(room=welcome.state.room, token=welcome.token))
        back = await ann.expect(Welcome)
        assert back.seat == 0
        assert back.state.step == 1  # the step played before the backup is in it
        await ann.close()
        server.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(server.wait(), TIMEOUT) == 0
