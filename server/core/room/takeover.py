"""A seat belongs to its person: taking an away seat by its name is a request the table
answers, and the device it was taken from keeps a way back for a while.

Once a game has started, a ``join_room`` naming an away seat (a player on a new device,
or anyone who has the player code and knows a name: names are no secret) does not take
the seat. Instead:

- if another seated human is connected *at another address than the asker's*
  (`Table.address`: nobody approves their own request, whatever connection they send it
  from), the table is asked (``seat_requested``) and the asking connection waits
  (``seat_request_waiting``, nothing else: it sees no room message). Any seated,
  connected player at another address answers (``answer_seat_request``; from the
  asker's address: ``own_seat_request``, the request goes on): allowed, the
  asker gets the seat (`Arrivals.rejoin`); refused, it gets ``seat_request_refused``
  and close 4004. Nobody answers within ``seat_request_seconds``: ``seat_request_expired``.
  One request at a time per room: another one meanwhile gets ``seat_request_pending``
  (close 4004). The asker disconnects or sends ``leave``: the request is withdrawn. The
  seat's own device comes back with its token meanwhile: the request ends (``returned``)
  and the asker gets ``seat_in_use``. Every end is told to the table
  (``seat_request_ended``, with the outcome and the seat that answered). One address
  asks a room at most `ASK_BURST` times at once, then once every 1/`ASK_RATE` s
  (``rate_limited``, close 4004, before the table hears of it), and the room logs a
  request's start and end at most once a minute each;
- if no other human is connected at another address, nobody can be asked: the seat is
  taken only if it has been away at least `Takeover.after` seconds (the away timeout;
  120 s if that is off), else ``seat_away_too_briefly`` (close 4004; not a failed
  attempt: the name was right).

The hashes of the tokens the seat had before it was taken (never the tokens) are kept
with the room's record (`server.core.room.records.DisplacedRecord`, stored: a restart keeps
them) until a wall-clock deadline `reclaim_seconds` away (a restart neither extends nor
shortens it): the earlier device's ``resume_seat`` with one of them takes the seat back,
and the device that took it gets ``seat_taken_back`` and close 4002. After that time the
same token gets ``seat_taken`` (close 4004), which says plainly that the seat was taken
on another device, and it is not counted as a failed attempt; `TOLD_SECONDS` later the
hashes are dropped (the room wakes for it), and the token is unknown (``bad_token``).

The way back belongs to the owner: the device a seat was *first* taken from (while no way
back of that seat runs) has it; a later taker's tokens within that time are only told
(their record's deadline is the moment they were taken), so no later taker's token wins
the seat from her. When she takes it back, every later taker's record of that seat ends
its way back and the holder's tokens are told too; a request for the seat ends
(``returned``). At most `MAX_DISPLACED` records per room: the told ones go first, never a
way back that still runs (at most one per seat).

The request under way is in memory only (its asker's connection does not survive a
restart); its seat and deadline are on the table (`Table.asked`), for the ``state`` that a
``welcome`` or a ``snapshot`` shows (``seat_request``): a player who comes in meanwhile
is asked too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from protocol import ConnectionChanged, Error, ErrorCode
from protocol.closecodes import CloseCode
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)
from server.core.budgets import TokenBucket
from server.core.codes import RandomSource, hash_token, new_token, token_matches
from server.core.refusals import Refusal
from server.core.room.actions import Action, Close, ConnId, Effects, Send
from server.core.room.arrivals import Arrivals
from server.core.room.records import DisplacedRecord
from server.core.room.table import Table

__all__ = [
    "ASK_BURST",
    "ASK_RATE",
    "DEFAULT_AFTER_SECONDS",
    "LOG_EVERY_SECONDS",
    "MAX_DISPLACED",
    "TOLD_SECONDS",
    "Takeover",
    "Times",
]

DEFAULT_AFTER_SECONDS = 120.0
"""How long a seat must be away to be taken by name with nobody to ask, when the away
timeout is off (0)."""
MAX_DISPLACED = 8
"""Earlier devices' tokens a room remembers (the oldest are forgotten first)."""
ASK_BURST = 3.0
"""Seat requests one address may make in a room at once (then `ASK_RATE` a second)."""
ASK_RATE = 1 / 20
"""Seat requests one address may make in a room a second, past `ASK_BURST`: so at most
five prompts a minute reach the table from one address (three, then one every 20 s)."""
LOG_EVERY_SECONDS = 60.0
"""A room logs ``seat_requested`` and ``seat_request_ended`` at most once a minute each."""
TOLD_SECONDS = 24 * 3600.0
"""How long after its way back ends an earlier device's token is still told ``seat_taken``
(a day: as long as a room nobody uses is kept, `HubSettings.idle_room_minutes`)."""


@dataclass(slots=True)
class _Pending:
    seat: int
    conn: ConnId
    deadline: float
    commitment: str | None  # the asker's seed commitment (fair deals), if it sent one


@dataclass(frozen=True, slots=True)
class Times:
    """A takeover's times (seconds): the table's to answer, the earlier device's to take
    the seat back, a seat's away before it may be taken with nobody to ask (0: 120)."""

    wait: float
    reclaim: float
    after: float


def _owner(displaced: tuple[DisplacedRecord, ...], seat: int, now: float) -> DisplacedRecord | None:
    """The record of ``seat``'s owner whose way back still runs at ``now``, or None (at
    most one: a later taker's record never has a way back while it runs)."""
    return next((d for d in displaced if d.seat == seat and d.until > now), None)


def _kept(displaced: tuple[DisplacedRecord, ...], now: float) -> tuple[DisplacedRecord, ...]:
    """``displaced`` within `MAX_DISPLACED`: every way back that still runs is kept (one
    per seat at most), and the newest of the others, those only told `seat_taken`."""
    told = [d for d in displaced if d.until <= now]
    room = MAX_DISPLACED - (len(displaced) - len(told))
    dropped = {id(d) for d in told[: max(len(told) - room, 0)]}
    return tuple(d for d in displaced if id(d) not in dropped)


def _holds(displaced: DisplacedRecord, token: str) -> bool:
    """Whether ``token`` is one of ``displaced``'s (compared in constant time)."""
    latest = token_matches(token, displaced.token_hash)
    previous = token_matches(token, displaced.previous_token_hash)
    return latest or previous


class Takeover:
    """The seat requests of ``table`` and the tokens of the devices seats were taken
    from (see the module docstring)."""

    def __init__(
        self,
        table: Table,
        arrivals: Arrivals,
        *,
        random: RandomSource,
        times: Times,
    ) -> None:
        self._table = table
        self._arrivals = arrivals
        self._random = random
        self.wait = times.wait
        self.reclaim = times.reclaim
        self.after = times.after if times.after > 0 else DEFAULT_AFTER_SECONDS
        self._pending: _Pending | None = None
        self._asks: dict[str, TokenBucket] = {}  # each address's seat requests
        self._logged: dict[str, tuple[float, int]] = {}  # kind → (last line, left out)

    # ------------------------------------------------------------------ queries
    def asking(self, conn: ConnId) -> bool:
        """Whether ``conn`` waits for the table's answer."""
        return self._pending is not None and self._pending.conn == conn

    @property
    def deadline(self) -> float | None:
        """When the request under way expires or the oldest earlier device's token is
        forgotten, whichever comes first; None if neither."""
        pending = None if self._pending is None else self._pending.deadline
        displaced = self._table.displaced
        if not displaced:
            return pending
        forget = min(d.until for d in displaced) + TOLD_SECONDS
        return forget if pending is None else min(pending, forget)

    def _open(self, pending: _Pending | None) -> None:
        """The request under way is ``pending`` (None: no request), on the table too."""
        self._pending = pending
        self._table.set_asked(None if pending is None else (pending.seat, pending.deadline))

    @property
    def asker(self) -> ConnId | None:
        return None if self._pending is None else self._pending.conn

    # ------------------------------------------------------------------ asking
    def ask(self, index: int, conn: ConnId, now: float, commitment: str | None = None) -> Effects:
        """``conn`` asks for away seat ``index`` by its name (a started room);
        ``commitment``: its seed commitment for a fair deal, if its client sent one."""
        table = self._table
        if self._pending is not None:
            text = "someone is asking the table for a seat already; try again in a minute"
            return table.effects([], Refusal(ErrorCode.SEAT_REQUEST_PENDING, text))
        refused = self._throttled(table.address(conn), now)
        if refused is not None:
            return table.effects([], refused)
        seats = table.seats
        if not self._answerers(index, conn):  # nobody else, or only the asker's household
            since = seats[index].away_since
            away = 0.0 if since is None else now - since
            if away < self.after:
                text = (
                    f"nobody at the table can let you in, and this seat has been away "
                    f"{int(away)} s; it can be taken by its name after {int(self.after)} s"
                )
                return table.effects([], Refusal(ErrorCode.SEAT_AWAY_TOO_BRIEFLY, text))
            asked = _Pending(index, conn, now, commitment)
            return table.effects(self._hand_over(asked, now, RequestOutcome.AWAY_LONG, None))
        self._open(_Pending(index, conn, now + self.wait, commitment))
        seconds = int(self.wait)
        self._log("seat_requested", now, seat=index)
        actions = table.emit(lambda seq: SeatRequested(seq=seq, seat=index, seconds=seconds))
        waiting = SeatRequestWaiting(seq=table.seq, seat=index, seconds=seconds)
        actions.append(Send((conn,), waiting))
        return table.effects(actions)

    def _throttled(self, address: str, now: float) -> Refusal | None:
        """Take one of ``address``'s requests (`ASK_BURST`, then one every
        1/`ASK_RATE` s: a few a minute reach the table); the refusal if it has none.
        Full buckets of other addresses are forgotten (they give nothing back)."""
        asks = self._asks
        for other in [a for a, b in asks.items() if a != address and b.tokens(now) >= b.burst]:
            del asks[other]
        bucket = asks.get(address)
        if bucket is None:
            bucket = asks[address] = TokenBucket(ASK_RATE, ASK_BURST, now)
        if bucket.take(now):
            return None
        wait = bucket.wait(now)
        text = f"too many seat requests from this address: wait {wait:.0f} s"
        return Refusal(ErrorCode.RATE_LIMITED, text)

    def _log(self, event: str, now: float, **fields: object) -> None:
        """Log ``event`` at most once a `LOG_EVERY_SECONDS` per kind, the next line
        saying how many were left out (a loop of requests keeps the log small)."""
        log = self._table.log
        if log is None:
            return
        since, left_out = self._logged.get(event, (-LOG_EVERY_SECONDS, 0))
        if now - since < LOG_EVERY_SECONDS:
            self._logged[event] = (since, left_out + 1)
            return
        self._logged[event] = (now, 0)
        if left_out:
            fields["left_out"] = left_out
        log.info(event, **fields)

    def _answerers(self, index: int, asker: ConnId) -> list[int]:
        """The seats that may answer a request for seat ``index`` from ``asker``: held by
        a person, connected, and not from the asker's address (nobody approves their own
        request, whatever connection they send it from)."""
        address_of = self._table.address
        address = address_of(asker)
        return [
            i
            for i, seat in enumerate(self._table.seats)
            if seat.human
            and seat.conn is not None
            and i != index
            and address_of(seat.conn) != address
        ]

    def answer(self, by: int, message: AnswerSeatRequest, now: float) -> Effects:
        """Seat ``by`` answers the request for ``message.seat``."""
        table = self._table
        pending = self._pending
        if pending is None or pending.seat != message.seat:
            text = f"nobody is asking for seat {message.seat} now"
            return table.effects([], Refusal(ErrorCode.NO_SEAT_REQUEST, text))
        if by not in self._answerers(pending.seat, pending.conn):
            text = (
                "this request comes from your own address: someone at another address "
                "answers it (or, with nobody there, the away timeout)"
            )
            return table.effects([], Refusal(ErrorCode.OWN_SEAT_REQUEST, text))
        if message.allow:
            outcome = RequestOutcome.ALLOWED
            return table.effects(self._hand_over(pending, now, outcome, by))
        self._open(None)
        text = "the players at the table did not let this device take the seat"
        return table.effects(
            self._ended(
                now,
                pending,
                (RequestOutcome.REFUSED, by),
                Refusal(ErrorCode.SEAT_REQUEST_REFUSED, text),
            )
        )

    def expire(self, now: float) -> list[Action]:
        """The request under way ends if nobody answered it in time; earlier devices'
        tokens past `TOLD_SECONDS` are forgotten."""
        table = self._table
        kept = tuple(d for d in table.displaced if now < d.until + TOLD_SECONDS)
        if len(kept) != len(table.displaced):
            table.set_displaced(kept)
        pending = self._pending
        if pending is None or pending.deadline > now:
            return []
        self._open(None)
        text = "nobody at the table answered in time; ask them to look at their screen"
        refusal = Refusal(ErrorCode.SEAT_REQUEST_EXPIRED, text)
        return self._ended(now, pending, (RequestOutcome.EXPIRED, None), refusal)

    def withdraw(self, now: float) -> list[Action]:
        """The asking connection went away (or left): the request ends."""
        pending = self._pending
        if pending is None:
            return []
        self._open(None)
        return self._ended(now, pending, (RequestOutcome.WITHDRAWN, None), None)

    def returned(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` was taken back by its token: a request for it ends."""
        pending = self._pending
        if pending is None or pending.seat != index:
            return []
        self._open(None)
        text = "the seat's own device came back"
        refusal = Refusal(ErrorCode.SEAT_IN_USE, text)
        return self._ended(now, pending, (RequestOutcome.RETURNED, None), refusal)

    def _ended(
        self,
        now: float,
        pending: _Pending,
        end: tuple[RequestOutcome, int | None],
        refusal: Refusal | None,
    ) -> list[Action]:
        """The request ``pending`` ends with ``end`` (its outcome, and the seat that
        answered); the asker gets ``refusal``'s error and close 4004, if any."""
        table = self._table
        outcome, by = end
        self._log("seat_request_ended", now, seat=pending.seat, outcome=outcome.value)
        seat = pending.seat
        actions = table.emit(
            lambda seq: SeatRequestEnded(seq=seq, seat=seat, outcome=outcome, by=by)
        )
        if refusal is not None:
            code = refusal.code
            actions.append(Send((pending.conn,), Error(code=code, message=refusal.text)))
            actions.append(Close(pending.conn, CloseCode.REFUSED, code.value))
        return actions

    def _hand_over(
        self, asked: _Pending, now: float, outcome: RequestOutcome, by: int | None
    ) -> list[Action]:
        """The asker takes the seat it asked for. Its earlier tokens get the way back for
        `reclaim` if they are the owner's (no way back of that seat runs); a later
        taker's are only told (`seat_taken`): the owner's way back is hers alone."""
        table = self._table
        index = asked.seat
        owned = _owner(table.displaced, index, now) is not None
        self._displace(index, now if owned else now + self.reclaim, by, now)
        actions = self._arrivals.rejoin(index, asked.conn, now, asked.commitment)
        self._open(None)  # after the welcome: it shows the request until it ends
        reclaim = int(self.reclaim)
        actions += table.emit(
            lambda seq: SeatRequestEnded(
                seq=seq, seat=index, outcome=outcome, by=by, reclaim=reclaim
            )
        )
        # a seed the old device owed never comes now: the void follows the takeover
        return actions + self._arrivals.void_owed(index, now)

    def _displace(self, index: int, until: float, by: int | None, now: float) -> None:
        """Keep the tokens seat ``index`` has now (it is being taken from them) until
        ``until`` (a way back if that is later than ``now``), then told `seat_taken`."""
        table = self._table
        record = table.seats[index].record
        if record.token_hash is None:
            return
        displaced = DisplacedRecord(index, record.token_hash, record.previous_token_hash, until, by)
        table.set_displaced(_kept((*table.displaced, displaced), now))

    # ------------------------------------------------------------------ the way back
    def reclaim_seat(self, conn: ConnId, token: str, now: float) -> Effects | None:
        """``conn`` resumes with ``token``, which no seat takes: the seat it held before
        it was taken over comes back to it (within `reclaim` seconds), or it is told
        plainly that the seat was taken (after); None if the token is none of those."""
        table = self._table
        found = next((d for d in reversed(table.displaced) if _holds(d, token)), None)
        if found is None or now >= found.until + TOLD_SECONDS:
            return None
        seat = table.seats[found.seat]
        if now >= found.until or not seat.human:
            who = "" if found.by is None else f" ({table.seats[found.by].name} allowed it)"
            text = f"your seat was taken on another device{who}; join again with the player code"
            return table.effects([], Refusal(ErrorCode.SEAT_TAKEN, text))
        index = found.seat
        # the owner is back: every later taker's tokens are told (`seat_taken`), the
        # holder's included, and none of them has a way back any more
        table.set_displaced(
            tuple(
                d if d.seat != index or d.until <= now else dataclasses.replace(d, until=now)
                for d in table.displaced
                if d is not found
            )
        )
        self._displace(index, now, None, now)
        actions: list[Action] = self.returned(index, now)
        if seat.conn is not None:
            text = "the device this seat was taken from took it back"
            actions.append(Send((seat.conn,), Error(code=ErrorCode.SEAT_TAKEN_BACK, message=text)))
            actions.append(Close(seat.conn, CloseCode.REPLACED, ErrorCode.SEAT_TAKEN_BACK.value))
        else:
            actions += table.emit(
                lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True)
            )
        fresh = new_token(self._random)
        table.seats.change(index, token_hash=hash_token(fresh), previous_token_hash=None)
        table.seats.attach(index, conn)
        seat.away_deadline = None
        table.active_at(now)
        if table.log is not None:
            table.log.info("seat_taken_back", seat=index)
        actions.append(table.welcome(conn, index, fresh, now))
        return table.effects(actions + self._arrivals.back_from_away(index, now))
