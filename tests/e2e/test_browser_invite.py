"""Issue 19's invitations, in Chromium against the real app in this process: a page on
127.0.0.1 told the machine's network address (its links, its QR code, the warning), a
server on loopback alone, the join page saying whose table it is, a watch code typed into
"Sit down", and four players' standings at game over on a 320 px phone.

The machine's interfaces are never read: the server is given its network address
(``machine_addresses``, a private address no test connects to); every connection is to
127.0.0.1. Screenshots of the invitation and of the standings go to ``$WAR_SCREENSHOTS``
when it is set, else to the test's temporary folder.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image
from playwright.async_api import Browser, expect

from tests.e2e._browser import SMALL, create_room, open_tab, screenshot_folder, shoot
from tests.e2e._war import start_war

# One browser for the module (tests/e2e/conftest.py; one worker runs it all); each test
# starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_invite"),
]

LAN = "192.168.1.20"


folder = screenshot_folder


def code_in(url: str, kind: str) -> str:
    return url.split(f"#{kind}=")[1]


async def test_a_page_on_this_machine_links_to_its_network_address(
    tmp_path: Path, browser: Browser
) -> None:
    async with start_war(tmp_path, machine_addresses=(LAN,)) as war:
        port = war.server.port
        tab = await open_tab(
            browser, f"http://127.0.0.1:{port}/", viewport=SMALL, reduced_motion=True
        )
        page = tab.page
        await create_room(tab, "Grandma", players=4, computers=1)
        code = code_in(page.url, "join")
        link = page.locator("#join-link")
        await expect(link).to_have_text(f"http://{LAN}:{port}/#join={code}")
        await expect(page.locator("#watch-link")).to_contain_text(f"http://{LAN}:{port}/#watch=")
        await expect(page.locator("#local-warning")).to_have_text(
            f"These links use http://{LAN}:{port}/, this machine's address on the home network "
            "(127.0.0.1 works only on this machine)."
        )
        await expect(page.locator("#qr svg")).to_be_visible()
        picture = Image.open(io.BytesIO(await page.locator("#qr").screenshot()))
        assert [found.text for found in zxingcpp.read_barcodes(picture)] == [
            f"http://{LAN}:{port}/#join={code}"
        ]
        box = await link.bounding_box()
        assert box is not None and box["x"] + box["width"] <= SMALL["width"]
        await shoot(tab, folder(tmp_path) / "invitation-small-phone.png")

        # the page at that address is the same table: its own address, no warning
        # (opened here on 127.0.0.1 under the name localhost: still this machine only)
        local = await open_tab(browser, f"http://localhost:{port}/", viewport=SMALL)
        await create_room(local, "Ann", players=3, computers=1)
        await expect(local.page.locator("#join-link")).to_contain_text(
            f"http://{LAN}:{port}/#join="
        )
        for each in (tab, local):
            await each.assert_clean()
            await each.context.close()


async def test_a_server_on_loopback_alone_says_relatives_cannot_reach_it(
    tmp_path: Path, browser: Browser
) -> None:
    async with start_war(tmp_path, machine_addresses=()) as war:
        tab = await open_tab(browser, f"http://127.0.0.1:{war.server.port}/")
        await create_room(tab, "Grandma", players=3, computers=1)
        warning = tab.page.locator("#local-warning")
        await expect(warning).to_contain_text("127.0.0.1 works only on this machine")
        await expect(warning).to_contain_text("relatives' phones cannot reach this server")
        await expect(warning).to_contain_text("make run HOST=0.0.0.0")
        await expect(warning).to_contain_text("war-server --host 0.0.0.0")
        await tab.assert_clean()
        await tab.context.close()


async def test_the_join_page_says_whose_table_it_is(tmp_path: Path, browser: Browser) -> None:
    async with start_war(tmp_path, machine_addresses=(LAN,)) as war:
        url = f"http://127.0.0.1:{war.server.port}/"
        grandma = await open_tab(browser, url)
        await create_room(grandma, "Grandma", players=4)
        code = code_in(grandma.page.url, "join")
        ben = await open_tab(browser, f"{url}#join={code}", touch=True)
        await expect(ben.page.locator("#invite-table")).to_have_text(
            "Grandma's table — 3 of 4 seats free"
        )
        await expect(ben.page.locator("#invite-name")).to_be_focused()
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 4.")
        cy = await open_tab(browser, f"{url}#join={code}")
        await expect(cy.page.locator("#invite-table")).to_have_text(
            "Grandma's table — 2 of 4 seats free"
        )
        # the link for watchers typed as an invitation: watch instead
        watch = code_in(await grandma.page.locator("#watch-link").inner_text(), "watch")
        wrong = await open_tab(browser, f"{url}#join={watch}")
        await expect(wrong.page.locator("#ended-text")).to_have_text(
            "That is a watch code: watch instead?"
        )
        await wrong.page.click("#watch-code")
        await expect(wrong.page.locator("#log li").last).to_have_text(
            "You are watching Grandma and Ben."
        )
        for tab in (grandma, ben, cy, wrong):
            await tab.assert_clean()
            await tab.context.close()


async def test_a_watch_code_typed_into_sit_down_offers_to_watch(
    tmp_path: Path, browser: Browser
) -> None:
    async with start_war(tmp_path) as war:
        url = f"http://127.0.0.1:{war.server.port}/"
        grandma = await open_tab(browser, url)
        await create_room(grandma, "Grandma", players=3)
        watch = code_in(await grandma.page.locator("#watch-link").inner_text(), "watch")
        ben = await open_tab(browser, url)
        page = ben.page
        await page.fill("#start-name", "Ben")
        await page.click("summary:has-text('Join with a code')")
        await page.fill("#join-form input[name=code]", watch)
        await page.click("#join-form button[value=join]")
        await expect(page.locator("#ended-text")).to_have_text(
            "That is a watch code: watch instead?"
        )
        await expect(page.locator("#ended-text")).not_to_contain_text("no game with that code")
        await expect(page.locator("#table")).to_be_hidden()  # no "Connecting…" behind it
        await page.click("#watch-code")
        await expect(page.locator("#log li").last).to_have_text("You are watching Grandma.")
        for tab in (grandma, ben):
            await tab.assert_clean()
            await tab.context.close()


async def test_four_players_standings_on_a_small_phone(tmp_path: Path, browser: Browser) -> None:
    async with start_war(tmp_path) as war:
        tab = await open_tab(
            browser, f"http://127.0.0.1:{war.server.port}/", viewport=SMALL, reduced_motion=True
        )
        page = tab.page
        await create_room(tab, "Grandma", players=4, computers=3, deal=2912)
        await page.keyboard.press("f")  # the only person votes: the rest is played out
        await expect(page.locator("#result")).to_contain_text("Game over")
        room = next(iter(war.hub.directory))
        assert room.game.standings is not None
        standings = room.game.standings
        names = ["Grandma (you)", "Computer 1", "Computer 2", "Computer 3"]
        order = sorted(range(4), key=lambda seat: (standings[seat], seat))
        words = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
        rows = page.locator("#final li")
        await expect(rows).to_have_count(4)
        for row, seat in enumerate(order):
            await expect(rows.nth(row).locator(".final-place")).to_have_text(words[standings[seat]])
            await expect(rows.nth(row).locator(".final-name")).to_have_text(names[seat])
        await expect(page.locator("#log")).to_contain_text("Standings: 1st")
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= SMALL["width"]
        await page.locator("#over").scroll_into_view_if_needed()
        await page.screenshot(
            path=folder(tmp_path) / "standings-small-phone-four.png",
            animations="disabled",
            caret="hide",
        )
        await tab.assert_clean()
        await tab.context.close()
