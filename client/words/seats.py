"""A seat request in words, and the answer to one (``protocol/PROTOCOL.md``, *Taking an
away seat back*): what each viewpoint is told when someone asks to take an away seat on
another device, how the request ended, and the ``answer_seat_request`` a seated player's
"allow" or "refuse" sends. The words are the catalogs' ``seat_request`` section; the
page's twin is ``client/web/js/takeover.js``."""

from __future__ import annotations

from client.state.view import ViewState
from client.words.catalog import Catalog, Said, said
from client.words.who import named, who
from protocol import ServerMessage, Snapshot, Welcome
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)

__all__ = [
    "PLAIN_HINT",
    "TUI_HINT",
    "answer",
    "asked_now",
    "can_answer",
    "ended_sentence",
    "open_request_sentence",
    "requested_sentence",
    "waiting_sentence",
]

PLAIN_HINT = said("seat_request.plain_hint")
"""How ``--plain`` answers the question."""
TUI_HINT = said("seat_request.tui_hint")
"""How the terminal table answers it."""


def can_answer(view: ViewState) -> bool:
    """Whether this viewpoint is asked: seated, and someone asks for another seat."""
    return view.seat_request is not None and view.my_seat not in (None, view.seat_request)


def requested_sentence(
    view: ViewState, message: SeatRequested, me: int | None, *, words: Catalog
) -> str:
    """What ``me`` is told when someone asks for ``message.seat`` (a renderer adds how
    to answer: `PLAIN_HINT`, `TUI_HINT`)."""
    return _asked(view, message.seat, me, words)


def _asked(view: ViewState, seat: int, me: int | None, words: Catalog) -> str:
    asked = not (me is None or me == seat)
    key = "seat_request.question" if asked else "seat_request.asks"
    return words.text(key, who=named(view, seat))


def open_request_sentence(view: ViewState, me: int | None, *, words: Catalog) -> str | None:
    """What ``me`` is told of the request open in a welcome's (or a snapshot's) state, as
    after its ``seat_requested``; None if none is open, or it is for ``me``'s own seat
    (its device came back: the request ends next)."""
    seat = view.seat_request
    if seat is None or seat == me:
        return None
    return _asked(view, seat, me, words)


def asked_now(before: ViewState, message: ServerMessage, view: ViewState) -> bool:
    """Whether ``message`` puts the question to this viewpoint (a renderer then says how
    to answer): a ``seat_requested``, a welcome whose state shows a request open, or a
    snapshot that brings one."""
    if not can_answer(view):
        return False
    if isinstance(message, SeatRequested | Welcome):
        return True
    return isinstance(message, Snapshot) and before.seat_request != view.seat_request


def waiting_sentence(view: ViewState, message: SeatRequestWaiting, *, words: Catalog) -> str:
    """What the asking device is told while the table decides."""
    return words.text("seat_request.waiting", count=message.seconds)


def ended_sentence(
    view: ViewState, message: SeatRequestEnded, me: int | None, *, words: Catalog
) -> str:
    """How the request for ``message.seat`` ended, for ``me``."""
    seat = named(view, message.seat)
    minutes = max(1, message.reclaim // 60)
    outcome = message.outcome
    if outcome in (RequestOutcome.ALLOWED, RequestOutcome.AWAY_LONG) and me == message.seat:
        if outcome is RequestOutcome.ALLOWED and message.by is not None:
            how = said("seat_request.let_you_in", by=who(view, message.by, me))
        else:
            how = said("seat_request.away_long_yours")
        return words.text("seat_request.yours", how=how, who=seat, minutes=minutes)
    if outcome in (RequestOutcome.ALLOWED, RequestOutcome.REFUSED) and message.by is not None:
        by = who(view, message.by, me)
        return words.text("seat_request.ended_by", outcome=outcome.value, who=seat, by=by)
    return words.text("seat_request.ended", outcome=outcome.value, who=seat)


def answer(view: ViewState, allow: bool) -> AnswerSeatRequest | Said:
    """The ``answer_seat_request`` of "allow" / "refuse", or why there is none to give."""
    if not can_answer(view) or view.seat_request is None:
        return said("seat_request.nobody_asking")
    return AnswerSeatRequest(seat=view.seat_request, allow=allow)
