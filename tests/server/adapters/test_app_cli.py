"""`war-server` as a command: --help, exit statuses for bad settings and a busy port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from server.adapters.cli import main

WAR_SERVER = Path(sys.prefix) / "bin" / "war-server"
RUN_TIMEOUT = 60


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    clean.update({"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg"), **env})
    return subprocess.run(
        [str(WAR_SERVER), *args],
        env=clean,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def test_help_lists_every_variable(tmp_path: Path) -> None:
    done = run(["--help"], tmp_path)
    assert done.returncode == 0
    for name in ("WAR_HOST", "WAR_PORT", "WAR_DB", "WAR_PASSWORD", "WAR_AWAY_TIMEOUT"):
        assert name in done.stdout
    assert "/healthz" in done.stdout


def test_bad_value_exits_2_naming_it(tmp_path: Path) -> None:
    done = run([], tmp_path, WAR_MAX_ROOMS="lots")
    assert done.returncode == 2
    assert "war-server: error: WAR_MAX_ROOMS: not a whole number: 'lots'" in done.stderr


def test_main_returns_2_for_half_tls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("x")
    assert main(["--certfile", str(cert)]) == 2
    assert "--certfile needs --keyfile too" in capsys.readouterr().err


def test_busy_port_exits_1_with_a_log_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run(["--port", str(port), "--log-format", "json"], tmp_path)
    assert done.returncode == 1
    events = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    failed = [e for e in events if e["event"] == "startup_failed"]
    assert failed, done.stderr
    assert "address already in use" in str(failed[0]["error"]).lower()
    # the default store went where XDG_DATA_HOME says, even though serving failed
    assert (tmp_path / "xdg" / "family-war" / "war.sqlite3").exists()
