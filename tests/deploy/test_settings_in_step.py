"""Every setting the deployment passes is one war-server reads, and the docs say so.

The settings table in docs/hosting.md is the list people read; these tests hold the
deployment files to it, and it to `war-server --help` (which shows every flag with its
default and environment variable). `--help` is used rather than server internals so
that the check does not depend on internal names.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.deploy._repo import (
    COMPOSE,
    DOCKERFILE,
    ENV_EXAMPLE,
    HEALTHCHECK_SCRIPT,
    SYSTEMD_UNIT,
    compose,
    documented_compose_settings,
    documented_settings,
    env_example,
    image_env,
    service_environment,
    venv_script,
    war_vars,
)

DEPLOYMENT_FILES = [COMPOSE, ENV_EXAMPLE, DOCKERFILE, SYSTEMD_UNIT, HEALTHCHECK_SCRIPT]
# Values the deployment picks on purpose instead of the server's default.
CHOSEN_FOR_DOCKER = {
    "WAR_PASSWORD": "required: a home server open to the internet needs one",
    "WAR_LOG_FORMAT": "console: `docker compose logs` is read by people, not log tools",
    "WAR_TRUSTED_PROXIES": "caddy's fixed address: players behind it get their own limits",
    "WAR_ALLOWED_HOSTS": "empty: compose allows the TLS_DOMAIN caddy serves, if set",
}
EMPTY_MEANS = {"WAR_ALLOWED_HOSTS": "TLS_DOMAIN"}
"""What compose passes for a setting left empty in .env.example (the docs' Docker column)."""


def _deployment_vars() -> dict[str, set[str]]:
    return {p.name: war_vars(p.read_text(encoding="utf-8")) for p in DEPLOYMENT_FILES}


@pytest.mark.parametrize("path", DEPLOYMENT_FILES, ids=lambda p: p.name)
def test_deployment_passes_only_documented_server_settings(path: Path) -> None:
    unknown = war_vars(path.read_text(encoding="utf-8")) - set(documented_settings())
    assert unknown == set(), f"{path.name} uses settings the server does not read"


def test_docs_table_follows_the_flag_naming_rule() -> None:
    for var, row in documented_settings().items():
        assert row.flag == "--" + var.removeprefix("WAR_").lower().replace("_", "-"), var


def test_docs_docker_column_matches_the_image_and_compose() -> None:
    rows = documented_settings()
    fixed = image_env()
    for var in war_vars(" ".join(fixed)):
        assert rows[var].docker == f"{fixed[var]} (image)", var
    example = env_example()
    for var in service_environment(compose()["services"]["war"]):
        expected = "required in .env" if var == "WAR_PASSWORD" else example[var]
        expected = expected or EMPTY_MEANS.get(var, "")
        assert rows[var].docker == expected, var


def test_env_example_uses_the_server_defaults_unless_chosen() -> None:
    rows = documented_settings()
    for var, value in env_example().items():
        if var.startswith("WAR_") and var not in CHOSEN_FOR_DOCKER:
            assert value == rows[var].default, var


def test_docs_list_the_compose_only_settings() -> None:
    documented = documented_compose_settings()
    example = env_example()
    compose_only = {k: v for k, v in example.items() if not k.startswith("WAR_")}
    assert set(documented) == set(compose_only) | {"COMPOSE_PROFILES"}
    for var, value in compose_only.items():
        assert documented[var] == (value or "empty"), var


# --- against the real server ---------------------------------------------------------


def help_blocks(help_text: str) -> list[str]:
    """Split argparse-style help into one string per option (wrapped lines joined)."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in help_text.splitlines():
        if re.match(r"^\s{1,4}-", line):
            current = [line.strip()]
            blocks.append(current)
        elif current is not None and line.startswith("     ") and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(block) for block in blocks]


def shows_default(block: str, value: str) -> bool:
    """True if an option's help block states ``value`` as its default."""
    pattern = r"default\W{0,3}" + re.escape(value) + r"(?![\w.])"
    return re.search(pattern, block, re.IGNORECASE) is not None


def test_help_reader_on_real_argparse_output() -> None:
    parser = argparse.ArgumentParser(
        prog="war-server", formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument(
        "--max-connections-per-ip",
        type=int,
        default=32,
        help="concurrent connections from one address (env WAR_MAX_CONNECTIONS_PER_IP)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="listen address (env WAR_HOST)")
    text = parser.format_help()
    blocks = help_blocks(text)
    (block,) = [b for b in blocks if "WAR_MAX_CONNECTIONS_PER_IP" in b]
    assert block.startswith("--max-connections-per-ip")
    assert shows_default(block, "32")
    assert not shows_default(block, "3")
    assert war_vars(text) == {"WAR_MAX_CONNECTIONS_PER_IP", "WAR_HOST"}


def _server_help() -> str:
    script = venv_script("war-server")
    assert script is not None, "war-server console script not installed"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    env["COLUMNS"] = "200"  # keep each option's help on as few lines as possible
    result = subprocess.run(
        [str(script), "--help"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_server_reads_exactly_the_documented_settings() -> None:
    assert war_vars(_server_help()) == set(documented_settings())


def test_server_reads_every_setting_the_deployment_passes() -> None:
    server = war_vars(_server_help())
    for name, used in _deployment_vars().items():
        assert used - server == set(), f"{name} passes settings war-server ignores"


def test_server_help_shows_the_documented_flags_and_defaults() -> None:
    blocks = help_blocks(_server_help())
    for var, row in documented_settings().items():
        matching = [b for b in blocks if re.search(rf"\b{var}\b", b)]
        assert len(matching) == 1, f"{var}: expected one option mentioning it in --help"
        (block,) = matching
        assert block.startswith(row.flag), f"{var}: --help shows {block[:40]!r}"
        if row.default.isdigit() or row.default in {"auto", "info", "127.0.0.1"}:
            assert shows_default(block, row.default), f"{var}: default {row.default} not shown"
