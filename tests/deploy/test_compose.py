"""docker-compose.yml: the Compose Specification schema, interpolation, and its wiring.

The schema is the official compose-spec JSON schema as vendored (with its licence) by
check-jsonschema (`--builtin-schema vendor.compose-spec`), a dev dependency from PyPI.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.deploy._dockerfile import healthcheck
from tests.deploy._interpolate import InterpolationError, interpolate_tree, references
from tests.deploy._repo import (
    CADDYFILE,
    COMPOSE,
    REPO,
    compose,
    env_example,
    final_stage,
    image_env,
    service_environment,
    venv_script,
)

TLS_ENV = {"TLS_DOMAIN": "myfamily.duckdns.org"}


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    binary = venv_script("check-jsonschema")
    if binary is None:
        pytest.fail("check-jsonschema not found: install the dev extra (pip install -e '.[dev]')")
    return subprocess.run(
        [str(binary), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, Mapping):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    return []


def _services() -> dict[str, Any]:
    services = compose()["services"]
    assert isinstance(services, dict)
    return services


def test_compose_file_matches_the_compose_specification() -> None:
    result = _validate(COMPOSE)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "env",
    [
        pytest.param("example", id="with .env.example"),
        pytest.param("defaults", id="only the required password"),
    ],
)
def test_interpolated_compose_file_matches_the_specification(env: str, tmp_path: Path) -> None:
    values = env_example() | TLS_ENV if env == "example" else {"WAR_PASSWORD": "pw"}
    rendered = tmp_path / "compose.json"
    rendered.write_text(json.dumps(interpolate_tree(compose(), values)), encoding="utf-8")
    result = _validate(rendered)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_validator_rejects_a_broken_compose_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(
        COMPOSE.read_text(encoding="utf-8").replace("restart: unless-stopped", "restart: [x]", 1),
        encoding="utf-8",
    )
    result = _validate(broken)
    assert result.returncode != 0
    assert "restart" in result.stdout


def test_every_value_is_a_valid_template() -> None:
    for text in _strings(compose()):
        references(text)  # raises InterpolationError for an invalid template


def test_password_is_required() -> None:
    without = {k: v for k, v in env_example().items() if k != "WAR_PASSWORD"}
    with pytest.raises(InterpolationError, match="WAR_PASSWORD"):
        interpolate_tree(compose(), without)


def test_env_example_lists_exactly_the_variables_compose_reads() -> None:
    used = {ref.name for text in _strings(compose()) for ref in references(text)}
    listed = set(env_example())
    assert used - listed == set(), "used in docker-compose.yml but not in .env.example"
    assert listed - used == set(), "in .env.example but docker-compose.yml never reads it"


def test_compose_defaults_equal_env_example_values() -> None:
    example = env_example()
    for text in _strings(compose()):
        for ref in references(text):
            if ref.operator == ":-" and ref.argument and example[ref.name]:
                assert ref.argument == example[ref.name], ref.name


def test_env_example_documents_each_setting_with_a_comment() -> None:
    lines = Path(REPO / ".env.example").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if re.match(r"[A-Z_]+=", line):
            assert number > 0 and lines[number - 1].startswith("#"), line


def test_war_service_runs_the_image_with_its_store_on_a_named_volume() -> None:
    war = _services()["war"]
    assert war["build"] == "."
    assert war["restart"] == "unless-stopped"
    assert "profiles" not in war
    named = set(compose()["volumes"])
    mounts = [str(m).split(":") for m in war["volumes"]]
    assert [name for name, target in mounts if target == "/data"] == ["war-data"]
    assert all(name in named for name, _ in mounts)


def test_war_service_healthcheck_is_the_images() -> None:
    war = _services()["war"]
    instruction = final_stage().last("HEALTHCHECK")
    assert instruction is not None
    assert war["healthcheck"]["test"] == ["CMD", *healthcheck(instruction).command]


def test_war_service_publishes_the_images_port() -> None:
    war = _services()["war"]
    rendered = interpolate_tree(war, env_example())
    assert isinstance(rendered, dict)
    image_port = image_env()["WAR_PORT"]
    assert [str(p).rsplit(":", 1)[-1] for p in rendered["ports"]] == [image_port]
    assert rendered["ports"] == [f"0.0.0.0:{env_example()['HOST_PORT']}:{image_port}"]


def test_war_service_leaves_address_port_and_store_path_to_the_image() -> None:
    # Overriding these would break the port mapping, the volume or the health check.
    fixed = set(image_env()) & {"WAR_HOST", "WAR_PORT", "WAR_DB"}
    assert fixed == {"WAR_HOST", "WAR_PORT", "WAR_DB"}
    assert not fixed & set(service_environment(_services()["war"]))


def test_war_service_is_locked_down() -> None:
    war = _services()["war"]
    assert war["read_only"] is True
    assert war["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in war["security_opt"]


def test_caddy_is_an_optional_tls_front() -> None:
    caddy = _services()["caddy"]
    assert caddy["profiles"] == ["tls"]
    assert re.fullmatch(r"caddy:\d+\.\d+\.\d+(-alpine)?", caddy["image"]), caddy["image"]
    assert caddy["depends_on"]["war"]["condition"] == "service_healthy"
    mounts = [str(m).split(":") for m in caddy["volumes"]]
    binds = {source: target for source, target, *_ in mounts if source.startswith("./")}
    assert binds == {"./deploy/Caddyfile": "/etc/caddy/Caddyfile"}
    assert (REPO / "deploy/Caddyfile").resolve() == CADDYFILE
    named = set(compose()["volumes"])
    assert {s for s, *_ in mounts if not s.startswith("./")} <= named
    assert {"80:80", "443:443"} <= set(caddy["ports"])


def test_caddy_refuses_to_start_without_a_domain() -> None:
    caddy = _services()["caddy"]
    script = caddy["command"][-1]
    assert "TLS_DOMAIN" in service_environment(caddy)
    for env in ({"TLS_DOMAIN": ""}, TLS_ENV):
        guard = interpolate_tree(script, env)
        assert isinstance(guard, str)
        # Run the guard with `caddy` replaced by `true`, as the container's shell would.
        result = subprocess.run(
            ["/bin/sh", "-c", guard.replace("exec caddy run", "exec true caddy run")],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if env["TLS_DOMAIN"]:
            assert result.returncode == 0, result.stderr
        else:
            assert result.returncode != 0
            assert "set TLS_DOMAIN in .env" in result.stderr


def test_caddyfile_proxies_the_domain_to_the_war_service() -> None:
    lines = CADDYFILE.read_text(encoding="utf-8").splitlines()
    text = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    assert re.search(r"^\{\$TLS_DOMAIN\}\s*\{", text, re.MULTILINE)
    upstreams = re.findall(r"reverse_proxy\s+(\S+)", text)
    assert upstreams == [f"war:{image_env()['WAR_PORT']}"]


def test_caddyfile_adapts_with_caddy(tmp_path: Path) -> None:
    caddy = venv_script("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed (apt-get install caddy); checked structurally above")
    result = subprocess.run(
        [str(caddy), "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), **TLS_ENV},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["routes"][0]["match"] == [{"host": [TLS_ENV["TLS_DOMAIN"]]}]
