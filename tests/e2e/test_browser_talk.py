"""Table talk and the evening with the real server: two browser pages, a spectator page
and `war-client --plain` at one table. A reaction and a message from each reach every
other viewer; after three games and a kill -9 of the server the evening reads the same
everywhere; the talk bar on a 320 px phone leaves the cards and the Turn over button in
view; and the server's log holds no word of the talk. Its pictures (the talk bar, and the
evening after three games, on a 320 px phone) go to ``$WAR_SCREENSHOTS`` when it is set,
else to the test's temporary folder (docs/screenshots/README.md).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.e2e._browser import SMALL, Tab, chromium, create_room, open_tab, screenshot_folder
from tests.e2e._client_process import ClientProcess, client_process
from tests.e2e._process import server_process

pytestmark = pytest.mark.slow


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def _log_has(tab: Tab, *lines: str) -> None:
    for line in lines:
        await expect(tab.page.locator("#log li", has_text=line).first).to_be_visible()


async def _send(cy: ClientProcess, line: str) -> None:
    assert cy.process.stdin is not None
    cy.process.stdin.write(f"{line}\n".encode())
    await cy.process.stdin.drain()


async def _over(tabs: list[Tab], cy: ClientProcess, game: int) -> None:
    """Game ``game`` is over on every page and in Cy's terminal."""
    for tab in tabs:
        await expect(tab.page.locator("#result")).to_contain_text("Game over")
        await expect(tab.page.locator("#evening-games li")).to_have_count(game)
    while True:
        said = [i for i, line in enumerate(cy.out) if line.startswith("The evening so far — ")]
        if len(said) >= game:
            return
        await cy.expect(r"^The evening so far — ", start=said[-1] + 1 if said else 0)


async def _finish_all(players: list[Tab], cy: ClientProcess) -> None:
    for tab in players:
        await tab.page.click("#finish")
    await _send(cy, "f")


async def _turn_all(players: list[Tab], cy: ClientProcess) -> None:
    """Everyone turns over once: a fair deal's seeds come with the first readies, and a
    finish vote waits for them (it plays the deal out: protocol/PROTOCOL.md section 10)."""
    for tab in players:
        await tab.page.click("#turn")
    await _send(cy, "")


async def _react_and_say(page: Page, reaction: str, text: str) -> None:
    await page.click(f"#reactions [data-reaction={reaction}]")
    await page.fill("#say-text", text)
    await page.press("#say-text", "Enter")


async def test_talk_and_the_evening_at_one_table(tmp_path: Path, browser: Browser) -> None:
    db = tmp_path / "war.sqlite3"
    shots = screenshot_folder(tmp_path)
    async with server_process(db) as first:
        port = first.port
        base = f"http://127.0.0.1:{port}/"
        grandma = await open_tab(browser, base, viewport=SMALL, touch=True)
        page = grandma.page
        await create_room(grandma, "Grandma", players=3, deal=90210, talk="all")
        join_link = await page.locator("#join-link").inner_text()
        watch_link = await page.locator("#watch-link").inner_text()
        code = join_link.split("#join=")[1]
        ben = await open_tab(browser, join_link, viewport=SMALL, touch=True)
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 3.")
        args = [f"ws://127.0.0.1:{port}/", "--name", "Cy", "--join", code, "--plain"]
        watcher = await open_tab(browser, watch_link, viewport=SMALL, touch=True)
        stdin = asyncio.subprocess.PIPE
        async with client_process(args, tmp_path / "cy.json", stdin=stdin) as cy:
            await cy.expect(r"^The game begins, deal 90 210")
            for tab in (grandma, ben, watcher):
                await expect(tab.page.locator("#talk")).to_be_visible()
            # --- a reaction and a message from each
            await _react_and_say(page, "clap", "Hello from Grandma")
            await _react_and_say(ben.page, "wow", "<b>Ben</b> is here")
            await _react_and_say(watcher.page, "party", "Go go go")
            await _send(cy, "react love")
            await _send(cy, "say Cy says hi")
            # the bubble lasts a few seconds: waited for first, before the logs' checks
            await expect(ben.page.locator('#seats .seat[data-seat="2"] .bubble')).to_have_text(
                "Cy says hi"
            )
            from_grandma = ("Grandma reacts 👏", "Grandma: Hello from Grandma")
            from_ben = ("Ben reacts 😮", "Ben: <b>Ben</b> is here")
            from_watcher = ("Someone watching reacts 🎉", "Someone watching: Go go go")
            from_cy = ("Cy reacts ❤️", "Cy: Cy says hi")
            await _log_has(grandma, *from_ben, *from_watcher, *from_cy)
            await _log_has(ben, *from_grandma, *from_watcher, *from_cy)
            await _log_has(watcher, *from_grandma, *from_ben, *from_cy)
            for line in (*from_grandma, *from_ben, *from_watcher):
                await cy.expect(rf"^{re.escape(line)}$")
            assert await ben.page.locator("#log b").count() == 0  # text, never markup
            await page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
            await page.screenshot(path=str(shots / "talk-320.png"), full_page=True)
            layout = await page.evaluate(
                """() => {
                  const box = (id) => document.getElementById(id).getBoundingClientRect();
                  const seats = box('seats'), turn = box('turn'), talk = box('talk');
                  return {seats: seats.bottom, turnTop: turn.top, turnBottom: turn.bottom,
                          talkTop: talk.top, width: document.documentElement.scrollWidth};
                }"""
            )
            assert layout["width"] <= 320, layout  # nothing sticks out of a 320 px phone
            assert layout["talkTop"] >= layout["turnBottom"] - 1, layout  # below, not over it
            # --- the mute: Ben no longer sees other people's bubbles (the log still says)
            await ben.page.click("#talk-mute")
            await _send(cy, "react sad")
            await _log_has(ben, "Cy reacts 😢")
            await expect(ben.page.locator('#seats .seat[data-seat="2"] .bubble')).not_to_have_text(
                "😢"
            )
            await ben.page.reload()  # remembered
            await expect(ben.page.locator("#talk-mute")).to_have_attribute("aria-pressed", "true")
            # --- three games
            players = [grandma, ben]
            for game in (1, 2, 3):
                if game > 1:  # a new deal is a fair one: its seeds before the finish
                    await _turn_all(players, cy)
                await _finish_all(players, cy)
                await _over([grandma, ben, watcher], cy, game)
                if game < 3:
                    for tab in players:
                        await tab.page.click("#rematch-new")
                    await _send(cy, "r")
                    await cy.expect(rf"game {game + 1} begins")
                    for tab in players:  # the page has the new game before its Turn over
                        await _log_has(tab, f"game {game + 1} begins")
            said = [line for line in cy.out if line.startswith("The evening so far — ")]
            score = said[-1].removeprefix("The evening so far — ").removesuffix(".")
            assert score.count(" · ") >= 2, score
            await page.screenshot(path=str(shots / "evening-320.png"), full_page=True)
            for tab in (grandma, ben, watcher):
                await expect(tab.page.locator("#where")).to_contain_text(score)
                await expect(tab.page.locator("#evening-score")).to_have_text(score)
                await expect(tab.page.locator("#evening-games li")).to_have_count(3)
            # --- kill -9, a new server on the same port and store: everyone comes back
            assert await first.kill() == -9
            talk_lines = [json.dumps(line) for line in first.lines]
            async with server_process(db, "--port", str(port)):
                for tab in (grandma, ben, watcher):
                    await expect(tab.page.locator("#evening-score")).to_have_text(score)
                mark = len(cy.out)
                await _send(cy, "s")
                await cy.expect(rf"The evening so far — {re.escape(score)}\.$", start=mark)
                late = await open_tab(browser, watch_link, viewport=SMALL)
                await expect(late.page.locator("#evening-score")).to_have_text(score)
                await expect(late.page.locator("#where")).to_contain_text(score)
            for tab in (grandma, ben, watcher):
                await tab.assert_clean(allow=r"WebSocket|ERR_CONNECTION_REFUSED")
    logged = "\n".join(talk_lines)
    for word in ("Hello from Grandma", "Go go go", "Cy says hi", "is here"):
        assert word not in logged
