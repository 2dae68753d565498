"""Fair deals at a real table: two pages and `war-client --plain` finish a game, and each
says the deal was checked; every screen shows the same fingerprint from the start; the
game record the page saves, and a `war-client --json` record, pass `war-sim verify`.

Its pictures (the fingerprint at the start, the check at the end, on a 390 px phone) go to
``$WAR_SCREENSHOTS`` when it is set, else to the test's temporary folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from server.sim.verify import main as verify
from tests.e2e._browser import PHONE, create_room, open_tab
from tests.e2e._client_process import client_process
from tests.e2e._process import server_process

# One browser for the module (one worker runs it all); each test starts its own server.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.xdist_group("browser_fair_deal"),
]

CHECKED = "Fair deal ✓ — checked on this phone"
PRINT = re.compile(r"[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}")


def _pictures(tmp_path: Path) -> Path:
    path = Path(os.environ.get("WAR_SCREENSHOTS") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


async def test_two_pages_and_war_client_plain_each_check_the_deal(
    tmp_path: Path, browser: Browser
) -> None:
    pictures = _pictures(tmp_path)
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"ws://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/", viewport=PHONE)
        await create_room(ann, "Ann", players=3, rounds="26")
        join_link = await ann.page.locator("#join-link").inner_text()
        watch_link = await ann.page.locator("#watch-link").inner_text()
        ben = await open_tab(browser, join_link, viewport=PHONE, touch=True)
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 3.")
        recorder_args = [url, "--watch", watch_link.split("#watch=")[1], "--json"]
        async with client_process(recorder_args, tmp_path / "recorder.json") as recorder:
            await recorder.expect(r'^\{"type":"welcome"')
            cy_args = [url, "--name", "Cy", "--join", join_link.split("#join=")[1], "--plain"]
            async with client_process([*cy_args, "--auto", "quick"], tmp_path / "cy.json") as cy:
                found = await cy.expect(r"^Fair deal fingerprint: (\S+) ")
                fingerprint = found.group(1)
                assert PRINT.fullmatch(fingerprint)
                for tab in (ann, ben):  # the same fingerprint on every screen, from the start
                    await expect(tab.page.locator("#fingerprint")).to_contain_text(fingerprint)
                await ben.page.screenshot(path=pictures / "fair-fingerprint-phone.png")
                await ann.page.click("#auto label:has-text('quick')")
                await ben.page.tap("#auto label:has-text('quick')")
                assert await cy.wait(within=180) == 0, cy.err
            assert await recorder.wait(within=60) == 0, recorder.err
        for tab in (ann, ben):
            await expect(tab.page.locator("#fair-line")).to_have_text(CHECKED, timeout=30_000)
            await expect(tab.page.locator("#fingerprint")).to_contain_text(fingerprint)
        await ben.page.tap("#fair-line")
        await expect(ben.page.locator("#fair-proved li").first).to_be_visible()
        proved = await ben.page.locator("#fair-proved li").all_inner_texts()
        assert "This client's seed (Ben) is in the deal." in proved
        assert "Every card shown is the card the deal gives." in proved
        await ann.page.click("#fair-line")  # the details: what was checked, and the record
        await ann.page.locator("#over").scroll_into_view_if_needed()
        await ann.page.screenshot(path=pictures / "fair-checked-phone.png", full_page=True)
        async with ann.page.expect_download() as saving:
            await ann.page.click("#fair-export")
        saved = tmp_path / "page-record.jsonl"
        await (await saving.value).save_as(saved)
        await ann.assert_clean()
        await ben.assert_clean()
    assert "Fair deal: checked." in cy.out
    assert cy.out.index(
        f"Fair deal fingerprint: {fingerprint} — everyone at the table should see the same."
    ) < cy.out.index("Fair deal: checked.")
    record = tmp_path / "recorder.jsonl"
    record.write_text("\n".join(recorder.out) + "\n", encoding="utf-8")
    assert verify([str(record)]) == 0
    assert verify([str(saved)]) == 0


async def test_a_reload_between_commit_and_reveal_still_reveals_the_pages_seed(
    tmp_path: Path, browser: Browser
) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        url = f"ws://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/", viewport=PHONE)
        await create_room(ann, "Ann", players=2, rounds="26")
        code = (await ann.page.locator("#join-link").inner_text()).split("#join=")[1]
        ben_args = [url, "--name", "Ben", "--join", code, "--plain", "--auto", "quick"]
        async with client_process(ben_args, tmp_path / "ben.json") as ben:
            await ben.expect(r"^Fair deal fingerprint: ")
            stored = await ann.page.evaluate(
                "Object.entries(localStorage).filter(([k]) => k.startsWith('family-war.seat.'))"
                ".map(([, v]) => JSON.parse(v))"
            )
            assert [s["seed_game"] for s in stored] == [1] and len(stored[0]["seed"]) == 64
            await ann.page.reload()  # committed, not yet revealed: the seed is in localStorage
            await expect(ann.page.locator("#fingerprint")).to_contain_text("Deal fingerprint")
            await ann.turn_over()  # the first ready: it reveals the kept seed
            await ann.page.click("#auto label:has-text('quick')")
            assert await ben.wait(within=180) == 0, ben.err
        await expect(ann.page.locator("#fair-line")).to_have_text(CHECKED, timeout=30_000)
        await ann.page.click("#fair-line")
        proved = await ann.page.locator("#fair-proved li").all_inner_texts()
        assert "This client's seed (Ann) is in the deal." in proved
        await ann.assert_clean()
    assert "Fair deal: checked." in ben.out


async def test_a_seat_gone_before_revealing_voids_the_deal_and_the_page_plays_a_fresh_one(
    tmp_path: Path, browser: Browser
) -> None:
    """Issue 31, void, don't drop: Ben (war-client) commits and is gone before his first
    ready; the deal is void for everyone to see, Ann's page commits to a fresh seed by
    itself, and the fresh deal is played and checked (her new seed in it)."""
    async with server_process(tmp_path / "war.sqlite3", "--away-timeout", "2") as server:
        url = f"ws://127.0.0.1:{server.port}/"
        ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        await create_room(ann, "Ann", players=2, rounds="26")
        code = (await ann.page.locator("#join-link").inner_text()).split("#join=")[1]
        ben_args = [url, "--name", "Ben", "--join", code, "--plain"]
        async with client_process(ben_args, tmp_path / "ben.json") as ben:
            await ben.expect(r"^Fair deal fingerprint: ")
            first = await ann.page.locator("#fingerprint b").inner_text()
            await ann.turn_over()  # Ann reveals; Ben never does
            await expect(ann.page.locator("#log")).to_contain_text("Ben")
        # Ben's client is gone: away, then past the away timeout (or left): void
        voided = "The deal is void: Ben's seed was not revealed (voids this evening: 1)."
        await expect(ann.page.locator("#log")).to_contain_text(voided, timeout=30_000)
        fresh = ann.page.locator("#fingerprint b")
        await expect(fresh).not_to_have_text(first, timeout=30_000)  # committed anew, pinned
        await ann.turn_over()  # the fresh seed goes with it
        await ann.page.click("#auto label:has-text('quick')")
        await expect(ann.page.locator("#fair-line")).to_have_text(CHECKED, timeout=90_000)
        await ann.page.click("#fair-line")
        proved = await ann.page.locator("#fair-proved li").all_inner_texts()
        assert "This client's seed (Ann) is in the deal." in proved
        await ann.assert_clean()


async def test_a_page_gone_before_revealing_voids_the_deal_and_war_client_plays_a_fresh_one(
    tmp_path: Path, browser: Browser
) -> None:
    """The same from `war-client --plain --auto quick`'s side: the page that committed is
    closed before its first ready; war-client says the void, commits to a fresh seed by
    itself, reveals it, and checks the fresh deal."""
    async with server_process(tmp_path / "war.sqlite3", "--away-timeout", "2") as server:
        url = f"ws://127.0.0.1:{server.port}/"
        ben = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        await create_room(ben, "Ben", players=2, rounds="26")
        code = (await ben.page.locator("#join-link").inner_text()).split("#join=")[1]
        ann_args = [url, "--name", "Ann", "--join", code, "--plain", "--auto", "quick"]
        async with client_process(ann_args, tmp_path / "ann.json") as ann:
            await ann.expect(r"^Fair deal fingerprint: ")
            await ben.page.close()  # committed, never revealed: away, then void
            await ann.expect(
                r"^The deal is void: Ben's seed was not revealed \(voids this evening: 1\)\."
            )
            assert await ann.wait(within=180) == 0, ann.err
    prints = [line for line in ann.out if line.startswith("Fair deal fingerprint: ")]
    assert len(prints) == 2 and prints[0] != prints[1]  # the fresh deal, pinned anew
    assert "Fair deal: checked." in ann.out


async def test_a_finish_vote_before_the_first_turn_over_reveals_the_pages_seed(
    tmp_path: Path, browser: Browser
) -> None:
    """Issue 31: a fair deal's finish plays a deal that waits for every committed seed.
    Both pages vote to finish before their first Turn over: each sends its seed with a
    ready first, so the finish plays out at once and both check the deal (before, the
    votes waited for the seeds in silence)."""
    async with server_process(tmp_path / "war.sqlite3", "--away-timeout", "60") as server:
        ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        await create_room(ann, "Ann", players=2, rounds="26")
        join_link = await ann.page.locator("#join-link").inner_text()
        ben = await open_tab(browser, join_link)
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 2.")
        await expect(ann.page.locator("#fingerprint")).to_contain_text("Deal fingerprint")
        await ben.page.click("#finish")
        await expect(ann.page.locator("#votes")).to_contain_text("still to vote: you")
        await ann.page.click("#finish")
        for tab in (ann, ben):
            await expect(tab.page.locator("#fair-line")).to_have_text(CHECKED, timeout=30_000)
            await tab.page.click("#fair-line")
            proved = await tab.page.locator("#fair-proved li").all_inner_texts()
            assert "Every card shown is the card the deal gives." in proved
        await ann.assert_clean()
        await ben.assert_clean()


async def test_a_finish_that_waits_for_a_seed_says_whose_turn_over(
    tmp_path: Path, browser: Browser
) -> None:
    """Ben's page is closed before his first Turn over: he is away, so Ann's vote alone
    finishes, but the deal waits for his seed; Ann's table says whose Turn over it is."""
    async with server_process(tmp_path / "war.sqlite3", "--away-timeout", "120") as server:
        ann = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        await create_room(ann, "Ann", players=2, rounds="26")
        join_link = await ann.page.locator("#join-link").inner_text()
        ben = await open_tab(browser, join_link)
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator("#log li").last).to_have_text("You are Ben, at seat 2 of 2.")
        await ben.page.close()  # committed, never revealed: away, so Ann's vote is the vote
        await ann.page.click("#finish")
        waits = "the finish waits for a first Turn over (a seed for the deal) from: Ben."
        await expect(ann.page.locator("#votes")).to_contain_text(waits, timeout=30_000)
        await ann.assert_clean()
