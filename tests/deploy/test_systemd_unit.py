"""deploy/war-server.service: systemd's own verifier, and what the hosting guide says."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.deploy._repo import HOSTING_DOC, SYSTEMD_UNIT, image_env, venv_script

VENV = "/opt/family-war"


def _unit() -> dict[str, list[tuple[str, str]]]:
    """Sections -> (key, value) pairs in order; systemd allows repeated keys."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for raw in SYSTEMD_UNIT.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        assert current is not None, f"key outside a section: {line!r}"
        key, sep, value = line.partition("=")
        assert sep, f"not key=value: {line!r}"
        current.append((key.strip(), value.strip()))
    return sections


def _service(key: str) -> list[str]:
    return [value for k, value in _unit()["Service"] if k == key]


def _environment() -> dict[str, str]:
    return dict(item.split("=", 1) for item in _service("Environment"))


def _verify(unit: Path) -> subprocess.CompletedProcess[str]:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    return subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    # verify insists that ExecStart exists: point it at this environment's war-server.
    script = venv_script("war-server")
    assert script is not None
    text = SYSTEMD_UNIT.read_text(encoding="utf-8")
    unit = tmp_path / "war-server.service"
    unit.write_text(text.replace(f"{VENV}/bin/war-server", str(script)), encoding="utf-8")
    result = _verify(unit)
    assert (result.returncode, result.stderr) == (0, "")


def test_systemd_verifier_reports_mistakes(tmp_path: Path) -> None:
    unit = tmp_path / "broken.service"
    unit.write_text("[Service]\nExecStart=/bin/true\nProtectSystem=wat\nDynamicUsr=yes\n")
    result = _verify(unit)
    assert "ProtectSystem" in result.stderr or "protect system" in result.stderr
    assert "DynamicUsr" in result.stderr


def test_runs_war_server_from_the_documented_virtualenv() -> None:
    assert _service("ExecStart") == [f"{VENV}/bin/war-server"]
    guide = HOSTING_DOC.read_text(encoding="utf-8")
    assert f"python3 -m venv {VENV}\n" in guide
    assert f"{VENV}/bin/pip install" in guide
    assert "deploy/war-server.service /etc/systemd/system/" in guide


def test_store_lives_in_the_state_directory() -> None:
    (state,) = _service("StateDirectory")
    assert _environment()["WAR_DB"] == f"%S/{state}/war.sqlite3"
    assert f"/var/lib/{state}" in HOSTING_DOC.read_text(encoding="utf-8")


def test_secrets_come_from_a_root_only_environment_file() -> None:
    assert "WAR_PASSWORD" not in _environment()
    (env_file,) = _service("EnvironmentFile")
    assert env_file.startswith("-/etc/")  # optional, so the unit starts without one
    assert f"chmod 0600 {env_file[1:]}" in HOSTING_DOC.read_text(encoding="utf-8")


def test_hardened_and_stopped_with_sigterm() -> None:
    expected = {
        "DynamicUser": "yes",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "KillSignal": "SIGTERM",
        "CapabilityBoundingSet": "",
        "Restart": "on-failure",
    }
    for key, value in expected.items():
        assert _service(key) == [value], key
    (families,) = _service("RestrictAddressFamilies")
    assert set(families.split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}


def test_listens_like_the_image_so_the_guide_applies_to_both() -> None:
    env = _environment()
    fixed = image_env()
    assert env["WAR_HOST"] == fixed["WAR_HOST"] == "0.0.0.0"
    assert env["WAR_PORT"] == fixed["WAR_PORT"]
