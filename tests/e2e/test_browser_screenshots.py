"""Pictures of the browser table: the start page, a double war and game over on a phone, four
players in a war on a 320 px phone, a war at four on a tablet, the invitation (its QR code)
while waiting for players, and one double war in Polish and in Spanish on a phone.

They are written to ``$WAR_SCREENSHOTS`` when it is set (``WAR_SCREENSHOTS=docs/screenshots
make pytest``, then pick the best for docs/), else to the test's temporary folder. Each is
taken with reduced motion, so no card is caught in flight; the phones and the tablet are
touch screens, as a family's are (their sentences say "Tap", not "Press space").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from tests.e2e._browser import (
    PHONE,
    SMALL,
    create_room,
    open_tab,
    screenshot_folder,
    shoot,
    war_deal,
)
from tests.e2e._process import server_process

# One browser for the module (one worker runs it all); each test starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_screenshots"),
]

TABLET: ViewportSize = {"width": 1024, "height": 768}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return screenshot_folder(tmp_path)


async def test_screenshots_of_the_table(tmp_path: Path, browser: Browser, folder: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"http://127.0.0.1:{server.port}/"

        start = await open_tab(browser, url, reduced_motion=True)
        await start.page.fill("#start-name", "Grandma")
        await shoot(start, folder / "start-phone.png")

        phone = await open_tab(browser, url, reduced_motion=True, touch=True)
        await create_room(phone, "Grandma", computers=1, deal=war_deal(depth=2))
        await phone.turn_over()
        await expect(phone.page.locator("#war")).to_have_text("War between you and the computer!")
        await phone.turn_over()
        await expect(phone.page.locator("#war")).to_have_text(
            "Double war between you and the computer!"
        )
        await expect(phone.page.locator("#seats .card.back").first).to_be_visible()
        await shoot(phone, folder / "table-phone-double-war.png")
        await phone.page.tap("#finish")
        await expect(phone.page.locator("#result")).to_contain_text("Game over")
        await shoot(phone, folder / "table-phone-game-over.png")

        small = await open_tab(browser, url, viewport=SMALL, reduced_motion=True, touch=True)
        await create_room(small, "Grandma", players=4, computers=3, deal=war_deal(players=4))
        await small.turn_over()
        await expect(small.page.locator("#war")).to_contain_text("War between")
        await shoot(small, folder / "table-small-phone-four.png")

        tablet = await open_tab(browser, url, viewport=TABLET, reduced_motion=True, touch=True)
        await create_room(tablet, "Grandma", players=4, computers=3, deal=war_deal(players=4))
        await tablet.turn_over()
        await expect(tablet.page.locator("#war")).to_contain_text("War between")
        await expect(tablet.page.locator("#status")).to_contain_text("War!")
        await shoot(tablet, folder / "table-tablet-war.png")

        waiting = await open_tab(browser, url, reduced_motion=True)
        await create_room(waiting, "Grandma", players=3, computers=1)
        await expect(waiting.page.locator("#share")).to_have_attribute("open", "")
        await expect(waiting.page.locator("#qr svg")).to_be_visible()
        await shoot(waiting, folder / "invite-phone.png")

        for tab in (start, phone, small, tablet, waiting):
            await tab.assert_clean()
    assert PHONE["width"] == 390


async def test_screenshots_of_one_war_in_two_languages(
    tmp_path: Path, browser: Browser, folder: Path
) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"http://127.0.0.1:{server.port}/"
        deal = war_deal(depth=2)
        for locale, name, war in (
            ("pl-PL", "Babcia", "Podwójna wojna: ty i komputer!"),
            ("es-ES", "Abuela", "¡Guerra doble entre tú y el ordenador!"),
        ):
            tab = await open_tab(browser, url, reduced_motion=True, touch=True, locale=locale)
            page = tab.page
            await page.fill("#start-name", name)
            await page.tap("#create summary")
            await page.select_option("#create-form select[name=computers]", "1")
            await page.fill("#create-form input[name=deal]", str(deal))
            await page.tap("#create-form button[type=submit]")
            turn = page.locator("#turn")
            await expect(turn).to_have_attribute("aria-disabled", "false")
            await turn.tap()  # tapped, as on a phone: the status line says "tap"
            await expect(page.locator("#war")).to_be_visible()
            await expect(turn).to_have_attribute("aria-disabled", "false")
            await turn.tap()
            await expect(page.locator("#war")).to_have_text(war)
            await expect(page.locator("#seats .card.back").first).to_be_visible()
            await shoot(tab, folder / f"table-phone-double-war-{locale[:2]}.png")
            await tab.assert_clean()
            await tab.context.close()
