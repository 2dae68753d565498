"""Run the image's own command on this machine, and talk HTTP to it over loopback.

``image_command`` reads the Dockerfile's final stage (ENV, VOLUME, WORKDIR, COPY,
ENTRYPOINT, CMD, HEALTHCHECK) and docker-compose.yml's environment for the war service
(interpolated with .env.example), then translates the image's paths to this machine:
/opt/venv -> the running virtualenv, the volume -> a temporary folder, a copied file ->
its source in the repository. Only the listening address and port differ from the
container: 127.0.0.1 and a free port, since tests talk to loopback only.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bench._server import free_port
from tests._kit.net import HttpAnswer, http_get
from tests.deploy._dockerfile import copy_sources, env_pairs, exec_form, healthcheck
from tests.deploy._interpolate import interpolate
from tests.deploy._repo import REPO, compose, env_example, final_stage, service_environment

__all__ = [
    "HttpAnswer",
    "ImageCommand",
    "ServerExitedError",
    "free_port",
    "http_get",
    "image_command",
    "running",
    "wait_healthy",
]

IMAGE_VENV = "/opt/venv"
START_TIMEOUT = 30.0  # from process start to the first healthy answer
# Host variables a process needs to run at all; everything else comes from the image.
_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")


class ServerExitedError(RuntimeError):
    """The server process ended while a test waited for it to answer."""


@dataclass(frozen=True, slots=True)
class ImageCommand:
    """The image's command and environment, translated to run on this machine."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    data_dir: Path
    port: int
    healthcheck: list[str]


def _translate_path(path: str, paths: dict[str, str]) -> str:
    for image_path, local in sorted(paths.items(), key=lambda kv: -len(kv[0])):
        if path == image_path or path.startswith(image_path + "/"):
            return local + path[len(image_path) :]
    return path


def _translate(value: str, paths: dict[str, str]) -> str:
    """Replace image paths (also inside ':'-separated lists such as PATH) by local ones."""
    return ":".join(_translate_path(part, paths) for part in value.split(":"))


def image_command(tmp_path: Path, *, port: int) -> ImageCommand:
    """The command the image runs, with its environment, ready to start on loopback.

    The volume becomes ``tmp_path/data`` (created); HOME is the volume too, as for the
    image's user. Raises DockerfileError if the Dockerfile uses a form the reader refuses.
    """
    stage = final_stage()
    data_dir = tmp_path / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    volumes = [v for i in stage.all("VOLUME") for v in json.loads(i.value)]
    paths = {IMAGE_VENV: sys.prefix, **{v: str(data_dir) for v in volumes}}
    for copy in stage.all("COPY"):
        flags, sources, dest = copy_sources(copy)
        if "from" not in flags and len(sources) == 1:
            paths[dest.rstrip("/")] = str(REPO / sources[0])

    host_env = {k: os.environ[k] for k in _PASSTHROUGH if k in os.environ}
    env = dict(host_env)
    for instruction in stage.all("ENV"):
        for key, value in env_pairs(instruction).items():
            expanded = interpolate(value, env)
            env[key] = _translate(expanded, paths)
    war = compose()["services"]["war"]
    example = env_example()
    for key, value in service_environment(war).items():
        env[key] = interpolate(value, example)
    env["HOME"] = str(data_dir)
    env["WAR_HOST"] = "127.0.0.1"
    env["WAR_PORT"] = str(port)

    workdir = stage.last("WORKDIR")
    cwd = Path(_translate(workdir.value, paths)) if workdir else tmp_path
    entrypoint = stage.last("ENTRYPOINT")
    cmd = stage.last("CMD")
    argv = (exec_form(entrypoint) if entrypoint else []) + (exec_form(cmd) if cmd else [])
    check = stage.last("HEALTHCHECK")
    check_argv = healthcheck(check).command if check else []
    return ImageCommand(
        argv=[_resolve(argv[0], env), *(_translate(a, paths) for a in argv[1:])],
        env=env,
        cwd=cwd,
        data_dir=data_dir,
        port=port,
        healthcheck=[_resolve(check_argv[0], env), *(_translate(a, paths) for a in check_argv[1:])]
        if check_argv
        else [],
    )


def _resolve(program: str, env: dict[str, str]) -> str:
    found = shutil.which(program, path=env.get("PATH"))
    if found is None:
        raise FileNotFoundError(f"{program!r} not found on the image's PATH {env.get('PATH')!r}")
    return found


async def wait_healthy(
    process: asyncio.subprocess.Process, port: int, *, tls: bool = False
) -> HttpAnswer:
    """Wait until /healthz on 127.0.0.1:port answers 200; return that answer.

    Raises ServerExitedError if the process ends first, TimeoutError after START_TIMEOUT.
    """

    async def probe() -> HttpAnswer:
        while True:
            if process.returncode is not None:
                raise ServerExitedError(f"server exited with status {process.returncode}")
            try:
                answer = await http_get("127.0.0.1", port, "/healthz", tls=tls)
            except (OSError, ValueError):
                # Not accepting yet: ask again, as Docker's own health check would.
                await asyncio.sleep(0.05)
                continue
            if answer.status == 200:
                return answer

    return await asyncio.wait_for(probe(), START_TIMEOUT)


def _open_log(path: Path) -> IO[bytes]:
    return path.open("wb")


def _log_tail(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")[-3000:]


@asynccontextmanager
async def running(
    command: ImageCommand, *, prefix: tuple[str, ...] = (), log_name: str = "server.log"
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Start the command (after ``prefix``, e.g. an ``unshare``), wait until healthy.

    Output goes to ``<data_dir>/../<log_name>``; on a failed start its tail is in the
    exception. The process is killed on exit if it is still running.
    """
    log_path = command.data_dir.parent / log_name
    with _open_log(log_path) as log:
        process = await asyncio.create_subprocess_exec(
            *prefix,
            *command.argv,
            env=command.env,
            cwd=command.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            try:
                await wait_healthy(process, command.port, tls=bool(command.env.get("WAR_CERTFILE")))
            except (ServerExitedError, TimeoutError) as exc:
                output = _log_tail(log_path)
                raise ServerExitedError(f"{exc}; server output:\n{output}") from exc
            yield process
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
