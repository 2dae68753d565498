"""The Textual table for end-to-end tests: the app, with an event a test can wait on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from client.net.connection import Connection, LinkEvent
from client.state.view import ViewState
from client.tui.app import WarApp
from client.words.catalog import catalog
from client.words.language import Viewer

__all__ = ["TIMEOUT", "WatchedApp"]

TIMEOUT = 30.0


class WatchedApp(WarApp):
    """The app, with an event the test can wait on after each link event is drawn."""

    def __init__(self, connection: Connection, lang: str = "en") -> None:
        super().__init__(connection, viewer=Viewer(catalog(lang)))
        self.changed = asyncio.Event()

    def on_link_event(self, event: LinkEvent) -> None:
        super().on_link_event(event)
        self.changed.set()

    async def until(self, wanted: Callable[[ViewState], bool], within: float = TIMEOUT) -> None:
        """Wait (at most ``within`` seconds) until the view is as ``wanted``."""

        async def wait() -> None:
            while not wanted(self.view):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), within)
