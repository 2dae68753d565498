"""`bench._threads` reads every browser thread's CPU from a trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench._threads import spent_since, thread_cpu


def named(kind: str, name: str, pid: int, tid: int = 0) -> dict[str, Any]:
    return {"ph": "M", "name": kind, "pid": pid, "tid": tid, "args": {"name": name}}


def task(pid: int, tid: int, ts: int, dur: int, tdur: int | None = None) -> dict[str, Any]:
    event = {"ph": "X", "name": "RunTask", "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    return event if tdur is None else {**event, "tdur": tdur}


def test_each_thread_sums_its_top_level_events(tmp_path: Path) -> None:
    events = [
        named("process_name", "Renderer", 1),
        named("process_name", "GPU Process", 2),
        named("thread_name", "CrRendererMain", 1, 10),
        named("thread_name", "ThreadPoolForegroundWorker", 1, 11),
        named("thread_name", "ThreadPoolForegroundWorker", 1, 12),
        named("thread_name", "VizCompositorThread", 2, 20),
        task(1, 10, 100, 50, tdur=30),
        task(1, 10, 110, 20, tdur=15),  # inside the task before it: already counted
        task(1, 10, 150, 10, tdur=4),  # starts as the first ends: a task of its own
        task(1, 11, 100, 40, tdur=20),  # two workers of one pool: summed
        task(1, 12, 100, 40, tdur=22),
        task(2, 20, 100, 3000),  # no thread time: its wall time
        {"ph": "I", "name": "Mark", "pid": 2, "tid": 20, "ts": 105},  # not a complete event
        task(3, 30, 100, 1000, tdur=500),  # a process and thread the trace does not name
    ]
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    found = thread_cpu(trace)
    assert list(found) == [
        "GPU Process VizCompositorThread",
        "3 30",
        "Renderer ThreadPoolForegroundWorker",
        "Renderer CrRendererMain",
    ]
    assert found == pytest.approx(
        {
            "GPU Process VizCompositorThread": 3.0,
            "3 30": 0.5,
            "Renderer ThreadPoolForegroundWorker": 0.042,
            "Renderer CrRendererMain": 0.034,
        }
    )


def test_a_bare_list_of_events_is_read_too(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([task(1, 1, 0, 10, tdur=8)]), encoding="utf-8")
    assert thread_cpu(trace) == {"1 1": pytest.approx(0.008)}


def test_what_each_thread_spent_between_two_readings() -> None:
    before = {"renderer Compositor": 1.0, "browser chromium": 2.0}
    after = {"renderer Compositor": 1.5, "browser chromium": 2.1, "AudioService audio": 0.3}
    assert list(spent_since(before, after).items()) == [
        ("renderer Compositor", 0.5),
        ("AudioService audio", 0.3),
        ("browser chromium", pytest.approx(0.1)),
    ]
