"""A pytest plugin that prints the CPU time of each test's call (``time.process_time``),
the largest first: what a test costs a shared machine, where ``--durations`` (wall time)
is mostly the wait for a core. After it, the CPU of each folder's tests with their
fixtures (setup, call and teardown, and the child processes they started and waited
for: servers, clients, the lab's daemons), so that a module's shared set-up counts too.

Run from the repository root, in one process (a worker's own CPU is not summed here)::

    .venv/bin/python -m pytest -n 0 -q -p bench.testcpu -m slow tests/server/engine tests/server/sim
    .venv/bin/python -m pytest -n 0 -q -p bench.testcpu tests/lab

``WAR_TEST_CPU_TOP`` (default 30) is how many tests are listed. ``WAR_TEST_CPU_JSON``, if
set, names a file that gets every test's figures (``nodeid``; ``call``, ``whole`` and
``wall`` in seconds) to compare two runs. Children count only once waited for, and
grandchildren only through a child that waited for them (Chromium is the Playwright
driver's child: its CPU is mostly missing here).
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from collections.abc import Generator, Iterator
from typing import Any

import pytest

_calls: list[tuple[float, str]] = []
_wholes: dict[str, tuple[float, float]] = {}


def _cpu() -> float:
    """This process's CPU and that of the children it has waited for, in seconds."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    started = time.process_time()
    try:
        return (yield)
    finally:
        _calls.append((time.process_time() - started, item.nodeid))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    cpu, wall = _cpu(), time.monotonic()
    try:
        return (yield)
    finally:
        _wholes[item.nodeid] = (_cpu() - cpu, time.monotonic() - wall)


def _folder(nodeid: str) -> str:
    return nodeid.split("::", 1)[0].rsplit("/", 1)[0]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    top = int(os.environ.get("WAR_TEST_CPU_TOP", "30"))
    terminalreporter.write_sep("-", "CPU time of each test's call")
    terminalreporter.write_line(f"{sum(cpu for cpu, _ in _calls):8.2f} s  all {len(_calls)}")
    for cpu, nodeid in sorted(_calls, reverse=True)[:top]:
        terminalreporter.write_line(f"{cpu:8.2f} s  {nodeid}")
    folders: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for nodeid, (cpu, wall) in _wholes.items():
        sums = folders[_folder(nodeid)]
        sums[0] += 1
        sums[1] += cpu
        sums[2] += wall
    terminalreporter.write_sep("-", "CPU of each folder's tests, fixtures and children")
    terminalreporter.write_line(f"{'tests':>6} {'CPU s':>8} {'wall s':>8}  folder")
    for folder, (count, cpu, wall) in sorted(folders.items(), key=lambda row: -row[1][1]):
        terminalreporter.write_line(f"{count:6.0f} {cpu:8.2f} {wall:8.2f}  {folder}")
    path = os.environ.get("WAR_TEST_CPU_JSON", "").strip()
    if path:
        calls = {nodeid: cpu for cpu, nodeid in _calls}
        rows = [
            {"nodeid": nodeid, "call": calls.get(nodeid, 0.0), "whole": cpu, "wall": wall}
            for nodeid, (cpu, wall) in _wholes.items()
        ]
        with open(path, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=0)
