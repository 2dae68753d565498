"""Group commit in the app: the actions of a batch wait for its commit, and when the
commit fails only the Hub's recovery reaches the people of its rooms.

The stand-in Hub answers ``watch_room`` with a snapshot and a room row to store; its
store (a `FlakyStore`) fails when told to, and the stand-in's ``failed`` answers as the
real Hub does (``store_unavailable`` and close 1013 for each connection of the room).
The snapshot, held for the commit, must never reach the client.
"""

from __future__ import annotations

from pathlib import Path

from protocol import ClientMessage, CloseCode, Error, ErrorCode, Snapshot, WatchRoom
from server.core.hub.replies import come_back
from server.core.room.actions import Action, Change, ConnId, Output, Write
from tests._kit.stores import ROOM, FlakyStore
from tests.e2e._client import Client
from tests.server.adapters._standin import StandInHub, standin_server


class WritingHub(StandInHub):
    """A `StandInHub` whose ``watch_room`` also writes room ``r1`` (a write it asks to
    hear is stored: `Write.report`), over a `FlakyStore`."""

    def __init__(self) -> None:
        super().__init__()
        self.flaky = self.store = FlakyStore()
        self.commits = 0
        self.failures = 0

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> Output:
        answer = super().handle(conn, message, now)
        if not isinstance(message, WatchRoom):
            return answer
        return Output(answer.actions, [Write(ROOM, None, report=True)])

    def committed(self, changes: list[Change]) -> None:
        self.commits += 1

    def failed(self, error: Exception, changes: list[Change], now: float) -> Output:
        self.failures += 1
        recovery: list[Action] = []
        for conn in sorted(self.open):
            recovery += come_back(conn, ErrorCode.STORE_UNAVAILABLE)
        self.open.clear()
        return Output(recovery, [])


async def test_a_failed_commit_sends_only_the_recovery(tmp_path: Path) -> None:
    hub = WritingHub()
    async with standin_server(tmp_path, hub) as (server, _):
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
        hub.flaky.broken = True
        await client.send(WatchRoom(code="WATCH"))
        first = await client.recv()
        assert isinstance(first, Error), first  # not the snapshot the batch held
        assert first.code == ErrorCode.STORE_UNAVAILABLE
        code, reason = await client.expect_close()
        assert (code, reason) == (CloseCode.TRY_AGAIN_LATER, "store_unavailable")
        assert client.of(Snapshot) == []
        assert hub.failures == 1
        assert hub.store.load_all() == []


async def test_a_committed_batch_releases_its_actions(tmp_path: Path) -> None:
    hub = WritingHub()
    async with standin_server(tmp_path, hub) as (server, _):
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
        await client.send(WatchRoom(code="WATCH"))
        await client.expect(Snapshot)
        assert hub.commits == 1  # the snapshot went out after the commit
        assert hub.store.load_all() == [ROOM]
        await client.close()
