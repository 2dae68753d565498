"""`war-server` tunes the garbage collector once it serves (docs/performance.md, finding F3).

The real command in a child process (so the test process's own collector is untouched):
its ``gc_tuned`` log line (at debug level: nothing a family needs to read) must say what
was frozen and the thresholds set. `tune_gc` is also checked in this process, restoring
the collector afterwards.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import re
from pathlib import Path

from bench._server import ServerProcess, war_server_spec
from server.adapters.cli import GC_THRESHOLD, tune_gc


async def test_war_server_freezes_and_raises_thresholds_once_serving(tmp_path: Path) -> None:
    spec = war_server_spec(tmp_path / "war.sqlite3", extra=("--log-level", "debug"))
    spec = dataclasses.replace(spec, ready=re.compile(r'"event": "gc_tuned"'))
    async with ServerProcess(spec) as server:
        (line,) = [line for line in server.lines if '"gc_tuned"' in line]
        listening = [n for n, text in enumerate(server.lines) if '"listening"' in text]
        tuned = list(server.lines).index(line)
    assert server.returncode == 0
    assert listening and listening[0] < tuned  # after the Hub rebuilt the rooms
    event = json.loads(line)
    assert event["threshold"] == list(GC_THRESHOLD)
    assert event["frozen"] > 10_000  # at least the modules and the Hub


def test_tune_gc_freezes_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        frozen = tune_gc()
        assert frozen == gc.get_freeze_count() > 0
        assert gc.get_threshold() == GC_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


async def test_the_gc_line_stays_out_of_the_default_log(tmp_path: Path) -> None:
    spec = war_server_spec(tmp_path / "war.sqlite3")
    async with ServerProcess(spec) as server:
        await server.stop()  # the log is complete once the server has stopped
        lines = list(server.lines)
    assert any('"listening"' in line for line in lines)
    assert not any('"gc_tuned"' in line for line in lines)
