"""The generated words are current: ``client/web/js/vocabulary.js`` and ``client/state/phases.py``.

Both are written by ``tools/generate_vocabulary.py`` (``make vocabulary``) from the
Python sources; a change to an enum, a bound, a default, which close reconnects or the
server's phase table that was not regenerated fails here. What the browser's modules do
with the file is checked by ``vocabulary.test.mjs`` (``node --test``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from client.state.phases import PHASE_TABLE
from protocol import ErrorCode, RoomPhase
from server.core.room import phases
from tools.generate_vocabulary import JS_PATH, PY_PATH, phase_table, render_js, render_py

STALE = "is stale: run make vocabulary (python -m tools.generate_vocabulary)"


@pytest.mark.parametrize(("path", "render"), [(JS_PATH, render_js), (PY_PATH, render_py)])
def test_the_generated_file_is_current(path: Path, render: Callable[[], str]) -> None:
    assert path.read_text(encoding="utf-8") == render(), f"{path.name} {STALE}"


def test_the_python_client_has_the_servers_table() -> None:
    assert phase_table() == PHASE_TABLE


@pytest.mark.parametrize("phase", list(RoomPhase))
def test_each_cell_is_the_servers_verdict_in_that_stage(phase: RoomPhase) -> None:
    """Every cell is what the room core's table answers in the stage of that name, for a
    seat and a spectator; and every room command of the server's table is there."""
    stage = phases.Stage(phase.value)
    for command, rows in PHASE_TABLE.items():
        for who, refusals in rows.items():
            verdict = phases.TABLE[command, stage, phases.Who(who)]
            assert refusals.get(phase.value) == (None if verdict is None else verdict.value)
            assert set(refusals.values()) <= set(ErrorCode)
    room_commands = {c for (c, _, who) in phases.TABLE if who is not phases.Who.NEWCOMER}
    assert set(PHASE_TABLE) == room_commands
