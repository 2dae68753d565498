"""The deployment files of this repository, read and parsed once for the tests."""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ruamel.yaml import YAML

from tests.deploy._dockerfile import Stage, env_pairs, parse_dockerfile
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
    "SettingRow",
    "compose",
    "documented_compose_settings",
    "documented_settings",
    "env_example",
    "final_stage",
    "image_env",
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


def image_env() -> dict[str, str]:
    """The variables the image's final stage sets with ENV (values as written)."""
    env: dict[str, str] = {}
    for instruction in final_stage().all("ENV"):
        env.update(env_pairs(instruction))
    return env


def compose() -> dict[str, Any]:
    """docker-compose.yml as loaded by a YAML 1.2 safe loader (a fresh copy each call)."""
    loaded = YAML(typ="safe").load(COMPOSE.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise TypeError(f"docker-compose.yml is not a mapping: {type(loaded).__name__}")
    return cast("dict[str, Any]", loaded)


def env_example() -> dict[str, str]:
    """.env.example's settings."""
    return parse_env_file(ENV_EXAMPLE.read_text(encoding="utf-8"))


@dataclass(frozen=True, slots=True)
class SettingRow:
    """One row of the server settings table in docs/hosting.md (backticks removed)."""

    flag: str
    default: str
    docker: str


def _doc_rows() -> list[list[str]]:
    rows: list[list[str]] = []
    for line in HOSTING_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            rows.append([c.strip().replace("`", "") for c in line.strip().strip("|").split("|")])
    return rows


def documented_settings() -> dict[str, SettingRow]:
    """The server settings table of docs/hosting.md: WAR_* variable -> its row.

    Rows look like ``| `WAR_X` | `--x` | default | Docker value | meaning |``.
    """
    return {
        row[0]: SettingRow(row[1], row[2], row[3])
        for row in _doc_rows()
        if len(row) == 5 and re.fullmatch(r"WAR_[A-Z0-9_]+", row[0])
    }


def documented_compose_settings() -> dict[str, str]:
    """The compose-only settings table of docs/hosting.md: variable -> default."""
    return {
        row[0]: row[1]
        for row in _doc_rows()
        if len(row) == 3 and re.fullmatch(r"[A-Z][A-Z0-9_]+", row[0])
    }


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
