"""The deployment files of this repository, read and parsed once for the tests."""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ruamel.yaml import YAML

from tests.deploy._dockerfile import Stage, parse_dockerfile
from tests.deploy._interpolate import parse_env_file

__all__ = [
    "CADDYFILE",
    "COMPOSE",
    "DOCKERFILE",
    "DOCKERIGNORE",
    "ENV_EXAMPLE",
    "HEALTHCHECK_SCRIPT",
    "HOSTING_DOC",
    "REPO",
    "SYSTEMD_UNIT",
    "compose",
    "documented_settings",
    "env_example",
    "final_stage",
    "service_environment",
    "stages",
    "venv_script",
    "war_vars",
]

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
COMPOSE = REPO / "docker-compose.yml"
ENV_EXAMPLE = REPO / ".env.example"
CADDYFILE = REPO / "deploy" / "Caddyfile"
SYSTEMD_UNIT = REPO / "deploy" / "war-server.service"
HEALTHCHECK_SCRIPT = REPO / "deploy" / "healthcheck.py"
HOSTING_DOC = REPO / "docs" / "hosting.md"

_WAR_VAR = re.compile(r"\bWAR_[A-Z0-9_]+\b")


def war_vars(text: str) -> set[str]:
    """Every ``WAR_*`` name mentioned anywhere in ``text``."""
    return set(_WAR_VAR.findall(text))


@functools.cache
def stages() -> tuple[Stage, ...]:
    """The Dockerfile's build stages, in order."""
    return tuple(parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8")))


def final_stage() -> Stage:
    """The stage that becomes the image."""
    return stages()[-1]


def compose() -> dict[str, Any]:
    """docker-compose.yml as loaded by a YAML 1.2 safe loader (a fresh copy each call)."""
    loaded = YAML(typ="safe").load(COMPOSE.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise TypeError(f"docker-compose.yml is not a mapping: {type(loaded).__name__}")
    return cast("dict[str, Any]", loaded)


def env_example() -> dict[str, str]:
    """.env.example's settings."""
    return parse_env_file(ENV_EXAMPLE.read_text(encoding="utf-8"))


def documented_settings() -> dict[str, str]:
    """The settings table of docs/hosting.md: WAR_* variable -> its documented default.

    Rows look like ``| `WAR_X` | `--x` | default | meaning |``; the default cell is
    returned with backticks removed.
    """
    table: dict[str, str] = {}
    for line in HOSTING_DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"`WAR_[A-Z0-9_]+`", cells[0]):
            table[cells[0].strip("`")] = cells[2].replace("`", "")
    return table


def venv_script(name: str) -> Path | None:
    """The console script ``name`` of the running interpreter's environment, or on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return beside
    found = shutil.which(name)
    return Path(found) if found else None


def service_environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A compose service's ``environment`` as a dict (mapping or list form)."""
    raw = service.get("environment", {})
    if isinstance(raw, Mapping):
        return {str(k): "" if v is None else str(v) for k, v in raw.items()}
    pairs = (str(item).partition("=") for item in raw)
    return {k: v for k, _, v in pairs}
