"""The messages of a seat request: a device without the seat's token asks the table for
an away seat by its name (``join_room``), the table answers (``protocol/PROTOCOL.md``,
*Taking an away seat back*).

``seat_request_waiting`` goes to the asking connection alone (its ``seq`` is the room's
last, as a ``welcome``'s: it takes none); ``seat_requested`` and ``seat_request_ended``
are room messages (each takes the next ``seq``); ``answer_seat_request`` is a seated
player's answer. A request still open is in the room's ``state`` too
(``state.seat_request``, a `SeatRequest`): a player who joins, resumes or reloads the
page meanwhile is asked as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, ClassVar

from protocol.fields import IntRange, Seat, Seq

__all__ = [
    "MAX_REQUEST_SECONDS",
    "AnswerSeatRequest",
    "RequestOutcome",
    "RequestSeconds",
    "SeatRequest",
    "SeatRequestEnded",
    "SeatRequestWaiting",
    "SeatRequested",
]

MAX_REQUEST_SECONDS = 24 * 3600
RequestSeconds = Annotated[int, IntRange(0, MAX_REQUEST_SECONDS)]
"""Whole seconds: how long a request stays open, or how long an earlier device may take
its seat back."""


class RequestOutcome(StrEnum):
    """How a seat request ended (``seat_request_ended.outcome``)."""

    ALLOWED = "allowed"
    """A player at the table (``by``) let the device take the seat."""
    AWAY_LONG = "away_long"
    """Nobody else was at the table and the seat had been away long: taken without asking."""
    REFUSED = "refused"
    """A player at the table (``by``) refused."""
    EXPIRED = "expired"
    """Nobody answered in time."""
    WITHDRAWN = "withdrawn"
    """The asking device went away (or left) before an answer."""
    RETURNED = "returned"
    """The seat's own device came back with its token meanwhile."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRequest:
    """The request open in a room (``state.seat_request``): someone asks to take away
    seat ``seat`` on another device, and the table has ``seconds`` left to answer."""

    seat: Seat
    seconds: RequestSeconds


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRequestWaiting:
    """To the asking connection: the table was asked to let it take ``seat``; the answer
    comes within ``seconds`` (a ``welcome``, or an ``error`` and close 4004)."""

    TYPE: ClassVar[str] = "seat_request_waiting"
    seq: Seq
    seat: Seat
    seconds: RequestSeconds


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRequested:
    """Someone with the player code asks to take away seat ``seat`` on another device;
    any seated, connected player may answer (``answer_seat_request``) within
    ``seconds``."""

    TYPE: ClassVar[str] = "seat_requested"
    seq: Seq
    seat: Seat
    seconds: RequestSeconds


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRequestEnded:
    """The request for ``seat`` ended (``outcome``); ``by``: the seat that answered
    (allowed, refused). ``reclaim``: seconds the device the seat was taken from may still
    take it back with its token (allowed, away_long; else 0)."""

    TYPE: ClassVar[str] = "seat_request_ended"
    seq: Seq
    seat: Seat
    outcome: RequestOutcome
    by: Seat | None = None
    reclaim: RequestSeconds = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerSeatRequest:
    """A seated player's answer to ``seat_requested`` for ``seat``: ``allow`` or not."""

    TYPE: ClassVar[str] = "answer_seat_request"
    seat: Seat
    allow: bool
