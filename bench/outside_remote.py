"""The remote relative's figures through ``war-server --outside``, in the network lab.

Run as root from the repository root (network namespaces; tests/lab/setup.sh installs
miniupnpd, pebble, nftables; Chromium from ``apt-get install chromium``)::

    .venv/bin/python -m bench.outside_remote [--flips 200] [--rtt-ms 80] [--loss 1]
        [--rate-mbit 10] [--seed 30] [--detail] [--nice -10] [--second-path never]

It prints issue 30's two figures, with the link's settings and the machine's load:

    link opened -> seated at the table: 1234 ms (goal 2000 ms)
    flip, last tap -> every remote screen, p99 of 200: 97 ms (goal 95 ms)

and with ``--detail`` their parts: the files the page loaded (when, over how many new
connections), its WebSockets, the flips' spread, the slowest ones and whether the link
dropped a packet during each, and what the emulated link itself adds (each packet's
lateness, a UDP echo's round trip).

What it does (tests/lab/README.md describes the lab):

1. builds the lab with pebble, starts ``war-server --host 0.0.0.0 --outside`` in the home
   (the real router, miniupnpd; the real test CA) and times its start to the line
   ``outside url=https://203.0.113.2/``;
2. shapes the internet side's link with ``tc netem`` (``--rtt-ms`` of delay on the
   internet namespace's interface: its packets to the router, so the round trip grows by
   exactly that; ``--loss`` percent of them lost; ``--rate-mbit``), or where the kernel
   has no netem with `bench._linkemu` (the same, in a real-time thread of its own);
3. Grandma creates a room from the house (a protocol client on the LAN);
4. the relative's Chromium on the internet side (trusting pebble's root through an NSS
   database, no certificate-error flag, an empty cache) opens the outside link: **link to
   table**, the time from asking for the link to the relative's own seat on the table,
   the name typed in no time (the join page's time is in ``--detail``);
5. ``--flips`` times: Grandma turns over first, then the relative taps; **tap to flip**
   is the time in the relative's page from its tap to the table showing the flip (the
   table's ``data-step`` moving on), which is a full round trip through the server: the
   slowest path of a flip to a remote screen (with netem's delay on what the relative
   sends, Grandma's tap reaches the relative's screen in the server's time alone).

The relative is outside the house, so the server offers the page a second path (PROTOCOL.md
§11: a second connection carrying the same messages, the first copy of each counting):
``--second-path never`` measures one connection, as before it; the report says how many
second paths the server's log attached.

Everything it starts runs at niceness ``--nice`` (-10), so that other work on a shared
machine disturbs the server and the browser less; the figures still depend on the CPU.

Goal (issue 30): the table within 2 s of opening the link, and the flip at p99 within the
round trip + 15 ms. Figures: docs/performance.md, "The remote relative".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright
from websockets.asyncio.client import connect

from protocol import (
    CreateRoom,
    Ready,
    ReadyChanged,
    ServerMessage,
    Welcome,
    decode_server_message,
    encode,
)

WAR_SERVER = Path(sys.executable).parent / "war-server"
CHROMIUM = Path(os.environ.get("WAR_TEST_CHROMIUM", "/usr/bin/chromium"))
HOME_IP, WAN_IP, NET_IP = "192.168.77.20", "203.0.113.2", "203.0.113.100"
_TAP = "() => { const t = performance.now(); document.getElementById('turn').click(); return t; }"
_STEP_WATCH = """() => {
  window.__flips = [];
  const table = document.getElementById("table");
  new MutationObserver(() => window.__flips.push([+table.dataset.step, performance.now()]))
    .observe(table, { attributes: true, attributeFilter: ["data-step"] });
}"""


_FILES = """() => performance.getEntriesByType("resource").map((e) => ({
  name: e.name.replace(/^.*\\/v\\/[0-9a-f]+\\//, ""), start: e.startTime, end: e.responseEnd,
  fresh: e.connectEnd > e.connectStart, protocol: e.nextHopProtocol,
}))"""
_MARKS = """(() => {
  const marks = (window.__marks = {});
  const watch = new MutationObserver(() => {
    const invite = document.getElementById("invite");
    if (marks.invite === undefined && invite && !invite.hidden && invite.getClientRects().length)
      marks.invite = performance.now();
    if (marks.seated === undefined && document.querySelector(".seat.me")) {
      marks.seated = performance.now();
      watch.disconnect();
    }
  });
  watch.observe(document, { subtree: true, childList: true, attributes: true });
  document.addEventListener("submit", () => { marks.submit ??= performance.now(); }, true);
})()"""
"""In the page, from its navigation's start (``performance.now()``): when the join page
showed, when the name was sent, when the relative's seat appeared. The figures come from
these, so the driver's own time (Playwright's commands, on a busy machine tens or
hundreds of milliseconds each) is not counted."""
_SOCKET_WATCH = """(() => {
  window.__sockets = [];
  const Original = window.WebSocket;
  window.WebSocket = class extends Original {
    constructor(...args) {
      super(...args);
      const at = { made: performance.now() };
      window.__sockets.push(at);
      this.addEventListener("open", () => { at.open = performance.now(); });
    }
  };
})()"""


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _server(
    lab: Any, folder: Path, second_path: str | None
) -> tuple[subprocess.Popen[bytes], float, str, Queue[dict[str, Any]]]:
    """war-server in the home (``--second-path`` if given); the seconds to its outside
    line, the URL, and its later log lines as they come."""
    args = [
        "ip", "netns", "exec", lab.ns("home"), str(WAR_SERVER), "--host", "0.0.0.0",
        "--outside", "--acme-directory", lab.acme_directory,
        "--acme-ca-file", str(lab.acme_ca_file), "--db", str(folder / "war.sqlite3"),
        "--log-format", "json",
    ]  # fmt: skip
    if second_path is not None:
        args += ["--second-path", second_path]
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    lines: Queue[dict[str, Any]] = Queue()

    def read() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            try:
                lines.put(json.loads(raw))
            except ValueError:
                continue

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=120)
        except Empty:
            process.terminate()
            raise SystemExit("the server printed no outside line within 120 s") from None
        if line.get("event") == "outside":
            if "url" not in line:
                process.terminate()
                raise SystemExit(f"the outside failed: {line}")
            return process, time.monotonic() - started, str(line["url"]), lines


def _nss_home(folder: Path, root: bytes) -> Path:
    home = folder / "relative-home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    (folder / "root.pem").write_bytes(root)
    certutil = shutil.which("certutil") or "certutil"
    subprocess.run([certutil, "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
    subprocess.run(
        [certutil, "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "pebble", "-i",
         str(folder / "root.pem")],
        check=True,
    )  # fmt: skip
    return home


async def _recv(ws: Any) -> ServerMessage:
    return decode_server_message(await ws.recv())


async def _measure(lab: Any, args: argparse.Namespace, folder: Path, url: str) -> dict[str, Any]:
    with lab.inside("home"):
        grandma = await connect(f"ws://{HOME_IP}:8765/", compression=None)
    await grandma.send(encode(CreateRoom(name="Grandma")))
    welcome = None
    while not isinstance(welcome, Welcome):
        welcome = await _recv(grandma)
    link = f"{url}#join={welcome.player_code}"
    home = _nss_home(folder, lab.pebble_root())
    with lab.inside("net"):
        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu"],
            env={**os.environ, "HOME": str(home)},
        )
    try:
        context = await browser.new_context(reduced_motion="reduce")
        page = await context.new_page()
        await page.add_init_script(_SOCKET_WATCH)
        await page.add_init_script(_MARKS)
        await page.goto(link)
        await page.locator("#invite").wait_for(state="visible")
        timing = await page.evaluate(
            "() => { const n = performance.getEntriesByType('navigation')[0];"
            " return [n.connectEnd, n.responseEnd, n.domContentLoadedEventEnd, n.loadEventEnd,"
            " performance.now()]; }"
        )
        files = await page.evaluate(_FILES)
        await page.fill("#invite-name", "Ben")
        await page.click("#invite-form button[type=submit]")
        await page.locator(".seat.me").wait_for(state="visible")
        marks = await page.evaluate("() => window.__marks")
        join_page = marks["invite"] / 1000
        table = join_page + (marks["seated"] - marks["submit"]) / 1000
        sockets = await page.evaluate("() => window.__sockets")
        await page.evaluate(_STEP_WATCH)
        flips: list[float] = []
        windows: list[tuple[float, float]] = []
        for _ in range(args.flips):
            button = page.locator("#turn[aria-disabled=false]")
            try:
                await button.wait_for(timeout=20_000)
            except PlaywrightError:
                phase = await page.evaluate("() => document.getElementById('seats').dataset.phase")
                if phase == "over":  # the game ended: report what was measured
                    break
                raise SystemExit(
                    f"the page's Turn over stayed off for 20 s after {len(flips)} flips, the "
                    f"game not over (phase {phase})"
                ) from None
            step = int(await page.locator("#table").get_attribute("data-step") or 0)
            await grandma.send(encode(Ready(step=step)))
            while True:  # her ready is in before the relative taps
                message = await _recv(grandma)
                if isinstance(message, ReadyChanged) and message.seat == 0 and message.ready:
                    break
            began = time.monotonic()
            tapped = await page.evaluate(_TAP)
            try:
                await page.wait_for_function(
                    "(step) => window.__flips.some(([s]) => s > step)", arg=step, polling=5
                )
            except PlaywrightError:
                seen = await page.evaluate("() => window.__flips.slice(-5)")
                raise SystemExit(f"no flip after step {step}; the page's last: {seen}") from None
            shown = await page.evaluate("(step) => window.__flips.find(([s]) => s > step)[1]", step)
            flips.append(shown - tapped)
            windows.append((began, time.monotonic()))
        return {
            "join_page_s": join_page,
            "table_s": table,
            "flips_ms": flips,
            "windows": windows,
            "timing": timing,
            "files": files,
            "sockets": sockets,
        }
    finally:
        await browser.close()
        await playwright.stop()
        await grandma.close()


class Link:
    """How the internet side is shaped, and what the user-space link did (`report`)."""

    def __init__(self, how: str, pipe: Any = None) -> None:
        self.how = how
        self._pipe = pipe

    def report(self) -> Any:
        """The emulator's `bench._linkemu.LinkReport` so far (None under netem)."""
        if self._pipe is None:
            return None
        self._pipe.send("report")
        return self._pipe.recv()


def _shape(lab: Any, args: argparse.Namespace) -> Link:
    """Shape the internet side: tc netem on its interface, or where the kernel has no
    netem, `bench._linkemu.LinkEmulator` (delay, loss, rate upstream) with tc tbf on the
    router's WAN (rate downstream). Says which."""
    netem = [
        "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", f"{args.rtt_ms:g}ms",
        "loss", f"{args.loss:g}%", "rate", f"{args.rate_mbit:g}mbit",
    ]  # fmt: skip
    try:
        lab.run("net", *netem)
    except RuntimeError:
        pass
    else:
        return Link("tc netem on the internet side")
    from bench._linkemu import LinkEmulator  # noqa: PLC0415

    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()

    def emulate() -> None:  # its own process: the browser's driver must not slow it
        link = LinkEmulator(
            lab, "net", WAN_IP, NET_IP, delay=args.rtt_ms / 1000, loss=args.loss / 100,
            rate_bits=args.rate_mbit * 1e6, seed=args.seed,
        )  # fmt: skip
        link.start()
        theirs.send("started")
        while theirs.recv() == "report":
            theirs.send(link.report())

    process = context.Process(target=emulate, daemon=True)
    process.start()
    if not ours.poll(30) or ours.recv() != "started":
        raise SystemExit("the link emulator did not start")
    lab.run(
        "router", "tc", "qdisc", "add", "dev", "wan0", "root", "tbf",
        "rate", f"{args.rate_mbit:g}mbit", "burst", "32kbit", "latency", "400ms",
    )  # fmt: skip
    return Link(
        "no netem in this kernel: a user-space link (bench/_linkemu.py) delays, drops and "
        "paces what the internet side sends; tc tbf paces what the router sends it",
        ours,
    )


def _echo(lab: Any, count: int) -> list[float]:
    """Round trips (ms) of ``count`` UDP echoes from the internet side to the router's WAN
    address over the shaped link (lost ones left out), both ends real-time where
    allowed: what the link alone adds, as ``ping`` would say (this machine has none)."""
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()

    def run() -> None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(40))
        with lab.inside("router"):
            server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        server.bind((WAN_IP, 0))
        with lab.inside("net"):
            client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        client.settimeout(1.0)

        def answer() -> None:
            with contextlib.suppress(OSError):
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(40))
            while True:
                data, peer = server.recvfrom(64)
                server.sendto(data, peer)

        threading.Thread(target=answer, daemon=True).start()
        times = []
        for i in range(count):
            sent = time.monotonic()
            client.sendto(i.to_bytes(4, "big"), server.getsockname())
            try:
                while int.from_bytes(client.recv(64), "big") != i:
                    pass
            except TimeoutError:
                continue
            times.append((time.monotonic() - sent) * 1000)
            time.sleep(0.005)
        theirs.send(times)

    process = context.Process(target=run, daemon=True)
    process.start()
    times: list[float] = ours.recv() if ours.poll(count * 1.1 + 30) else []
    process.join(5)
    return times


def _spread(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):.1f}, p99 {_percentile(values, 0.99):.1f}, "
        f"max {max(values):.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flips", type=int, default=200)
    parser.add_argument("--rtt-ms", type=float, default=80.0)
    parser.add_argument("--loss", type=float, default=1.0, help="percent")
    parser.add_argument("--rate-mbit", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=30, help="the emulated loss's random seed")
    parser.add_argument(
        "--detail", action="store_true", help="also the parts: files, sockets, the link's own"
    )
    parser.add_argument(
        "--second-path",
        choices=("outside", "always", "never"),
        help="the server's --second-path (default: its own, outside: the relative, outside "
        "the house, is offered a second connection); never: one connection, as before",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=-10,
        help="the niceness of everything the bench starts (the server, the browser): other "
        "work on a shared machine then disturbs them less; 0 to leave it",
    )
    args = parser.parse_args(argv)
    if args.nice:
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)  # inherited by every child
    from tests.lab.lab import Lab  # noqa: PLC0415 (the lab is the tests' own)

    load_before = os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="war-outside-bench-"))
    lab = Lab("public", pebble=True).up()
    server = None
    echoes: list[float] = []
    try:
        server, to_url, url, logged = _server(lab, folder, args.second_path)
        link = _shape(lab, args)
        if args.detail:
            echoes = _echo(lab, 100)
        found = asyncio.run(_measure(lab, args, folder, url))
        report = link.report()
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        lab.down()
        shutil.rmtree(folder, ignore_errors=True)
    load_after = os.getloadavg()
    flips = found["flips_ms"]
    paths = _second_paths(logged)
    print(
        f"the remote relative (issue 30): {args.rtt_ms:g} ms round trip, {args.loss:g} % loss, "
        f"{args.rate_mbit:g} Mbit/s; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after, {os.cpu_count()} cores; server and browser at nice "
        f"{os.getpriority(os.PRIO_PROCESS, 0)}"
    )
    print(
        f"second path: --second-path {args.second_path or 'outside (the default)'}; attached "
        f"{paths.get('second_path_attached', 0)} times, refused "
        f"{paths.get('second_path_refused', 0)}"
    )
    print(f"link opened -> seated at the table: {found['table_s'] * 1000:.0f} ms (goal 2000 ms)")
    if flips:
        print(
            f"flip, last tap -> every remote screen, p99 of {len(flips)}: "
            f"{_percentile(flips, 0.99):.0f} ms (goal {args.rtt_ms + 15:g} ms)"
        )
    if args.detail:
        _details(args, link, found, report, echoes, to_url, url)
    return 0


def _second_paths(logged: Queue[dict[str, Any]]) -> dict[str, int]:
    """How often the server's log said a second path was attached, closed, refused."""
    counts: dict[str, int] = {}
    while True:
        try:
            line = logged.get_nowait()
        except Empty:
            return counts
        event = str(line.get("event", ""))
        if event.startswith("second_path_"):
            counts[event] = counts.get(event, 0) + 1


def _details(
    args: argparse.Namespace,
    link: Link,
    found: dict[str, Any],
    report: Any,
    echoes: list[float],
    to_url: float,
    url: str,
) -> None:
    print(f"\nshaping: {link.how}")
    print(f"outside url printed {to_url:.1f} s after start: {url}")
    print(f"link opened -> the join page: {found['join_page_s'] * 1000:.0f} ms")
    connected, response, ready, loaded, shown = found["timing"]
    print(
        f"in the page, from navigation start: TLS connected {connected:.0f} ms, page received "
        f"{response:.0f} ms, DOM ready {ready:.0f} ms, loaded {loaded:.0f} ms, join page "
        f"shown by {shown:.0f} ms"
    )
    files = found["files"]
    fresh = sum(1 for f in files if f["fresh"])
    print(
        f"files after the page: {len(files)}, over {fresh} new connections "
        f"({', '.join(sorted({f['protocol'] for f in files}))}); the last done at "
        f"{max((f['end'] for f in files), default=0):.0f} ms"
    )
    for f in sorted(files, key=lambda f: f["start"]):
        print(f"  {f['start']:7.0f} {f['end']:7.0f} {'new' if f['fresh'] else '   '} {f['name']}")
    for at in found["sockets"]:
        opened = f"open at {at['open']:.0f} ms" if "open" in at else "not open by then"
        print(f"  WebSocket made at {at['made']:.0f} ms, {opened}")
    flips = found["flips_ms"]
    if flips:
        print(f"flips: {_spread(flips)} (goal p99 <= {args.rtt_ms + 15:g} ms)")
    if report is not None:
        print(
            f"the user-space link: {report.sent} packets sent, {report.dropped} dropped "
            f"({'real-time' if report.realtime else 'NOT real-time'}); each left after its "
            f"due time by {_spread([x * 1000 for x in report.late])}"
        )
        lossy = [
            any(began <= at <= ended for at in report.drops) for began, ended in found["windows"]
        ]
        clean = [ms for ms, lost in zip(flips, lossy, strict=True) if not lost]
        slowest = sorted(zip(flips, lossy, strict=True), reverse=True)[:6]
        print(
            "the slowest flips: "
            + ", ".join(f"{ms:.0f} ms{' (a packet lost)' if lost else ''}" for ms, lost in slowest)
        )
        if clean:
            print(
                f"flips during which the link dropped no packet ({len(clean)} of "
                f"{len(flips)}): {_spread(clean)}"
            )
        met = sorted((ms for ms, lost in zip(flips, lossy, strict=True) if lost), reverse=True)
        if met:
            print(
                f"flips during which the link dropped a packet ({len(met)}): "
                + ", ".join(f"{ms:.0f}" for ms in met)
                + " ms"
            )
    if echoes:
        print(f"UDP echo over the link, {len(echoes)} answered of 100: {_spread(echoes)}")


if __name__ == "__main__":
    raise SystemExit(main())
