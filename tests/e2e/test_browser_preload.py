"""The page's first load as Chromium makes it: every module it loads is one the page
preloads (``modulepreload``, from the import graph the server reads at its start:
server.adapters.web.files), so none waits for the module that imports it, and none is
preloaded for nothing; the files come over kept-alive connections, not one each; the
text files gzipped.

The server's own test (tests/server/adapters/test_web.py) checks the graph reader on
made-up modules; this one holds it to the real page, whatever modules it gains.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e._browser import chromium, open_tab
from tests.e2e._process import ServerProcess, server_process

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser_preload")]

LOADED = """() => performance.getEntriesByType("resource").map((e) => ({
  path: new URL(e.name).pathname,
  packed: e.encodedBodySize > 0 && e.encodedBodySize < e.decodedBodySize,
}))"""
"""Each file the page loaded: its path, and whether it came compressed (fewer bytes on the
wire than in the page)."""
PRELOADED = """() => [...document.querySelectorAll('link[rel=modulepreload]')]
  .map((l) => new URL(l.href).pathname)"""
CLASSIC = """() => [...document.querySelectorAll('script[src]:not([type=module])')]
  .map((s) => new URL(s.src).pathname)"""
"""The page's classic scripts (the vendored msgpack build): not modules, not preloaded."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path / "war.sqlite3") as running:
        yield running


async def test_the_page_preloads_exactly_the_modules_it_loads(server: ServerProcess) -> None:
    async with chromium() as browser:
        tab = await open_tab(browser, "about:blank")
        devtools = await tab.context.new_cdp_session(tab.page)
        connections: set[int] = set()
        devtools.on(
            "Network.responseReceived",
            lambda event: connections.add(event["response"]["connectionId"]),
        )
        await devtools.send("Network.enable")
        await tab.page.goto(f"http://127.0.0.1:{server.port}/")
        await expect(tab.page.locator("#start")).to_be_visible()
        await tab.page.wait_for_load_state("load")
        preloaded = await tab.page.evaluate(PRELOADED)
        classic = set(await tab.page.evaluate(CLASSIC))
        loaded = await tab.page.evaluate(LOADED)
        modules = {f["path"] for f in loaded if f["path"].endswith((".js", ".mjs"))} - classic
        assert len(preloaded) == len(set(preloaded)) > 10
        assert sorted(modules) == sorted(preloaded)  # no module found late, none spare
        assert any(path.endswith("/js/main.js") for path in preloaded)
        # kept alive: Chromium opens at most 6 connections to a server, for some 25 files
        assert len(loaded) > 10 and 0 < len(connections) <= 6, (connections, len(loaded))
        assert all(f["packed"] for f in loaded if f["path"].endswith("/js/main.js"))
        await tab.assert_clean()
