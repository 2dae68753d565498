"""Browser table benchmark: what the page weighs, how soon it shows, how fast it follows.

Run from the repository root (needs the system's Chromium: apt-get install chromium)::

    .venv/bin/python -m bench.web [--loads 20] [--events 500]

Against a real ``war-server`` child on loopback, in headless Chromium driven by Playwright:

1. **Transfer**: every byte of the page as the browser loads it, uncompressed, as served,
   by the browser's language, where it loads the most: a page that is no secure context
   (plain http from a LAN address, the family's usual table: the browser reaches the
   server by a home name, ``LAN_NAME``, which it maps to loopback, so its origin is no
   secure context as a LAN address's is not, and no packet leaves the machine), opened
   from a players' link (it preloads the look-up and the fair deal's module), whose
   player sits down (the fallback SHA-256, ``js/sha256.js`` and the vendored fast-sha256,
   hashes the seed's commitment without ``crypto.subtle``) at a table of three that
   still invites (the QR code's module and the vendored lean-qr encoder). Then the start
   page alone, over the same address. Budget: 200 KiB where it loads the most (sounds
   are made in the page: no files); tests/server/adapters/test_web.py adds up the same
   bytes.
2. **First render**: ``--loads`` cold loads, each in a fresh browser context (no cache):
   navigation start to the first contentful paint, and to the ``table-ready`` mark the
   page sets once its scripts ran and the start screen is up. Budget: 500 ms.
3. **Event to table**: the page plays the computer on quick auto-play (a rematch when a
   game ends first); for ``--events`` server messages, the time from the message's
   arrival (its ``MessageEvent.timeStamp``) until the table is redrawn, style and layout
   included (the page forces them while measuring). Budget: within one frame, 16 ms, at
   p99. Playwright is asked every ``POLL_MS`` whether enough messages came, not at every
   animation frame (its default), which would make the page draw 60 frames a second.
   On a shared machine these are wall-clock times, preemption included: ``--trace FILE``
   also records a Chromium trace of this part (open it in DevTools' Performance panel)
   and prints the main thread's CPU time per message (and by message type), which the
   machine's load inflates far less (no waiting for a core), and every browser thread's
   CPU per message (the compositor, viz, the raster workers, the audio thread…: the
   trace's ``thread_cpu``; and as the kernel counted it, the audio service's included:
   ``browser_cpu``, bench/_threads.py). ``--muted`` switches the page's sound off,
   ``--reduced-motion`` asks for reduced motion.

``--war-server CMD`` measures the page another checkout serves (a script that starts
that checkout's ``war-server``); ``--page REV`` has this checkout's server serve the page
(``client/web``) of git revision REV instead. ``--against REV --runs N`` measures this
page and REV's alternately (this, REV, this, REV…, each run a fresh server and browser
under the same load), ``--runs`` times each, and prints every run with the machine's load
average, then the medians: on a shared machine, the way to compare two pages.
``--against muted`` and ``--against reduced-motion`` compare the page with itself muted or
with reduced motion; ``--against`` may be given more than once. The CPU per message is
load-free only in part: a starved browser draws fewer frames, so compare alternated runs. The page
also says where each message's time went (``window.__warParts``, session.js): the decoding
and reducer, the sentences and the log, the sounds, the redraw, the forced style and
layout; the slowest 1% of messages are printed part by part. The budgets are checked here
and printed, never in the test run (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

from bench._server import REPO, ServerProcess, war_server_spec
from bench._threads import CATEGORIES, browser_cpu, spent_since, thread_cpu
from server.adapters.web.compact import MINIFIER
from server.adapters.web.files import WebFiles
from tests.e2e._browser import ARGS, CHROMIUM, PHONE

PAGE_BUDGET = 200 * 1024
RENDER_BUDGET_MS = 500.0
FRAME_BUDGET_MS = 16.0
POLL_MS = 100


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


LOCALES = ("es-ES", "fr-FR", "de-DE", "pl-PL")
"""The other languages of the catalogs (the first load above is in English)."""

LAN_NAME = "war.home.arpa"
"""The home name the browser reaches the server by for the transfer (``--allowed-hosts``):
Chromium maps it to loopback (``--host-resolver-rules``); its origin is no secure context."""


PRELOADED = """() => ["/js/lookup.js", "/js/fair.js"].every((name) =>
  performance.getEntriesByType("resource").some((e) => e.name.endsWith(name)))"""
"""Whether what a players' link preloads (js/address.js ``JOIN_NEEDS``) came."""
BROWSER_ARGS = [*ARGS, f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"]
"""Chromium's flags for the bench: `LAN_NAME` goes to loopback."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """Bytes of every response, by path: the start page's first load, then a players'
    link's page on the home network, before sitting down (what it preloads included) and
    what sitting down at a table that still invites adds."""

    start: dict[str, int]
    first: dict[str, int]
    seated: dict[str, int]

    @property
    def total(self) -> int:
        """The players' link's page before sitting down."""
        return sum(self.first.values())

    @property
    def heaviest(self) -> int:
        """Everything the players' link's page loads, seated at a table that invites."""
        return self.total + sum(self.seated.values())


async def _weighed(page: Any, origin: str) -> tuple[dict[str, int], list[Any]]:
    """Record the bytes of every response ``page`` gets, by path; the dict and the list of
    pending reads (gather them before reading the dict)."""
    sizes: dict[str, int] = {}
    bodies: list[Any] = []

    async def record(response: Any) -> None:
        body = await response.body()
        sizes[response.url.removeprefix(origin)] = len(body)

    page.on("response", lambda response: bodies.append(asyncio.ensure_future(record(response))))
    return sizes, bodies


async def transfer(browser: Browser, url: str, locale: str = "en-GB") -> Transfer:
    """Bytes of every response the page loads, by path, for a browser that prefers
    ``locale``, over ``LAN_NAME``: the start page; then a players' link of a room for three
    (made on loopback), before and after its player sits down."""
    port = url.rstrip("/").rsplit(":", 1)[1]
    origin = f"http://{LAN_NAME}:{port}"
    ready = "() => performance.getEntriesByName('table-ready').length > 0"
    context = await browser.new_context(viewport=PHONE, locale=locale)
    page = await context.new_page()
    sizes, bodies = await _weighed(page, origin)
    await page.goto(origin + "/", wait_until="load")
    await page.wait_for_function(ready)
    await asyncio.gather(*bodies)
    start = dict(sizes)
    await context.close()
    host = await browser.new_context(viewport=PHONE)
    hosting = await host.new_page()
    await hosting.goto(url)
    await hosting.fill("#start-name", "Bench")
    await hosting.click("summary[data-t='page.create']")
    await hosting.check("#create-form input[name=players][value='3']")
    await hosting.click("#create-form button[type=submit]")
    await hosting.locator("#qr svg").wait_for()
    link = await hosting.locator("#join-link").inner_text()
    context = await browser.new_context(viewport=PHONE, locale=locale)
    page = await context.new_page()
    sizes, bodies = await _weighed(page, origin)
    await page.goto(f"{origin}/#{link.split('#', 1)[1]}", wait_until="load")
    await page.wait_for_function(ready)
    await page.wait_for_function(PRELOADED)  # what a players' link preloads came
    await asyncio.gather(*bodies)
    first = dict(sizes)
    await page.fill("#invite-name", "Relative")
    await page.click("#invite-form button[type=submit]")
    await page.locator("#qr svg").wait_for()
    await asyncio.gather(*bodies)
    if await page.evaluate("isSecureContext"):
        raise RuntimeError(f"{origin} is a secure context: the fallback would not be weighed")
    seated = {path: size for path, size in sizes.items() if path not in first}
    await context.close()
    await host.close()
    return Transfer(start, first, seated)


async def first_render(browser: Browser, url: str, loads: int) -> tuple[list[float], list[float]]:
    """Milliseconds to the first contentful paint and to ``table-ready``, per cold load."""
    paints: list[float] = []
    ready: list[float] = []
    for _ in range(loads):
        context = await browser.new_context(viewport=PHONE)
        page = await context.new_page()
        await page.goto(url)
        await page.wait_for_function(
            "() => performance.getEntriesByName('first-contentful-paint').length > 0"
            " && performance.getEntriesByName('table-ready').length > 0"
        )
        paint, mark = await page.evaluate(
            "[performance.getEntriesByName('first-contentful-paint')[0].startTime,"
            " performance.getEntriesByName('table-ready')[0].startTime]"
        )
        paints.append(float(paint))
        ready.append(float(mark))
        await context.close()
    return paints, ready


PARTS = ("decode and reducer", "sentences and log", "sounds", "redraw", "style and layout")
"""What session.js times of each message (``window.__warParts``), in order."""


@dataclass
class Following:
    """What `event_to_table` measured: each message's milliseconds to the redrawn table,
    the parts of each (its type, then one figure per `PARTS`; empty for a page that does
    not say), the handler's main-thread CPU milliseconds (with a trace), and every
    browser thread's CPU milliseconds per message over the traced play (`thread_cpu`
    divided by the handler calls traced), and every browser thread's CPU milliseconds per
    message timed as the kernel counted it (`browser_cpu`)."""

    timings: list[float]
    parts: list[list[Any]]
    cpu: list[float]
    threads: dict[str, float] = field(default_factory=dict)
    kernel: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Variant:
    """A page as measured: this checkout's (``page`` None) or git revision ``page``'s,
    with the sound switched off (``muted``, remembered as the page's own switch does) or
    ``prefers-reduced-motion`` (``reduced``: no flip, no flight, no glow fading)."""

    label: str = "this"
    page: str | None = None
    muted: bool = False
    reduced: bool = False


async def play_on(page: Page, events: int, rematch: str = "#rematch-new") -> None:
    """Wait until the page timed ``events`` messages, with a rematch (the ``rematch``
    button) whenever a game ends first."""
    while await page.evaluate("window.__warTiming.length") < events:
        await page.wait_for_function(
            f"() => window.__warTiming.length >= {events}"
            " || !document.getElementById('over').hidden",
            timeout=600_000,
            polling=POLL_MS,
        )
        if await page.locator("#over").is_visible():  # a short game: play another
            await page.click(rematch)
            await page.locator("#over").wait_for(state="hidden")


async def event_to_table(
    browser: Browser,
    url: str,
    events: int,
    trace: Path | None = None,
    variant: Variant = Variant(),
) -> Following:
    """Milliseconds from each message's arrival to the redrawn table, and where they went;
    with ``trace``, also the main thread's CPU milliseconds of each message's handler and
    every thread's CPU per message."""
    context = await browser.new_context(
        viewport=PHONE, reduced_motion="reduce" if variant.reduced else "no-preference"
    )
    await context.add_init_script("window.__warTiming = []; window.__warParts = [];")
    if variant.muted:
        await context.add_init_script("localStorage.setItem('war.sound', 'off');")
    page = await context.new_page()
    await page.goto(url)
    if trace is not None:
        await browser.start_tracing(page=page, path=str(trace), categories=CATEGORIES)
    before = browser_cpu()
    await page.fill("#start-name", "Bench")
    await page.click("#vs-computer")
    await page.click("#auto label:has-text('quick')")
    await play_on(page, events)
    timings: list[float] = await page.evaluate("window.__warTiming")
    timed = max(1, len(timings))
    kernel = {name: 1000 * s / timed for name, s in spent_since(before, browser_cpu()).items()}
    parts: list[list[Any]] = await page.evaluate("window.__warParts")
    if trace is not None:
        await browser.stop_tracing()
    await context.close()
    if trace is None:
        return Following(timings[:events], parts[:events], [], {}, kernel)
    cpu = handler_cpu(trace)
    threads = {name: ms / max(1, len(cpu)) for name, ms in thread_cpu(trace).items()}
    return Following(timings[:events], parts[:events], cpu, threads, kernel)


def handler_cpu(trace: Path) -> list[float]:
    """The thread time (ms) of every call of the page's WebSocket message handler
    (``ws.onmessage``, connection.js) in a Chromium trace, in the order they ran: decoding,
    drawing, and the style and layout the page forces while measuring, without the time
    the thread waited for a core."""
    found = json.loads(trace.read_text(encoding="utf-8"))
    trace_events: list[dict[str, Any]] = found["traceEvents"] if isinstance(found, dict) else found
    calls = [
        event
        for event in trace_events
        if event.get("name") == "FunctionCall"
        and "tdur" in event
        and str(event.get("args", {}).get("data", {}).get("functionName", "")).endswith("onmessage")
    ]
    return [event["tdur"] / 1000 for event in sorted(calls, key=lambda event: event["ts"])]


def page_env(revision: str, folder: Path) -> dict[str, str]:
    """The environment in which this checkout's ``war-server`` serves the page of git
    ``revision``: its ``client/web`` unpacked under ``folder``, which goes first on the
    server's ``PYTHONPATH`` (the server finds the page through the ``client`` package and
    never imports client code)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, "client/web"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "client" / "__init__.py").write_text("", encoding="utf-8")
    return {"PYTHONPATH": str(folder)}


@contextlib.asynccontextmanager
async def serving(exe: str | None, page: str | None) -> AsyncIterator[str]:
    """A fresh ``war-server`` (its own store) serving this page or ``page``'s; its URL."""
    with tempfile.TemporaryDirectory() as folder:
        env = {} if page is None else page_env(page, Path(folder) / "page")
        extra = ("--allowed-hosts", LAN_NAME)
        spec = war_server_spec(Path(folder) / "bench.sqlite3", exe=exe, env=env, extra=extra)
        async with ServerProcess(spec) as server:
            yield f"http://127.0.0.1:{server.port}/"


async def run(
    loads: int, events: int, exe: str | None, trace: Path | None, variant: Variant
) -> int:
    served = WebFiles.load().page_bytes
    page = variant.page
    async with serving(exe, page) as url, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        english = await transfer(browser, url)
        languages = {"en-GB": english}
        for locale in LOCALES:  # each loads its own catalog, the rest is the same
            languages[locale] = await transfer(browser, url, locale)
        paints, ready = await first_render(browser, url, loads)
        following = await event_to_table(browser, url, events, trace, variant)
        version = browser.version
        await browser.close()
    start = english.start
    ours = sum(size for path, size in start.items() if "/vendor/" not in path)
    total = sum(start.values())
    print(f"Chromium {version}, loopback, a {PHONE['width']}x{PHONE['height']} viewport")
    print(f"the page minified by {MINIFIER} as served")
    if page is not None:
        print(f"the page of {page}, served by this checkout's war-server")
    print(
        f"start page over http://{LAN_NAME} (no secure context), first load:"
        f" {total / 1024:.1f} KiB in {len(start)} files (ours {ours / 1024:.1f} KiB, vendored"
        f" msgpack {(total - ours) / 1024:.1f} KiB; every file served: {served / 1024:.1f} KiB)"
    )
    print(
        "by the browser's language: "
        + ", ".join(
            f"{locale} {sum(t.start.values()) / 1024:.1f} KiB" for locale, t in languages.items()
        )
    )
    seated = english.seated
    print(
        f"a players' link there: {english.total / 1024:.1f} KiB in {len(english.first)} files"
        f" before sitting down; sitting down at a table that invites adds"
        f" {sum(seated.values()) / 1024:.1f} KiB in {len(seated)} files"
        f" ({', '.join(sorted(path.rsplit('/', 1)[1] for path in seated))})"
    )
    heaviest = max(t.heaviest for t in languages.values())
    print(
        "where it loads the most, by the browser's language: "
        + ", ".join(f"{locale} {t.heaviest / 1024:.1f} KiB" for locale, t in languages.items())
        + f" — budget {PAGE_BUDGET // 1024} KiB: {'ok' if heaviest < PAGE_BUDGET else 'OVER'},"
        + f" {(PAGE_BUDGET - heaviest) / 1024:.1f} KiB to spare in the heaviest"
    )
    for label, values in (("first contentful paint", paints), ("table-ready", ready)):
        print(
            f"{label}: median {statistics.median(values):.0f} ms, p95"
            f" {percentile(values, 0.95):.0f} ms, max {max(values):.0f} ms over {len(values)}"
            f" cold loads — budget {RENDER_BUDGET_MS:.0f} ms:"
            f" {'ok' if max(values) <= RENDER_BUDGET_MS else 'OVER'}"
        )
    timings = following.timings
    p99 = percentile(timings, 0.99)
    print(
        f"event to table: median {statistics.median(timings):.2f} ms, p99 {p99:.2f} ms,"
        f" max {max(timings):.2f} ms over {len(timings)} events — budget"
        f" {FRAME_BUDGET_MS:.0f} ms at p99: {'ok' if p99 <= FRAME_BUDGET_MS else 'OVER'}"
    )
    print_parts(following)
    cpu = following.cpu
    if cpu:
        print(
            f"main-thread CPU per message: median {statistics.median(cpu):.2f} ms, p99"
            f" {percentile(cpu, 0.99):.2f} ms, max {max(cpu):.2f} ms over {len(cpu)} handler calls"
            f" (trace: {trace})"
        )
        print_cpu_by_type(cpu, following.parts)
        print_threads("trace", following.threads, MAIN_THREAD)
    print_threads("kernel", following.kernel, KERNEL_MAIN)
    return 0


MAIN_THREAD = "Renderer CrRendererMain"
"""The page's main thread, in a trace (`thread_cpu`)..."""
KERNEL_MAIN = "renderer chromium"
"""... and as the kernel names it (`browser_cpu`: every renderer's main thread)."""
SHOWN_MS = 0.05
"""Threads under this many milliseconds per message are summed into "the rest"."""


def print_threads(source: str, threads: dict[str, float], main: str) -> None:
    """Every thread's CPU per message, the total, and the total outside the page's main
    thread ``main``."""
    total = sum(threads.values())
    print(
        f"browser CPU per message, every thread ({source}): {total:.2f} ms, outside the"
        f" main thread {total - threads.get(main, 0.0):.2f} ms"
    )
    rest = sum(ms for ms in threads.values() if ms < SHOWN_MS)
    for name, ms in threads.items():
        if ms >= SHOWN_MS:
            print(f"  {ms:6.2f} ms  {name}")
    print(f"  {rest:6.2f} ms  the rest")


def print_cpu_by_type(cpu: list[float], parts: list[list[Any]]) -> None:
    """The handler's main-thread CPU by message type (the page's parts name each message,
    in the order the handler ran)."""
    by_type: dict[str, list[float]] = {}
    for spent, row in zip(cpu, parts, strict=False):
        by_type.setdefault(str(row[0]), []).append(spent)
    for name, times in sorted(by_type.items(), key=lambda item: -len(item[1])):
        print(
            f"  {name}: {len(times)} messages, CPU median {statistics.median(times):.2f} ms,"
            f" max {max(times):.2f} ms"
        )


def print_parts(following: Following) -> None:
    """Where the time of a message went: the median of each part over every message and
    over the slowest 1%, then the slowest messages one by one."""
    rows = list(zip(following.timings, following.parts, strict=False))
    if not rows:
        return
    rows.sort(key=lambda pair: pair[0], reverse=True)
    slowest = rows[: max(1, len(rows) // 100)]
    for label, chosen in (("every message", rows), (f"the slowest {len(slowest)}", slowest)):
        medians = [statistics.median(row[1 + i] for _, row in chosen) for i in range(len(PARTS))]
        said = ", ".join(f"{name} {value:.2f}" for name, value in zip(PARTS, medians, strict=True))
        print(f"parts (ms), median over {label}: {said}")
    for total, row in slowest:
        said = ", ".join(f"{name} {value:.1f}" for name, value in zip(PARTS, row[1:], strict=True))
        print(f"  {total:6.1f} ms {row[0]}: {said}")


@dataclass
class Run:
    """One run of an interleaved comparison: which page, the load average, the figures
    (milliseconds)."""

    page: str
    load: float
    paint: float
    ready: float
    median: float
    p99: float
    cpu_median: float
    cpu_p99: float
    threads: dict[str, float]
    kernel: dict[str, float]


async def one_run(variant: Variant, loads: int, events: int, exe: str | None) -> Run:
    """A fresh server and browser: ``loads`` cold loads and ``events`` messages timed, the
    handler's main-thread CPU and every thread's CPU per message from a trace."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "trace.json"
        async with serving(exe, variant.page) as url, async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=BROWSER_ARGS
            )
            paints, ready = await first_render(browser, url, loads)
            following = await event_to_table(browser, url, events, trace, variant)
            await browser.close()
    load = (load + os.getloadavg()[0]) / 2
    timings, cpu = following.timings, following.cpu
    return Run(
        variant.label,
        load,
        statistics.median(paints),
        statistics.median(ready),
        statistics.median(timings),
        percentile(timings, 0.99),
        statistics.median(cpu),
        percentile(cpu, 0.99),
        following.threads,
        following.kernel,
    )


async def compare(
    loads: int, events: int, exe: str | None, variants: list[Variant], runs: int
) -> int:
    """The ``variants``, alternately, ``runs`` times each; every run, then the medians of
    each variant's runs, with every thread's CPU per message."""
    done: list[Run] = []
    print("load: the 1-minute load average; paint, ready: medians of the cold loads;")
    print("event to table: wall clock; cpu: the handler's main-thread CPU (a trace);")
    print("browser, outside: every thread's CPU per message (a trace), and outside the main one;")
    print("kernel: every Chromium thread's CPU per message as the kernel counted it")
    print(
        "run  page       load  paint  ready  median    p99  cpu median  cpu p99  browser"
        "  outside  kernel   (ms)"
    )
    for number in range(runs):
        for variant in variants:
            r = await one_run(variant, loads, events, exe)
            done.append(r)
            total = sum(r.threads.values())
            outside = total - r.threads.get(MAIN_THREAD, 0.0)
            kernel = sum(r.kernel.values())
            print(
                f"{number + 1:3}  {r.page[:9]:9} {r.load:5.2f} {r.paint:6.0f} {r.ready:6.0f}"
                f" {r.median:7.2f} {r.p99:6.2f} {r.cpu_median:11.2f} {r.cpu_p99:8.2f}"
                f" {total:8.2f} {outside:8.2f} {kernel:7.2f}",
                flush=True,
            )
    for variant in variants:
        mine = [r for r in done if r.page == variant.label]
        m = {
            key: statistics.median(getattr(r, key) for r in mine)
            for key in vars(mine[0])
            if key not in ("page", "threads", "kernel")
        }
        print(
            f"median of {len(mine)} runs, {variant.label} (load {m['load']:.2f}): first"
            f" contentful paint {m['paint']:.0f} ms, table-ready {m['ready']:.0f} ms; event to"
            f" table median {m['median']:.2f} ms, p99 {m['p99']:.2f} ms; handler CPU median"
            f" {m['cpu_median']:.2f} ms, p99 {m['cpu_p99']:.2f} ms"
        )
        print_threads("trace", median_threads([r.threads for r in mine]), MAIN_THREAD)
        print_threads("kernel", median_threads([r.kernel for r in mine]), KERNEL_MAIN)
    return 0


def median_threads(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each thread's median over ``runs`` (0 in a run without it), heaviest first."""
    names = {name for run in runs for name in run}
    medians = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}
    return dict(sorted(medians.items(), key=lambda item: -item[1]))


def variant_of(against: str, base: Variant) -> Variant:
    """What ``--against`` names: ``muted`` or ``reduced-motion`` (the ``base`` page so), or
    a git revision's page."""
    if against == "muted":
        return dataclasses.replace(base, label="muted", muted=True)
    if against == "reduced-motion":
        return dataclasses.replace(base, label="reduced", reduced=True)
    return Variant(against, page=against)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__)
    parser.add_argument("--loads", type=int, default=20, help="cold page loads (default 20)")
    parser.add_argument("--events", type=int, default=500, help="messages timed (default 500)")
    parser.add_argument("--war-server", default=None, help="war-server command; none: this venv's")
    parser.add_argument("--page", default=None, help="serve the page of this git revision")
    parser.add_argument("--muted", action="store_true", help="the page's sound switched off")
    parser.add_argument("--reduced-motion", action="store_true", help="prefers-reduced-motion")
    parser.add_argument(
        "--against",
        action="append",
        default=[],
        help="compare with this git revision's page, or 'muted', or 'reduced-motion' (repeatable)",
    )
    parser.add_argument("--runs", type=int, default=5, help="runs of each page with --against")
    parser.add_argument("--trace", type=Path, default=None, help="write a Chromium trace here")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"bench.web: no browser at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 1
    label = "this" if args.page is None else args.page
    base = Variant(label, args.page, args.muted, args.reduced_motion)
    if args.against:
        variants = [base, *(variant_of(against, base) for against in args.against)]
        return asyncio.run(compare(args.loads, args.events, args.war_server, variants, args.runs))
    return asyncio.run(run(args.loads, args.events, args.war_server, args.trace, base))


if __name__ == "__main__":
    sys.exit(main())
