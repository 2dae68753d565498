"""The image with ``--outside``, run by Docker in the network lab (tests/lab/README.md).

docker-compose.outside.yml puts the war service on the host's own network: the router is
found only from there. Here the host's network is a machine of the lab's house: a holder
container with no network of its own is started first, its namespace is plugged into the
lab's LAN as ``box`` (192.168.77.40, `Lab.attach`), and the war container joins that
namespace (``--network container:HOLDER``), which is to it what ``network_mode: host`` is
on a real host. Everything else is compose's: docker-compose.yml's settings for the war
service (read-only root, no capabilities, the named volume at /data, the stop signal)
with the override's environment, and the lab's test CA in place of Let's Encrypt.

What it shows, on the real image under the real engine: the container prints
``outside url=https://203.0.113.2/``; the router forwards public port 443 to the box; a
relative on the internet side, trusting only pebble's root, gets the page over that link;
``docker stop`` (SIGTERM) ends the server cleanly and the forwarding is gone; the
certificate's files are in the volume, readable by the server's user only.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from ruamel.yaml import YAML

from tests.deploy._image import TEST_LABEL, Docker, new_volume
from tests.deploy._interpolate import interpolate
from tests.deploy._repo import REPO, env_example
from tests.deploy.test_image import _options
from tests.lab.conftest import require_platform
from tests.lab.lab import BOX_IP, WAN_IP, Lab

pytestmark = [
    pytest.mark.image,
    pytest.mark.slow,
    pytest.mark.xdist_group("image"),  # with the other image tests: one engine, one worker
    pytest.mark.timeout(900),
    pytest.mark.asyncio(loop_scope="module"),
]

OUTSIDE_URL = f"https://{WAN_IP}/"
STARTED_WITHIN = 90.0  # the minute, and the container's own start
CA_IN_CONTAINER = "/run/lab/pebble-minica.pem"


def _override_environment() -> dict[str, str]:
    """docker-compose.outside.yml's environment for the war service, interpolated."""
    loaded: Any = YAML(typ="rt").load((REPO / "docker-compose.outside.yml").read_text())
    environment = loaded["services"]["war"]["environment"]
    return {key: interpolate(str(value), env_example()) for key, value in environment.items()}


async def _logs(docker: Docker, name: str) -> list[dict[str, Any]]:
    result = await docker.run("logs", name, check=False)
    lines = []
    for raw in (result.stdout + result.stderr).splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict):
            lines.append(line)
    return lines


async def _wait_for_outside(docker: Docker, name: str) -> dict[str, Any]:
    """The container's ``outside`` line (``url=`` or ``failed=``); raises with its logs if
    the container stops first."""

    async def poll() -> dict[str, Any]:
        while True:
            for line in await _logs(docker, name):
                if line.get("event") == "outside" and ("url" in line or "failed" in line):
                    return line
            state = await docker.inspect(name, "{{json .State}}")
            if not state["Running"]:
                raise AssertionError(f"{name} stopped: {await docker.run('logs', name)}")
            await asyncio.sleep(0.5)  # the engine's logs have no event to wait on

    try:
        return await asyncio.wait_for(poll(), STARTED_WITHIN)
    except TimeoutError:
        logs = await docker.run("logs", name, check=False)
        raise AssertionError(
            f"no outside line within {STARTED_WITHIN} s:\n{(logs.stdout + logs.stderr)[-3000:]}"
        ) from None


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    tmp_path.chmod(0o755)  # the engine mounts the CA file from here
    yield tmp_path


@pytest_asyncio.fixture(loop_scope="module")
async def box(image: tuple[Docker, str]) -> AsyncIterator[tuple[Lab, str]]:
    """The lab with pebble, and a holder container whose namespace is the house's ``box``."""
    docker, tag = image
    require_platform()
    lab = Lab("public", pebble=True).up()
    holder = f"family-war-test-holder-{secrets.token_hex(3)}"
    await docker.run(
        "run", "--detach", "--name", holder, "--label", TEST_LABEL, "--network", "none",
        "--entrypoint", "python", tag, "-c", "import signal; signal.pause()",
    )  # fmt: skip
    try:
        pid = await docker.inspect(holder, "{{json .State.Pid}}")
        lab.attach(int(pid))
        yield lab, holder
    finally:
        lab.down()
        await docker.run("rm", "--force", holder, check=False)


async def test_the_image_opens_the_outside_under_docker(
    image: tuple[Docker, str],
    box: tuple[Lab, str],
    folder: Path,
) -> None:
    docker, tag = image
    lab, holder = box
    ca = folder / "pebble-minica.pem"
    ca.write_bytes(lab.acme_ca_file.read_bytes())
    ca.chmod(0o644)
    volume = await new_volume(docker)
    name = f"family-war-test-outside-{secrets.token_hex(3)}"
    environment = {
        **_override_environment(),
        "WAR_HOST": "0.0.0.0",
        "WAR_ACME_DIRECTORY": lab.acme_directory,
        "WAR_ACME_CA_FILE": CA_IN_CONTAINER,
        "WAR_LOG_FORMAT": "json",
    }
    argv = ["run", "--detach", "--name", name, "--label", TEST_LABEL]
    argv += ["--network", f"container:{holder}", *_options(volume)]
    argv += ["--volume", f"{ca}:{CA_IN_CONTAINER}:ro"]
    for key, value in environment.items():
        argv += ["--env", f"{key}={value}"]
    try:
        await docker.run(*argv, tag)
        printed = await _wait_for_outside(docker, name)
        assert printed.get("url") == OUTSIDE_URL, printed
        forwards = lab.forwards()
        assert [(f.protocol, f.public_port, f.address) for f in forwards] == [
            ("tcp", 443, BOX_IP)
        ], forwards
        root = folder / "pebble-root.pem"
        root.write_bytes(lab.pebble_root())
        page = await asyncio.to_thread(
            lab.run, "net", "curl", "-sS", "--fail", "--cacert", str(root), OUTSIDE_URL
        )
        assert "<html" in page.lower()
        await docker.run("stop", name, within=60)
        state = await docker.inspect(name, "{{json .State}}")
        assert state["ExitCode"] == 0, await docker.run("logs", name)
        assert lab.forwards() == []
        listing = await docker.run(
            "run", "--rm", "--volume", f"{volume}:/data", "--entrypoint", "stat", tag,
            "-c", "%n %a %u", "/data/outside-account.pem", "/data/outside-cert.pem",
            "/data/outside-key.pem",
        )  # fmt: skip
        for row in listing.stdout.splitlines():
            _, mode, owner = row.split()
            assert (mode, owner) == ("600", "10001"), row
    finally:
        await docker.run("rm", "--force", name, check=False)
        await docker.run("volume", "rm", "--force", volume, check=False)
