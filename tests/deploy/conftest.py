"""Fixtures shared by the deployment tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy._image import IMAGE_REPORT, Availability, Docker, Prepared, availability, prepare


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


@pytest.fixture(scope="session")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway certificate for a public-looking name, as Caddy or certbot would give."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl command not available to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2",
         "-subj", "/CN=myfamily.example.org"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="session")
def prepared() -> Prepared:
    """What deploy/image.sh build did (seconds when the image is cached)."""
    return prepare()


@pytest.fixture(scope="session")
def image(prepared: Prepared) -> Iterator[tuple[Docker, str]]:
    """The engine and the image tag, or a skip or failure saying why there are none."""
    reason = (prepared.output.strip().splitlines() or ["(no output)"])[-1]
    decision = availability(prepared.status, ci=_ci())
    if decision is Availability.SKIP:
        pytest.skip(f"no Docker engine here: {reason} (deploy/image.sh, exit {prepared.status})")
    if decision is Availability.FAIL:
        pytest.fail(
            f"deploy/image.sh build exited {prepared.status}"
            f"{' in CI' if _ci() else ''}:\n{prepared.output[-4000:]}",
            pytrace=False,
        )
    assert prepared.image_id.startswith("sha256:"), prepared.output[-2000:]
    yield Docker(prepared.docker_host), prepared.image_id


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print what the image tests measured (its size) at the end of the run, pass or fail
    (from their reports' user properties: an xdist worker's own state never reaches here)."""
    found = (
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        for key, value in getattr(report, "user_properties", ())
        if key == IMAGE_REPORT
    )
    lines = list(dict.fromkeys(found))  # the call's and the teardown's reports both carry it
    if lines:
        terminalreporter.section("the home-server image")
        for line in lines:
            terminalreporter.write_line(line)
