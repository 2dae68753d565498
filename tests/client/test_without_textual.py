"""war-client without Textual (installed without the ``tui`` extra, as in the server image).

``--plain`` and ``--json`` need only the base install; the terminal table says how to
install what it needs instead of failing with a traceback. Each test runs war-client in a
fresh interpreter where ``import textual`` fails, as it does when Textual is missing:
a ``None`` in ``sys.modules`` makes every import of it raise ImportError.
"""

from __future__ import annotations

import asyncio
import os
import pty
import sys
import tomllib
from pathlib import Path

import pytest

from client.cli import NO_TEXTUAL

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 90.0
WITHOUT_TEXTUAL = (
    "import sys; sys.modules['textual'] = None; "
    "from client.cli import main; sys.exit(main(sys.argv[1:]))"
)


async def _client(
    args: list[str], tmp_path: Path, *, stdout: int | None = None
) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    env["WAR_CLIENT_STATE"] = str(tmp_path / "client.json")
    env["TERM"] = "xterm-256color"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WITHOUT_TEXTUAL,
        *args,
        cwd=REPO,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE if stdout is None else stdout,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode is not None
    return process.returncode, (out or b"").decode(), err.decode()


def test_textual_is_an_extra_not_a_runtime_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [d.split(">")[0].split("=")[0].strip().lower() for d in project["dependencies"]]
    assert "textual" not in runtime
    extras = project["optional-dependencies"]
    assert [d for d in extras["tui"] if d.startswith("textual")]
    assert "family-war[tui]" in extras["dev"]  # make test still tests the table


async def test_plain_plays_a_whole_game_without_textual(tmp_path: Path) -> None:
    args = ["--local", "--name", "Ann", "--rounds", "5", "--auto", "quick", "--plain"]
    status, out, err = await _client(args, tmp_path)
    assert status == 0, err
    assert "textual" not in err.lower()
    assert "Game over: the limit of 5 rounds is reached." in out, out[-500:]


async def test_json_lines_work_without_textual(tmp_path: Path) -> None:
    args = ["--local", "--name", "Ann", "--rounds", "3", "--auto", "quick", "--json"]
    status, out, err = await _client(args, tmp_path)
    assert status == 0, err
    assert out.splitlines()[-1].startswith('{"type":"game_over"'), out[-500:]


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--local"], id="local"),
        pytest.param(["ws://127.0.0.1:9/", "--create"], id="remote"),
    ],
)
async def test_the_table_says_how_to_install_textual(args: list[str], tmp_path: Path) -> None:
    """On a terminal the table is the default: without Textual, one clear line, exit 1."""
    leader, follower = pty.openpty()
    try:
        status, _, err = await _client(args, tmp_path, stdout=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert (status, err) == (1, f"war-client: {NO_TEXTUAL}\n")
    assert "pip install 'family-war[tui]'" in NO_TEXTUAL
    assert "--plain" in NO_TEXTUAL
