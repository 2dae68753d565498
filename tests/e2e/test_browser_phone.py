"""The family evening on phones: the browser table at 320 and 390 px with four players and
their badges, on a touch screen, with a full room, after a click on auto-play, and with a
table that feels alive (a flip, sounds, a buzz, a screen kept awake), the invitation's QR
code and the web app manifest.

One server and one browser for the whole module (each test opens its own contexts), so
the module stays fast.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
import zxingcpp
from PIL import Image
from playwright.async_api import Browser, Page, ViewportSize, expect

from client.words.catalog import Count, War, catalog
from tests.e2e._browser import PHONE, SMALL, chromium, count_of, create_room, open_tab, war_deal
from tests.e2e._process import ServerProcess, server_process

# one worker runs the module: its server and browser start once
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_phone"),
]

TABLET: ViewportSize = {"width": 820, "height": 1180}
OUT_DEAL = 2912
"""Four players, three cards face down: seat 2 is out of the game at step 4 (found by
playing the engine's deals)."""

LAYOUT = """() => {
  window.scrollTo(0, 0);
  const box = (el) => el.getBoundingClientRect();
  const turn = box(document.getElementById('turn'));
  const me = document.querySelector('.seat.me');
  const card = me.querySelector('.card.face:last-child, .card.empty');
  return {
    scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth,
    turnTop: turn.top,
    meBottom: box(me).bottom,
    said: box(document.getElementById('said')),
    card: card === null ? 0 : box(card).width,
  };
}"""

# The round's sentence, my seat's cards and the sticky dock (what to do next and the Turn
# over bar), as the page places them (it scrolls the sentence out from behind the dock).
IN_REACH = """() => {
  const box = (el) => el.getBoundingClientRect();
  const cards = [...document.querySelectorAll('.seat.me .card')].map(box);
  return {
    scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth,
    barTop: box(document.getElementById('dock')).top,
    said: box(document.getElementById('said')),
    cardsBottom: Math.max(...cards.map((card) => card.bottom)),
  };
}"""

# Recorded before the page runs: sounds started, buzzes, and wake locks asked and let go.
WATCH_ALIVE = """
window.__sounds = 0;
window.__buzz = [];
window.__locks = [];
// A buffer source (each sound, rendered once) has a start of its own.
for (const Node of [AudioScheduledSourceNode, AudioBufferSourceNode]) {
  const start = Node.prototype.start;
  Node.prototype.start = function (...args) {
    window.__sounds += 1;
    return start.apply(this, args);
  };
}
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, value: (pattern) => { window.__buzz.push(pattern); return true; },
});
Object.defineProperty(Navigator.prototype, "wakeLock", {
  configurable: true,
  get: () => ({
    request: async (kind) => {
      window.__locks.push(`request ${kind}`);
      return { release: async () => { window.__locks.push("release"); }, addEventListener() {} };
    },
  }),
});
"""

WATCH_FLIPS = """() => {
  window.__flips = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.querySelectorAll) window.__flips += node.querySelectorAll('.card.flip').length;
      }
    }
  }).observe(document.getElementById('seats'), { childList: true, subtree: true });
}"""

SHARE = """
window.__shared = [];
Object.defineProperty(Navigator.prototype, "share", {
  configurable: true, value: async (data) => { window.__shared.push(data); },
});
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path_factory.mktemp("phone") / "war.sqlite3") as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


def url_of(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}/"


async def resolve(page: Page, relative: str, base: str) -> str:
    """``relative`` resolved against ``base``, as the browser resolves a manifest's URLs."""
    href: str = await page.evaluate("([r, b]) => new URL(r, b).href", [relative, base])
    return href


async def layout(page: Page, viewport: ViewportSize) -> dict[str, Any]:
    await page.set_viewport_size(viewport)
    found: dict[str, Any] = await page.evaluate(LAYOUT)
    return found


async def test_four_players_with_badges_fit_a_phone(
    server: ServerProcess, browser: Browser
) -> None:
    grandma = await open_tab(browser, url_of(server), viewport=SMALL, reduced_motion=True)
    page = grandma.page
    await create_room(grandma, "Grandma", players=4, computers=2, deal=OUT_DEAL, face_down=3)
    link = await page.locator("#join-link").inner_text()
    ben = await open_tab(browser, link)
    await ben.page.fill("#invite-name", "Ben")
    await ben.page.click("#invite-form button[type=submit]")
    await ben.page.click("#auto label:has-text('quick')")
    await expect(ben.page.locator("#log li").first).to_have_text("Your auto-play is quick.")
    while not await page.locator(".mark", has_text="out of the game").count():
        await grandma.turn_over()
    await ben.context.close()  # Ben's phone goes to sleep: away, on quick auto-play
    seats = page.locator("#seats")
    for badge in ("away", "auto quick", "out of the game", "your turn"):
        await expect(seats.locator(".mark", has_text=badge).first).to_be_visible()
    await expect(page.locator("#status")).to_have_text("Press space to turn over.")
    for viewport in (SMALL, PHONE):
        shown = await layout(page, viewport)
        assert shown["scrollWidth"] <= shown["width"], (viewport, shown)
        assert shown["meBottom"] <= shown["turnTop"], ("my seat under the button", shown)
    await grandma.turn_over()
    await expect(page.locator("#said")).not_to_be_empty()
    for viewport in (SMALL, PHONE):
        shown = await layout(page, viewport)
        said = shown["said"]
        assert said["top"] >= 0 and said["bottom"] <= shown["turnTop"], ("the round", shown)
    phone_card = (await layout(page, PHONE))["card"]
    tablet_card = (await layout(page, TABLET))["card"]
    assert tablet_card >= 1.4 * phone_card, "a tablet's cards use its width"
    await grandma.assert_clean()
    await grandma.context.close()


async def test_a_war_three_down_stays_one_compact_row(
    server: ServerProcess, browser: Browser
) -> None:
    tab = await open_tab(browser, url_of(server), viewport=SMALL, reduced_motion=True)
    page = tab.page
    await create_room(tab, "Grandma", players=4, computers=3, deal=war_deal(4), face_down=3)
    await tab.turn_over()
    await expect(page.locator("#war")).to_contain_text("War between")
    await tab.turn_over()  # three down and one up
    stack = page.locator(".seat.me .card.back")
    await expect(stack).to_have_attribute("aria-label", "3 cards face down")
    await expect(stack.locator(".back-count")).to_have_text("×3")
    rows = await page.evaluate(
        "[...document.querySelectorAll('.card-row')].map((r) => [r.getBoundingClientRect().height,"
        " Math.max(...[...r.children].map((c) => c.getBoundingClientRect().height))])"
    )
    for height, tallest in rows:
        assert height <= tallest + 1, "the cards of a seat lie in one row"
    shown = await layout(page, SMALL)
    assert shown["scrollWidth"] <= shown["width"], shown
    await tab.assert_clean()
    await tab.context.close()


async def assert_in_reach(page: Page, moment: str) -> None:
    """At 320 and 390 px and on a tablet, as the page places it: no sideways scroll, and
    the round's sentence and my seat's cards above the sticky dock (the status and the
    Turn over bar)."""
    for viewport in (SMALL, PHONE, TABLET):
        await page.set_viewport_size(viewport)
        shown: dict[str, Any] = await page.evaluate(IN_REACH)
        where = (moment, viewport, shown)
        assert shown["scrollWidth"] <= shown["width"], where
        assert shown["said"]["top"] >= 0, where
        assert shown["said"]["bottom"] <= shown["barTop"], ("the round under the button", where)
        assert shown["cardsBottom"] <= shown["barTop"], ("my cards under the button", where)


@pytest.mark.parametrize(
    ("players", "locale"),
    [
        (4, "en-US"),
        (3, "en-US"),
        (2, "en-US"),
        (4, "es-ES"),
        (4, "fr-FR"),
        (4, "de-DE"),
        (4, "pl-PL"),
    ],
)
async def test_in_a_war_the_round_is_above_the_button(
    server: ServerProcess, browser: Browser, players: int, locale: str
) -> None:
    """In every language, with four players (the most seats above the sentence); French and
    Spanish say a four-player war at the greatest length."""
    lang = locale[:2]
    words = catalog(lang, strict=True)
    tab = await open_tab(
        browser, url_of(server), viewport=SMALL, touch=True, reduced_motion=True, locale=locale
    )
    page = tab.page
    deal = war_deal(players)
    await create_room(tab, "Grandma", players=players, computers=players - 1, deal=deal, lang=lang)
    await tab.turn_over()
    war_head = words.text("said.war_head", war=War(1))  # "War!", "Bataille !"
    said = page.locator("#said")
    await expect(page.locator(".seat.me.in-war")).to_be_visible()
    await expect(page.locator("#war")).to_be_visible()
    await expect(said).to_contain_text(war_head)
    await assert_in_reach(page, f"a war, {locale}")
    await tab.turn_over()  # one down and one up: the war is settled
    await expect(page.locator("#war")).to_be_hidden()
    await expect(said).not_to_contain_text(war_head)
    haul = count_of(await page.locator(".seat.won .haul").inner_text())  # "+8"
    await expect(said).to_contain_text(words.word(Count("card", haul)))  # "takes 8 cards"
    await assert_in_reach(page, f"the war's result, {locale}")
    await tab.assert_clean()
    await tab.context.close()


async def test_a_touch_screen_is_told_to_tap(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, url_of(server), touch=True, reduced_motion=True)
    page = tab.page
    await page.fill("#start-name", "Grandma")
    await page.tap("#vs-computer")
    status = page.locator("#status")
    await expect(status).to_have_text("Tap Turn over.")
    await page.tap("#turn")
    # the deal is the server's choice: the first flip may be a war ("War! Your King ties…")
    await expect(page.locator("#said")).to_contain_text(re.compile("beats|ties"))
    said = await page.locator("#said").bounding_box()
    turn = await page.locator("#turn").bounding_box()
    assert said is not None and turn is not None
    assert said["y"] >= 0 and said["y"] + said["height"] <= turn["y"], "the round is in sight"
    await page.tap("#auto label:has-text('calm')")
    await expect(status).to_contain_text("Tap off under Auto-play to turn over yourself.")
    await page.tap("#finish")
    await expect(status).to_have_text("Game over. Tap a rematch button to play again.")
    assert "Press" not in await page.locator("body").inner_text(), "no keys on a phone"
    await tab.assert_clean()
    await tab.context.close()


async def test_keys_work_again_after_clicking_an_auto_play_option(
    server: ServerProcess, browser: Browser
) -> None:
    tab = await open_tab(browser, url_of(server))
    page = tab.page
    await page.fill("#start-name", "Ben")
    await page.click("#vs-computer")
    await expect(page.locator("#status")).to_have_text("Press space to turn over.")
    await page.click("#auto label:has-text('calm')")
    await expect(page.locator("#log li").first).to_have_text("Your auto-play is calm.")
    await page.keyboard.press("a")  # the focus is not left on the option
    await expect(page.locator("#log li").first).to_have_text("Your auto-play is quick.")
    await page.click("#auto label:has-text('off')")
    await expect(page.locator("#log li").first).to_have_text("Your auto-play is off.")
    await expect(page.locator("#turn")).to_have_attribute("aria-disabled", "false")
    step = await page.locator("#table").get_attribute("data-step")
    await page.keyboard.press("Space")
    await expect(page.locator("#table")).not_to_have_attribute("data-step", str(step))
    await tab.assert_clean()
    await tab.context.close()


async def test_a_full_room_helps_and_finishing_says_what_it_does(
    server: ServerProcess, browser: Browser
) -> None:
    ann = await open_tab(browser, url_of(server))
    await create_room(ann, "Ann")
    link = await ann.page.locator("#join-link").inner_text()
    watch = (await ann.page.locator("#watch-link").inner_text()).split("#watch=")[1]
    ben = await open_tab(browser, link)
    await ben.page.fill("#invite-name", "Ben")
    await ben.page.click("#invite-form button[type=submit]")
    finish = ann.page.locator("#finish")
    await expect(finish).to_have_text("Finish now (the rest at once)")
    await finish.click()
    await expect(ann.page.locator("#votes")).to_have_text(
        "You voted to finish now (the rest is played out at once); still to vote: Ben."
    )
    late = await open_tab(browser, link)
    page = late.page
    await page.fill("#invite-name", "Cy")  # no seat of that name
    await page.click("#invite-form button[type=submit]")
    full = "That game is full: every seat is taken."
    await expect(page.locator("#ended-text")).to_have_text(full)
    await expect(page.locator("#full-help")).to_contain_text("the name you played under")
    # an invitee has the player code alone: told where the watch link is, not asked for a code
    await expect(page.locator("#full-help")).to_contain_text("A player code does not let you")
    await expect(page.locator("#watch-form input[name=code]")).to_be_hidden()
    await page.click("#watch-code-form summary")  # "I have a watch code"
    await expect(page.locator("#table")).to_be_hidden()  # no "Connecting…", no empty log
    await expect(page.locator("#invite-name")).to_be_visible()
    await page.fill("#watch-form input[name=code]", watch.lower())
    await page.click("#watch-form button[type=submit]")
    await expect(page.locator("#log li").last).to_have_text("You are watching Ann and Ben.")
    for tab in (ann, ben, late):
        await tab.assert_clean()
        await tab.context.close()


async def test_the_invitation_has_a_qr_code_of_the_whole_link(
    server: ServerProcess, browser: Browser
) -> None:
    tab = await open_tab(browser, url_of(server), viewport=SMALL)
    page = tab.page
    loaded: list[str] = []
    page.on("response", lambda response: loaded.append(response.url))
    assert not any("qr" in u for u in loaded), "the QR code's library waits for an invitation"
    await create_room(tab, "Grandma", players=3, computers=1)
    link = page.locator("#join-link")
    await expect(link).to_have_text(f"{url_of(server)}#join={page.url.split('#join=')[1]}")
    box = await link.bounding_box()
    assert box is not None and box["x"] + box["width"] <= SMALL["width"], "all of it in sight"
    await expect(page.locator("#local-warning")).to_contain_text(
        "127.0.0.1 works only on this machine"  # and this server listens there alone
    )
    await expect(page.locator("#qr svg")).to_be_visible()
    assert any("/vendor/lean-qr/" in u for u in loaded)
    picture = Image.open(io.BytesIO(await page.locator("#qr").screenshot()))
    found = zxingcpp.read_barcodes(picture)
    assert [code.text for code in found] == [await link.inner_text()]
    await expect(page.locator("#share-join-button")).to_be_hidden()  # no Web Share here
    await expect(page.locator("#copy-join")).to_be_visible()
    await tab.assert_clean()
    await tab.context.close()

    sharer = await open_tab(browser, url_of(server), init_script=SHARE, touch=True)
    await create_room(sharer, "Ann", players=3, computers=1)
    button = sharer.page.locator("#share-join-button")
    await button.tap()
    shared = await sharer.page.evaluate("window.__shared")
    assert shared[0]["url"] == await sharer.page.locator("#join-link").inner_text()
    await sharer.assert_clean()
    await sharer.context.close()


async def test_a_table_that_feels_alive(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, url_of(server), init_script=WATCH_ALIVE)
    page = tab.page
    await create_room(tab, "Grandma", computers=1, deal=war_deal())
    await page.evaluate(WATCH_FLIPS)
    await tab.turn_over()
    await expect(page.locator("#war")).to_have_text("War between you and the computer!")
    assert await page.evaluate("window.__flips") >= 1, "the card turned over"
    assert await page.evaluate("window.__sounds") > 0, "a flip and a war are heard"
    assert await page.evaluate("window.__buzz") == [[90, 60, 90]], "a war buzzes"
    assert "request screen" in await page.evaluate("window.__locks"), "kept awake"
    await page.click("#sound")
    await expect(page.locator("#sound")).to_have_attribute("aria-pressed", "false")
    await page.reload()  # the switch is remembered
    await expect(page.locator("#sound")).to_have_text("Sound off")
    await expect(page.locator("#war")).to_be_visible()
    await tab.turn_over()
    assert await page.evaluate("[window.__sounds, window.__buzz]") == [0, []], "quiet"
    await page.keyboard.press("f")
    await expect(page.locator("#result")).to_contain_text("Game over")
    await page.wait_for_function("window.__locks.includes('release')")
    await tab.assert_clean()
    await tab.context.close()


async def test_the_web_app_manifest_and_its_icons(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, url_of(server))
    page = tab.page
    href = await page.locator("link[rel=manifest]").get_attribute("href")
    assert href is not None
    address = f"{url_of(server)}{href}"
    answer = await page.request.get(address)
    assert answer.ok and answer.headers["content-type"] == "application/manifest+json"
    manifest = json.loads(await answer.text())
    assert manifest["name"] == "Family War" and manifest["display"] == "standalone"
    assert page.url.startswith(await resolve(page, manifest["start_url"], address))
    sizes = set()
    for icon in manifest["icons"]:
        fetched = await page.request.get(await resolve(page, icon["src"], address))
        assert fetched.ok and fetched.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            body = await fetched.body()
            width, height = int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes, "what Add to Home Screen needs"
    touch_icon = await page.locator("link[rel=apple-touch-icon]").get_attribute("href")
    assert touch_icon is not None and (await page.request.get(url_of(server) + touch_icon)).ok
    await tab.assert_clean()
    await tab.context.close()
