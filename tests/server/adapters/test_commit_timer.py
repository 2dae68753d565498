"""When the app commits a batch (`server.adapters.ws.batch.CommitTimer`): at the end of the
loop turn of its first call, but a batch that writes no sooner than the interval after
the last commit that wrote (so that, under load, many rooms' readies share a commit),
and at once when it is full. What a batch holds goes out only after its commit either
way: that is the Batch's, tested in test_app_batches.py and tests/server/core.

The timer runs on the real event loop; each test waits for the commit itself (an
event, with a timeout), never for a time.
"""

from __future__ import annotations

import asyncio
import dataclasses

from protocol import ReadyChanged
from server.adapters.ws.batch import MAX_HELD_ACTIONS, Batch, CommitTimer
from server.core.room.actions import Output, Send, Write
from tests._kit.stores import ROOM, FlakyStore

READY = ReadyChanged(seq=1, seat=0, ready=True)
WAIT = 10.0  # seconds a test waits for a commit before it fails


class Hub:
    """What a batch tells the hub: here, only counted."""

    def __init__(self) -> None:
        self.commits = 0

    def committed(self) -> None:
        self.commits += 1

    def failed(self, error: Exception, now: float) -> Output:
        raise AssertionError(f"the store failed: {error}")


class Committing:
    """A batch over a store, its timer with ``interval``, and the loop time of each
    commit the timer asked for (with what it released)."""

    def __init__(self, interval: float) -> None:
        self.store = FlakyStore()
        self.batch = Batch(self.store, Hub())
        self.timer = CommitTimer(self.batch, self.commit, interval)
        self.times: list[float] = []
        self.released: list[list[object]] = []
        self.done = asyncio.Event()

    def commit(self) -> None:
        wrote = self.batch.writes
        self.released.append(list(self.batch.commit(0.0)))
        self.timer.committed(wrote)
        self.times.append(asyncio.get_running_loop().time())
        self.done.set()

    def add(self, output: Output) -> None:
        self.batch.add(output, 0.0)
        self.timer.added()

    async def next_commit(self) -> None:
        self.done.clear()
        await asyncio.wait_for(self.done.wait(), WAIT)


def _writing(last_active: float) -> Output:
    """A call that sends one message and writes room r1 (new when ``last_active`` is 0)."""
    record = dataclasses.replace(ROOM, last_active=last_active)
    return Output([Send((1,), READY)], [Write(record, ROOM if last_active else None)])


async def test_a_first_batch_is_committed_at_the_end_of_its_loop_turn() -> None:
    kit = Committing(interval=3600.0)
    kit.add(_writing(0.0))
    assert kit.times == []  # not during the call: the turn's other calls join it
    await kit.next_commit()
    assert len(kit.times) == 1
    assert kit.store.load_all() == [ROOM]


async def test_a_writing_batch_waits_for_the_interval_after_the_last_write() -> None:
    interval = 0.05
    kit = Committing(interval)
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


async def test_a_batch_that_writes_nothing_does_not_wait() -> None:
    kit = Committing(interval=3600.0)
    kit.add(_writing(0.0))
    await kit.next_commit()
    kit.add(Output([Send((1,), READY)], []))
    await kit.next_commit()  # an hour's interval, and no wait: nothing to store
    assert [len(actions) for actions in kit.released] == [1, 1]


async def test_a_full_batch_is_committed_at_once() -> None:
    kit = Committing(interval=3600.0)
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


async def test_interval_zero_commits_at_the_end_of_every_turn() -> None:
    kit = Committing(interval=0.0)
    for last_active in (0.0, 1.0, 2.0):
        kit.add(_writing(last_active))
        await kit.next_commit()
    assert len(kit.times) == 3
