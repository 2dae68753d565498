"""The CPU every thread of the browser spent, read from a Chromium trace.

A message's handler is only part of what the page costs: the compositor, the raster
workers, the display compositor (viz, in the GPU process) and the audio thread run beside
the main thread, and on a 2-core machine they compete with it for a core. Their wall-clock
times grow with the machine's load; their thread CPU time (a trace event's ``tdur``)
hardly does, so it is what two pages are compared by.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["CATEGORIES", "thread_cpu"]

CATEGORIES = ["devtools.timeline", "toplevel", "audio", "__metadata"]
"""What `bench.web` records: the handler's calls (``devtools.timeline``), every thread's
tasks (``toplevel``: the main thread's, the compositor's, viz's, the raster workers'),
and the audio thread's render callbacks (``audio``: it runs no tasks, so ``toplevel``
alone would not see it)."""


def _names(events: list[dict[str, Any]], kind: str) -> dict[Any, str]:
    return {
        (event["pid"], event["tid"]) if kind == "thread_name" else event["pid"]: str(
            event.get("args", {}).get("name", "")
        )
        for event in events
        if event.get("ph") == "M" and event.get("name") == kind
    }


def thread_cpu(trace: Path) -> dict[str, float]:
    """Milliseconds of CPU each thread spent in a Chromium trace, by ``"process thread"``
    name (a process's pool of workers, which share a name, summed into one), heaviest
    first: the sum of each thread's top-level complete events (``ph`` ``"X"``; one that
    starts inside an earlier one on the same thread is part of it), their thread time
    ``tdur`` where the trace has it, their wall time ``dur`` otherwise."""
    found = json.loads(trace.read_text(encoding="utf-8"))
    events: list[dict[str, Any]] = found["traceEvents"] if isinstance(found, dict) else found
    threads = _names(events, "thread_name")
    processes = _names(events, "process_name")
    by_thread: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("ph") == "X" and "dur" in event:
            by_thread[(event["pid"], event["tid"])].append(event)
    spent: dict[str, float] = defaultdict(float)
    for key, own in by_thread.items():
        name = f"{processes.get(key[0], key[0])} {threads.get(key, key[1])}"
        end = None
        for event in sorted(own, key=lambda event: (event["ts"], -event["dur"])):
            if end is not None and event["ts"] < end:
                continue  # inside the top-level event before it
            end = event["ts"] + event["dur"]
            spent[name] += event.get("tdur", event["dur"]) / 1000
    return dict(sorted(spent.items(), key=lambda item: -item[1]))
