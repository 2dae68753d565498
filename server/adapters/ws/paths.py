"""The second path: one seat, two TCP connections, the same frames on both, the first copy wins.

Over one TCP connection a lost packet holds up every frame behind it until it is sent
again (a round trip at least, ~300 ms on a far relative's line: docs/performance.md, "The
remote relative"); over two independent connections a frame is late only if both copies
are. So a connection the server offers it (``--second-path``: by default those from
outside the house, `server.adapters.outside.house`) gets a key in its ``welcome``
(``path_key``, `secrets.token_urlsafe`: 128 random bits), and a new connection whose
opening message is ``second_path`` with that key becomes its second path
(PROTOCOL.md §11):

- the Hub forgets the second connection (it never opened a room) and never sees its
  frames as its own; the server answers it ``second_path_ready`` with ``after``, the frames
  it had sent on the first, and from then on every frame written to the first is written
  to the second too (`FirstPath.flushed`, called by the first's
  `server.adapters.ws.connection.GuardedConnection.flush`);
- frames read on either connection go through the first's merge (`protocol.paths`), and
  those it delivers are read as the first's (`Reading`): the first's rate limit, invalid
  budget, house check and Hub; a second path that brings more than 16 frames or 64 KiB
  ahead of the first is closed (4006, "out of step");
- a second path is closed (4006) when its first connection closes or a newer second path
  replaces it; whatever happens on the second never touches the first. The second holds
  a slot of its address (``--max-connections-per-ip``) and its own transport bounds
  drop it alone.

The Hub (`server.core`) knows none of this. Log events: ``second_path_attached``,
``second_path_refused`` (``reason``), ``second_path_closed`` (``reason``).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field

from websockets.protocol import State

from protocol import CloseCode, SecondPathReady, encode
from protocol.paths import FIRST, SECOND, PathMerge
from server.adapters.addresses.forwarded import Network
from server.adapters.addresses.limits import RateLimiter
from server.adapters.logs import get_logger
from server.adapters.outside.house import house_networks
from server.adapters.settings.config import SecondPathOffer
from server.adapters.ws.connection import GuardedConnection, binary_frame
from server.core.budgets import TokenBucket
from server.core.room.actions import ConnId

__all__ = ["HOUSE_REFRESH_SECONDS", "KEY_BYTES", "FirstPath", "Lane", "Reading", "SecondPaths"]

KEY_BYTES = 16
"""random bytes of a path key (22 characters of base64url)"""
HOUSE_REFRESH_SECONDS = 10.0
"""how long the house's networks read for the offer are used before they are read again
(`SecondPaths.house`: reading them takes a few hundred microseconds, too much for every
connection; a network the machine just joined is judged at most this late, and the offer
changes only how a lost packet is recovered)"""

log = get_logger()


@dataclass(eq=False, slots=True)
class Reading:
    """What the app's receive loop keeps of one connection: its frames' limits and
    whether it opened a room or is being closed; ``lane`` (None: frames are read as this
    connection's own, the usual case): how frames go through a merge."""

    conn: ConnId
    ws: GuardedConnection
    peer: str
    started: float
    limiter: RateLimiter
    invalid: TokenBucket
    opened: bool = False
    closing: bool = False
    """this loop closed the connection: its later frames are not read"""
    lane: Lane | None = None


@dataclass(eq=False, slots=True)
class FirstPath:
    """A first connection offered a second path: its key, its merge of what the client
    sends, the frames it was written so far, and its second path if one is attached."""

    reading: Reading
    key: str
    merge: PathMerge[bytes | str] = field(default_factory=PathMerge)
    sent: int = 0
    """data frames written to the first connection since it opened"""
    second: Reading | None = None

    def flushed(self, frames: list[bytes]) -> None:
        """``frames`` go out on the first connection: count them, and write them to the
        second path too, in the same order (the same bytes)."""
        self.sent += len(frames)
        second = self.second
        if second is None or not frames:
            return
        ws = second.ws
        if ws.protocol.state is not State.OPEN:
            return  # closing: its end detaches it
        for frame in frames:
            ws.queue(frame)
        ws.flush()


@dataclass(eq=False, slots=True)
class Lane:
    """A connection's frames through ``first``'s merge, as its ``side`` (`FIRST`: the
    first connection itself; `SECOND`: its second path); ``live`` false once the server
    closed that second path (its frames are no longer read)."""

    first: FirstPath
    side: int
    live: bool = True


class SecondPaths:
    """Every first connection offered a second path, by key; offers, attaches and closes
    second paths. ``closing`` and ``tasks``: the app's, shared (a second path closed here
    is a connection closing, and its closing handshake a task the server waits for)."""

    def __init__(
        self,
        offer: SecondPathOffer,
        closing: set[ConnId],
        tasks: set[asyncio.Task[None]],
    ) -> None:
        self._offer = offer
        self._closing = closing
        self._tasks = tasks
        self._keys: dict[str, FirstPath] = {}
        self._house: tuple[Network, ...] = ()
        self._house_read = -HOUSE_REFRESH_SECONDS  # monotonic time of the last read

    @property
    def needs_house(self) -> bool:
        """Whether an offer depends on where the connection comes from."""
        return self._offer is SecondPathOffer.OUTSIDE

    def house(self, now: float) -> tuple[Network, ...]:
        """The house's networks (`server.adapters.outside.house.house_networks`), read
        again once `HOUSE_REFRESH_SECONDS` passed since the last read (``now``: the
        monotonic clock)."""
        if now - self._house_read >= HOUSE_REFRESH_SECONDS:
            self._house = house_networks()
            self._house_read = now
        return self._house

    def offers(self, house: bool) -> bool:
        """Whether a connection from the house (``house``) or not is offered one."""
        if self._offer is SecondPathOffer.OUTSIDE:
            return not house
        return self._offer is SecondPathOffer.ALWAYS

    def offer(self, reading: Reading) -> None:
        """Give ``reading``'s connection a key (its ``welcome`` tells it) and a merge."""
        key = secrets.token_urlsafe(KEY_BYTES)
        first = FirstPath(reading, key)
        self._keys[key] = first
        reading.lane = Lane(first, FIRST)
        reading.ws.mirror = first
        reading.ws.path_key = key

    def find(self, key: str, reading: Reading) -> FirstPath | None:
        """The open first connection whose key is ``key`` (not ``reading``'s own, not
        one being closed), or None."""
        first = self._keys.get(key)
        if first is None or first.reading is reading or first.reading.conn in self._closing:
            return None
        return first

    def attach(self, second: Reading, first: FirstPath, after: int) -> None:
        """Make ``second`` (a connection the Hub forgot) ``first``'s second path, whose
        first frame is the client's message number ``after``; answer it
        ``second_path_ready``. A second path attached before is closed (replaced)."""
        if first.second is not None:
            self._close_second(first, "replaced by a newer second path")
        self._withdraw(second)  # a second path has none of its own
        first.merge.attach(after)
        first.second = second
        second.lane = Lane(first, SECOND)
        second.opened = True  # no opening deadline any more
        ws = second.ws
        if ws.protocol.state is State.OPEN:
            ws.queue(binary_frame(encode(SecondPathReady(after=first.sent))))
            ws.flush()
        log.info("second_path_attached", first=first.reading.conn, after=after, sent=first.sent)

    def out_of_step(self, first: FirstPath) -> None:
        """``first``'s second path brought more than the merge holds: close it."""
        self._close_second(first, "out of step")

    def closed(self, reading: Reading) -> bool:
        """``reading``'s connection ended: a first connection's key is forgotten and its
        second path closed; a second path is detached. True if it was a second path (the
        Hub forgot it: it must not be told)."""
        lane = reading.lane
        if lane is None:
            return False
        first = lane.first
        if lane.side == FIRST:
            self._withdraw(reading)
            if first.second is not None:
                self._close_second(first, "first connection closed")
            return False
        if lane.live and first.second is reading:
            first.second = None
            first.merge.detach()
            lane.live = False
            log.info("second_path_closed", reason="it ended", close_code=reading.ws.close_code)
        return True

    def _withdraw(self, reading: Reading) -> None:
        """``reading``'s connection is no first connection any more: forget its key."""
        lane = reading.lane
        if lane is not None and lane.side == FIRST:
            self._keys.pop(lane.first.key, None)
            reading.lane = None
        reading.ws.mirror = None
        reading.ws.path_key = None

    def _close_second(self, first: FirstPath, reason: str) -> None:
        second = first.second
        assert second is not None
        first.second = None
        first.merge.detach()
        if second.lane is not None:
            second.lane.live = False
        log.info("second_path_closed", reason=reason, second=second.conn)
        if second.conn in self._closing:
            return
        self._closing.add(second.conn)
        task = asyncio.create_task(second.ws.close(CloseCode.SECOND_PATH_CLOSED, reason))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
