"""The outbox: the Hub's actions carried out on the WebSocket connections.

Each `Send` is encoded and framed once (`protocol.encode_own`, the one codec's encoder
for messages the server built itself: the same bytes as `protocol.encode`, without
checking every field again; `server.adapters.ws.connection.binary_frame`) and its frame
queued for every connection it names that is open (like ``websockets.broadcast``: a
connection that is closing is skipped, and nothing waits for a slow client, which its
own bounds drop, `server.adapters.ws.connection`). The frames queued for a connection
are written when the list of actions ends, or before a `Close`, so they go out ahead of
its close frame: a step's three messages reach a connection in one ``transport.write``
(one system call) instead of three. bench/load.py measured 53% of the server's time in
socket writes at full speed, and +22% steps/s from this. A `Close` starts the connection's closing
handshake (once), with the reason cut to what a close frame holds. A ``welcome`` to a
connection from this machine itself carries the invitation's addresses
(``welcome.addresses``, `server.adapters.web.invitation`), and one to a connection from the
house the outside link of ``--outside`` (``welcome.outside``), and one to a connection
offered a second path its key (``welcome.path_key``, `server.adapters.ws.paths`); the Hub
never knows them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace

from websockets.protocol import State

from protocol import EncodeError, Welcome, encode_own
from server.adapters.logs import get_logger
from server.adapters.ws.connection import GuardedConnection, binary_frame
from server.core.room.actions import Action, Close, ConnId, Send

__all__ = ["MAX_REASON_BYTES", "Outbox"]

MAX_REASON_BYTES = 123
"""a close frame's reason limit (RFC 6455)"""

log = get_logger()


class Outbox:
    """Carries out actions on ``sockets`` (every open connection, by id); ``closing``:
    the connections a close was started for; ``tasks``: the closing handshakes under way.
    The containers are the caller's, shared."""

    def __init__(
        self,
        sockets: dict[ConnId, GuardedConnection],
        closing: set[ConnId],
        tasks: set[asyncio.Task[None]],
    ) -> None:
        self._sockets = sockets
        self._closing = closing
        self._tasks = tasks
        self.addresses: tuple[str, ...] = ()
        """The invitation's addresses (`server.adapters.web.invitation`), told in the
        ``welcome`` of a connection from this machine itself (``told``)."""
        self.outside: str | None = None
        """The outside link (``war-server --outside``), told in the ``welcome`` of a
        connection from the house (``house``)."""

    def perform(self, actions: Iterable[Action]) -> None:
        """Carry out ``actions`` in order (see the module docstring)."""
        queued: dict[ConnId, GuardedConnection] = {}
        for action in actions:
            if isinstance(action, Send):
                self._send(action, queued)
            else:
                _flush(queued)
                self._close(action)
        _flush(queued)

    def _send(self, action: Send, queued: dict[ConnId, GuardedConnection]) -> None:
        message = action.message
        if isinstance(message, Welcome):
            ws = self._sockets.get(action.to[0]) if len(action.to) == 1 else None
            if ws is not None and ws.told:
                message = replace(message, addresses=self.addresses)
            if ws is not None and ws.house and self.outside is not None:
                message = replace(message, outside=self.outside)
            if ws is not None and ws.path_key is not None:
                message = replace(message, path_key=ws.path_key)
        try:
            frame = binary_frame(encode_own(message))  # once, whoever it goes to
        except EncodeError:
            log.exception("encode_failed", message_type=type(action.message).__name__)
            return
        for conn in action.to:
            ws = self._sockets.get(conn)
            # like websockets.broadcast: skip connections that are not open (closing)
            if ws is None or ws.protocol.state is not State.OPEN:
                continue
            ws.queue(frame)
            queued[conn] = ws

    def _close(self, action: Close) -> None:
        ws = self._sockets.get(action.conn)
        if ws is None or action.conn in self._closing:
            return
        self._closing.add(action.conn)
        task = asyncio.create_task(ws.close(action.code, _short(action.reason)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _short(reason: str) -> str:
    data = reason.encode()[:MAX_REASON_BYTES]
    return data.decode(errors="ignore")


def _flush(queued: dict[ConnId, GuardedConnection]) -> None:
    """Write each connection's queued frames in one go (each checks its send buffer)."""
    for ws in queued.values():
        ws.flush()
    queued.clear()
