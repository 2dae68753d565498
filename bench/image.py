"""The home-server image: build time, size, cold start to healthy, idle memory, stop time.

Run from the repository root, as root (deploy/image.sh starts its own Docker engine
if none answers)::

    .venv/bin/python -m bench.image                # 3 cold starts
    .venv/bin/python -m bench.image --runs 5 --json

What is measured:

- build: ``deploy/image.sh build`` once as is (seconds when cached), then a full
  ``docker build --no-cache`` of the Dockerfile on the same base (every step, pip
  downloads included; the stand-in base itself is not rebuilt);
- size: the image, its base, and what the project adds on top;
- per run, a fresh container with docker-compose.yml's settings on a fresh volume:
  ``docker run`` returning (the engine copies the image for the container: slow with
  the vfs storage driver), ``/healthz`` first answering 200, Docker first reporting
  ``healthy`` (the image's HEALTHCHECK runs first after its 30 s interval), the
  war-server process's RSS once healthy and idle, and ``docker stop`` (SIGTERM to exit).

Containers use the host network and listen on 127.0.0.1 (as in tests/deploy/test_image.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tests.deploy._image import Docker, compose_run_options, new_volume, prepare, running
from tests.deploy._repo import REPO, compose, env_example
from tests.deploy._server import free_port

__all__ = ["main", "measure"]

HEALTHY_WITHIN = 120.0


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise ValueError(f"no VmRSS for pid {pid}")


async def _no_cache_build(docker: Docker, base: str) -> float:
    start = time.perf_counter()
    await docker.run(
        "build", "--no-cache", "--network", "host", "--tag", "family-war:bench-no-cache",
        "--build-arg", f"PYTHON_IMAGE={base}", str(REPO), within=1800,
    )  # fmt: skip
    took = time.perf_counter() - start
    await docker.run("image", "rm", "family-war:bench-no-cache", check=False)
    return took


async def _cold_start(docker: Docker, tag: str) -> dict[str, float]:
    volume = await new_volume(docker)
    options = compose_run_options(compose()["services"]["war"], env_example(), volume=volume)
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        async with running(docker, tag, options, port=free_port(), volume=volume,
                           role="bench") as container:  # fmt: skip
            healthz = loop.time() - start
            await container.wait_health_status("healthy", within=HEALTHY_WITHIN)
            healthy = loop.time() - start
            state = await container.state()
            rss = _rss_kib(int(state["Pid"]))
            stop_start = time.perf_counter()
            await docker.run("stop", container.name)
            stopped = time.perf_counter() - stop_start
            exit_code = (await container.state())["ExitCode"]
    finally:
        await docker.run("volume", "rm", "--force", volume, check=False)
    return {
        "docker_run_s": container.created - start,
        "healthz_s": healthz,
        "healthy_s": healthy,
        "idle_rss_mib": rss / 1024,
        "stop_s": stopped,
        "exit_code": float(exit_code),
    }


async def measure(runs: int, *, no_cache: bool) -> dict[str, Any]:
    """Build (as cached, then without cache), then ``runs`` cold starts; the figures."""
    start = time.perf_counter()
    prepared = prepare()
    if prepared.status != 0:
        raise SystemExit(f"deploy/image.sh build exited {prepared.status}:\n{prepared.output}")
    cached_build = time.perf_counter() - start
    docker = Docker(prepared.docker_host)
    tag = prepared.image_id
    labels = await docker.inspect(tag, "{{json .Config.Labels}}")
    base = labels.get("org.family-war.base", "")
    size = await docker.inspect(tag, "{{json .Size}}")
    base_size = await docker.inspect(base, "{{json .Size}}") if base else 0
    report: dict[str, Any] = {
        "image": f"{prepared.tag} ({tag[:19]})",
        "base": base,
        "image_mb": size / 1e6,
        "base_mb": base_size / 1e6,
        "project_mb": (size - base_size) / 1e6,
        "build_cached_s": cached_build,
    }
    if no_cache and base:
        report["build_no_cache_s"] = await _no_cache_build(docker, base)
    await docker.run("run", "--rm", "--network", "host", "--entrypoint", "true", tag)  # warm
    starts = [await _cold_start(docker, tag) for _ in range(runs)]
    for key in starts[0]:
        values = [s[key] for s in starts]
        report[key] = {"median": statistics.median(values), "min": min(values),
                       "max": max(values)}  # fmt: skip
    report["runs"] = runs
    return report


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures (``--json`` for one JSON object)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.image",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=3, help="cold starts (default 3)")
    parser.add_argument("--no-build", action="store_true", help="skip the --no-cache build")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    report = asyncio.run(measure(args.runs, no_cache=not args.no_build))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for key, value in report.items():
        if isinstance(value, dict):
            print(f"{key:18} median {value['median']:7.2f}  "
                  f"(min {value['min']:.2f}, max {value['max']:.2f})")  # fmt: skip
        elif isinstance(value, float):
            print(f"{key:18} {value:7.2f}")
        else:
            print(f"{key:18} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
