"""A TLS key protected by a passphrase: one clear refusal, never a prompt or a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.adapters.serving import tls_context
from server.adapters.settings.config import Settings
from server.errors import TlsKeyError
from tests.server.adapters._tls import self_signed

WAR_SERVER = Path(sys.prefix) / "bin" / "war-server"


@pytest.fixture(scope="module")
def protected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"), passphrase="family-secret")


def test_tls_context_refuses_a_protected_key_naming_it(
    protected: tuple[Path, Path], tmp_path: Path
) -> None:
    cert, key = protected
    settings = Settings(db=tmp_path / "w.sqlite3", certfile=cert, keyfile=key)
    with pytest.raises(TlsKeyError) as refused:
        tls_context(settings)
    assert str(key) in str(refused.value)
    assert "passphrase" in str(refused.value)


def test_war_server_exits_1_with_one_line(protected: tuple[Path, Path], tmp_path: Path) -> None:
    cert, key = protected
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    done = subprocess.run(
        [str(WAR_SERVER), "--port", "0", "--db", str(tmp_path / "w.sqlite3"),
         "--certfile", str(cert), "--keyfile", str(key), "--log-format", "json"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    (failed,) = [e for e in lines if e["event"] == "startup_failed"]
    assert failed["error_type"] == "TlsKeyError"
    assert "passphrase" in failed["error"]
    assert "Traceback" not in done.stderr
    assert "pass phrase" not in done.stderr.lower()  # no prompt
