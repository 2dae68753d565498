"""The browser's fair-deal check where families run it: a page served over plain http from
a network name (not a secure context: no ``crypto.subtle``), in Debian's Chromium.

Chromium resolves ``family.lan`` to 127.0.0.1 (``--host-resolver-rules``), so the page is
``http://family.lan:PORT/`` as a phone on the home network sees it, while every packet
stays on loopback. The server is told the name (``--allowed-hosts family.lan``), as a
family that gives it a DNS name at home must: any other name gets HTTP 403. The first
load must not fetch the check's engine or the hashes (it prefetches what the table needs
from its start: fair.js, and fingerprint.js with the rule settings it lists,
engine/rules.js); a dynamic ``import()`` at game over brings them (js/sha256.js adds the
vendored fast-sha256 as a classic script, under the page's Content-Security-Policy), and
they check a revealed deal (the shared vectors of
tests/vectors/engine/checks.json, honest and tampered). A seat's commitment, hashed when
sitting down by the same fallback (js/fair.js), is SHA-256 as Python computes it.

A failed check at a real table: the test stands between the page and the server (Playwright
routes the page's WebSocket through the test, which changes one card of the first flip, as
a cheating server would; nothing of it is in the shipped server) and a page in ``es-ES``
shows the check's red line, saying what did not match in Spanish, with no English left
but the names.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, ViewportSize, WebSocketRoute, async_playwright, expect

from protocol import CardsTurned, decode_server_message, encode
from tests.e2e._browser import ARGS, CHROMIUM, PHONE, open_tab
from tests.e2e._english import english_left, shown_text
from tests.e2e._process import ServerProcess, server_process
from tests.vectors.generate_engine import FOLDER

# One browser for the module (one worker runs it all); each test starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_fairness"),
]

HOST = "family.lan"


@pytest_asyncio.fixture(loop_scope="module")
async def server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path / "war.sqlite3", "--allowed-hosts", HOST) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(f"no browser at {CHROMIUM}: apt-get install chromium")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[*ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"],
        )
        try:
            yield launched
        finally:
            await launched.close()


CHECK = """
async ([vector, names, seeds]) => {
  const base = document.querySelector('script[type="module"]').src.replace(/js\\/main\\.js$/, "");
  const fair = await import(`${base}js/engine/fairness.js`);
  const results = {};
  for (const c of vector.cases.filter((c) => names.includes(c.name))) {
    const s = vector.shown[c.shown];
    const shown = {
      flips: s.flips.map(([step, depth, cards]) => ({ step, depth, cards })),
      takes: s.takes.map(([step, seat, count, counts]) => ({ step, seat, count, counts })),
      end: s.end,
    };
    const mine = c.my_seed === null ? {} : { seat: c.my_seat, seed: fair.parseSeed(c.my_seed) };
    const claim = { ...c, deal: c.deal };
    const r = fair.checkFairDeal(claim, shown, mine);
    results[c.name] = {
      ok: r.ok,
      problem: r.reveal.problem,
      deal: r.reveal.deal === null ? null : String(r.reveal.deal),
      mismatch: r.replay && r.replay.mismatch,
    };
  }
  const seed = fair.newSeed();
  const sitting = await import(`${base}js/fair.js`);
  const commitments = await Promise.all(seeds.map((hex) => sitting.commitment(hex)));
  const rules = vector.cases[0].rules;
  const committed = fair.commitment(seed);
  const seats = Array.from({ length: rules.players }, (_, i) => (i === 0 ? committed : null));
  const fingerprint = fair.fingerprint(1, committed, seats, rules);
  return { results, seed: seed.length, fingerprint, commitments };
}
"""


async def test_a_revealed_deal_is_checked_on_a_page_that_is_no_secure_context(
    server: ServerProcess, browser: Browser
) -> None:
    vector: dict[str, Any] = json.loads((FOLDER / "checks.json").read_text(encoding="utf-8"))
    tab = await open_tab(browser, f"http://{HOST}:{server.port}/")
    requested: list[str] = []
    tab.page.on("request", lambda request: requested.append(request.url))
    await tab.page.wait_for_function("performance.getEntriesByName('table-ready').length > 0")
    secure, subtle = await tab.page.evaluate("[window.isSecureContext, typeof crypto.subtle]")
    assert (secure, subtle) == (False, "undefined")
    first_load = await tab.page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name)"
    )
    assert first_load, "the page loaded nothing?"
    early = [
        url
        for url in first_load
        if ("/engine/" in url and not url.endswith("/engine/rules.js")) or "sha256" in url
    ]
    assert not early

    names = ["honest", "one card changed", "the commitment changed", "a seat seed hidden"]
    seeds = [bytes(32).hex(), bytes(range(32)).hex(), "ff" * 32]
    found = await tab.page.evaluate(CHECK, [vector, names, seeds])
    expected = {c["name"]: c for c in vector["cases"] if c["name"] in names}
    for name, result in found["results"].items():
        case = expected[name]
        assert result["problem"] == case["reveal"]["problem"], name
        assert result["deal"] == case["reveal"]["deal"], name
        replay = case["replay"]
        assert result["mismatch"] == (replay and replay["mismatch"]), name
        assert result["ok"] == (name == "honest")
    assert found["seed"] == 32
    assert len(found["fingerprint"]) == 14
    assert any("/js/engine/fairness.js" in url for url in requested)
    assert found["commitments"] == [hashlib.sha256(bytes.fromhex(s)).hexdigest() for s in seeds]
    assert any("/vendor/fast-sha256/sha256.min.js" in url for url in requested)
    # Chromium says a Cross-Origin-Opener-Policy is ignored on an origin that is no secure
    # context (every http://192.168.x.x page): the server's header, harmless here.
    await tab.assert_clean(allow="Cross-Origin-Opener-Policy header has been ignored")
    await tab.context.close()


def _another_card(frame: str | bytes) -> str | bytes:
    """A server frame as a cheating server would send it: the first flip's first card is
    another card (every other frame as it was)."""
    if isinstance(frame, str):
        return frame
    message = decode_server_message(frame)
    if not isinstance(message, CardsTurned) or message.step != 1:
        return frame
    (seat, card), *rest = message.cards
    changed = "2C" if card != "2C" else "3C"
    return encode(dataclasses.replace(message, cards=((seat, changed), *rest)))


def _tamper(ws: WebSocketRoute) -> None:
    server = ws.connect_to_server()
    server.on_message(lambda frame: ws.send(_another_card(frame)))  # the page's go through


FAILED_LINE = {
    "es-ES": (
        "La comprobación del reparto justo FALLÓ: paso 1: carta mostrada",
        "según el reparto",
    ),
    "de-DE": ("Prüfung der fairen Mischung FEHLGESCHLAGEN: Schritt 1: gezeigte", "laut Mischung"),
}
"""How a failed check's red line starts, and what it says of the deal's card, by locale."""


@pytest.mark.parametrize(
    ("locale", "width"), [("es-ES", PHONE["width"]), ("de-DE", 320)], ids=["es-390", "de-320"]
)
async def test_a_failed_check_says_what_did_not_match_in_the_pages_language(
    server: ServerProcess, browser: Browser, tmp_path: Path, locale: str, width: int
) -> None:
    viewport: ViewportSize = {"width": width, "height": PHONE["height"]}
    tab = await open_tab(
        browser, f"http://{HOST}:{server.port}/", viewport=viewport, touch=True, locale=locale
    )
    page = tab.page
    await page.route_web_socket(re.compile(r"^wss?://"), _tamper)
    await page.reload()
    await page.fill("#start-name", "Ana")
    await page.tap("#create summary")
    await page.check("#create-form input[name=players][value='2']")
    await page.select_option("#create-form select[name=computers]", "1")
    await page.tap("#create-form button[type=submit]")
    await expect(page.locator("#turn")).to_be_visible()
    await tab.turn_over()  # the first flip: one of its cards is not the deal's
    await page.tap("#finish")
    await expect(page.locator("#over")).to_be_visible()
    box, line = page.locator("#fair"), page.locator("#fair-line")
    await expect(box).to_have_class(re.compile(r"\bfailed\b"), timeout=30_000)
    start, deal = FAILED_LINE[locale]
    await expect(line).to_contain_text(start)
    await expect(line).to_contain_text(deal)
    assert await line.evaluate("(e) => getComputedStyle(e).color") != await page.evaluate(
        "getComputedStyle(document.body).color"
    )  # in red, not in the table's colour
    await line.scroll_into_view_if_needed()
    await page.screenshot(path=tmp_path / f"fair-failed-{locale}-{width}.png")
    assert await page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    ), "the red line makes the page scroll sideways"
    names = ["Ana"]  # the computer's seat is the page's word, never exempt
    assert english_left(await line.inner_text(), names, locale[:2]) == []
    assert english_left(await shown_text(page), names, locale[:2]) == []
    await tab.assert_clean(allow="Cross-Origin-Opener-Policy header has been ignored")
    await tab.context.close()
