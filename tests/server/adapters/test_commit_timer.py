"""When the app commits a batch (`server.adapters.ws.app.WarServer`, asking
`server.adapters.ws.batch.CommitTimer`): at the end of the loop turn of its first call,
but a batch that writes no sooner than the interval after the last commit that wrote (so
that, under load, many rooms' readies share a commit), and at once when it is full. What
a batch holds goes out only after its commit either way: that is the Batch's, tested in
test_app_batches.py and tests/server/core.

The app (not started: no socket) runs on the real event loop over a stand-in Hub and a
store in memory; each test waits for the commit itself (an event, with a timeout), never
for a time. `CommitTimer` calls nobody: the app asks it how long to wait.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from protocol import ReadyChanged
from server.adapters.settings.config import Settings
from server.adapters.ws.app import WarServer
from server.adapters.ws.batch import MAX_HELD_ACTIONS, CommitTimer
from server.core.room.actions import Action, Output, Send, Write
from tests._kit.stores import ROOM, FlakyStore
from tests.server.adapters._standin import StandInHub

READY = ReadyChanged(seq=1, seat=0, ready=True)
WAIT = 10.0  # seconds a test waits for a commit before it fails


class Committing:
    """The app over a store, its timer with ``interval``, and the loop time of each
    commit it made (with what it released)."""

    def __init__(self, interval: float, tmp_path: Path) -> None:
        self.store = FlakyStore()
        self.app = WarServer(Settings(port=0, db=tmp_path / "unused.sqlite3"), StandInHub(), None)
        self.app._commits = CommitTimer(interval)
        self.times: list[float] = []
        self.released: list[list[Action]] = []
        self.done = asyncio.Event()
        batch = self.app._batch
        batch._store = self.store
        original = batch.commit

        def commit(now: float) -> list[Action]:
            released = original(now)
            self.released.append(list(released))
            self.times.append(asyncio.get_running_loop().time())
            self.done.set()
            return released

        batch.commit = commit  # type: ignore[method-assign]

    def add(self, output: Output) -> None:
        self.app._take(output, 0.0)

    async def next_commit(self) -> None:
        self.done.clear()
        await asyncio.wait_for(self.done.wait(), WAIT)


def _writing(last_active: float) -> Output:
    """A call that sends one message and writes room r1 (new when ``last_active`` is 0)."""
    record = dataclasses.replace(ROOM, last_active=last_active)
    return Output([Send((1,), READY)], [Write(record, ROOM if last_active else None)])


async def test_a_first_batch_is_committed_at_the_end_of_its_loop_turn(tmp_path: Path) -> None:
    kit = Committing(3600.0, tmp_path)
    kit.add(_writing(0.0))
    assert kit.times == []  # not during the call: the turn's other calls join it
    await kit.next_commit()
    assert len(kit.times) == 1
    assert kit.store.load_all() == [ROOM]


async def test_a_writing_batch_waits_for_the_interval_after_the_last_write(tmp_path: Path) -> None:
    interval = 0.05
    kit = Committing(interval, tmp_path)
    kit.add(_writing(0.0))
    await kit.next_commit()
    kit.add(_writing(1.0))
    kit.add(_writing(2.0))  # the same room twice: one row written
    await asyncio.sleep(0)  # a turn of the loop goes by: still gathering
    await asyncio.sleep(0)
    assert len(kit.times) == 1
    await kit.next_commit()
    assert len(kit.times) == 2
    assert kit.times[1] - kit.times[0] >= interval * 0.99
    (stored,) = kit.store.load_all()
    assert stored.last_active == 2.0
    assert [len(actions) for actions in kit.released] == [1, 2]  # held until then


async def test_a_batch_that_writes_nothing_does_not_wait(tmp_path: Path) -> None:
    kit = Committing(3600.0, tmp_path)
    kit.add(_writing(0.0))
    await kit.next_commit()
    kit.add(Output([Send((1,), READY)], []))
    await kit.next_commit()  # an hour's interval, and no wait: nothing to store
    assert [len(actions) for actions in kit.released] == [1, 1]


async def test_a_full_batch_is_committed_at_once(tmp_path: Path) -> None:
    kit = Committing(3600.0, tmp_path)
    kit.add(_writing(0.0))
    await kit.next_commit()
    kit.add(_writing(1.0))
    for _ in range(MAX_HELD_ACTIONS - 2):
        kit.add(Output([Send((1,), READY)], []))
    assert len(kit.times) == 1
    kit.add(Output([Send((1,), READY)], []))  # the 32nd action held
    assert len(kit.times) == 2  # during the call, not an hour later
    assert len(kit.released[1]) == MAX_HELD_ACTIONS
    assert kit.store.load_all()[0].last_active == 1.0


async def test_interval_zero_commits_at_the_end_of_every_turn(tmp_path: Path) -> None:
    kit = Committing(0.0, tmp_path)
    for last_active in (0.0, 1.0, 2.0):
        kit.add(_writing(last_active))
        await kit.next_commit()
    assert len(kit.times) == 3


def test_the_timer_says_how_long_a_writing_batch_waits() -> None:
    timer = CommitTimer(0.5)
    assert timer.wait(True, 100.0) == 0.0  # nothing written yet
    timer.committed(True, 100.0)
    assert timer.wait(True, 100.2) == pytest.approx(0.3)
    assert timer.wait(False, 100.2) == 0.0  # nothing to store: no wait
    timer.committed(False, 100.3)  # a commit that wrote nothing does not count
    assert timer.wait(True, 100.6) == 0.0
