"""How the image tests get their engine and their container settings (no engine needed).

The decision to run, skip or fail (deploy/image.sh's exit status, CI or not), the
translation of docker-compose.yml's war service into `docker run` options, and the
script's own refusal where the platform forbids an engine.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.deploy._image import (
    EXIT_ENGINE_FAILED,
    EXIT_FORBIDDEN,
    EXIT_NOT_INSTALLED,
    IMAGE_SCRIPT,
    NOT_APPLIED,
    Availability,
    availability,
    compose_run_options,
    parse_assignments,
    seconds,
)
from tests.deploy._interpolate import interpolate
from tests.deploy._repo import compose, env_example, service_environment


@pytest.mark.parametrize(
    ("status", "ci", "expected"),
    [
        (0, False, Availability.RUN),
        (0, True, Availability.RUN),
        (EXIT_FORBIDDEN, False, Availability.SKIP),
        (EXIT_FORBIDDEN, True, Availability.SKIP),  # the platform forbids it: never a failure
        (EXIT_NOT_INSTALLED, False, Availability.SKIP),
        (EXIT_NOT_INSTALLED, True, Availability.FAIL),  # .ci/run installs Docker
        (EXIT_ENGINE_FAILED, False, Availability.SKIP),
        (EXIT_ENGINE_FAILED, True, Availability.FAIL),
        (1, False, Availability.FAIL),  # the build failed: the Dockerfile is broken
        (1, True, Availability.FAIL),
        (2, False, Availability.FAIL),
    ],
)
def test_run_skip_or_fail(status: int, ci: bool, expected: Availability) -> None:
    assert availability(status, ci=ci) is expected


def test_the_script_documents_its_exit_statuses() -> None:
    header = IMAGE_SCRIPT.read_text(encoding="utf-8").split("set -euo pipefail")[0]
    assert f"#   {EXIT_FORBIDDEN} this platform forbids a container engine" in header
    assert f"#   {EXIT_NOT_INSTALLED} Docker or debootstrap is not installed" in header
    assert f"#   {EXIT_ENGINE_FAILED} an engine is allowed here but did not start" in header


def test_script_output_assignments() -> None:
    text = "DOCKER_HOST=unix:///run/x.sock\nWAR_IMAGE_TAG=family-war:test\nnoise\nSTARTED=0\n"
    assert parse_assignments(text) == {
        "DOCKER_HOST": "unix:///run/x.sock",
        "WAR_IMAGE_TAG": "family-war:test",
        "STARTED": "0",
    }
    assert parse_assignments("DOCKER_HOST=\n") == {"DOCKER_HOST": ""}


def _war() -> dict[str, Any]:
    war = compose()["services"]["war"]
    assert isinstance(war, dict)
    return war


def _pairs(options: list[str], flag: str) -> list[str]:
    return [options[i + 1] for i, option in enumerate(options) if option == flag]


def test_every_compose_setting_of_the_war_service_reaches_the_container() -> None:
    options = compose_run_options(_war(), env_example(), volume="vol")
    environment = service_environment(_war())
    assert _pairs(options, "--env") == [
        f"{key}={interpolate(value, env_example())}" for key, value in environment.items()
    ]
    assert "--read-only" in options
    assert _pairs(options, "--restart") == ["unless-stopped"]
    assert "--tmpfs=/tmp" in options
    assert "--cap-drop=ALL" in options
    assert "--security-opt=no-new-privileges:true" in options
    assert _pairs(options, "--stop-signal") == ["SIGTERM"]
    assert _pairs(options, "--stop-timeout") == ["30"]
    assert _pairs(options, "--log-driver") == ["json-file"]
    assert {"--log-opt=max-size=10m", "--log-opt=max-file=3"} <= set(options)
    assert _pairs(options, "--volume") == ["vol:/data"]
    # Every key is either translated above or left out for a stated reason.
    assert set(NOT_APPLIED) <= set(_war())
    assert all(reason for reason in NOT_APPLIED.values())


def test_a_compose_setting_the_translation_does_not_know_fails() -> None:
    with pytest.raises(ValueError, match="'sysctls'"):
        compose_run_options(
            {**_war(), "sysctls": {"net.core.somaxconn": 1024}}, env_example(), volume="v"
        )
    with pytest.raises(ValueError, match="unexpected volume"):
        compose_run_options({"volumes": ["x:/srv"]}, {}, volume="v")


@pytest.mark.parametrize(("text", "value"), [("30s", 30), ("2m", 120), ("1m30s", 90)])
def test_compose_durations(text: str, value: int) -> None:
    assert seconds(text) == value


@pytest.mark.parametrize("text", ["30", "s", "1x"])
def test_compose_durations_refused(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        seconds(text)


def test_the_script_shows_its_usage() -> None:
    assert os.access(IMAGE_SCRIPT, os.X_OK)
    result = subprocess.run(
        [str(IMAGE_SCRIPT)], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 2
    assert "deploy/image.sh build [--install]" in result.stderr


def _as_someone_else() -> list[str]:
    """A prefix that runs a command as an unprivileged user (nothing if we are one)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is needed to run the script as another user")
    nobody = pwd.getpwnam("nobody")
    return [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]


def test_without_root_or_a_running_engine_the_platform_forbids_one() -> None:
    with tempfile.TemporaryDirectory() as folder:
        place = Path(folder)
        place.chmod(place.stat().st_mode | stat.S_IRWXO)
        # a copy the other user can reach (a checkout may sit in a folder only we can read)
        script = place / "deploy" / IMAGE_SCRIPT.name
        script.parent.mkdir()
        script.parent.chmod(0o755)
        shutil.copy2(IMAGE_SCRIPT, script)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DOCKER_HOST": f"unix://{place}/no-engine.sock",
            "WAR_DOCKER_SOCKET": f"{place}/no-engine-either.sock",
            "WAR_IMAGE_LOCK": f"{place}/lock",
            "HOME": folder,
        }
        result = subprocess.run(
            [*_as_someone_else(), str(script), "engine"],
            env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert result.returncode == EXIT_FORBIDDEN, result.stderr
    assert "no engine can start here: not root" in result.stderr
