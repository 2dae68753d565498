"""Group commit: the one owner of a batch of hub calls, their store transaction and their sends.

The hub (`server.core.hub.hub`) does no I/O: each call returns an `Output`, the room rows it
wrote or deleted and the actions to carry out once those are stored. A `Batch` takes
the outputs of many calls (`Batch.add`), holding their actions and queueing their
changes, and `Batch.commit` stores every queued change in one transaction
(`server.adapters.store.sqlite.Store.apply`) and returns the actions to carry out:

- committed: every held action, in order. The hub hears of it only for the changes
  that ask to be reported (`server.core.room.actions.Write.report`: a rebuilt room, a
  failing store, a delete; `server.core.hub.hub.Hub.committed`); an ordinary commit is
  not reported back, for each change carries what its failure needs;
- failed (`server.core.hub.hub.Hub.failed`, given the batch's changes): nothing of the
  batch is stored, the hub rebuilds each room written in it and answers with the
  actions that tell its people to come back (``store_unavailable``, close 1013); the
  held actions for those people are dropped, the rest go out, then the hub's answer.

Persist, then broadcast, for the batch as a whole: one commit for every message read in
one turn of the event loop instead of one per message (docs/performance.md, "Group
commit"). When a batch ends is `CommitTimer`'s to say, a value the app
(`server.adapters.ws.app`) asks for before it commits: at the end of the loop turn of
its first call, but for a batch that writes no sooner than `COMMIT_INTERVAL_SECONDS`
after the last commit that wrote, and at once when `Batch.full`. Under load that is one
commit every few milliseconds for the readies of many rooms instead of one for each
(docs/performance.md, "The core step"); a server with little to do commits at the end
of the turn, as before. Several
writes of one room in a batch become one: the last record, against the record the store
held before the batch (``before``), so a store writes each row once per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from server.core.room.actions import Action, Change, Close, ConnId, Delete, Output, Send, Write

__all__ = [
    "COMMIT_INTERVAL_SECONDS",
    "MAX_HELD_ACTIONS",
    "Batch",
    "CommitTimer",
    "Committer",
    "StoreLike",
]

MAX_HELD_ACTIONS = 32
"""a batch is committed, and its actions carried out, once it holds this many: many
messages read at once (one client's, past its rate limit's burst) must not queue their
answers unchecked for the send-buffer cap (`server.adapters.ws.connection`)"""

COMMIT_INTERVAL_SECONDS = 0.002
"""the least time between two commits that write (`CommitTimer`): at 1,000 rooms of a
flip a second, some 2,000 readies a second share at most 500 commits instead of taking
2,000, for at most this much more delay on a ready; a server with little to do commits
at the end of each loop turn, as without it (docs/performance.md, "The core step")"""


class StoreLike(Protocol):
    """What a batch needs of a store (`server.adapters.store.sqlite.Store`)."""

    def apply(self, changes: Sequence[Change]) -> None: ...


class Committer(Protocol):
    """What a batch tells the hub (`server.core.hub.hub.Hub`)."""

    def committed(self, changes: list[Change]) -> None: ...
    def failed(self, error: Exception, changes: list[Change], now: float) -> Output: ...


class Batch:
    """The hub calls since the last `commit`: their changes, queued, and their actions,
    held. See the module docstring.

    ``store`` None: a hub that writes nothing (a stand-in in tests); a change to store
    then fails the batch as a store would.
    """

    def __init__(
        self, store: StoreLike | None, hub: Committer, *, max_held: int = MAX_HELD_ACTIONS
    ) -> None:
        self._store = store
        self._hub = hub
        self._max_held = max_held
        self._held: list[Action] = []
        self._changes: list[Change] = []
        self._last_write: dict[str, int] = {}  # room id → index of its last Write
        self._calls = 0
        self.opened: float | None = None
        """when the first call of this batch was added (None: the batch is empty)"""
        self.writes = False
        """The batch has changes to store (its commit is a transaction)."""
        self.full = False
        """The batch holds `MAX_HELD_ACTIONS` actions or more: commit it now."""

    @property
    def pending(self) -> int:
        """How many hub calls the batch holds."""
        return self._calls

    @property
    def changes(self) -> tuple[Change, ...]:
        """The changes queued for the next commit, one per room row (for tests)."""
        return tuple(self._changes)

    def add(self, output: Output, now: float) -> None:
        """Hold ``output``'s actions and queue its changes for the next `commit`."""
        if self.opened is None:
            self.opened = now
        self._calls += 1
        self._held += output.actions
        self.full = len(self._held) >= self._max_held
        for change in output.changes:
            self._queue(change)

    def _queue(self, change: Change) -> None:
        """Queue ``change``, merged into the room's last queued write if it is one."""
        self.writes = True
        if isinstance(change, Delete):
            self._last_write.pop(change.room_id, None)
            self._changes.append(change)
            return
        room_id = change.record.room_id
        index = self._last_write.get(room_id)
        if index is None:
            self._last_write[room_id] = len(self._changes)
            self._changes.append(change)
        else:  # the store holds what the first write of the batch found
            first = self._changes[index]
            assert isinstance(first, Write)
            closed = first.closed + change.closed
            report = first.report or change.report
            self._changes[index] = Write(change.record, first.before, closed, report)

    def commit(self, now: float) -> list[Action]:
        """Store the queued changes in one transaction, tell the hub, and return the
        actions to carry out now (see the module docstring). Never raises for the
        store's failure: that is the hub's to answer."""
        held, changes = self._held, self._changes
        self._held, self._changes, self._last_write = [], [], {}
        self._calls, self.opened = 0, None
        self.writes = self.full = False
        if not changes:
            return held
        try:
            if self._store is None:
                raise LookupError("a change to store, and no store")
            self._store.apply(changes)
        except Exception as error:  # the store holds what it held before the batch
            recovery = self._hub.failed(error, changes, now)
            for change in recovery.changes:  # none today; they would go with the next batch
                self._queue(change)
            told = {action.conn for action in recovery.actions if isinstance(action, Close)}
            kept = [kept for action in held if (kept := _without(action, told)) is not None]
            return kept + recovery.actions
        reported = [change for change in changes if change.report]
        if reported:
            self._hub.committed(reported)
        return held


def _without(action: Action, conns: set[ConnId]) -> Action | None:
    """``action`` with ``conns`` left out (None if nothing is left of it)."""
    if isinstance(action, Send):
        to = tuple(conn for conn in action.to if conn not in conns)
        if len(to) == len(action.to):
            return action
        return Send(to, action.message) if to else None
    return None if action.conn in conns else action


class CommitTimer:
    """When the app commits a batch, as values: it calls nobody. The app commits at the
    end of the loop turn of a batch's first call, but a batch that writes no sooner than
    ``interval`` after the last commit that wrote (`wait` says how long is left), and at
    once when `Batch.full` (see the module docstring); it tells `committed` after each
    commit. ``interval`` 0: at the end of every loop turn. Times are the loop's own
    (monotonic), never a Hub's clock, which tests may stop."""

    def __init__(self, interval: float = COMMIT_INTERVAL_SECONDS) -> None:
        self._interval = interval
        self._last_write = -interval  # loop time of the last commit that wrote

    def wait(self, writes: bool, now: float) -> float:
        """Seconds from loop time ``now`` before a batch whose loop turn is over may be
        committed: 0 unless it ``writes`` and the last commit that wrote is too recent."""
        return max(0.0, self._last_write + self._interval - now) if writes else 0.0

    def committed(self, wrote: bool, now: float) -> None:
        """A batch was committed at loop time ``now``; ``wrote``: it stored changes."""
        if wrote:
            self._last_write = now
