"""Whole games in the browser table against a real `war-server` process on loopback.

Two pages play each other to game over; a spectator page follows a game; a reload in the
middle of a war resumes the seat; the server is killed (kill -9) and restarted on the same
store and the page carries on from the same round.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from tests.deploy._server import free_port
from tests.e2e._browser import Tab, count_of, create_room, open_tab, war_deal
from tests.e2e._process import server_process

# One browser for the module (one worker runs it all); each test starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_play"),
]

GAME_TIMEOUT_MS = 120_000
BROWSER_SOCKET_FAILED = r"WebSocket connection to .* failed"
"""Chromium's own console line for a WebSocket that could not connect (server down)."""
GAME_BUTTONS = "button:visible:not(#sound):not(#talk button)"
"""The visible buttons besides the sound switch and the talk bar (reactions, mute)."""


async def set_auto(tab: Tab, mode: str) -> None:
    await tab.page.click(f"#auto label:has-text('{mode}')")
    # said in the log (quick auto-play may already have said the next rounds above it)
    line = tab.page.locator("#log li").filter(has_text=f"Your auto-play is {mode}.")
    await expect(line.first).to_be_visible()


async def figures(tab: Tab) -> list[str]:
    return await tab.page.locator("#figures").locator("dt, dd").all_inner_texts()


async def test_two_pages_play_to_game_over_and_agree(tmp_path: Path, browser: Browser) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"http://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, url)
        await create_room(ann, "Ann", rounds="26")
        await expect(ann.page.locator("#share")).to_have_attribute("open", "")
        link = await ann.page.locator("#join-link").inner_text()
        assert link.startswith(url + "#join=")
        ben = await open_tab(browser, link)
        await expect(ben.page.locator("#invite")).to_be_visible()
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        for tab in (ann, ben):
            await expect(tab.page.locator("#share")).not_to_have_attribute("open", "")
        for _ in range(2):
            await ann.turn_over()
            await ben.turn_over()
        for tab in (ann, ben):
            await set_auto(tab, "quick")
        for tab in (ann, ben):
            await expect(tab.page.locator("#result")).to_contain_text(
                "Game over: the limit of 26 rounds is reached.", timeout=GAME_TIMEOUT_MS
            )
        assert await figures(ann) == await figures(ben)
        assert (await figures(ann))[:2] == ["Rounds", "26"]
        counts = await ann.counts()
        assert counts == await ben.counts()
        assert sum(counts.values()) == 52 and set(counts) == {"Ann", "Ben"}
        finals = [await t.page.locator("#final .final-count").all_inner_texts() for t in (ann, ben)]
        assert finals[0] == finals[1]
        ann_says = (await ann.log())[-3:]
        ben_says = (await ben.log())[-3:]
        assert ann_says[1:] == ben_says[1:]  # the figures and the evening: the same for all
        assert ann_says[2].startswith("The evening so far — ")
        await ann.assert_clean()
        await ben.assert_clean()


async def test_a_spectator_page_follows_a_game_without_buttons(
    tmp_path: Path, browser: Browser
) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"http://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, url)
        await create_room(ann, "Ann", computers=1, rounds="26")
        await ann.page.click("#share-title")  # "Let others watch"
        link = await ann.page.locator("#watch-link").inner_text()
        assert "#watch=" in link
        watcher = await open_tab(browser, link)
        page = watcher.page
        await expect(page.locator("#log li").last).to_have_text(
            "You are watching Ann and the computer."
        )
        await expect(page.locator("#where")).to_contain_text("you are watching")
        # No game buttons; the talk bar's are there: spectators may react (and mute), and
        # in a "players" room (the default) they read, so there is no message box.
        await expect(page.locator(GAME_BUTTONS)).to_have_count(0)
        await expect(page.locator("#reactions button").first).to_be_visible()
        await expect(page.locator("#say-text")).to_be_hidden()
        await ann.turn_over()
        await expect(page.locator("#seats .card.face").first).to_be_visible()
        await set_auto(ann, "quick")
        await expect(page.locator("#result")).to_contain_text("Game over", timeout=GAME_TIMEOUT_MS)
        await expect(page.locator("#status")).to_have_text("Game over.")
        await expect(page.locator(GAME_BUTTONS)).to_have_count(0)
        assert await watcher.counts() == await ann.counts()
        assert await figures(watcher) == await figures(ann)
        assert (await ann.log())[2] == "1 person is watching."
        await watcher.assert_clean()
        await ann.assert_clean()


async def test_a_reload_in_the_middle_of_a_war_resumes_the_seat(
    tmp_path: Path, browser: Browser
) -> None:
    deal = war_deal()
    async with server_process(tmp_path / "war.sqlite3") as server:
        tab = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        page = tab.page
        await create_room(tab, "Ann", computers=1, deal=deal)
        await tab.turn_over()
        war = page.locator("#war")
        await expect(war).to_have_text("War between you and the computer!")
        status = "War! Press space to lay 1 card face down and turn one up."
        await expect(page.locator("#status")).to_have_text(status)
        shown = await page.locator("#seats .card.face").count()
        assert shown == 2
        assert "#join=" in page.url
        await page.reload()
        await expect(page.locator("#log li").last).to_have_text("You are Ann, at seat 1 of 2.")
        await expect(page.locator("#log li").first).to_have_text("The game is on: round 1.")
        await expect(war).to_have_text("War between you and the computer!")
        await expect(page.locator("#status")).to_have_text(status)
        await expect(page.locator("#seats .card.face")).to_have_count(shown)
        await tab.turn_over()
        await expect(page.locator("#where")).to_have_text(re.compile(r"^round 2 · deal \d+$"))
        await expect(page.locator("#log")).to_contain_text("the war and take")
        await tab.assert_clean()


async def test_the_page_rides_out_a_kill_9_and_goes_on_from_the_same_round(
    tmp_path: Path, browser: Browser
) -> None:
    db = tmp_path / "war.sqlite3"
    port = free_port()
    async with server_process(db, "--port", str(port)) as server:
        tab = await open_tab(browser, f"http://127.0.0.1:{port}/")
        page = tab.page
        await create_room(tab, "Ann", computers=1)
        for _ in range(3):
            await tab.turn_over()
        where = page.locator("#where")
        await expect(page.locator("#turn")).to_have_attribute("aria-disabled", "false")
        shown = await where.inner_text()  # "round N", N - 1 rounds played
        playing = count_of(shown)
        await server.kill()
        await expect(page.locator("#status")).to_have_text(
            "The connection dropped. Reconnecting… Your seat is kept."
        )
        await expect(page.locator("#trouble")).to_be_hidden()  # said once, not twice
        await expect(page.locator("#turn")).to_have_attribute("aria-disabled", "true")
        await page.locator("#turn").click(force=True)  # a tap while reconnecting: not sent
        await page.keyboard.press("Space")
    async with server_process(db, "--port", str(port)) as again:
        await expect(page.locator("#status")).not_to_contain_text("Reconnecting", timeout=30_000)
        await expect(where).to_have_text(shown)
        await expect(page.locator("#log li").nth(1)).to_have_text("You are Ann, at seat 1 of 2.")
        await expect(page.locator("#log li").first).to_have_text(
            f"The game is on: round {playing}."
        )
        await tab.turn_over()
        await expect(page.locator("#log li").first).not_to_have_text(
            f"The game is on: round {playing}."
        )
        assert again.events("room_entered")
        await tab.assert_clean(allow=BROWSER_SOCKET_FAILED)


async def test_a_join_link_for_a_full_room_says_so(tmp_path: Path, browser: Browser) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"http://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, url)
        await create_room(ann, "Ann", computers=1)
        code = ann.page.url.split("#join=")[1]
        late = await open_tab(browser, f"{url}#join={code}")
        await late.page.fill("#invite-name", "Cy")
        await late.page.click("#invite-form button[type=submit]")
        await expect(late.page.locator("#ended-text")).to_have_text(
            "That game is full: every seat is taken."
        )
        wrong = await open_tab(browser, f"{url}#watch=AAAA-BBBB")
        await expect(wrong.page.locator("#ended-text")).to_have_text(
            "There is no game with that code. Check the code, or ask for a new link."
        )
        await late.assert_clean()
        await wrong.assert_clean()
        assert count_of(await ann.page.locator("#seats .count").first.inner_text()) == 26
