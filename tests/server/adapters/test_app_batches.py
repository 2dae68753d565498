"""Group commit in the app: the actions of a batch wait for `end_batch`, and when its
commit fails only the Hub's recovery reaches the people of its rooms.

The stand-in Hub answers ``watch_room`` with a snapshot; its ``end_batch`` says the
commit failed when told to, and returns what the real Hub returns then
(``store_unavailable`` and close 1013 for each connection of the room). The snapshot,
held for the commit, must never reach the client.
"""

from __future__ import annotations

from pathlib import Path

from protocol import CloseCode, Error, ErrorCode, Snapshot, WatchRoom
from server.core.actions import Action, Close, Send
from tests.e2e._client import Client
from tests.server.adapters._standin import StandInHub, standin_server


class FailingCommitHub(StandInHub):
    """A `StandInHub` whose batches fail to commit while ``failing`` is true."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False
        self.batches = 0
        self.commits = 0

    def begin_batch(self) -> None:
        self.batches += 1

    def end_batch(self, now: float) -> list[Action] | None:
        if not self.failing:
            self.commits += 1
            return None
        recovery: list[Action] = []
        for conn in sorted(self.open):
            recovery += [
                Send((conn,), Error(code=ErrorCode.STORE_UNAVAILABLE, message="cannot save")),
                Close(conn, CloseCode.TRY_AGAIN_LATER, "store_unavailable"),
            ]
        self.open.clear()
        return recovery


async def test_a_failed_commit_sends_only_the_recovery(tmp_path: Path) -> None:
    hub = FailingCommitHub()
    async with standin_server(tmp_path, hub) as (server, _):
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
        hub.failing = True
        await client.send(WatchRoom(code="WATCH"))
        first = await client.recv()
        assert isinstance(first, Error), first  # not the snapshot the batch held
        assert first.code == ErrorCode.STORE_UNAVAILABLE
        code, _ = await client.expect_close()
        assert code == CloseCode.TRY_AGAIN_LATER
        assert client.of(Snapshot) == []


async def test_a_committed_batch_releases_its_actions(tmp_path: Path) -> None:
    hub = FailingCommitHub()
    async with standin_server(tmp_path, hub) as (server, _):
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
        commits = hub.commits
        await client.send(WatchRoom(code="WATCH"))
        await client.expect(Snapshot)
        assert hub.commits > commits  # the snapshot went out after a commit
        await client.close()
