"""A flood's close holds on a loaded machine: once the app has closed a connection for
flooding (4001), it judges none of the messages read with the flood.

The close waits for the batch's commit (the end of the event loop's turn), and the
messages of the same read come in that same turn. On a loaded machine time passes
between them: the rate limit refilled, one more message was handled and a second
``rate_limited`` went out (tests/e2e/test_bad_input.py saw it). A rate limit whose clock
moves a second at each message after its close verdict plays that machine here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest
from structlog.testing import capture_logs

from protocol import Resync, WatchRoom, encode
from server.adapters.addresses.limits import Handling, RateLimiter
from tests.server.adapters._raw import masked_frame, upgrade
from tests.server.adapters._standin import StandInHub, standin_server

BINARY = 0x2
WAIT = 20.0


class _TimeFliesAfterClose(RateLimiter):
    """A rate limit whose clock stands still until its first `Handling.CLOSE`, then moves a
    second on at each message; it keeps every verdict it gave."""

    made: ClassVar[list[_TimeFliesAfterClose]] = []

    def __init__(self, rate: float, now: float) -> None:
        super().__init__(rate, now)
        self._now = now
        self.verdicts: list[Handling] = []
        self.made.append(self)

    def check(self, now: float) -> Handling:
        if Handling.CLOSE in self.verdicts:
            self._now += 1.0
        verdict = super().check(self._now)
        self.verdicts.append(verdict)
        return verdict


async def test_no_message_read_with_a_flood_is_judged_after_its_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.adapters.ws.app.RateLimiter", _TimeFliesAfterClose)
    monkeypatch.setattr(_TimeFliesAfterClose, "made", [])
    hub = StandInHub()
    watch = masked_frame(BINARY, encode(WatchRoom(code="WATCH")))
    resync = masked_frame(BINARY, encode(Resync()))
    with capture_logs() as logs:
        async with standin_server(tmp_path, hub, rate_limit=2.0, close_timeout=0.5) as (server, _):
            sock = await upgrade("127.0.0.1", server.port, first=watch)
            try:
                await asyncio.wait_for(hub.opened.wait(), WAIT)
                await asyncio.get_running_loop().sock_sendall(sock, resync * 40)  # one read
                await asyncio.wait_for(hub.gone.wait(), WAIT)
            finally:
                sock.close()
    (limiter,) = _TimeFliesAfterClose.made
    # a burst of 4 (watch_room took one), a refusal, 3 drops, the close, and nothing after
    accept, refuse, drop, close = Handling.ACCEPT, Handling.REFUSE, Handling.DROP, Handling.CLOSE
    assert limiter.verdicts == [accept] * 4 + [refuse] + [drop] * 3 + [close]
    events = [e["event"] for e in logs]
    assert (events.count("rate_limited"), events.count("rate_limit_close")) == (1, 1), events
