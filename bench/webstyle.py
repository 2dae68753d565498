"""How much of the browser table each server message restyles and lays out.

Run from the repository root (needs the system's Chromium)::

    .venv/bin/python -m bench.webstyle [--events 300] [--players N] [--deal N]
        [--reduced-motion] [--page REV] [--keep FILE]

The page plays the computer on quick auto-play, as in ``python -m bench.web``'s "event to
table" part (the page forces style and layout at each message while measuring), with a
Chromium trace of ``devtools.timeline``: deal ``--deal`` (default 1) again and again
("Same deal again"), so every page meets the same messages, two at the table on a 390x844
phone, or ``--players 3`` or ``4`` (the computer in every other seat) on a 320x640 one.
For each message's handler (``ws.onmessage``) this sums, from the trace, the
``UpdateLayoutTree`` events' ``elementCount`` (the elements whose style was recalculated)
and the ``Layout`` events' ``dirtyObjects`` (the layout objects laid out again), with the
``totalObjects`` of its last layout (``--keep FILE`` keeps the trace). Unlike the
milliseconds, these counts do not depend on the machine's load: the same page and the
same messages give the same figures, so two pages can be compared on a busy machine
(``--page REV`` serves the page of git revision REV). Printed: the median and p99 over
the messages, then by message type (docs/performance.md, "The browser table").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, ViewportSize, async_playwright

from bench.web import Following, percentile, play_on, serving
from tests.e2e._browser import ARGS, CHROMIUM, PHONE, Tab, create_room

SMALL_PHONE: ViewportSize = {"width": 320, "height": 640}
DEAL = 1
"""The deal played, again and again: the same messages for every page measured."""


@dataclass(frozen=True)
class Work:
    """What one message's handler made the browser recalculate."""

    styled: int
    """Elements restyled (``UpdateLayoutTree`` ``elementCount``, summed)."""
    laid_out: int
    """Layout objects laid out (``Layout`` ``dirtyObjects``, summed)."""
    total: int
    """Layout objects in the tree at the handler's last layout (``totalObjects``)."""


def _data(event: dict[str, Any], key: str) -> dict[str, Any]:
    found = event.get("args", {}).get(key, {})
    return found if isinstance(found, dict) else {}


def handler_work(trace: Path) -> list[Work]:
    """Each ``ws.onmessage`` call's style and layout work in a Chromium trace, in the order
    the calls ran: the ``UpdateLayoutTree`` and ``Layout`` events on its thread inside it."""
    found = json.loads(trace.read_text(encoding="utf-8"))
    events: list[dict[str, Any]] = found["traceEvents"] if isinstance(found, dict) else found
    calls = sorted(
        (
            e
            for e in events
            if e.get("name") == "FunctionCall"
            and "dur" in e
            and str(_data(e, "data").get("functionName", "")).endswith("onmessage")
        ),
        key=lambda e: e["ts"],
    )
    inner = sorted(
        (e for e in events if e.get("name") in ("UpdateLayoutTree", "Layout") and "dur" in e),
        key=lambda e: e["ts"],
    )
    work = []
    for call in calls:
        start, end = call["ts"], call["ts"] + call["dur"]
        styled = laid = total = 0
        for event in inner:
            if event["tid"] != call["tid"] or not start <= event["ts"] < end:
                continue
            if event["name"] == "UpdateLayoutTree":
                styled += int(event["args"].get("elementCount", 0))
            else:
                begin = _data(event, "beginData")
                laid += int(begin.get("dirtyObjects", 0))
                total = int(begin.get("totalObjects", total))
        work.append(Work(styled, laid, total))
    return work


def summary(label: str, values: list[int]) -> str:
    """``label``: median and p99 of ``values``."""
    floats = [float(v) for v in values]
    return (
        f"{label} median {statistics.median(floats):.0f}, p99 {percentile(floats, 0.99):.0f},"
        f" max {max(values)}"
    )


@dataclass(frozen=True)
class Setting:
    """What is measured: ``events`` messages of deal ``deal`` at a table of ``players``,
    ``reduced``: with ``prefers-reduced-motion`` (no flip, no flight, no glow fading)."""

    events: int
    players: int
    deal: int
    reduced: bool


async def at_a_table(browser: Browser, url: str, trace: Path, setting: Setting) -> Following:
    """The ``setting``'s messages of quick games (the computer in every other seat; a
    390x844 phone, 320x640 for three or four), traced: the same deal again until enough
    came, so that every page meets the same messages."""
    events, players = setting.events, setting.players
    viewport = PHONE if players == 2 else SMALL_PHONE
    context = await browser.new_context(
        viewport=viewport, reduced_motion="reduce" if setting.reduced else "no-preference"
    )
    await context.add_init_script("window.__warTiming = []; window.__warParts = [];")
    page = await context.new_page()
    await page.goto(url)
    await browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline"])
    tab = Tab(page, context)
    await create_room(tab, "Bench", players=players, computers=players - 1, deal=setting.deal)
    await page.click("#auto label:has-text('quick')")
    await play_on(page, events, "#rematch-same")
    parts = await page.evaluate("window.__warParts")
    await browser.stop_tracing()
    await context.close()
    return Following([], parts[:events], [])


async def measure(
    setting: Setting, page: str | None, keep: Path | None
) -> tuple[list[Work], list[str]]:
    """Each message's work, and its type, over the ``setting``'s messages."""
    with tempfile.TemporaryDirectory() as folder:
        trace = keep or Path(folder) / "trace.json"
        async with serving(None, page) as url, async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            following = await at_a_table(browser, url, trace, setting)
            await browser.close()
        work = handler_work(trace)
    return work, [str(row[0]) for row in following.parts]


def report(work: list[Work], kinds: list[str]) -> None:
    """Print the figures over every message and by message type."""
    print(f"{len(work)} messages")
    print(summary("elements restyled per message:", [w.styled for w in work]))
    print(summary("layout objects laid out per message:", [w.laid_out for w in work]))
    print(summary("layout objects in the tree:", [w.total for w in work]))
    by_type: dict[str, list[Work]] = {}
    for done, kind in zip(work, kinds, strict=False):
        by_type.setdefault(kind, []).append(done)
    for kind, seen in sorted(by_type.items(), key=lambda item: -len(item[1])):
        styled = statistics.median([w.styled for w in seen])
        laid = statistics.median([w.laid_out for w in seen])
        print(f"  {kind}: {len(seen)} messages, restyled median {styled:.0f}, laid out {laid:.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.webstyle", description=__doc__)
    parser.add_argument("--events", type=int, default=300, help="messages measured (default 300)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="at the table")
    parser.add_argument("--deal", type=int, default=DEAL, help=f"the deal (default {DEAL})")
    parser.add_argument("--reduced-motion", action="store_true", help="prefers-reduced-motion")
    parser.add_argument("--page", default=None, help="serve the page of this git revision")
    parser.add_argument("--keep", type=Path, default=None, help="keep the trace in this file")
    args = parser.parse_args(argv)
    setting = Setting(args.events, args.players, args.deal, args.reduced_motion)
    work, kinds = asyncio.run(measure(setting, args.page, args.keep))
    report(work, kinds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
