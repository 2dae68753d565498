"""The phone at 320x640 and 390x844, four players, touch, in every language (en, es, fr,
de, pl): nothing spills out of a seat ("16 cartas +4"), what the player must do next (the
status, a war's instruction, a seat question and its buttons, a vote) is in view above the
Turn over bar rather than under it (`document.elementFromPoint` at its centre finds it),
the round's sentence is not under the bar either, talk bubbles never cover a name, the war
or the round's sentence, the commands in the local warning do not break, and a rematch
scrolls back to the table. One server and one browser for the module. The pictures (a war
and a seat question at 320 px in each language) go to ``$WAR_SCREENSHOTS`` when it is set,
else to the test's temporary folder (docs/screenshots/README.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, ViewportSize, expect

from client.words.catalog import catalog
from tests.e2e._browser import (
    PHONE,
    SMALL,
    Tab,
    count_of,
    create_room,
    open_tab,
    screenshot_folder,
    shoot,
    war_deal,
)
from tests.e2e._process import ServerProcess, server_process

# one worker runs the module: its server and browser start once
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_small_phone"),
]

PHONES = (SMALL, PHONE)
LANGUAGES = ("en", "es", "fr", "de", "pl")
LOCALES = {"en": "en-US", "es": "es-ES", "fr": "fr-FR", "de": "de-DE", "pl": "pl-PL"}

# Everything of a seat inside the seat (a bubble aside: it is checked on its own), and
# nothing cut inside its own box; the page no wider than the screen.
SPILLS = """() => {
  const box = (el) => el.getBoundingClientRect();
  const spilt = [];
  for (const seat of document.querySelectorAll('#seats .seat')) {
    const s = box(seat);
    for (const el of seat.querySelectorAll('*')) {
      if (el.closest('.bubble')) continue;
      const b = box(el);
      if (b.width === 0 && b.height === 0) continue;
      const out = b.left < s.left - 0.5 || b.right > s.right + 0.5 || b.top < s.top - 0.5
        || b.bottom > s.bottom + 0.5;
      const cut = el.scrollWidth > el.clientWidth + 1
        && getComputedStyle(el).overflowX !== 'visible';
      const who = seat.querySelector('.name').textContent;
      if (out || cut) spilt.push(`${who}: ${el.className} "${el.textContent}"`);
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > innerWidth) spilt.push(`the page is ${page.scrollWidth} px wide`);
  return spilt;
}"""

# Each element (by id or selector) that shows: whether the point at its centre is it (not
# the bar over it), and whether it lies above the Turn over button; `top`: scrolled to the
# top of the page first.
IN_VIEW = """([selectors, top]) => {
  if (top) window.scrollTo(0, 0);
  const turn = document.getElementById('turn');
  const turnTop = turn.offsetParent === null ? innerHeight : turn.getBoundingClientRect().top;
  const found = {};
  for (const selector of selectors) {
    const el = document.querySelector(selector);
    if (el === null || el.offsetParent === null) { found[selector] = 'not shown'; continue; }
    const b = el.getBoundingClientRect();
    const at = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    const seen = at !== null && el.contains(at);
    const above = b.top >= 0 && b.bottom <= turnTop + 0.5;
    const how = seen ? 'seen' : `covered by ${at && (at.id || at.className)}`;
    const lies = `${Math.round(b.top)}-${Math.round(b.bottom)}, button at ${Math.round(turnTop)}`;
    found[selector] = seen && (el.closest('#actions') !== null || above) ? 'ok' : `${how}, ${lies}`;
  }
  return found;
}"""

# The round's sentence and the war are neither under the dock (the status and the bar)
# nor above the screen, as the page left them (it scrolls them into sight itself).
SENTENCE = """() => {
  const dock = document.getElementById('dock').getBoundingClientRect().top;
  const found = {};
  for (const id of ['war', 'said']) {
    const el = document.getElementById(id);
    if (el.hidden || el.textContent === '') continue;
    const b = el.getBoundingClientRect();
    const lies = `${Math.round(b.top)}-${Math.round(b.bottom)}, the dock at ${Math.round(dock)}`;
    found[id] = b.top >= 0 && b.bottom <= dock + 0.5 ? 'ok' : lies;
  }
  return found;
}"""

# Every bubble, as it appears (and again when its words change), checked against every
# seat's name, the war and the round's sentence: their boxes may not meet.
WATCH_BUBBLES = """() => {
  window.__bubbles = 0;
  window.__bubbleProblems = [];
  const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const check = () => {
    for (const bubble of document.querySelectorAll('.bubble')) {
      window.__bubbles += 1;
      const b = bubble.getBoundingClientRect();
      const others = [...document.querySelectorAll('#seats .name'), document.getElementById('war'),
        document.getElementById('said')];
      for (const other of others) {
        if (other.offsetParent === null || other.textContent === '') continue;
        if (meet(b, other.getBoundingClientRect())) {
          const what = other.id || `the name ${other.textContent}`;
          window.__bubbleProblems.push(`"${bubble.textContent}" over ${what}`);
        }
      }
    }
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; check(); });
  }).observe(document.getElementById('table'),
    { childList: true, subtree: true, characterData: true });
}"""


# Every shown button, choice and summary: its words inside it (nothing cut or spilt) and
# it inside the screen; the rules' one-line summary ends in "…" by design, and the reactions
# are a row that scrolls sideways.
LABELS_SPILL = """() => [...document.querySelectorAll('button, .choices label, summary')]
  .filter((el) => el.offsetParent !== null && el.getClientRects().length > 0)
  .filter((el) => getComputedStyle(el).textOverflow !== 'ellipsis' && !el.closest('.reactions'))
  .filter((el) => {
    const b = el.getBoundingClientRect();
    return el.scrollWidth > el.clientWidth + 1 || b.left < -0.5 || b.right > innerWidth + 0.5;
  })
  .map((el) => `${el.id || el.className || el.tagName}: "${el.textContent.trim()}"`)"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServerProcess]:
    # 127.0.0.1 is trusted as a proxy: a tab naming another address in X-Forwarded-For is
    # another household (nobody at the asker's own address may answer a seat question)
    db = tmp_path_factory.mktemp("small") / "war.sqlite3"
    async with server_process(db, "--trusted-proxies", "127.0.0.1") as running:
        yield running


def url_of(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}/"


async def speak(page: Page, lang: str) -> None:
    """Pick ``lang`` in the page's language menu and wait until the page speaks it."""
    await page.select_option("#language", lang)
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    turn = catalog(lang, strict=True).text("page.turn")
    await expect(page.locator("#turn")).to_have_text(turn)


async def assert_in_view(
    page: Page, selectors: list[str], where: str, *, as_it_is: bool = True
) -> None:
    """Each of ``selectors`` is shown, seen at its centre and above the button, as the page
    is (unless ``as_it_is`` is false: the page was scrolled down to a button under the
    dock, past the place where the dock sticks) and scrolled to the top."""
    for top in (False, True) if as_it_is else (True,):
        found: dict[str, str] = await page.evaluate(IN_VIEW, [selectors, top])
        assert set(found.values()) == {"ok"}, (where, "top" if top else "as it is", found)


async def assert_no_spill(page: Page, where: str) -> None:
    spilt: list[str] = await page.evaluate(SPILLS)
    assert not spilt, (where, spilt)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("viewport", PHONES, ids=lambda v: f"{v['width']}x{v['height']}")
async def test_a_war_at_four_fits_the_phone(
    server: ServerProcess, browser: Browser, lang: str, viewport: ViewportSize, tmp_path: Path
) -> None:
    """A war at four: its instruction and the round's sentence in view, nothing spilt; then
    rounds are played until another seat's tile shows a two-digit count and a haul (the
    widest it gets), nothing spilt at any of them. At 320 px, a picture of the war
    (``table-small-phone-four-LANG.png``, docs/screenshots/README.md)."""
    tab = await open_tab(
        browser,
        url_of(server),
        viewport=viewport,
        touch=True,
        reduced_motion=True,
        locale=LOCALES[lang],
    )
    page = tab.page
    await create_room(tab, "Grandma", players=4, computers=3, deal=war_deal(4), lang=lang)
    await tab.turn_over()
    await expect(page.locator("#war")).to_be_visible()
    where = f"a war, {lang}, {viewport}"
    await expect(page.locator("#status")).to_contain_text(
        catalog(lang, strict=True).text("page.turn")  # "… Turn over …": what to do in a war
    )
    assert await page.evaluate(SENTENCE) == {"war": "ok", "said": "ok"}, where
    if viewport == SMALL:  # as the page left it: scrolled to show the round's sentence
        await page.screenshot(
            path=screenshot_folder(tmp_path) / f"table-small-phone-four-{lang}.png",
            animations="disabled",
            caret="hide",
        )
    await assert_in_view(page, ["#status", "#turn"], where)
    await assert_no_spill(page, where)
    widest = False
    for _ in range(60):
        await tab.turn_over()
        await assert_no_spill(
            page, f"round {await page.locator('#table').get_attribute('data-step')}, {where}"
        )
        await assert_in_view(page, ["#status", "#turn"], where)
        for tile in await page.locator("#seats .seat:not(.me)").all():
            haul = await tile.locator(".haul").inner_text()
            if haul and count_of(await tile.locator(".count").inner_text()) >= 10:
                widest = True
        if widest:
            break
    assert widest, "no tile showed a two-digit count with a haul: pick another deal"
    await tab.assert_clean()
    await tab.context.close()


async def join(browser: Browser, link: str, name: str, address: str | None = None) -> Tab:
    tab = await open_tab(browser, link, reduced_motion=True, forwarded_for=address)
    await tab.page.fill("#invite-name", name)
    await tab.page.click("#invite-form button[type=submit]")
    await expect(tab.page.locator("#seats .seat.me .name")).to_have_text(name)
    return tab


async def test_a_seat_question_and_a_vote_are_above_the_bar(
    server: ServerProcess, browser: Browser, tmp_path: Path
) -> None:
    """Klaus's phone sleeps; another device (another address) asks for his seat: Grandma's
    320 px phone asks the question with its buttons in view, in every language; then
    Grandma votes to finish and the vote's line is in view too."""
    grandma = await open_tab(
        browser, url_of(server), viewport=SMALL, touch=True, reduced_motion=True
    )
    page = grandma.page
    await create_room(grandma, "Grandma", players=4, computers=2, deal=war_deal(4))
    link = await page.locator("#join-link").inner_text()
    klaus = await join(browser, link, "Klaus")
    await grandma.turn_over()
    await klaus.turn_over()
    await expect(page.locator("#war")).to_be_visible()
    await klaus.context.close()  # his phone sleeps: his seat is away
    await expect(page.locator("#seats .seat .mark-away")).to_be_visible()
    # his other device, from another address: the table at Grandma's may answer it
    other = await open_tab(browser, link, reduced_motion=True, forwarded_for="198.51.100.7")
    await other.page.fill("#invite-name", "Klaus")
    await other.page.click("#invite-form button[type=submit]")
    ask = page.locator("#seat-request")
    await expect(ask).to_be_visible()
    question = ["#seat-request-text", "#seat-allow", "#seat-refuse", "#status", "#turn"]
    for lang in LANGUAGES:
        await speak(page, lang)
        await page.set_viewport_size(SMALL)
        await shoot(grandma, screenshot_folder(tmp_path) / f"seat-request-320-{lang}.png")
        for viewport in PHONES:
            await page.set_viewport_size(viewport)
            await assert_in_view(page, question, f"the question, {lang}, {viewport}")
            fits = await page.evaluate(
                "[...document.querySelectorAll('#seat-request button')]"
                ".every((b) => b.scrollWidth <= b.clientWidth + 1)"
            )
            assert fits, ("a button's words spill", lang, viewport)
    await speak(page, "en")
    await page.set_viewport_size(SMALL)
    await page.locator("#seat-allow").tap()
    await expect(ask).to_be_hidden()
    await expect(other.page.locator("#seats .seat.me .name")).to_have_text("Klaus")
    await page.locator("#finish").tap()  # under the dock and the talk: scrolled down to it
    await expect(page.locator("#votes")).to_contain_text("still to vote: Klaus")
    for lang in LANGUAGES:
        await speak(page, lang)
        for viewport in PHONES:
            await page.set_viewport_size(viewport)
            vote = f"a vote, {lang}, {viewport}"
            await assert_in_view(page, ["#votes", "#status", "#turn"], vote, as_it_is=False)
    for tab in (grandma, other):
        await tab.assert_clean()
        await tab.context.close()


async def test_talk_bubbles_cover_no_name_war_or_sentence(
    server: ServerProcess, browser: Browser
) -> None:
    """Four at the table (Grandma, Ben, Cy and the computer) and someone watching, in a war:
    each of them talks at 320 and 390 px, in every language of Grandma's page."""
    grandma = await open_tab(
        browser, url_of(server), viewport=SMALL, touch=True, reduced_motion=True
    )
    page = grandma.page
    await create_room(grandma, "Grandma", players=4, computers=1, deal=war_deal(4), talk="all")
    link = await page.locator("#join-link").inner_text()
    watch = await page.locator("#watch-link").inner_text()
    # Each from a household of its own: talk is rated per address and room (issue 32), and
    # the four of one address would share one message every 2 s.
    others = [
        await join(browser, link, name, f"198.51.100.{host}")
        for name, host in (("Ben", 11), ("Cy", 12))
    ]
    for tab in others:
        await tab.page.click("#auto label:has-text('quick')")
    watcher = await open_tab(browser, watch, reduced_motion=True, forwarded_for="198.51.100.13")
    await expect(watcher.page.locator("#say-text")).to_be_visible()
    await grandma.turn_over()
    await expect(page.locator("#war")).to_be_visible()
    await expect(page.locator("#said")).not_to_be_empty()
    await page.evaluate(WATCH_BUBBLES)
    talkers = [grandma, *others, watcher]
    rounds = 0
    for lang in LANGUAGES:
        await speak(page, lang)
        for viewport in PHONES:
            await page.set_viewport_size(viewport)
            for tab in talkers:
                if rounds % 2:  # a reaction, or a message long enough for two lines
                    await tab.page.locator("#reactions button.phrase").first.click()
                else:
                    await tab.page.fill(
                        "#say-text", "Good luck everyone, this round is mine for sure!"
                    )
                    await tab.page.press("#say-text", "Enter")
            await page.wait_for_function("() => document.querySelectorAll('.bubble').length === 4")
            problems = await page.evaluate("window.__bubbleProblems")
            assert not problems, (lang, viewport, problems)
            rounds += 1
    assert await page.evaluate("window.__bubbles") >= 4 * rounds, "every bubble was checked"
    for tab in talkers:
        await tab.assert_clean()
        await tab.context.close()


async def test_the_local_warnings_commands_stay_whole(
    server: ServerProcess, browser: Browser
) -> None:
    """The server listens on 127.0.0.1 alone: the invitation says to start it with
    "make run HOST=0.0.0.0 (war-server --host 0.0.0.0)", each command on one line at 320 px."""
    tab = await open_tab(browser, url_of(server), viewport=SMALL, touch=True)
    page = tab.page
    await create_room(tab, "Grandma", players=3, computers=1)
    commands = page.locator("#local-warning .command")
    for lang in LANGUAGES:
        await speak(page, lang)
        await expect(commands).to_have_text(["make run HOST=0.0.0.0", "war-server --host 0.0.0.0"])
        lines: list[Any] = await page.evaluate(
            "[...document.querySelectorAll('#local-warning .command')].map((c) =>"
            " [c.getClientRects().length, c.getBoundingClientRect().right <= innerWidth])"
        )
        assert lines == [[1, True], [1, True]], (lang, lines)
    await tab.assert_clean()
    await tab.context.close()


async def test_a_rematch_scrolls_back_to_the_table(server: ServerProcess, browser: Browser) -> None:
    tab = await open_tab(browser, url_of(server), viewport=SMALL, touch=True, reduced_motion=True)
    page = tab.page
    await create_room(tab, "Grandma", computers=1)
    await tab.turn_over()  # her seed revealed: a finish vote waits for the deal's seeds
    await page.locator("#finish").tap()
    await expect(page.locator("#result")).to_contain_text("Game over")
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert await page.evaluate("window.scrollY") > 0, "the page is taller than the phone"
    await page.locator("#rematch-new").tap()
    await expect(page.locator("#result")).to_be_hidden()
    await expect(page.locator("#where")).to_contain_text("game 2")
    await page.wait_for_function("() => window.scrollY === 0")
    await tab.assert_clean()
    await tab.context.close()


async def test_long_labels_fit_their_buttons(server: ServerProcess, browser: Browser) -> None:
    """At 320 px in every language: the start page with "Create a room" open, the table
    in play and at game over (Finish now, the rematch buttons, auto-play's choices)."""
    tab = await open_tab(browser, url_of(server), viewport=SMALL, touch=True, reduced_motion=True)
    page = tab.page

    async def every_language(moment: str) -> None:
        for lang in LANGUAGES:
            await page.select_option("#language", lang)
            await expect(page.locator("html")).to_have_attribute("lang", lang)
            spilt = await page.evaluate(LABELS_SPILL)
            assert not spilt, (moment, lang, spilt)

    await page.click("#create summary")
    await every_language("the start page")
    await page.select_option("#language", "en")
    await page.click("#create summary")  # closed again: create_room opens it
    await create_room(tab, "Grandma", players=4, computers=3)
    await every_language("the table")
    await page.select_option("#language", "en")
    await tab.turn_over()  # her seed revealed: a finish vote waits for the deal's seeds
    await page.locator("#finish").tap()
    await expect(page.locator("#rematch-new")).to_be_visible()
    await every_language("game over")
    await tab.assert_clean()
    await tab.context.close()
