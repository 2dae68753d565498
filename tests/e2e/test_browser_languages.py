"""The browser table in the viewer's own language: pages whose browser speaks Spanish,
German, Polish or French play a whole game at four with a war, on a touch phone at 320 and 390 px,
with no horizontal scroll and no English left on the table besides the players' names
(the three computer seats are "Ordenador 1"… in the page's words, never exempt); the picker in
the header changes the language and is remembered; two relatives at one table read it in
two languages at once.

One server and one browser for the whole module (each test opens its own contexts).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from tests.e2e._browser import PHONE, SMALL, Tab, chromium, open_tab, war_deal
from tests.e2e._english import english_left, english_only, shown_text
from tests.e2e._process import ServerProcess, server_process

# one worker runs the module: its server and browser start once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser_languages")]
in_the_module_loop = pytest.mark.asyncio(loop_scope="module")

WIDTH = """() => [document.documentElement.scrollWidth, innerWidth,
  [...document.querySelectorAll('body *')]
    .filter((n) => n.getBoundingClientRect().right > innerWidth)
    .map((n) => `${n.tagName}.${n.className}#${n.id}`).slice(0, 8)]"""
"""The page's width, the window's, and what sticks out on the right."""
TURN_OVER = {"es": "Dar la vuelta", "de": "Aufdecken", "pl": "Odkryj", "fr": "Retourner"}
"""The big button, in each language (a check that the page speaks it, not English)."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path_factory.mktemp("languages") / "war.sqlite3") as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


def url_of(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}/"


async def assert_speaks(tab: Tab, tag: str, names: list[str], where: str) -> None:
    """At 320 and 390 px: no horizontal scroll, and no English word but the players' names
    (the computer seats' names are the page's words: "Ordenador 2", never "Computer 2")."""
    page = tab.page
    assert await page.evaluate("document.documentElement.lang") == tag, where
    for viewport in (SMALL, PHONE):
        await page.set_viewport_size(viewport)
        width = await page.evaluate(WIDTH)
        assert width[0] <= width[1], (tag, where, viewport, width)
        left = english_left(await shown_text(page), names, tag)
        assert not left, (tag, where, viewport["width"], left)


def test_the_checker_finds_english_and_spares_the_other_languages() -> None:
    assert english_left("Turn over · Computer 2 takes 4 cards", ["Computer 2"]) == [
        "Turn", "cards", "over", "takes",
    ]  # fmt: skip
    assert english_left("Odkryj · Dźwięk wł. · Aufdecken · Dar la vuelta", []) == []
    assert {"turn", "over", "cards", "waiting", "rematch"} <= english_only()
    # a computer seat named in English on a Spanish table is English left; German says it
    assert english_left("El 7 de Computer 2 vence a tu 5.", ["Grażyna"], "es") == ["Computer"]
    assert english_left("Die 7 von Computer 2 schlägt deine 5.", [], "de") == []
    assert english_left("El 7 de Ordenador 2 vence a tu 5.", [], "es") == []


@in_the_module_loop
@pytest.mark.parametrize("locale", ["es-ES", "de-DE", "pl-PL", "fr-FR"])
async def test_a_whole_game_with_a_war_in_the_browsers_language(
    server: ServerProcess, browser: Browser, locale: str
) -> None:
    tag = locale[:2]
    tab = await open_tab(browser, url_of(server), viewport=SMALL, touch=True, locale=locale)
    page = tab.page
    await expect(page.locator("#start")).to_be_visible()
    await assert_speaks(tab, tag, [], "the start page")
    await page.fill("#start-name", "Grażyna")
    await page.tap("#create summary")
    await page.check("#create-form input[name=players][value='4']")
    await page.select_option("#create-form select[name=computers]", "3")
    await page.fill("#create-form input[name=deal]", str(war_deal(4)))
    await assert_speaks(tab, tag, [], "the room's form")
    await page.tap("#create-form button[type=submit]")
    turn = page.locator("#turn")
    await expect(turn).to_have_text(TURN_OVER[tag])
    await tab.turn_over()
    await expect(page.locator("#war")).to_be_visible()
    await assert_speaks(tab, tag, ["Grażyna"], "a war")
    await tab.turn_over()  # the war's cards
    await expect(page.locator("#said")).not_to_be_empty()
    await assert_speaks(tab, tag, ["Grażyna"], "the war's cards")
    await page.tap("#finish")
    await expect(page.locator("#over")).to_be_visible()
    await expect(page.locator("#result")).not_to_be_empty()
    await assert_speaks(tab, tag, ["Grażyna"], "game over")
    await tab.assert_clean()
    await tab.context.close()


@in_the_module_loop
async def test_two_relatives_read_one_table_in_two_languages(
    server: ServerProcess, browser: Browser
) -> None:
    babcia = await open_tab(browser, url_of(server), locale="pl-PL", touch=True)
    page = babcia.page
    await page.fill("#start-name", "Babcia")
    await page.tap("#create summary")
    await page.fill("#create-form input[name=deal]", str(war_deal(2)))
    await page.tap("#create-form button[type=submit]")
    await expect(page.locator("#log li").last).to_have_text("Grasz jako: Babcia, miejsce 1 z 2.")
    link = await page.locator("#join-link").inner_text()
    ben = await open_tab(browser, link, locale="en-GB", touch=True)
    await ben.page.fill("#invite-name", "Ben")
    await ben.page.tap("#invite-form button[type=submit]")
    await expect(ben.page.locator("#status")).to_have_text("Tap Turn over.")
    await expect(page.locator("#status")).to_have_text("Dotknij „Odkryj”.")
    await babcia.turn_over()
    await ben.turn_over()
    await expect(page.locator("#war")).to_have_text("Wojna: ty i Ben!")
    await expect(ben.page.locator("#war")).to_have_text("War between Babcia and you!")
    # Ben picks Spanish: the page speaks it from now on, and remembers it
    await ben.page.select_option("#language", "es")
    await expect(ben.page.locator("#turn")).to_have_text(TURN_OVER["es"])
    assert await ben.page.evaluate("document.documentElement.lang") == "es"
    await ben.page.reload()
    await expect(ben.page.locator("#turn")).to_have_text(TURN_OVER["es"])
    await expect(ben.page.locator("#language")).to_have_value("es")
    await assert_speaks(ben, "es", ["Babcia", "Ben"], "after the picker")
    for tab in (babcia, ben):
        await tab.assert_clean()
        await tab.context.close()
