"""The home-server image, built and run for real on this machine's Docker engine.

deploy/image.sh builds it (on a stand-in base where Docker Hub is out of reach, see the
script); every container here gets docker-compose.yml's settings for the war service
(environment from .env.example, read-only root, tmpfs, capabilities, restart policy, stop
signal and grace period, log options, a named volume at /data). Only the network differs:
the host's (the engine has no bridge), listening on 127.0.0.1 and a free port.

Select with ``pytest -m image``; leave out with ``-m "not image"``. Where no engine can
start the tests skip with the reason (in CI only when the platform forbids an engine).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from packaging.utils import canonicalize_name

from client.cli import NO_TEXTUAL
from protocol import CardsTurned, CreateRoom, JoinRoom, Ready, ResumeSeat, WatchRoom, Welcome
from tests.deploy._dockerfile import healthcheck
from tests.deploy._image import (
    CONTAINER_DATA,
    IMAGE_REPORT,
    Container,
    Docker,
    Prepared,
    compose_run_options,
    new_volume,
    running,
)
from tests.deploy._interpolate import interpolate
from tests.deploy._lock import RUNTIME_LOCK, read_lock
from tests.deploy._repo import compose, env_example, final_stage, service_environment
from tests.deploy._server import free_port, http_get
from tests.e2e._client import Client

pytestmark = [
    pytest.mark.image,
    # one worker runs them all: they share the module's image and container, and
    # Docker.remove_leftovers removes every test container by its label
    pytest.mark.xdist_group("image"),
    pytest.mark.timeout(900),  # a cold machine builds first (each wait has its own bound)
    pytest.mark.asyncio(loop_scope="module"),
]

UID = 10001
SERVICE_RESTART = 1012  # PROTOCOL.md: the server is restarting (SIGTERM)
GAME_TIMEOUT = 120.0
HEALTHY_TIMEOUT = 90.0  # the image's HEALTHCHECK runs first after its 30 s interval
# 68 MB in 0.4.0: cryptography (--outside's ACME keys and certificates) adds about 13.
PROJECT_LAYERS_BUDGET_MB = 75  # what the project adds on top of the base image: its virtualenv
# (about 8 MB), tdewolff-minify's Go library that minifies the page (about 8 MB) and Babel's
# CLDR data for the image's own war-client (about 34 MB, every locale: pruning it to the
# five languages of the catalogs would win most of it back)
DEAL = 4242


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def _options(volume: str) -> list[str]:
    return compose_run_options(compose()["services"]["war"], env_example(), volume=volume)


def _password() -> str:
    return interpolate(service_environment(compose()["services"]["war"])["WAR_PASSWORD"],
                       env_example())  # fmt: skip


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(image: tuple[Docker, str]) -> AsyncIterator[Container]:
    """One container shared by the tests that leave it running."""
    docker, tag = image
    await docker.remove_leftovers()
    volume = await new_volume(docker)
    try:
        async with running(
            docker, tag, _options(volume), port=free_port(), volume=volume, role="shared"
        ) as container:
            yield container
    finally:
        await docker.run("volume", "rm", "--force", volume, check=False)


@pytest_asyncio.fixture(loop_scope="module")
async def volume(image: tuple[Docker, str]) -> AsyncIterator[str]:
    """A fresh volume for a test that runs containers of its own."""
    docker, _ = image
    name = await new_volume(docker)
    yield name
    await docker.run("volume", "rm", "--force", name, check=False)


async def _python(container: Container, code: str) -> object:
    """Run ``code`` with the image's python; return the JSON it printed."""
    result = await container.exec("python", "-c", code)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


async def test_healthz_answers_over_the_network(server: Container) -> None:
    answer = await http_get("127.0.0.1", server.port, "/healthz")
    assert answer.status == 200
    status = answer.json()
    assert isinstance(status, dict) and status["status"] == "ok"


async def test_serves_the_browser_table_from_the_installed_package(server: Container) -> None:
    """The page's files are package data: a wrong include would leave them out."""
    page = await http_get("127.0.0.1", server.port, "/")
    assert page.status == 200
    assert page.headers["content-type"].startswith("text/html")
    assert b"<html" in page.body.lower()


async def test_the_container_gets_the_compose_settings(server: Container) -> None:
    config = await server.docker.inspect(server.name)
    host = config["HostConfig"]
    war = compose()["services"]["war"]
    assert host["ReadonlyRootfs"] is war["read_only"] is True
    assert set(host["Tmpfs"]) == set(war["tmpfs"])
    assert host["CapDrop"] == war["cap_drop"]
    assert host["SecurityOpt"] == war["security_opt"]
    assert host["RestartPolicy"]["Name"] == war["restart"]
    assert host["LogConfig"]["Type"] == war["logging"]["driver"]
    assert host["LogConfig"]["Config"] == {k: str(v) for k, v in war["logging"]["options"].items()}
    assert config["Config"]["StopSignal"] == war["stop_signal"]
    assert config["Config"]["StopTimeout"] == 30 and war["stop_grace_period"] == "30s"
    env = dict(item.split("=", 1) for item in config["Config"]["Env"])
    for key, value in service_environment(war).items():
        assert env[key] == interpolate(value, env_example()), key
    assert (env["WAR_HOST"], env["WAR_PORT"]) == ("127.0.0.1", str(server.port))
    assert env["WAR_DB"] == "/data/war.sqlite3"
    (mount,) = config["Mounts"]
    assert (mount["Type"], mount["Name"], mount["Destination"]) == (
        "volume", server.volume, CONTAINER_DATA
    )  # fmt: skip
    instruction = final_stage().last("HEALTHCHECK")
    assert instruction is not None
    image_check = ["CMD", *healthcheck(instruction).command]
    assert config["Config"]["Healthcheck"]["Test"] == image_check == war["healthcheck"]["test"]


async def test_runs_unprivileged_as_uid_10001(server: Container) -> None:
    status = (await server.exec("cat", "/proc/1/status")).stdout
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    assert fields["Name"].strip() == "war-server"  # PID 1: no shell or init in front
    assert fields["Uid"].split() == [str(UID)] * 4
    assert fields["Gid"].split() == [str(UID)] * 4
    assert int(fields["CapEff"], 16) == 0  # cap_drop: ALL
    assert fields["NoNewPrivs"].strip() == "1"


async def test_root_filesystem_is_read_only_and_data_writable(server: Container) -> None:
    code = """
import json, os
out = {}
for folder in ("/", "/etc", "/opt/venv", "/opt/war", "/data", "/tmp"):
    path = os.path.join(folder, "probe")
    try:
        with open(path, "w") as f:
            f.write("x")
        os.remove(path)
        out[folder] = "written"
    except OSError as exc:
        out[folder] = exc.strerror
stat = os.stat("/data")
out["data"] = [stat.st_uid, stat.st_gid, oct(stat.st_mode & 0o777)]
out["store"] = sorted(name for name in os.listdir("/data") if name.startswith("war.sqlite3"))
print(json.dumps(out))
"""
    found = await _python(server, code)
    assert isinstance(found, dict)
    for folder in ("/", "/etc", "/opt/venv", "/opt/war"):
        assert found[folder] == "Read-only file system", folder
    assert found["/data"] == found["/tmp"] == "written"
    assert found["data"] == [UID, UID, "0o700"]
    assert "war.sqlite3" in found["store"]


# Run by the image's python: what is installed, and every file that would be ours.
INVENTORY = """
import importlib.metadata, json, os, sys
import server
OURS = ("pyproject.toml", "conftest.py", "requirements.lock", "Dockerfile", "PROTOCOL.md")
names = [d.metadata["Name"] for d in importlib.metadata.distributions()]
ours = []
for root, folders, files in os.walk("/"):
    if root == "/":
        folders[:] = [f for f in folders if f not in ("proc", "sys", "dev")]
    for name in files:
        path = os.path.join(root, name)
        if name in OURS or path.endswith("/adapters/cli.py"):
            ours.append(path)
print(json.dumps({"names": names, "server": server.__file__, "prefix": sys.prefix,
                  "src": os.path.exists("/src"), "ours": sorted(ours)}))
"""


async def test_only_the_installed_package_and_its_locked_dependencies(server: Container) -> None:
    found = await _python(server, INVENTORY)
    assert isinstance(found, dict)
    locked = set(read_lock(RUNTIME_LOCK.read_text(encoding="utf-8")))
    installed = {canonicalize_name(name) for name in found["names"]}
    assert installed == locked | {"family-war"}  # no pip, setuptools, textual, pytest...
    assert found["prefix"] == "/opt/venv"
    site = re.escape("/opt/venv/lib/python") + r"3\.\d+/site-packages/"
    assert re.match(site + "server/__init__.py$", found["server"]), found["server"]
    assert found["src"] is False
    # The installed modules (and protocol's documented PROTOCOL.md), no source tree.
    assert [re.sub(site, "SITE/", path) for path in found["ours"]] == [
        "SITE/protocol/PROTOCOL.md",
        "SITE/server/adapters/cli.py",
    ]


async def test_a_whole_game_from_the_host_client(server: Container, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    env |= {"WAR_PASSWORD": _password(), "WAR_CLIENT_STATE": str(tmp_path / "client.json")}
    client = Path(sys.prefix) / "bin" / "war-client"
    args = [server.url, "--name", "Ann", "--create", "--vs-computer", "--rounds", "20"]
    process = await asyncio.create_subprocess_exec(
        str(client), *args, "--auto", "quick", "--plain",
        env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    assert process.returncode == 0, err.decode()
    assert "Game over: the limit of 20 rounds is reached." in out.decode(), out.decode()[-800:]


async def test_the_images_own_client_plays_plain_without_textual(server: Container) -> None:
    args = [server.url, "--name", "Ben", "--create", "--vs-computer", "--rounds", "5"]
    env = {"WAR_PASSWORD": _password(), "WAR_CLIENT_STATE": "/tmp/client.json"}
    played = await server.exec("war-client", *args, "--auto", "quick", "--plain", env=env)
    assert played.returncode == 0, played.stderr
    assert "Game over: the limit of 5 rounds is reached." in played.stdout
    table = await server.exec("war-client", *args, tty=True, env=env)  # a terminal: the table
    assert table.returncode == 1
    assert table.stdout.strip() == f"war-client: {NO_TEXTUAL}"


async def _turn(players: list[Client], step: int) -> int:
    """Every player readies at ``step``; return the step all of them then saw."""
    for player in players:
        await player.send(Ready(step=step))
    await asyncio.gather(
        *(p.expect(CardsTurned, where=lambda m: m.step == step + 1) for p in players)
    )
    return step + 1


async def test_kill_9_restarts_on_the_same_volume_and_the_game_goes_on(
    image: tuple[Docker, str], volume: str
) -> None:
    """A crash (kill -9 of war-server): Docker restarts it (restart policy), seats resume."""
    docker, tag = image
    port = free_port()
    async with running(docker, tag, _options(volume), port=port, volume=volume, role="crash") as c:
        ann, ben = Client.connect(c.url), Client.connect(c.url)
        players = list(await asyncio.gather(ann, ben))
        await players[0].send(CreateRoom(name="Ann", deal=DEAL, password=_password()))
        created = await players[0].expect(Welcome)
        await players[1].send(JoinRoom(code=created.player_code or "", name="Ben"))
        joined = await players[1].expect(Welcome)
        step = 0
        for _ in range(3):
            step = await _turn(players, step)

        before = await c.state()
        os.kill(before["Pid"], signal.SIGKILL)  # as root; the engine's processes are ours
        closes = await asyncio.gather(*(p.expect_close() for p in players))
        assert [code for code, _ in closes] == [None, None]  # dropped, no close frame
        await c.wait_healthz()
        after = await c.state()
        assert after["Pid"] != before["Pid"] and after["Running"]
        restarts = await docker.inspect(c.name, "{{json .RestartCount}}")
        assert restarts == 1

        back = list(await asyncio.gather(Client.connect(c.url), Client.connect(c.url)))
        for player, welcome in zip(back, (created, joined), strict=True):
            await player.send(ResumeSeat(room=welcome.state.room, token=welcome.token or ""))
        resumed = await asyncio.gather(*(p.expect(Welcome) for p in back))
        assert [w.seat for w in resumed] == [0, 1]
        assert [w.state.step for w in resumed] == [step, step]  # nothing lost
        assert await _turn(back, step) == step + 1  # and the game goes on
        for player in back:
            await player.close()


async def test_docker_stop_closes_clients_with_1012_and_exits_0(
    image: tuple[Docker, str], volume: str
) -> None:
    docker, tag = image
    options = _options(volume)
    async with running(docker, tag, options, port=free_port(), volume=volume, role="stop") as c:
        ann = await Client.connect(c.url)
        await ann.send(CreateRoom(name="Ann", password=_password()))
        created = await ann.expect(Welcome)
        watcher = await Client.connect(c.url)
        await watcher.send(WatchRoom(code=created.watch_code or ""))
        await watcher.expect(Welcome)

        stopping = asyncio.create_task(docker.run("stop", c.name))
        closes = await asyncio.gather(ann.expect_close(), watcher.expect_close())
        await stopping
        assert [code for code, _ in closes] == [SERVICE_RESTART] * 2
        state = await c.state()
        assert (state["Running"], state["ExitCode"], state["OOMKilled"]) == (False, 0, False)
        assert "server_stopped" in await c.logs()


async def test_image_size_is_reported(
    image: tuple[Docker, str], prepared: Prepared, request: pytest.FixtureRequest
) -> None:
    docker, image_id = image
    tag = prepared.tag
    size = await docker.inspect(image_id, "{{json .Size}}")
    labels = await docker.inspect(image_id, "{{json .Config.Labels}}")
    base = labels.get("org.family-war.base") or final_stage().image
    base_size = await docker.inspect(base, "{{json .Size}}")
    added = (size - base_size) / 1e6
    line = (
        f"image {tag}: {size / 1e6:.1f} MB = base {base} {base_size / 1e6:.1f} MB"
        f" + {added:.1f} MB of the project (its virtualenv, user, health check)"
    )
    request.node.user_properties.append((IMAGE_REPORT, line))
    print(line)
    assert 0 < added < PROJECT_LAYERS_BUDGET_MB, line


async def test_docker_reports_the_container_healthy(server: Container) -> None:
    """The image's HEALTHCHECK as Docker runs it: first after its interval (30 s)."""
    status = await server.wait_health_status("healthy", within=HEALTHY_TIMEOUT)
    assert status == "healthy"
    health = (await server.state())["Health"]
    assert health["Status"] == "healthy"
    assert health["Log"][-1]["ExitCode"] == 0


async def test_the_engine_does_not_hold_the_scripts_run_lock(
    image: tuple[Docker, str], prepared: Prepared
) -> None:
    """A daemon the script started must not inherit its lock: the next run would wait."""
    flock = shutil.which("flock")
    assert flock is not None and prepared.run_lock
    free = await asyncio.create_subprocess_exec(
        flock, "--nonblock", "--conflict-exit-code", "99", prepared.run_lock, "true"
    )
    assert await asyncio.wait_for(free.wait(), 30) == 0
