"""Group commit: the one owner of a batch of hub calls, their store transaction and their sends.

The hub (`server.core.hub.hub`) does no I/O: each call returns an `Output`, the room rows it
wrote or deleted and the actions to carry out once those are stored. A `Batch` takes
the outputs of many calls (`Batch.add`), holding their actions and queueing their
changes, and `Batch.commit` stores every queued change in one transaction
(`server.adapters.store.sqlite.Store.apply`), tells the hub how that went, and returns the
actions to carry out:

- committed (`server.core.hub.hub.Hub.committed`): every held action, in order;
- failed (`server.core.hub.hub.Hub.failed`): nothing of the batch is stored, the hub rebuilds
  each room written in it and answers with the actions that tell its people to come
  back (``store_unavailable``, close 1013); the held actions for those people are
  dropped, the rest go out, then the hub's answer.

Persist, then broadcast, for the batch as a whole: one commit for every message read in
one turn of the event loop instead of one per message (docs/performance.md, "Group
commit"). When a batch ends is `CommitTimer`'s to say (for the app,
`server.adapters.ws.app`): at the end of the loop turn of its first call, but for a batch
that writes no sooner than `COMMIT_INTERVAL_SECONDS` after the last commit that wrote,
and at once when `Batch.full`. Under load that is one commit every few milliseconds for
the readies of many rooms instead of one for each (docs/performance.md, "The core
step"); a server with little to do commits at the end of the turn, as before. Several
writes of one room in a batch become one: the last record, against the record the store
held before the batch (``before``), so a store writes each row once per batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
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

    def committed(self) -> None: ...
    def failed(self, error: Exception, now: float) -> Output: ...


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

    @property
    def pending(self) -> int:
        """How many hub calls the batch holds."""
        return self._calls

    @property
    def changes(self) -> tuple[Change, ...]:
        """The changes queued for the next commit, one per room row (for tests)."""
        return tuple(self._changes)

    @property
    def writes(self) -> bool:
        """The batch has changes to store (its commit is a transaction)."""
        return bool(self._changes)

    @property
    def full(self) -> bool:
        """The batch holds `MAX_HELD_ACTIONS` actions or more: commit it now."""
        return len(self._held) >= self._max_held

    def add(self, output: Output, now: float) -> None:
        """Hold ``output``'s actions and queue its changes for the next `commit`."""
        if self.opened is None:
            self.opened = now
        self._calls += 1
        self._held += output.actions
        for change in output.changes:
            self._queue(change)

    def _queue(self, change: Change) -> None:
        """Queue ``change``, merged into the room's last queued write if it is one."""
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
            self._changes[index] = Write(change.record, first.before)

    def commit(self, now: float) -> list[Action]:
        """Store the queued changes in one transaction, tell the hub, and return the
        actions to carry out now (see the module docstring). Never raises for the
        store's failure: that is the hub's to answer."""
        held, changes = self._held, self._changes
        self._held, self._changes, self._last_write = [], [], {}
        self._calls, self.opened = 0, None
        if not changes:
            return held
        try:
            if self._store is None:
                raise LookupError("a change to store, and no store")
            self._store.apply(changes)
        except Exception as error:  # the store holds what it held before the batch
            recovery = self._hub.failed(error, now)
            for change in recovery.changes:  # none today; they would go with the next batch
                self._queue(change)
            told = {action.conn for action in recovery.actions if isinstance(action, Close)}
            kept = [kept for action in held if (kept := _without(action, told)) is not None]
            return kept + recovery.actions
        self._hub.committed()
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
    """When ``batch`` is committed, by calling ``commit`` (the app's: it commits the
    batch and carries out what it releases) on the running event loop: see the module
    docstring. `added` after each `Batch.add`; `committed` after each commit, with
    whether it wrote. ``interval`` 0: at the end of every loop turn. Times are the
    loop's own (monotonic), never a Hub's clock, which tests may stop."""

    def __init__(
        self, batch: Batch, commit: Callable[[], None], interval: float = COMMIT_INTERVAL_SECONDS
    ) -> None:
        self._batch = batch
        self._commit = commit
        self._interval = interval
        self._last_write = -interval  # loop time of the last commit that wrote
        self._due: asyncio.Handle | None = None

    def added(self) -> None:
        """A call was added to the batch: commit now if it is full, else make sure a
        commit is due (at the end of this loop turn, or once the interval is over)."""
        if self._batch.full:
            self._commit()
        elif self._due is None:
            self._due = asyncio.get_running_loop().call_soon(self._end_of_turn)

    def committed(self, wrote: bool) -> None:
        """The batch was committed (by the timer or not); ``wrote``: it stored changes."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        if wrote:
            self._last_write = asyncio.get_running_loop().time()

    def _end_of_turn(self) -> None:
        self._due = None
        if self._batch.writes:
            loop = asyncio.get_running_loop()
            wait = self._last_write + self._interval - loop.time()
            if wait > 0:  # the last commit that wrote is too recent: gather more
                self._due = loop.call_later(wait, self._commit)
                return
        self._commit()
