"""The browser table and `war-client --plain` at one table, saying the same things.

Ann plays in the page, Ben plays with `war-client --plain`, and a third `war-client --watch
--json` records every message the room sends. From that recording the Python client's own
reducer and sentences (what `--plain` prints) are worked out for each seat; the page's log
must read exactly so for Ann, and Ben's terminal exactly so for Ben: one set of words, in
JavaScript and in Python, for the same deal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgpack
import pytest
from playwright.async_api import Browser, expect

from client.state.view import ViewState, apply
from client.words.catalog import catalog
from client.words.sentences import describe
from protocol import (
    Error,
    GameOver,
    PlayerJoined,
    SecondPathReady,
    ServerMessage,
    Welcome,
    decode_server_message,
)
from tests.e2e._browser import open_tab
from tests.e2e._client_process import client_process
from tests.e2e._process import server_process
from tests.e2e._war import start_war

# One browser for the module (one worker runs it all); each test starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_and_terminal"),
]

DEAL = 2024


def recorded(lines: list[str]) -> list[ServerMessage]:
    """The messages `war-client --json` printed, decoded as the client decodes them."""
    return [decode_server_message(msgpack.packb(json.loads(line))) for line in lines if line]


def sentences_after(messages: list[ServerMessage], me: int, seq: int) -> list[str]:
    """What the Python client says to seat ``me`` about the messages after ``seq``."""
    view = ViewState()
    said: list[str] = []
    for message in messages:
        before, view = view, apply(view, message)
        if not isinstance(message, Welcome | Error | SecondPathReady) and message.seq > seq:
            said += describe(before, message, view, me, words=catalog("en"))
    return said


async def test_the_page_and_war_client_plain_say_the_same(tmp_path: Path, browser: Browser) -> None:
    # the real app in this process at the test paces (`tests.e2e._war.FAST`): 26 rounds of
    # quick auto-play without the 0.3 s a turn of a `war-server` process
    async with start_war(tmp_path) as war:
        url = war.url
        ann = await open_tab(browser, f"http://127.0.0.1:{war.server.port}/")
        page = ann.page
        await page.fill("#start-name", "Ann")
        await page.click("summary:has-text('Create a room')")
        await page.select_option("#create-form select[name=limit]", "26")
        await page.fill("#create-form input[name=deal]", str(DEAL))
        await page.click("#create-form button[type=submit]")
        await expect(page.locator("#join-link")).to_have_text(re.compile("#join="))
        join_link = await page.locator("#join-link").inner_text()
        watch_link = await page.locator("#watch-link").inner_text()
        join_code, watch_code = join_link.split("#join=")[1], watch_link.split("#watch=")[1]
        recorder_args = [url, "--watch", watch_code, "--json"]
        async with client_process(recorder_args, tmp_path / "recorder.json") as recorder:
            await recorder.expect(r'^\{"type":"welcome"')
            await expect(page.locator("#log li").first).to_have_text("1 person is watching.")
            ben_args = [url, "--name", "Ben", "--join", join_code, "--plain", "--auto", "quick"]
            async with client_process(ben_args, tmp_path / "ben.json") as ben:
                await ben.expect(r"^The game begins, deal 2024: 26 cards each\.$")
                await page.click("#auto label:has-text('quick')")
                assert await ben.wait(within=120) == 0, ben.err
            assert await recorder.wait(within=60) == 0, recorder.err
        await expect(page.locator("#result")).to_contain_text("Game over")
        page_log = await ann.log()
        await ann.assert_clean()  # before the server stops (the page would try to reconnect)
    messages = recorded(recorder.out)
    assert isinstance(messages[-1], GameOver)
    joined = next(m.seq for m in messages if isinstance(m, PlayerJoined) and m.name == "Ben")
    for_ann = sentences_after(messages, 0, 0)
    for_ben = sentences_after(messages, 1, joined)
    watching = page_log.index("1 person is watching.")
    summary = page_log.index(for_ann[-1])
    assert page_log[watching + 1 : summary + 1] == for_ann
    assert ben.out[-len(for_ben) :] == for_ben
    assert ben.out[0] == "You are Ben, at seat 2 of 2."
    assert for_ann[-2:] == for_ben[-2:]  # the figures and the evening: the same words for all
    assert f"deal {DEAL}." in for_ann[-2]
    assert for_ann[-1].startswith("The evening so far — ")


async def test_war_client_create_prints_a_link_the_page_sits_down_with(
    tmp_path: Path, browser: Browser
) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"ws://127.0.0.1:{server.port}/"
        args = [url, "--name", "Grandma", "--create", "--plain", "--rounds", "26"]
        async with client_process(args, tmp_path / "grandma.json") as grandma:
            found = await grandma.expect(r"^Link for players: (http://127\.0\.0\.1:\d+/#join=\S+)$")
            watch = await grandma.expect(r"^Link for watchers: (\S+)$")
            assert watch.group(1).startswith(f"http://127.0.0.1:{server.port}/#watch=")
            ben = await open_tab(browser, found.group(1))
            await ben.page.fill("#invite-name", "Ben")
            await ben.page.click("#invite-form button[type=submit]")
            await expect(ben.page.locator("#log li").last).to_have_text(
                "You are Ben, at seat 2 of 2."
            )
            await grandma.expect(r"^Ben takes seat 2\.$")
            await grandma.expect(r"^The game begins: 26 cards each\.$")
            await ben.turn_over()
            await ben.assert_clean()
