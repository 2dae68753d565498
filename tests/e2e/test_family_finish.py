"""Issue 12, done when: a 3-player game where one player leaves and another goes out can be
finished by vote by the two left — in ``--plain``, in the terminal table (Textual's pilot)
and in the browser table, each against a real ``war-server`` process on loopback.

Deal 7652 with three cards face down: Cy (seat 2) runs short in a war at step 6 and is
out. Ben then leaves (the computer plays his seat). Of the two left, Ann is the one person
still in the game: her vote to finish ends it at once, and every client says so; Cy, out,
is not waited for (her vote would be welcome, not needed). Version 0.1 waited for every
person at the table, Cy included, and said nothing about it: these tests fail against it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect
from textual.widgets import Static

from client.net.connection import Connection
from protocol import (
    AutoPlay,
    CreateRoom,
    FinishVoted,
    GameOver,
    JoinRoom,
    Leave,
    PlayerOut,
    RoomPhase,
    RulesSpec,
    SetAutoPlay,
    Welcome,
)
from tests.e2e._browser import chromium, open_tab
from tests.e2e._client import Client
from tests.e2e._client_process import ClientProcess, client_process
from tests.e2e._process import server_process
from tests.e2e._tui import WatchedApp

pytestmark = pytest.mark.slow

DEAL = 7652
TIMEOUT = 60.0
CY_OUT_TEXT = "Cy has too few cards to finish the war and is out."
CY_OUT = f"^{re.escape(CY_OUT_TEXT)}$"


async def type_line(client: ClientProcess, line: str) -> None:
    stdin = client.process.stdin
    assert stdin is not None
    stdin.write(line.encode() + b"\n")
    await stdin.drain()


async def test_the_two_left_finish_by_vote_in_plain(tmp_path: Path) -> None:
    pipe = asyncio.subprocess.PIPE
    async with server_process(tmp_path / "war.sqlite3") as server:
        create = [server.url, "--name", "Ann", "--create", "--plain", "--players", "3"]
        create += ["--face-down", "3", "--deal", str(DEAL)]
        async with client_process(create, tmp_path / "ann.json", stdin=pipe) as ann:
            code = (await ann.expect(r"^Player code: (\S+)\.$")).group(1)
            join = [server.url, "--join", code, "--plain"]
            async with client_process(
                [*join, "--name", "Ben"], tmp_path / "b.json", stdin=pipe
            ) as ben:
                await ben.expect(r"^You are Ben, at seat 2 of 3\.$")  # Ben first, then Cy
                async with client_process(
                    [*join, "--name", "Cy"], tmp_path / "c.json", stdin=pipe
                ) as cy:
                    await _plain_game(ann, ben, cy)
    assert ann.err == [] and ben.err == [] and cy.err == []


async def _plain_game(ann: ClientProcess, ben: ClientProcess, cy: ClientProcess) -> None:
    """Everyone on quick auto-play until Cy is out; then Ben leaves and the votes."""
    for player in (ann, ben, cy):
        await player.expect(r"^The game begins, deal 7652: 17 cards each")
        await type_line(player, "a quick")
    await ann.expect(CY_OUT)
    await cy.expect(r"^You have too few cards to finish the war and are out\.$")
    mark = len(ann.out)
    await type_line(ann, "a off")  # the game now waits for Ann
    await ann.expect(r"^Your auto-play is off\.$", start=mark)
    await type_line(ben, "q")
    await type_line(ben, "q")  # twice: leaving is for good
    assert await ben.wait() == 0
    await ann.expect(r"^The computer plays for Ben from now on\.$", start=mark)
    await type_line(ann, "s")  # nobody has voted: no vote line, and nothing about Cy
    await ann.expect(r"^Round \d+: you have \d+ cards, .*Cy is out\.", start=mark)
    await type_line(ann, "f")
    await cy.expect(r"^Ann votes to finish the game\.$")
    for player in (ann, cy):
        await player.expect(r"^Game over: ", start=0)
    await type_line(ann, "q")
    await type_line(ann, "q")  # twice: leaving is for good
    await type_line(cy, "q")
    await type_line(cy, "q")  # twice: leaving is for good
    assert await ann.wait() == 0
    assert await cy.wait() == 0


@contextlib.asynccontextmanager
async def ben_and_cy(url: str, code: str) -> AsyncIterator[tuple[Client, Client]]:
    """Ben and Cy at the table (protocol clients), both on quick auto-play."""
    ben, cy = await Client.connect(url), await Client.connect(url)
    try:
        for client, name in ((ben, "Ben"), (cy, "Cy")):
            await client.send(JoinRoom(code=code, name=name))
            await client.expect(Welcome)
            await client.send(SetAutoPlay(mode=AutoPlay.QUICK))
        yield ben, cy
    finally:
        await ben.close()
        await cy.close()


async def test_the_two_left_finish_by_vote_at_the_terminal_table(tmp_path: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        opening = CreateRoom(name="Ann", rules=RulesSpec(players=3, face_down=3), deal=DEAL)
        app = WatchedApp(Connection(server.url, opening))
        async with app.run_test(size=(100, 40)) as pilot:
            await app.until(lambda v: v.player_code is not None)
            async with ben_and_cy(server.url, app.view.player_code or "") as (ben, cy):
                await app.until(lambda v: v.phase is RoomPhase.PLAYING)
                for _ in range(2):  # off -> calm -> quick
                    await pilot.press("a")
                await app.until(lambda v: v.seats[0].auto is AutoPlay.QUICK)
                await cy.expect(PlayerOut, within=TIMEOUT)
                await app.until(lambda v: v.seats[2].out)
                await pilot.press("a")  # quick -> off: the game waits for Ann
                await app.until(lambda v: v.seats[0].auto is AutoPlay.OFF)
                await ben.send(Leave())
                await app.until(lambda v: v.seats[1].computer)
                await pilot.press("f")
                await app.until(lambda v: v.phase is RoomPhase.OVER)
                over = await cy.expect(GameOver, within=TIMEOUT)
                assert over.counts == tuple(s.count for s in app.view.seats)
                assert [m.seat for m in cy.of(FinishVoted)] == [0]
                await pilot.pause()
                assert app.query_one("#summary", Static).display
            await pilot.press("q", "q")  # twice: leaving is for good
            await pilot.pause()
        assert app.return_code == 0


async def test_the_two_left_finish_by_vote_in_the_browser_table(tmp_path: Path) -> None:
    async with chromium() as browser, server_process(tmp_path / "war.sqlite3") as server:
        await _browser_game(browser, server.url, f"http://127.0.0.1:{server.port}/")


async def _browser_game(browser: Browser, ws_url: str, url: str) -> None:
    ann = await open_tab(browser, url)
    page = ann.page
    await page.fill("#start-name", "Ann")
    await page.click("summary:has-text('Create a room')")
    await page.check("#create-form input[name=players][value='3']")
    await page.check("#create-form input[name=face_down][value='3']")
    await page.fill("#create-form input[name=deal]", str(DEAL))
    await page.click("#create-form button[type=submit]")
    log = page.locator("#log li")
    await expect(log.last).to_have_text("You are Ann, at seat 1 of 3.")
    link = await page.locator("#join-link").inner_text()
    code = link.rsplit("#join=", 1)[1]
    async with ben_and_cy(ws_url, code) as (ben, cy):
        await page.click("#auto label:has-text('quick')")
        out = page.locator("#log li", has_text=CY_OUT_TEXT)
        await expect(out).to_have_count(1, timeout=TIMEOUT * 1000)
        await page.click("#auto label:has-text('off')")
        await expect(log.first).to_have_text("Your auto-play is off.")
        await ben.send(Leave())
        await expect(log.first).to_have_text("The computer plays for Ben from now on.")
        await page.click("#finish")
        await expect(page.locator("#result")).to_contain_text("Game over")
        over = await cy.expect(GameOver, within=TIMEOUT)
        assert [m.seat for m in cy.of(FinishVoted)] == [0]  # Ann's vote alone
        assert over.winner is not None
    await ann.assert_clean()
