"""The home-server image on this machine's Docker engine, for tests/deploy/test_image.py.

``prepare`` runs ``deploy/image.sh build`` (engine, stand-in base, build: idempotent) and
``availability`` decides, from its exit status, whether the image tests run, skip or fail
(see ``Availability``). ``compose_run_options`` turns docker-compose.yml's ``war`` service
into ``docker run`` options, so a container here gets the settings a home server gets;
``running`` starts one and waits until ``/healthz`` answers.

Containers use the host's network (the engine has no bridge) and listen on 127.0.0.1 and
a free port: the only settings that differ from docker-compose.yml, as in _server.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from tests.deploy._interpolate import interpolate
from tests.deploy._repo import REPO, service_environment
from tests.deploy._server import http_get

__all__ = [
    "CONTAINER_DATA",
    "EXIT_ENGINE_FAILED",
    "EXIT_FORBIDDEN",
    "EXIT_NOT_INSTALLED",
    "IMAGE_REPORT",
    "IMAGE_SCRIPT",
    "NOT_APPLIED",
    "TEST_LABEL",
    "Availability",
    "Container",
    "ContainerExitedError",
    "Docker",
    "Prepared",
    "availability",
    "compose_run_options",
    "new_volume",
    "parse_assignments",
    "prepare",
    "running",
    "seconds",
]

IMAGE_SCRIPT = REPO / "deploy" / "image.sh"
CONTAINER_DATA = "/data"
TEST_LABEL = "org.family-war.test"
# The user property of a test's line for the end of the pytest run (tests/deploy/conftest.py
# prints them): the image's size. A property travels with the test's report from an xdist
# worker to the controller, which prints the summary.
IMAGE_REPORT = "image_report"
# deploy/image.sh's exit statuses (its header explains them).
EXIT_FORBIDDEN = 3
EXIT_NOT_INSTALLED = 4
EXIT_ENGINE_FAILED = 5
PREPARE_TIMEOUT = 840.0  # a cold machine: dockerd, debootstrap and a build on vfs
DOCKER_TIMEOUT = 120.0  # one docker command (`docker run` copies the image on vfs)
START_TIMEOUT = 60.0  # from `docker run` to the first healthy /healthz answer

# docker-compose.yml keys of the war service that the test container does not take, and why.
NOT_APPLIED = {
    "build": "the test builds the image with deploy/image.sh",
    "image": "the test runs the image it built",
    "ports": "the engine has no bridge: host network, 127.0.0.1 and a free port",
    "healthcheck": "the image's own HEALTHCHECK, equal to compose's (test_compose.py)",
}


class ContainerExitedError(RuntimeError):
    """The container stopped while a test waited for it to answer."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """What ``deploy/image.sh build`` said: exit status, engine, tag, and its stderr.

    Containers run ``image_id``: another checkout may build the same tag meanwhile.
    """

    status: int
    docker_host: str
    tag: str
    started_engine: bool
    output: str
    run_lock: str = ""
    image_id: str = ""


class Availability(Enum):
    """What the image tests do: run, skip (with the reason) or fail."""

    RUN = "run"
    SKIP = "skip"
    FAIL = "fail"


def parse_assignments(text: str) -> dict[str, str]:
    """The ``NAME=value`` lines of the script's standard output."""
    pairs = (line.partition("=") for line in text.splitlines())
    return {name: value for name, sep, value in pairs if sep and name.isidentifier()}


def prepare(*, install: bool = False, timeout: float = PREPARE_TIMEOUT) -> Prepared:
    """Run ``deploy/image.sh build``; never raises for a failed step (see ``status``)."""
    argv = [str(IMAGE_SCRIPT), "build", *(["--install"] if install else [])]
    try:
        result = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, check=False, cwd=REPO
        )
    except subprocess.TimeoutExpired as expired:
        err = expired.stderr or b""
        tail = err.decode() if isinstance(err, bytes) else err
        return Prepared(1, "", "", False, f"deploy/image.sh build took over {timeout} s\n{tail}")
    values = parse_assignments(result.stdout)
    return Prepared(
        result.returncode,
        values.get("DOCKER_HOST", ""),
        values.get("WAR_IMAGE_TAG", ""),
        values.get("STARTED") == "1",
        result.stderr,
        values.get("RUN_LOCK", ""),
        values.get("WAR_IMAGE_ID", ""),
    )


def availability(status: int, *, ci: bool) -> Availability:
    """Whether the image tests run, skip or fail after the script's exit ``status``.

    Skipped everywhere only where the platform forbids an engine (not root with none
    running, no namespaces). A missing Docker or an engine that would not start skips on
    a developer's machine but fails in CI (``CI`` set), whose .ci/run installs and starts
    one. A failed build fails everywhere: the Dockerfile is broken.
    """
    if status == 0:
        return Availability.RUN
    if status == EXIT_FORBIDDEN:
        return Availability.SKIP
    if status in (EXIT_NOT_INSTALLED, EXIT_ENGINE_FAILED) and not ci:
        return Availability.SKIP
    return Availability.FAIL


def compose_run_options(
    service: Mapping[str, Any], env: Mapping[str, str], *, volume: str
) -> list[str]:
    """``docker run`` options for docker-compose.yml's ``service``, values from ``env``.

    The named volume mounted at /data becomes ``volume``. Raises ValueError for a key
    this translation does not know (a new compose setting must be handled here or be
    listed in NOT_APPLIED with the reason), or a form it does not read.
    """
    options: list[str] = []
    for key, value in service.items():
        if key in NOT_APPLIED:
            continue
        if key == "environment":
            for name, text in service_environment(service).items():
                options += ["--env", f"{name}={interpolate(text, env)}"]
        elif key == "restart":
            options += ["--restart", str(value)]
        elif key == "read_only":
            options += ["--read-only"] if value is True else []
        elif key == "tmpfs":
            options += [f"--tmpfs={path}" for path in value]
        elif key == "cap_drop":
            options += [f"--cap-drop={cap}" for cap in value]
        elif key == "security_opt":
            options += [f"--security-opt={opt}" for opt in value]
        elif key == "stop_signal":
            options += ["--stop-signal", str(value)]
        elif key == "stop_grace_period":
            options += ["--stop-timeout", str(seconds(str(value)))]
        elif key == "logging":
            options += ["--log-driver", value["driver"]]
            options += [f"--log-opt={k}={v}" for k, v in value.get("options", {}).items()]
        elif key == "ulimits":
            for name, limit in value.items():
                both = f"{limit['soft']}:{limit['hard']}" if isinstance(limit, Mapping) else limit
                options += [f"--ulimit={name}={both}"]
        elif key == "volumes":
            for mount in value:
                _, target = str(mount).split(":")
                if target != CONTAINER_DATA:
                    raise ValueError(f"unexpected volume for the war service: {mount!r}")
                options += ["--volume", f"{volume}:{target}"]
        else:
            raise ValueError(f"docker-compose.yml war service key not handled: {key!r}")
    return options


def seconds(duration: str) -> int:
    """A compose duration in whole seconds: ``30s``, ``2m``, ``1m30s``.

    Raises ValueError for anything else.
    """
    total, number = 0, ""
    units = {"h": 3600, "m": 60, "s": 1}
    for char in duration:
        if char.isdigit():
            number += char
        elif char in units and number:
            total, number = total + int(number) * units[char], ""
        else:
            raise ValueError(f"cannot read the duration {duration!r}")
    if number:
        raise ValueError(f"duration without a unit: {duration!r}")
    return total


@dataclass(frozen=True, slots=True)
class Docker:
    """The docker command line, pointed at the engine ``deploy/image.sh`` found."""

    docker_host: str

    def environ(self) -> dict[str, str]:
        """The environment for the docker CLI."""
        env = {k: v for k, v in os.environ.items() if k != "DOCKER_HOST"}
        if self.docker_host:
            env["DOCKER_HOST"] = self.docker_host
        return env

    async def run(
        self, *args: str, within: float = DOCKER_TIMEOUT, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``docker ARGS``; raise AssertionError (with its stderr) if it fails and
        ``check``, TimeoutError after ``within`` seconds."""
        process = await asyncio.create_subprocess_exec(
            "docker",
            *args,
            env=self.environ(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), within)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise
        assert process.returncode is not None
        result = subprocess.CompletedProcess(
            ["docker", *args], process.returncode, out.decode(), err.decode()
        )
        if check and result.returncode != 0:
            raise AssertionError(f"docker {' '.join(args)}: {result.stderr.strip()}")
        return result

    async def inspect(self, name: str, template: str = "{{json .}}") -> Any:
        """``docker inspect`` of a container or image, its ``template`` decoded as JSON."""
        out = (await self.run("inspect", "--format", template, name)).stdout
        return json.loads(out)

    async def remove_leftovers(self) -> None:
        """Remove containers and volumes an interrupted test run left (by their label)."""
        for kind in ("container", "volume"):
            listed = await self.run(kind, "ls", "-aq" if kind == "container" else "-q",
                                    "--filter", f"label={TEST_LABEL}")  # fmt: skip
            names = listed.stdout.split()
            if names:
                flags = ["--force", "--volumes"] if kind == "container" else ["--force"]
                await self.run(kind, "rm", *flags, *names, check=False)


@dataclass(slots=True)
class Container:
    """A running test container: its name, the port it listens on, its volume."""

    docker: Docker
    name: str
    port: int
    volume: str
    options: list[str] = field(default_factory=list)
    created: float = 0.0  # the event loop's clock when `docker run` returned

    @property
    def url(self) -> str:
        """The WebSocket URL of its war-server."""
        return f"ws://127.0.0.1:{self.port}/"

    async def state(self) -> dict[str, Any]:
        """``docker inspect``'s State object."""
        state: dict[str, Any] = await self.docker.inspect(self.name, "{{json .State}}")
        return state

    async def logs(self) -> str:
        """The container's output so far (stdout and stderr)."""
        result = await self.docker.run("logs", self.name, check=False)
        return result.stdout + result.stderr

    async def exec(
        self, *argv: str, tty: bool = False, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside the container as its user (never checked)."""
        flags = ["--tty"] if tty else []
        for name, value in (env or {}).items():
            flags += ["--env", f"{name}={value}"]
        return await self.docker.run("exec", *flags, self.name, *argv, check=False)

    async def wait_healthz(self, *, within: float = START_TIMEOUT) -> object:
        """Wait until GET /healthz answers 200; return its JSON.

        Raises ContainerExitedError (with the logs) if the container stops first,
        TimeoutError after ``within`` seconds.
        """

        async def probe() -> object:
            while True:
                try:
                    answer = await http_get("127.0.0.1", self.port, "/healthz")
                except (OSError, ValueError):
                    state = await self.state()
                    if not state["Running"] and not state["Restarting"]:
                        logs = await self.logs()
                        raise ContainerExitedError(
                            f"{self.name} exited with {state['ExitCode']}:\n{logs[-3000:]}"
                        ) from None
                    await asyncio.sleep(0.05)  # not listening yet: ask again
                    continue
                if answer.status == 200:
                    return answer.json()

        return await asyncio.wait_for(probe(), within)

    async def wait_health_status(self, wanted: str, *, within: float) -> str:
        """Wait for Docker's own health status ``wanted`` (an event of the engine).

        Returns the status reached; an ``unhealthy`` before ``wanted`` is returned too.
        Raises TimeoutError after ``within`` seconds.
        """
        created = await self.docker.inspect(self.name, "{{json .Created}}")
        process = await asyncio.create_subprocess_exec(
            "docker", "events", "--since", created,
            "--filter", f"container={self.name}", "--filter", "event=health_status",
            "--format", "{{.Action}}",
            env=self.docker.environ(), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        assert process.stdout is not None
        try:
            async with asyncio.timeout(within):
                while line := (await process.stdout.readline()).decode():
                    status = line.strip().removeprefix("health_status:").strip()
                    if status in (wanted, "unhealthy"):
                        return status
                raise AssertionError("docker events ended")
        finally:
            process.kill()
            await process.wait()


@asynccontextmanager
async def running(
    docker: Docker,
    tag: str,
    options: list[str],
    *,
    port: int,
    volume: str,
    role: str,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[Container]:
    """Run ``tag`` with ``options`` on the host network, listening on 127.0.0.1:``port``.

    Waits until /healthz answers; on the way out the container is removed (the volume is
    the caller's). The container carries TEST_LABEL so an interrupted run's is found.
    """
    name = f"family-war-test-{role}-{secrets.token_hex(3)}"
    overrides = {"WAR_HOST": "127.0.0.1", "WAR_PORT": str(port), **(env or {})}
    argv = ["run", "--detach", "--name", name, "--label", TEST_LABEL, "--network", "host"]
    argv += options
    for key, value in overrides.items():
        argv += ["--env", f"{key}={value}"]
    await docker.run(*argv, tag)
    container = Container(docker, name, port, volume, options, asyncio.get_running_loop().time())
    try:
        await container.wait_healthz()
        yield container
    finally:
        await docker.run("rm", "--force", name, check=False)


async def new_volume(docker: Docker) -> str:
    """A fresh named volume carrying TEST_LABEL."""
    name = f"family-war-test-{secrets.token_hex(4)}"
    await docker.run("volume", "create", "--label", TEST_LABEL, name)
    return name
