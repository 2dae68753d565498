"""What the sans-I/O room core asks for: messages to send, connections to close, rows to store.

The `Hub` (and each room behind it) never touches a socket or the disk. Every hub call
returns an `Output`: the room rows it wrote or deleted (`Change` values: `Write`,
`Delete`) and the `Action` values to carry out once those are stored, in order (a `Send`
of an ``error`` followed by a `Close` of the same connection means: send, then close).
The app (`server.adapters.ws.batch`) stores the changes of a batch of calls in one
transaction, tells the hub if they could not be (or, for the few changes that ask for
it, that they were), and only then carries out the actions. Each room call returns
`Effects`: its actions and the room's record, which the hub turns into a `Write` when it
changed.

- `Send`: encode ``message`` once and deliver it to every connection in ``to``. The app
  (`server.adapters.ws.app`) queues the frames of one hub call per connection and writes
  them in one write without awaiting, skipping connections that are not open, so a slow
  client never stalls the others (the way ``websockets.broadcast()`` behaves, which the
  app does not call: it batches a connection's frames into one write instead).
- `Close`: close connection ``conn`` with ``code`` (a `protocol.CloseCode` value documented
  in ``protocol/PROTOCOL.md``) and ``reason`` (a short, lowercase sentence without secrets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from protocol import ServerMessage
from server.core.refusals import Refusal
from server.core.room.records import RoomRecord

__all__ = [
    "Action",
    "Change",
    "Close",
    "ConnId",
    "Delete",
    "Effects",
    "Output",
    "Send",
    "Write",
]

ConnId: TypeAlias = int
"""A connection's id, assigned by the app layer, unique for the process lifetime."""


@dataclass(frozen=True, slots=True)
class Send:
    """Deliver ``message`` to every connection in ``to`` (encode it once)."""

    to: tuple[ConnId, ...]
    message: ServerMessage


@dataclass(frozen=True, slots=True)
class Close:
    """Close connection ``conn`` with WebSocket close ``code`` and ``reason``."""

    conn: ConnId
    code: int
    reason: str


Action: TypeAlias = Send | Close
"""One thing for the connection layer to do."""


@dataclass(frozen=True, slots=True)
class Effects:
    """What one room call asks for, in this order: store ``record``, then do ``actions``.

    ``record`` is the room as it must be stored before any of ``actions`` is carried out
    (persist, then broadcast); the hub skips the write when it equals the stored one but
    for ``last_active``. ``refused``: the room refused the command (nothing changed but,
    possibly, the confirmation of a seat's token, which ``record`` holds); the hub
    answers it with an ``error``. ``work``: the engine work this call did playing a game
    out (units of `server.engine.STEP_WORK`), which the play-out queue counts against
    the address that asked for it.
    """

    actions: list[Action]
    record: RoomRecord
    refused: Refusal | None = None
    work: int = 0


@dataclass(frozen=True, slots=True)
class Write:
    """Store ``record``. ``before`` is the record of this room the store holds once every
    earlier change is stored (None: a new room), so a store may write only what differs.

    What the hub needs back if the change cannot be stored travels with it: ``before``
    (the room is rebuilt from it) and ``closed``, the connections the call took out of
    the room (told to come back too: their leaving is not stored either). ``report``:
    the hub wants to hear that the change is stored (`server.core.hub.hub.Hub.committed`:
    a room rebuilt, the store failing); an ordinary write is not reported.
    """

    record: RoomRecord
    before: RoomRecord | None
    closed: tuple[ConnId, ...] = ()
    report: bool = False


@dataclass(frozen=True, slots=True)
class Delete:
    """Forget room ``room_id`` and its seats (nothing to do if it is not stored).

    ``before``, ``closed``: as for `Write` (``before`` None: the room was never
    stored). A delete is always reported: its id is not free until it is stored."""

    room_id: str
    before: RoomRecord | None = None
    closed: tuple[ConnId, ...] = ()
    report: bool = True


Change: TypeAlias = Write | Delete
"""One room row (and its seats) to write or delete."""


@dataclass(frozen=True, slots=True)
class Output:
    """What one hub call asks for, in this order: store ``changes`` (in order, all or
    nothing), then carry out ``actions``.

    Persist, then broadcast: no action may be carried out before the changes of its
    call, and of every call before it, are stored (the hub hears of it only for the
    changes that ask to be reported: `Write.report`, `server.core.hub.hub.Hub.committed`).
    If they cannot be (`server.core.hub.hub.Hub.failed`, given the changes that failed),
    the hub answers with the actions that replace them.
    """

    actions: list[Action]
    changes: list[Change]

    def __add__(self, other: Output) -> Output:
        """This output, then ``other``'s."""
        return Output(self.actions + other.actions, self.changes + other.changes)
