"""Debian's Chromium, driven by Playwright, for the browser table's tests.

Playwright's own browsers are never downloaded: `chromium` launches the system's
``/usr/bin/chromium`` (``$WAR_TEST_CHROMIUM`` to use another) by its path. Without it the
browser tests are skipped on a workstation and fail in CI (``$CI`` set), where ``.ci/run``
installs it.

A `Tab` is one page that records every console error, uncaught exception, failed or
refused request and Content-Security-Policy violation, so each test can end with
``tab.assert_clean()``. Everything waits on events (Playwright's auto-waiting and
``expect``), never on a sleep.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Request,
    ViewportSize,
    async_playwright,
    expect,
)
from playwright.async_api import Error as PlaywrightError

from client.words.catalog import catalog
from server import engine

__all__ = [
    "CHROMIUM",
    "PHONE",
    "SMALL",
    "Tab",
    "chromium",
    "count_of",
    "create_room",
    "open_tab",
    "screenshot_folder",
    "shoot",
    "war_deal",
]

CHROMIUM = Path(os.environ.get("WAR_TEST_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL: ViewportSize = {"width": 320, "height": 640}  # the smallest phone the table serves
"""A phone's viewport (an iPhone 12 to 15), the size the table is designed for first."""
TIMEOUT_MS = 30_000
expect.set_options(timeout=15_000)  # a loaded CI machine, not a slow page

# Recorded in the page before its own scripts run (an init script is not subject to the
# page's CSP): the page's Content-Security-Policy violations.
_WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """A headless Chromium (the system's), closed at the end."""
    if not os.path.exists(CHROMIUM):  # noqa: ASYNC240 - once, before anything starts
        message = f"no browser at {CHROMIUM}: apt-get install chromium (or set WAR_TEST_CHROMIUM)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Tab:
    """One page of the table and what went wrong in it."""

    page: Page
    context: BrowserContext
    problems: list[str] = field(default_factory=list)
    touch: bool = False
    """a touch screen's tab (`open_tab`): `turn_over` taps, as a finger does"""

    async def log(self) -> list[str]:
        """The table's log, oldest line first."""
        lines = await self.page.locator("#log li:not(.notice)").all_inner_texts()
        return lines[::-1]

    async def assert_clean(self, *, allow: str | None = None) -> None:
        """No console error, page error, failed request or CSP violation so far, except
        problems matching the regular expression ``allow`` (say, the browser's own line
        about a WebSocket that could not connect while the server was down)."""
        violations = await self.page.evaluate("window.__cspViolations || []")
        problems = [p for p in self.problems if allow is None or not re.search(allow, p)]
        assert not problems and not violations, (problems, violations)

    async def counts(self) -> dict[str, int]:
        """Each seat's name and the card count it shows."""
        shown: dict[str, int] = {}
        for seat in await self.page.locator("#seats .seat").all():
            name = await seat.locator(".name").inner_text()
            shown[name] = int(await seat.locator(".count").inner_text())
        return shown

    async def turn_over(self) -> None:
        """Wait until the table wants my card, press the big button, and wait until the
        server took it (my seat is ready, or the game went on a step)."""
        button = self.page.locator("#turn")
        await expect(button).to_have_attribute("aria-disabled", "false", timeout=TIMEOUT_MS)
        step = await self.page.locator("#table").get_attribute("data-step")
        await (button.tap() if self.touch else button.click())
        await self.page.wait_for_function(
            "(step) => +document.getElementById('table').dataset.step > +step"
            " || document.querySelector('.seat.me .mark-ready') !== null",
            arg=step,
            timeout=TIMEOUT_MS,
        )


async def open_tab(
    browser: Browser,
    url: str,
    *,
    viewport: ViewportSize | None = None,
    reduced_motion: bool = False,
    init_script: str | None = None,
    touch: bool = False,
    locale: str = "en-US",
    forwarded_for: str | None = None,
) -> Tab:
    """Open ``url`` in a fresh context (its own storage), recording problems; ``touch``: a
    phone's touch screen (``has_touch`` and ``is_mobile``), no mouse; ``locale``: the
    browser's language (``navigator.languages``), which the page speaks;
    ``forwarded_for``: every request (the WebSocket's too) names that address in
    ``X-Forwarded-For``, as a proxy would (a server trusting 127.0.0.1 as its proxy then
    counts the tab as another household)."""
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    context = await browser.new_context(
        extra_http_headers=headers,
        locale=locale,
        viewport=viewport or PHONE,
        reduced_motion="reduce" if reduced_motion else "no-preference",
        has_touch=touch,
        is_mobile=touch,
    )
    context.set_default_timeout(TIMEOUT_MS)
    await context.add_init_script(_WATCH_CSP)
    if init_script is not None:
        await context.add_init_script(init_script)
    page = await context.new_page()
    tab = Tab(page, context, touch=touch)

    def console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            tab.problems.append(f"console {message.type}: {message.text}")

    page.on("console", console)
    page.on("pageerror", lambda error: tab.problems.append(f"page error: {error}"))
    # A request the page's own reload or navigation cancelled (a module still loading, a
    # prefetch) fails as net::ERR_ABORTED: not a problem of the page. Each request is
    # stamped with the main frame's navigations begun so far; one aborted once a later
    # navigation began is left out, any other failure counted.
    navigations = [0]
    issued: dict[Request, int] = {}

    def request_made(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            navigations[0] += 1
        issued[request] = navigations[0]

    page.on("request", request_made)

    def failed(request: Request) -> None:
        stamp = issued.pop(request, navigations[0])
        if request.failure == "net::ERR_ABORTED" and stamp < navigations[0]:
            return
        tab.problems.append(f"request failed: {request.url} {request.failure}")

    page.on("requestfailed", failed)

    def request_done(request: Request) -> None:
        issued.pop(request, None)

    page.on("requestfinished", request_done)
    page.on(
        "response",
        lambda response: (
            tab.problems.append(f"HTTP {response.status}: {response.url}")
            if response.status >= 400
            else None
        ),
    )
    try:
        await page.goto(url)
    except PlaywrightError:
        await context.close()
        raise
    return tab


def count_of(text: str) -> int:
    """The first whole number in ``text``."""
    match = re.search(r"\d+", text)
    assert match is not None, text
    return int(match.group())


def war_deal(players: int = 2, depth: int = 1) -> int:
    """The smallest deal whose first round goes ``depth`` wars deep with seat 0 in every war
    (default rules)."""
    rules = engine.Rules(players=players)
    for deal in range(100_000):
        game = engine.Game(rules, deal)
        deepest, mine = 0, True
        while game.round == 0 and game.phase is not engine.Phase.OVER:
            for event in game.step():
                if isinstance(event, engine.WarDeclared):
                    deepest = max(deepest, event.depth)
                    mine = mine and 0 in event.seats
        if deepest == depth and mine:
            return deal
    raise AssertionError(f"no deal with a {depth}-deep war in the first round")


async def create_room(
    tab: Tab,
    name: str,
    *,
    players: int = 2,
    computers: int = 0,
    rounds: str = "none",
    deal: int | None = None,
    face_down: int = 1,
    talk: str | None = None,
    lang: str = "en",
) -> None:
    """Fill in "Create a room for the family" and send it (``talk``: who may talk, if not
    the page's default; ``lang``: the page's language, in which the log says who I am)."""
    page = tab.page
    await page.fill("#start-name", name)
    await page.click("#create summary")
    await page.check(f"#create-form input[name=players][value='{players}']")
    await page.check(f"#create-form input[name=face_down][value='{face_down}']")
    await page.select_option("#create-form select[name=computers]", str(computers))
    await page.select_option("#create-form select[name=limit]", rounds)
    if deal is not None:
        await page.fill("#create-form input[name=deal]", str(deal))
    if talk is not None:
        await page.check(f"#create-form input[name=talk][value='{talk}']")
    await page.click("#create-form button[type=submit]")
    seated = catalog(lang, strict=True).text("said.you_are", name=name, seat=1, players=players)
    await expect(page.locator("#log li").last).to_have_text(seated)


PNG = b"\x89PNG\r\n\x1a\n"


def screenshot_folder(tmp_path: Path) -> Path:
    """Where screenshots go: ``$WAR_SCREENSHOTS`` when it is set, else a temporary folder."""
    chosen = os.environ.get("WAR_SCREENSHOTS")
    path = Path(chosen) if chosen else tmp_path / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


async def shoot(tab: Tab, path: Path) -> None:
    """A screenshot of ``tab`` scrolled to the top, written to ``path``."""
    await tab.page.evaluate("window.scrollTo(0, 0)")
    picture = await tab.page.screenshot(path=path, animations="disabled", caret="hide")
    assert picture.startswith(PNG)
