"""The browser table against a real `war-server` on loopback, in Debian's Chromium.

The page is served by the server itself under a strict Content-Security-Policy; these tests
play it as people would: with taps, with the keyboard only, on a phone-sized screen.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from client.words.talk import deal_text
from server import engine
from tests.e2e._browser import PHONE, Tab, count_of, create_room, open_tab
from tests.e2e._process import ServerProcess, server_process

# One browser for the module (one worker runs it all); one server per test.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_table"),
]


@pytest_asyncio.fixture(loop_scope="module")
async def server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path / "war.sqlite3") as running:
        yield running


def page_url(server: ServerProcess, fragment: str = "") -> str:
    return f"http://127.0.0.1:{server.port}/{fragment}"


async def play_the_computer(tab: Tab, name: str = "Grandma") -> None:
    await tab.page.fill("#start-name", name)
    await tab.page.click("#vs-computer")
    await expect(tab.page.locator("#status")).to_have_text("Press space to turn over.")


async def test_the_page_comes_with_its_security_headers(
    server: ServerProcess, browser: Browser
) -> None:
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    response = await page.goto(page_url(server))
    assert response is not None and response.status == 200
    headers = response.headers
    assert "default-src 'none'" in headers["content-security-policy"]
    assert "connect-src 'self'" in headers["content-security-policy"]
    assert "unsafe-inline" not in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["content-type"] == "text/html; charset=utf-8"
    await expect(page.locator("#vs-computer")).to_be_visible()
    await context.close()


async def test_play_the_computer_under_the_policy(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, page_url(server))
    await play_the_computer(tab)
    for _ in range(3):
        await tab.turn_over()
    await expect(tab.page.locator("#where")).to_contain_text("round")
    # The deal is drawn: a war may be on, with cards on the table. Play it out, so that
    # every card is back in a pile when the counts are read.
    status = tab.page.locator("#status")
    for _ in range(20):
        if await status.inner_text() == "Press space to turn over.":
            break
        await tab.turn_over()
    await expect(status).to_have_text("Press space to turn over.")
    counts = await tab.counts()
    assert sum(counts.values()) == 52, counts
    lines = await tab.log()
    assert lines[:2] == ["You are Grandma, at seat 1 of 2.", "The game begins: 26 cards each."]
    await tab.assert_clean()


async def test_the_whole_game_with_the_keyboard_only(
    server: ServerProcess, browser: Browser
) -> None:
    tab = await open_tab(browser, page_url(server))
    page = tab.page
    await page.keyboard.press("Tab")  # the language picker in the header comes first
    await expect(page.locator("#language")).to_be_focused()
    await page.keyboard.press("Tab")  # then the name field
    await page.keyboard.type("Ben")
    await page.keyboard.press("Enter")  # in the name field: play the computer
    status = page.locator("#status")
    await expect(status).to_have_text("Press space to turn over.")
    turn = page.locator("#turn")
    table = page.locator("#table")
    for step in range(3):
        await expect(turn).to_have_attribute("aria-disabled", "false")
        await expect(table).to_have_attribute("data-step", str(step))
        await page.keyboard.press("Space")
        await expect(table).to_have_attribute("data-step", str(step + 1))
    await page.keyboard.press("f")  # vote to finish: the rest is played out at once
    await expect(page.locator("#result")).to_contain_text("Game over")
    await expect(status).to_have_text(
        "Game over. Press r for a rematch with a new deal, d to replay this deal, q to leave."
    )
    deal = count_of((await page.locator("#figures dd").last.inner_text()).replace(" ", ""))
    await page.keyboard.press("d")  # the same deal again
    await expect(page.locator("#log li").first).to_have_text(
        f"Rematch: game 2 begins, deal {deal_text(deal)}: 26 cards each."
    )
    await page.keyboard.press("q")
    await page.keyboard.press("q")  # twice: leaving is for good
    await expect(page.locator("#trouble")).to_have_text("You left the table.")
    await expect(page.locator("#vs-computer")).to_be_visible()
    await tab.assert_clean()


async def test_the_turn_over_button_fits_a_phone_screen(
    server: ServerProcess, browser: Browser
) -> None:
    tab = await open_tab(browser, page_url(server), viewport=PHONE)
    page = tab.page
    await page.fill("#start-name", "Grandma")
    await page.click("summary:has-text('Create a room')")
    await page.check("#create-form input[name=players][value='4']")
    await page.select_option("#create-form select[name=computers]", "3")
    await page.click("#create-form button[type=submit]")
    await tab.turn_over()
    await expect(page.locator("#status")).not_to_have_text("Connecting…")
    await page.evaluate("window.scrollTo(0, 0)")
    box = await page.locator("#turn").bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    seats = await page.locator("#seats .seat").count()
    assert seats == 4
    await tab.assert_clean()


async def test_a_time_limit_shows_the_time_left(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, page_url(server))
    page = tab.page
    await page.fill("#start-name", "Grandma")
    await page.click("summary:has-text('Create a room')")
    await page.select_option("#create-form select[name=computers]", "1")
    await page.select_option("#create-form select[name=limit]", "minutes")
    await page.fill("#create-form input[name=limit_number]", "1")
    await page.click("#create-form button[type=submit]")
    await expect(page.locator("#clock")).to_have_text(re.compile(r"^(1:00|0:[0-5]\d) left$"))
    await expect(page.locator("#rules-line")).to_contain_text("1 minute · ties draw")
    await page.click("#rules-line")  # the one line opens to the full text
    await expect(page.locator("#rules-full")).to_contain_text("The game ends after 1 minute")
    await expect(page.locator("#where")).to_contain_text("1-minute game")
    shown = await page.locator("#clock").inner_text()
    await expect(page.locator("#clock")).not_to_have_text(shown)  # it counts down
    await tab.assert_clean()


WATCH_FLIGHTS = """() => {
  window.__flights = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.classList && node.classList.contains("flyer")) window.__flights += 1;
      }
    }
  }).observe(document.body, { childList: true });
}"""


NEXT_FRAMES = "() => new Promise((go) => requestAnimationFrame(() => requestAnimationFrame(go)))"
"""Resolves once two more frames have begun: what a message set up for its next frame ran."""

# Every attribute written while the table follows a game, with its value before.
WATCH_WRITES = """() => {
  window.__writes = [];
  new MutationObserver((records) => {
    records.forEach((r, i) => {
      if (r.target.classList?.contains('flyer')) return;
      // the value this write left: the next write's old value, else the value now (two
      // messages drawn in one task, a class put on and taken off, are two real changes)
      const next = records.slice(i + 1).find(
        (q) => q.target === r.target && q.attributeName === r.attributeName);
      const left = next ? next.oldValue : r.target.getAttribute(r.attributeName);
      window.__writes.push([r.target.id || r.target.className, r.attributeName, r.oldValue, left]);
    });
  }).observe(document, { subtree: true, attributes: true, attributeOldValue: true });
}"""


# The face-up cards put on the table, and the text nodes replaced (a removed text node and
# an added one in one record: `textContent` set, not the text written into its node).
WATCH_NODES = """() => {
  window.__cards = 0;
  window.__replaced = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const text = (nodes) => [...nodes].some((node) => node.nodeType === Node.TEXT_NODE);
      if (text(r.removedNodes) && text(r.addedNodes)) {
        window.__replaced.push(r.target.id || r.target.className);
      }
      for (const node of r.addedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        window.__cards += node.matches('.card.face') + node.querySelectorAll('.card.face').length;
      }
    }
  }).observe(document.getElementById('table'), { subtree: true, childList: true });
}"""


# The winner's glow: its own, or my turn's when the winner is me and it is my turn again.
GLOW = """() => {
  const seat = document.querySelector('.seat.won');
  return getComputedStyle(seat, seat.matches('.me.awaited') ? '::before' : '::after');
}"""
GLOW_SHOWN = f"() => ({GLOW})().opacity === '1'"
GLOW_FADE = f"({GLOW})().transitionDuration"


def calm_deal() -> int:
    """The smallest deal whose first round is a plain battle (no war)."""
    rules = engine.Rules()
    return next(
        d
        for d in range(1000)
        if not any(isinstance(e, engine.WarDeclared) for e in engine.Game(rules, d).step())
    )


async def test_the_table_writes_only_what_changed(server: ServerProcess, browser: Browser) -> None:
    """The table is drawn again at every message; an attribute written with the value it
    already has still makes the browser restyle (``data-phase`` on the seats: every seat),
    so nothing is written that did not change."""
    tab = await open_tab(browser, page_url(server))
    await create_room(tab, "Grandma", computers=1, deal=calm_deal())
    await tab.page.evaluate(WATCH_WRITES)
    for _ in range(3):
        await tab.turn_over()
    await expect(tab.page.locator(".seat.won")).to_have_count(1)
    writes = await tab.page.evaluate("window.__writes")
    assert writes, "the rounds were drawn"
    assert [w for w in writes if w[2] == w[3]] == [], "an attribute written with its own value"
    await tab.assert_clean()


async def test_a_round_makes_only_its_new_cards(server: ServerProcess, browser: Browser) -> None:
    """The cards a round was won with stay the nodes they were under "last round", and a
    changed text (a count, the status, the round's sentence) is written into its node:
    the browser restyles and lays out only what is new (docs/performance.md)."""
    tab = await open_tab(browser, page_url(server))
    await create_room(tab, "Grandma", computers=1, deal=calm_deal())
    await tab.page.evaluate(WATCH_NODES)
    await tab.turn_over()
    await expect(tab.page.locator(".seat.won")).to_have_count(1)
    await expect(tab.page.locator(".table-label").first).to_contain_text("last round")
    assert await tab.page.locator("#seats .card.face").count() == 2
    assert await tab.page.evaluate("window.__cards") == 2, "each card made once: when turned"
    # the round is taken at once: the turned cards, kept, flip to the end (none were cut
    # short, replaced by cards made again for "last round")
    await expect(tab.page.locator("#seats .card.flip")).to_have_count(2)
    assert await tab.page.evaluate("window.__replaced") == [], "a text node replaced"
    await tab.assert_clean()


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
async def test_the_haul_flies_unless_motion_is_reduced(
    server: ServerProcess, browser: Browser, reduced: bool
) -> None:
    tab = await open_tab(browser, page_url(server), reduced_motion=reduced)
    await create_room(tab, "Grandma", computers=1, deal=calm_deal())
    await tab.page.evaluate(WATCH_FLIGHTS)
    await tab.turn_over()
    await expect(tab.page.locator(".seat.won")).to_have_count(1)
    await expect(tab.page.locator(".seat.won .haul")).to_have_text(" +2")
    await tab.page.evaluate(NEXT_FRAMES)  # the flight takes off in the frame after the haul
    flights = await tab.page.evaluate("window.__flights")
    assert flights == (0 if reduced else 2)  # one card back from each seat's cards
    # The winner's glow fades in by opacity (composited), at once with reduced motion.
    await tab.page.wait_for_function(GLOW_SHOWN)
    fade = await tab.page.evaluate(GLOW_FADE)
    assert fade == ("0s" if reduced else "0.3s")
    await expect(tab.page.locator(".card.flyer")).to_have_count(0)  # landed and gone
    await tab.assert_clean()
