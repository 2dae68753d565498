"""The exact command the image runs, run here: same entry point, environment and store path.

Differences from the container, all forced by testing on loopback without Docker: the
volume is a temporary folder, the address is 127.0.0.1 instead of 0.0.0.0, the port is
a free one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import (
    CardsTurned,
    CreateRoom,
    GameOver,
    JoinRoom,
    Ready,
    ResumeSeat,
    VoteFinish,
    WatchRoom,
    Welcome,
)
from tests.deploy._interpolate import interpolate
from tests.deploy._repo import (
    HEALTHCHECK_SCRIPT,
    compose,
    env_example,
    service_environment,
    venv_script,
)
from tests.deploy._server import free_port, http_get, image_command, running
from tests.e2e._client import Client

STOP_TIMEOUT = 30.0
STORE_FILES = {"war.sqlite3", "war.sqlite3-wal", "war.sqlite3-shm", "war.sqlite3.lock"}


def test_translation_keeps_the_images_command_and_settings(tmp_path: Path) -> None:
    command = image_command(tmp_path, port=12345)
    assert command.argv == [str(venv_script("war-server"))]
    assert Path(command.argv[0]).parent == Path(sys.prefix) / "bin"
    assert command.env["WAR_DB"] == str(command.data_dir / "war.sqlite3")
    assert command.cwd == command.data_dir
    assert command.data_dir.is_dir()
    assert Path(command.env["HOME"]) == command.data_dir
    assert command.env["WAR_HOST"] == "127.0.0.1"
    assert command.env["WAR_PORT"] == "12345"
    assert command.env["PATH"].split(":")[0] == str(Path(sys.prefix) / "bin")
    assert command.env["PYTHONUNBUFFERED"] == "1"
    # Every setting compose passes arrives, with .env.example's values.
    passed = service_environment(compose()["services"]["war"])
    assert len(passed) > 5
    for key, value in passed.items():
        assert command.env[key] == interpolate(value, env_example()), key
    assert Path(command.healthcheck[0]).parent == Path(sys.prefix) / "bin"
    assert command.healthcheck[1:] == [str(HEALTHCHECK_SCRIPT)]
    assert not [k for k in command.env if k.startswith("WAR_") and "/opt/" in command.env[k]]


async def _run(argv: list[str], env: dict[str, str]) -> tuple[int | None, str]:
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), STOP_TIMEOUT)
    return process.returncode, stderr.decode()


async def _stop(process: asyncio.subprocess.Process) -> int:
    process.send_signal(signal.SIGTERM)
    return await asyncio.wait_for(process.wait(), STOP_TIMEOUT)


async def test_serves_healthz_passes_its_healthcheck_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    command = image_command(tmp_path, port=free_port())
    async with running(command) as process:
        answer = await http_get("127.0.0.1", command.port, "/healthz")
        assert answer.status == 200
        assert isinstance(answer.json(), dict)
        assert await _run(command.healthcheck, command.env) == (0, "")
        assert await _stop(process) == 0
    # The store is where the volume is, and the server wrote nothing else there.
    written = {p.name for p in command.data_dir.iterdir()}
    assert "war.sqlite3" in written
    assert written <= STORE_FILES, written - STORE_FILES


async def test_serves_wss_directly_and_its_healthcheck_follows(
    tmp_path: Path, self_signed: tuple[Path, Path]
) -> None:
    """Without Caddy (e.g. the systemd unit), WAR_CERTFILE/WAR_KEYFILE make it speak TLS."""
    cert, key = self_signed
    command = image_command(tmp_path, port=free_port())
    command.env.update(WAR_CERTFILE=str(cert), WAR_KEYFILE=str(key))
    async with running(command) as process:
        with pytest.raises((OSError, ValueError)):
            await http_get("127.0.0.1", command.port, "/healthz")  # plain HTTP: refused
        answer = await http_get("127.0.0.1", command.port, "/healthz", tls=True)
        assert answer.status == 200
        assert await _run(command.healthcheck, command.env) == (0, "")
        assert await _stop(process) == 0


async def test_restart_on_the_same_volume(tmp_path: Path) -> None:
    for _ in range(2):
        command = image_command(tmp_path, port=free_port())
        async with running(command) as process:
            assert await _stop(process) == 0
    assert (tmp_path / "data" / "war.sqlite3").exists()


def _can_unshare_pid() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run(
        [unshare, "--pid", "--fork", "--kill-child", "true"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    return probe.returncode == 0


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii")
    return [int(child) for child in text.split()]


def _pid_inside_namespace(pid: int) -> int:
    """The process's PID as seen in its own (innermost) PID namespace."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    (line,) = (line for line in status.splitlines() if line.startswith("NSpid:"))
    return int(line.split()[-1])


@pytest.mark.skipif(not _can_unshare_pid(), reason="making a PID namespace needs root")
async def test_sigterm_stops_the_server_as_pid_1(tmp_path: Path) -> None:
    """In the container war-server is PID 1, which ignores signals it has no handler for."""
    unshare = shutil.which("unshare")
    assert unshare is not None
    command = image_command(tmp_path, port=free_port())
    prefix = (unshare, "--pid", "--fork", "--kill-child", "--")
    async with running(command, prefix=prefix) as process:
        (server_pid,) = _children(process.pid)
        assert _pid_inside_namespace(server_pid) == 1
        os.kill(server_pid, signal.SIGTERM)
        # unshare exits with the status of its child: war-server's own exit status.
        assert await asyncio.wait_for(process.wait(), STOP_TIMEOUT) == 0


DEAL = 90210
STEPS_BEFORE_RESTART = 4
SERVICE_RESTART = 1012  # PROTOCOL.md: SIGTERM, clients resume after the restart
REFUSED = 4004


async def _turn(players: list[Client], step: int) -> int:
    """Every player readies at ``step``; return the step reached once all have seen it."""
    for client in players:
        await client.send(Ready(step=step))
    await asyncio.gather(
        *(c.expect(CardsTurned, where=lambda m: m.step == step + 1) for c in players)
    )
    return step + 1


def _secrets_found(paths: list[Path], secrets: list[str]) -> list[str]:
    """Which secrets (shown by their first characters) appear in which files."""
    found = []
    for path in paths:
        data = path.read_bytes()
        found += [f"{path.name}: {s[:4]}..." for s in secrets if s.encode() in data]
    return found


async def test_plays_a_game_across_a_restart_on_the_same_volume(tmp_path: Path) -> None:
    """Create, join, watch, play; SIGTERM (an update); same command again; resume; finish."""
    command = image_command(tmp_path, port=free_port())
    url = f"ws://127.0.0.1:{command.port}/"
    password = command.env["WAR_PASSWORD"]
    async with running(command, log_name="first.log") as server:
        ann, ben, watcher = [await Client.connect(url) for _ in range(3)]
        await ann.send(CreateRoom(name="Ann", deal=DEAL, password=password))
        first = await ann.expect(Welcome)
        assert first.seat == 0 and first.token and first.player_code and first.watch_code
        await ben.send(JoinRoom(code=first.player_code, name="Ben"))
        first_ben = await ben.expect(Welcome)
        assert first_ben.seat == 1 and first_ben.token
        await watcher.send(WatchRoom(code=first.watch_code))
        watching = await watcher.expect(Welcome)
        assert watching.seat is None and watching.token is None
        assert watching.player_code is None

        step = 0
        for _ in range(STEPS_BEFORE_RESTART):
            step = await _turn([ann, ben], step)
        await watcher.expect(CardsTurned, where=lambda m: m.step == step)
        assert watcher.events() == ann.events()[-len(watcher.events()) :]
        assert ann.events() == ben.events()

        server.send_signal(signal.SIGTERM)
        closes = await asyncio.gather(*(c.expect_close() for c in (ann, ben, watcher)))
        assert [code for code, _ in closes] == [SERVICE_RESTART] * 3
        assert await asyncio.wait_for(server.wait(), STOP_TIMEOUT) == 0

    async with running(command, log_name="second.log") as server:
        ann, ben = [await Client.connect(url) for _ in range(2)]
        await ann.send(ResumeSeat(room=first.state.room, token=first.token))
        await ben.send(ResumeSeat(room=first.state.room, token=first_ben.token))
        back, back_ben = await asyncio.gather(ann.expect(Welcome), ben.expect(Welcome))
        assert (back.seat, back_ben.seat) == (0, 1)
        assert back.state.step == back_ben.state.step == step  # nothing lost
        assert back.token and back.token != first.token

        for client in (ann, ben):
            await client.send(VoteFinish())
        over, over_ben = await asyncio.gather(ann.expect(GameOver), ben.expect(GameOver))
        assert over == over_ben
        assert over.step > step
        assert over.summary.deal == DEAL
        assert sum(over.counts) == 52

        stale = await Client.connect(url)
        await stale.send(ResumeSeat(room=first.state.room, token=first.token))
        await stale.expect_error("bad_token")
        assert (await stale.expect_close())[0] == REFUSED

        for client in (ann, ben):
            await client.close()
        assert await _stop(server) == 0

    # Never a token, code or password in a log line; tokens only hashed in the store.
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    secrets = [first.token, first_ben.token, back.token, first.player_code, first.watch_code]
    assert _secrets_found(logs, [*secrets, password]) == []
    store = sorted(command.data_dir.glob("war.sqlite3*"))
    assert _secrets_found(store, [first.token, first_ben.token, back.token]) == []
