"""A pytest plugin that writes the run's timeline, and a summary of one: which worker ran
each test, from when to when. Where `bench.testcpu` says what a test costs the machine,
this says where a parallel run's wall time went: whether the workers stayed busy to the
end, and which modules or ``xdist_group`` groups held a worker longest.

Record a run (every worker appends to the one file, a line per test: ``w`` the worker,
``id`` the node id with ``@group`` for an ``xdist_group`` test, ``t0`` and ``t1`` its
start and end in seconds of the epoch), then read it::

    WAR_TEST_TIMELINE=/tmp/timeline.jsonl make pytest PYTEST_ARGS="-p bench.testtimeline"
    .venv/bin/python -m bench.testtimeline /tmp/timeline.jsonl

The file is appended to: remove it before a new run. Without ``WAR_TEST_TIMELINE`` the
plugin writes nothing.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Generator, Iterable
from dataclasses import dataclass

import pytest

VARIABLE = "WAR_TEST_TIMELINE"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    path = os.environ.get(VARIABLE, "").strip()
    started = time.time()
    try:
        return (yield)
    finally:
        if path:
            group = item.get_closest_marker("xdist_group")
            name = item.nodeid
            if group is not None and group.args and not name.endswith(f"@{group.args[0]}"):
                name += f"@{group.args[0]}"  # xdist's loadgroup adds it itself
            line = {
                "w": os.environ.get("PYTEST_XDIST_WORKER", "-"),
                "id": name,
                "t0": started,
                "t1": time.time(),
            }
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")


@dataclass(frozen=True, slots=True)
class Summary:
    """``span``: first start to last end; ``busy``: seconds of a worker's time in tests;
    ``workers``: each worker's busy seconds and last end (seconds after the first start);
    ``units``: seconds of a worker each module, or each group, held, largest first."""

    tests: int
    span: float
    busy: float
    workers: dict[str, tuple[float, float]]
    units: list[tuple[str, float, int]]


def summary(lines: Iterable[str]) -> Summary:
    """The summary of a timeline's lines (blank lines ignored)."""
    rows = [json.loads(line) for line in lines if line.strip()]
    if not rows:
        return Summary(0, 0.0, 0.0, {}, [])
    first = min(row["t0"] for row in rows)
    workers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    units: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for row in rows:
        took = row["t1"] - row["t0"]
        worker = workers[row["w"]]
        worker[0] += took
        worker[1] = max(worker[1], row["t1"] - first)
        nodeid, _, group = row["id"].partition("@")
        unit = units[f"@{group}" if group else nodeid.split("::", 1)[0]]
        unit[0] += took
        unit[1] += 1
    return Summary(
        tests=len(rows),
        span=max(row["t1"] for row in rows) - first,
        busy=sum(busy for busy, _ in workers.values()),
        workers={name: (busy, end) for name, (busy, end) in sorted(workers.items())},
        units=sorted(((name, s, int(n)) for name, (s, n) in units.items()), key=lambda u: -u[1]),
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m bench.testtimeline TIMELINE.jsonl [see its docstring]")
        return 2
    with open(args[0], encoding="utf-8") as timeline:
        found = summary(timeline)
    print(f"{found.tests} tests, {found.span:.1f} s from the first start to the last end,")
    print(f"{found.busy:.1f} s of workers' time in tests")
    for name, (busy, end) in found.workers.items():
        print(f"  {name}: busy {busy:7.1f} s, last end at {end:7.1f} s")
    print("the modules and groups that held a worker longest:")
    for name, seconds, count in found.units[:30]:
        print(f"  {seconds:7.1f} s  {count:4d} tests  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
