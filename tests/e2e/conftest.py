"""The browser a browser-test module shares: one Chromium per module (launching one takes
about a second, and a module's tests would each launch their own), each test's pages
closed after it. A module that uses it runs on one event loop (``pytest.mark.asyncio(
loop_scope="module")``) and on one pytest worker (``pytest.mark.xdist_group``); a module
that defines its own ``browser`` fixture uses that one instead."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser

from tests.e2e._browser import chromium


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def launched() -> AsyncIterator[Browser]:
    async with chromium() as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module")
async def browser(launched: Browser) -> AsyncIterator[Browser]:
    """The module's browser; the pages a test opened are closed after it."""
    yield launched
    for context in launched.contexts:
        await context.close()
