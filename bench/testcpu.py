"""A pytest plugin that prints the CPU time of each test's call (``time.process_time``),
the largest first: what a test costs a shared machine, where ``--durations`` (wall time)
is mostly the wait for a core.

Run from the repository root, in one process (a worker's own CPU is not summed here)::

    .venv/bin/python -m pytest -n 0 -q -p bench.testcpu -m slow tests/server/engine tests/server/sim

``WAR_TEST_CPU_TOP`` (default 30) is how many tests are listed. Only the test's call is
timed, not its fixtures; child processes a test starts are not counted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

_calls: list[tuple[float, str]] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    started = time.process_time()
    try:
        return (yield)
    finally:
        _calls.append((time.process_time() - started, item.nodeid))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    top = int(os.environ.get("WAR_TEST_CPU_TOP", "30"))
    terminalreporter.write_sep("-", "CPU time of each test's call")
    terminalreporter.write_line(f"{sum(cpu for cpu, _ in _calls):8.2f} s  all {len(_calls)}")
    for cpu, nodeid in sorted(_calls, reverse=True)[:top]:
        terminalreporter.write_line(f"{cpu:8.2f} s  {nodeid}")
