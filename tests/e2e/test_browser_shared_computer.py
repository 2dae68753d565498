"""The shared family computer, in the browser: one browser (one storage) keeps a seat per
room *and name*, so Opa and Oma in two tabs of one browser each keep their own seat across
reloads, each tab says whose seat it plays ("Playing as Oma · switch"), and the switch asks
who is there again. One server and one browser for the module."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from tests.e2e._browser import create_room, open_tab
from tests.e2e._process import ServerProcess, server_process

# one worker runs the module: its server and browser start once
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_shared_computer"),
]

KEPT = """(code) => Object.keys(localStorage)
  .filter((key) => key.startsWith('family-war.seat.' + code.replace(/-/g, '')))
  .sort()"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path_factory.mktemp("shared") / "war.sqlite3") as running:
        yield running


async def seated_as(page: Page, name: str) -> None:
    """``page`` is at the table in ``name``'s seat, connected, and says so."""
    await expect(page.locator("#seats .seat.me .name")).to_have_text(name)
    await expect(page.locator("#playing-who")).to_have_text(f"Playing as {name}")
    await expect(page.locator("#playing-switch")).to_have_text("switch")
    await expect(page.locator("#ended")).to_be_hidden()
    await expect(page.locator("#seats .seat.me .mark-away")).to_have_count(0)


async def test_two_tabs_of_one_browser_keep_two_seats_across_reloads(
    server: ServerProcess, browser: Browser
) -> None:
    opa = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
    await create_room(opa, "Opa", players=3, computers=1)
    link = await opa.page.locator("#join-link").inner_text()
    code = link.split("#join=")[1]
    oma = await opa.context.new_page()  # a second tab of the same browser
    await oma.goto(link)
    await expect(oma.locator("#stored-text")).to_have_text(
        "This browser keeps Opa's seat at this table."
    )
    await oma.click("#someone-else")
    await oma.fill("#invite-name", "Oma")
    await oma.click("#invite-form button[type=submit]")
    await expect(oma.locator("#log li").last).to_have_text("You are Oma, at seat 2 of 3.")
    await seated_as(oma, "Oma")
    await seated_as(opa.page, "Opa")
    assert len(await opa.page.evaluate(KEPT, code)) == 2, "a seat for each name"

    for _ in range(2):  # each tab reloads, one after the other, twice
        await opa.page.reload()
        await seated_as(opa.page, "Opa")
        await seated_as(oma, "Oma")
        await oma.reload()
        await seated_as(oma, "Oma")
        await seated_as(opa.page, "Opa")
    # no tab was told its seat is now played elsewhere
    for page in (opa.page, oma):
        assert "another window" not in await page.locator("#log").inner_text()

    await oma.click("#playing-switch")  # the tablet goes to the next person: who is there?
    await expect(oma.locator("#stored-text")).to_have_text(
        "This browser keeps seats at this table for more than one person. Who is playing here?"
    )
    choices = oma.locator("#continue-list button")
    await expect(choices).to_have_text(["Continue as Oma", "Continue as Opa"])
    await expect(oma.locator("#playing-as")).to_be_hidden()
    await choices.first.click()
    await seated_as(oma, "Oma")
    await seated_as(opa.page, "Opa")
    await opa.assert_clean()
    await opa.context.close()


async def test_one_after_the_other_on_one_tablet(server: ServerProcess, browser: Browser) -> None:
    """Opa plays, closes the tab; Oma opens the link, joins as herself, closes it; Opa
    opens the link again and picks his own seat back from the list."""
    ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
    await create_room(ann, "Ann", players=3)
    link = await ann.page.locator("#join-link").inner_text()
    tablet = await browser.new_context()
    first = await tablet.new_page()
    await first.goto(link)
    await first.fill("#invite-name", "Opa")
    await first.click("#invite-form button[type=submit]")
    await seated_as(first, "Opa")
    await first.close()
    second = await tablet.new_page()
    await second.goto(link)
    await expect(second.locator("#continue-list button")).to_have_text(["Continue as Opa"])
    await second.click("#someone-else")
    await second.fill("#invite-name", "Oma")
    await second.click("#invite-form button[type=submit]")
    await seated_as(second, "Oma")
    await second.close()
    third = await tablet.new_page()
    await third.goto(link)
    choices = third.locator("#continue-list button")
    await expect(choices).to_have_text(["Continue as Oma", "Continue as Opa"])
    await choices.filter(has_text="Opa").click()
    await seated_as(third, "Opa")
    await expect(
        third.locator("#seats .seat", has_text="Oma").locator(".mark-away")
    ).to_be_visible()
    await ann.assert_clean()
    await tablet.close()
    await ann.context.close()
