"""A thousand rounds of quick auto-play in one page: the JavaScript heap does not keep growing.

The server here is the real app and hub in this process, with the test paces (a seat on
auto readies 10 ms after it may, `tests.e2e._war.FAST`), so a thousand rounds take seconds
instead of five minutes. The heap is read from Chromium over CDP after a forced garbage
collection, at game over each time, once the page is warm (three games of a hundred rounds:
compiled code and caches grow for a while, then stay) and again a thousand rounds later.
Measured: about +300 KiB over the first thousand rounds, then +10-100 KiB a thousand (the
figures in docs/performance.md). A page that kept its log lines, drawn cards or every
game's record would add thousands of DOM nodes or hundreds of KiB a thousand rounds, and
keep doing so. The evening's list of games gains one line a game, by design (the last 100
games): the DOM check counts the nodes outside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e._browser import chromium, count_of, open_tab
from tests.e2e._war import start_war

pytestmark = pytest.mark.slow

ROUNDS = 1000
LIMIT = 100  # rounds per game: ten rematches make a thousand
WARM_ROUNDS = 3 * LIMIT  # the heap settles (compiled code, caches) over the first games
HEAP_GROWTH_BYTES = 512 * 1024
NODE_GROWTH = 20
EVENING_NODES = """() => {
  const walker = document.createTreeWalker(document.getElementById("evening-games"));
  let nodes = 0;
  while (walker.nextNode()) nodes += 1;
  return [document.querySelectorAll("#evening-games li").length, nodes];
}"""
"""The evening's list of games (one line a game, the last 100): its items, and its nodes."""


async def test_a_thousand_quick_rounds_leave_the_heap_where_it_was(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war, chromium() as browser:
        tab = await open_tab(browser, f"http://127.0.0.1:{war.server.port}/", reduced_motion=False)
        page = tab.page
        cdp = await tab.context.new_cdp_session(page)
        await cdp.send("Performance.enable")

        async def measure() -> dict[str, float]:
            await cdp.send("HeapProfiler.collectGarbage")
            metrics = await cdp.send("Performance.getMetrics")
            games, evening = await page.evaluate(EVENING_NODES)
            return {m["name"]: m["value"] for m in metrics["metrics"]} | {
                "games": games,
                "evening": evening,
            }

        await page.fill("#start-name", "Ann")
        await page.click("summary:has-text('Create a room')")
        await page.select_option("#create-form select[name=computers]", "1")
        await page.select_option("#create-form select[name=limit]", str(LIMIT))
        await page.click("#create-form button[type=submit]")
        over = page.locator("#over")
        quick = page.locator("#auto input[value=quick]")
        played = games = 0
        before: dict[str, float] | None = None
        while True:
            await expect(page.locator("#turn")).to_be_visible()
            if not await quick.is_checked():
                await page.click("#auto label:has-text('quick')")
            await expect(over).to_be_visible(timeout=120_000)
            played += count_of(await page.locator("#figures dd").first.inner_text())
            games += 1
            if before is None and played >= WARM_ROUNDS:
                before, warm, warm_games = await measure(), played, games  # both at game over
            elif before is not None and played >= warm + ROUNDS:
                after = await measure()
                break
            await page.click("#rematch-new")
            await expect(over).to_be_hidden()
        assert before is not None
        growth = after["JSHeapUsedSize"] - before["JSHeapUsedSize"]
        # The evening's list gains a line a game, by design (capped at 100 games): every
        # other node must stay where it was.
        assert after["games"] - before["games"] == games - warm_games
        nodes = after["Nodes"] - before["Nodes"] - (after["evening"] - before["evening"])
        heap = before["JSHeapUsedSize"] / 1024, after["JSHeapUsedSize"] / 1024
        print(
            f"heap {heap[0]:.0f} KiB -> {heap[1]:.0f} KiB ({growth / 1024:+.0f} KiB)"
            f" over {played - warm} rounds; DOM nodes {nodes:+.0f}"
        )
        assert growth < HEAP_GROWTH_BYTES, (before, after)
        assert nodes < NODE_GROWTH, (before, after)
        await tab.assert_clean()
