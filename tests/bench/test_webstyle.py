"""`bench.webstyle` reads each message handler's style and layout work from a trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.webstyle import Work, handler_work


def call(ts: int, dur: int, name: str = "ws.onmessage", tid: int = 1) -> dict[str, Any]:
    data = {"functionName": name}
    return {"name": "FunctionCall", "ts": ts, "dur": dur, "tid": tid, "args": {"data": data}}


def style(ts: int, count: int, tid: int = 1) -> dict[str, Any]:
    args = {"elementCount": count}
    return {"name": "UpdateLayoutTree", "ts": ts, "dur": 5, "tid": tid, "args": args}


def layout(ts: int, dirty: int, total: int, tid: int = 1) -> dict[str, Any]:
    begin = {"dirtyObjects": dirty, "totalObjects": total}
    return {"name": "Layout", "ts": ts, "dur": 5, "tid": tid, "args": {"beginData": begin}}


def test_each_handler_sums_the_work_inside_it(tmp_path: Path) -> None:
    events = [
        call(200, 100),  # listed out of order: the calls are taken in the order they ran
        call(100, 50),
        call(120, 10, name="onclick"),  # not a message
        style(110, 7),
        layout(115, 20, 200),
        style(130, 3),
        style(140, 99, tid=2),  # another thread
        style(170, 50),  # a frame between the messages
        style(210, 4),
        layout(220, 5, 210),
        layout(230, 6, 212),
    ]
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    assert handler_work(trace) == [Work(10, 20, 200), Work(4, 11, 212)]
