"""The CPU every thread of the browser spent, read from a Chromium trace.

A message's handler is only part of what the page costs: the compositor, the raster
workers, the display compositor (viz, in the GPU process) and the audio thread run beside
the main thread, and on a 2-core machine they compete with it for a core. Their wall-clock
times grow with the machine's load; their thread CPU time (a trace event's ``tdur``)
hardly does, so it is what two pages are compared by.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["CATEGORIES", "browser_cpu", "spent_since", "thread_cpu"]

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


def _stat(path: Path) -> list[str]:
    """The fields of a ``/proc`` ``stat`` file after the command's name (field 3 on)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return text[text.rindex(")") + 2 :].split()


def _kind(pid: int) -> str | None:
    """``browser``, ``renderer``, ``gpu-process``, ``AudioService``…: what a Chromium
    process is (its ``--type``, a utility's sub-type), or None for another program."""
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    if len(args) <= 2:  # a child that rewrote its command line: one string, spaces between
        args = args[0].split(" ")
    if not args or not args[0].endswith("chromium"):
        return None
    flags = dict(arg[2:].split("=", 1) for arg in args if arg.startswith("--") and "=" in arg)
    if "utility-sub-type" in flags:
        return flags["utility-sub-type"].rsplit(".", 1)[-1]
    return flags.get("type", "browser")


def browser_cpu(root: int | None = None) -> dict[str, float]:
    """Seconds of CPU (user and system) every thread of every Chromium process under
    ``root`` (this process by default) used so far, by ``"process-kind thread-name"``
    (the kernel's thread names, 15 characters; threads and processes of one name summed).
    Every thread of the browser, the audio service's included, which a trace leaves out;
    read from ``/proc`` (Linux), in the kernel's clock ticks (10 ms)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat(entry / "stat")[1])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
    under = {os.getpid() if root is None else root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in under and pid not in under:
                under.add(pid)
                grew = True
    tick = os.sysconf("SC_CLK_TCK")
    spent: dict[str, float] = defaultdict(float)
    for pid in under:
        try:
            kind = _kind(pid)
            if kind is None:
                continue
            for task in Path(f"/proc/{pid}/task").iterdir():
                name = (task / "comm").read_text(encoding="utf-8").strip()
                fields = _stat(task / "stat")
                spent[f"{kind} {name}"] += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return dict(spent)


def spent_since(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """What each thread spent between two `browser_cpu` readings, heaviest first (a
    thread that ended meanwhile is not counted)."""
    spent = {name: after[name] - before.get(name, 0.0) for name in after}
    return dict(sorted(spent.items(), key=lambda item: -item[1]))
