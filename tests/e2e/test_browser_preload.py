"""The page's first load as Chromium makes it, a relative's who opens an invitation and
sits down: every module the page loads on the way is one it names, preloaded
(``modulepreload``: the static import graph the server names, and what a players' link
will need, which the page adds as it starts: the fair deal's module, the invitation's
look-up, js/address.js ``JOIN_NEEDS``), none found only once the module that imports it
arrived; each is fetched once, the import that needs it finds it loaded; the files come
over kept-alive connections, not one each; the text files gzipped. The start page, no
players' link, names neither.

The server's own test (tests/server/adapters/test_web.py) checks the graph reader on
made-up modules; this one holds it to the real page, whatever modules it gains.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import expect

from tests.e2e._browser import chromium, create_room, open_tab
from tests.e2e._process import ServerProcess, server_process

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser_preload")]

LOADED = """() => performance.getEntriesByType("resource").map((e) => ({
  path: new URL(e.name).pathname,
  packed: e.encodedBodySize > 0 && e.encodedBodySize < e.decodedBodySize,
}))"""
"""Each file the page loaded: its path, and whether it came compressed (fewer bytes on the
wire than in the page)."""
CLASSIC = """() => [...document.querySelectorAll('script[src]:not([type=module])')]
  .map((s) => new URL(s.src).pathname)"""
"""The page's classic scripts (the vendored msgpack build): not modules, not preloaded."""


NAMED = """(rel) => [...document.querySelectorAll(`link[rel=${rel}]`)]
  .map((l) => new URL(l.href).pathname)"""
FETCHED = """(paths) => paths.every((path) =>
  performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname === path))"""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    async with server_process(tmp_path / "war.sqlite3") as running:
        yield running


async def test_the_way_to_the_table_loads_only_named_modules(server: ServerProcess) -> None:
    async with chromium() as browser:
        grandma = await open_tab(browser, f"http://127.0.0.1:{server.port}/")
        await create_room(grandma, "Grandma")
        link = await grandma.page.locator("#join-link").inner_text()
        ben = await open_tab(browser, "about:blank")
        devtools = await ben.context.new_cdp_session(ben.page)
        connections: set[int] = set()
        fetched: dict[str, int] = {}  # path: times it came over the network

        def received(event: dict[str, Any]) -> None:
            response = event["response"]
            if not response.get("fromDiskCache") and not response.get("fromPrefetchCache"):
                connections.add(response["connectionId"])
                path = urlsplit(response["url"]).path
                fetched[path] = fetched.get(path, 0) + 1

        devtools.on("Network.responseReceived", received)
        await devtools.send("Network.enable")
        await ben.page.goto(link)
        await expect(ben.page.locator("#invite")).to_be_visible()
        await ben.page.wait_for_load_state("load")
        preloaded = await ben.page.evaluate(NAMED, "modulepreload")
        prefetched = await ben.page.evaluate(NAMED, "prefetch")
        await ben.page.wait_for_function(FETCHED, arg=preloaded)
        await ben.page.fill("#invite-name", "Ben")
        await ben.page.click("#invite-form button[type=submit]")
        await expect(ben.page.locator(".seat.me")).to_be_visible()

        classic = set(await ben.page.evaluate(CLASSIC))
        loaded = await ben.page.evaluate(LOADED)
        modules = {f["path"] for f in loaded if f["path"].endswith((".js", ".mjs"))} - classic
        assert len(preloaded) == len(set(preloaded)) > 10 and prefetched == []
        assert any(path.endswith("/js/main.js") for path in preloaded)
        assert any(path.endswith("/js/fair.js") for path in preloaded)
        assert any(path.endswith("/js/lookup.js") for path in preloaded)
        named = await grandma.page.evaluate(NAMED, "modulepreload")
        assert not any(path.endswith(("/js/fair.js", "/js/lookup.js")) for path in named)
        # none found late, none spare; but what comes as the game starts: what fair.js
        # imports, the fingerprint's modules and fairview.js (docs/performance.md, "The
        # weight, file by file"), and the table's sounds (alive.js, "Weighed where the page
        # loads the most")
        late = ("/js/fingerprint.js", "/js/engine/rules.js", "/js/fairview.js", "/js/alive.js")
        pinned = {p for p in modules if p.endswith(late)}
        assert any(p.endswith("/js/fingerprint.js") for p in pinned)  # the game did start
        assert modules - pinned == set(preloaded) | set(prefetched)
        assert all(fetched[path] == 1 for path in modules), fetched  # the cache had them
        # kept alive: Chromium opens at most 6 connections to a server (and one for each
        # WebSocket: the look-up's, the table's) for some 30 files
        assert len(fetched) > 10 and 0 < len(connections) <= 8, (connections, len(fetched))
        assert all(f["packed"] for f in loaded if f["path"].endswith("/js/main.js"))
        for tab in (grandma, ben):
            await tab.assert_clean()
