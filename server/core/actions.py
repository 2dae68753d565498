"""What the sans-I/O room core asks for: messages to send, connections to close, a record to store.

The `Hub` (and each room behind it) never touches a socket or the disk. Every hub call
returns a list of `Action` values, in order; the app carries them out in that order (a
`Send` of an ``error`` followed by a `Close` of the same connection means: send, then
close). Each room call returns `Effects`: its actions and the room's record, which the
hub stores (when it changed) before it lets the actions out.

- `Send`: encode ``message`` once and deliver it to every connection in ``to``. The app
  (`server.adapters.app`) queues the frames of one hub call per connection and writes
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
from server.core.records import RoomRecord
from server.errors import RefusedError

__all__ = ["Action", "Close", "ConnId", "Effects", "Send"]

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
    out (units of `server.engine.STEP_WORK`), which the hub counts against the address
    that asked for it.
    """

    actions: list[Action]
    record: RoomRecord
    refused: RefusedError | None = None
    work: int = 0
