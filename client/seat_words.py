"""A seat request in words, and the answer to one (``protocol/PROTOCOL.md``, *Taking an
away seat back*): what each viewpoint is told when someone asks to take an away seat on
another device, how the request ended, and the ``answer_seat_request`` a seated player's
"allow" or "refuse" sends. Every English word of it is here, in one place."""

from __future__ import annotations

from client.view import ViewState
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)

__all__ = [
    "PLAIN_HINT",
    "QUESTION",
    "TUI_HINT",
    "answer",
    "can_answer",
    "ended_sentence",
    "requested_sentence",
    "waiting_sentence",
]

QUESTION = "Someone wants to take {name}'s seat from another device — let them?"
"""The question a seated, connected player is asked (``{name}``: the seat's name)."""
PLAIN_HINT = "Type allow or refuse."
"""How ``--plain`` answers the question."""
TUI_HINT = "Press y to allow, n to refuse."
"""How the terminal table answers it."""


def _name(view: ViewState, seat: int) -> str:
    return view.name(seat)


def can_answer(view: ViewState) -> bool:
    """Whether this viewpoint is asked: seated, and someone asks for another seat."""
    return view.seat_request is not None and view.my_seat not in (None, view.seat_request)


def requested_sentence(view: ViewState, message: SeatRequested, me: int | None) -> str:
    """What ``me`` is told when someone asks for ``message.seat`` (a renderer adds how
    to answer: `PLAIN_HINT`, `TUI_HINT`)."""
    name = _name(view, message.seat)
    if me is None or me == message.seat:
        return f"Someone asks to take {name}'s seat from another device."
    return QUESTION.format(name=name)


def waiting_sentence(view: ViewState, message: SeatRequestWaiting) -> str:
    """What the asking device is told while the table decides."""
    return (
        "The players at the table are asked whether this device may take that seat; "
        f"waiting up to {message.seconds} seconds for their answer."
    )


def _by(view: ViewState, by: int | None, me: int | None) -> str:
    if by is None:
        return "Nobody"
    return "You" if by == me else _name(view, by)


def ended_sentence(view: ViewState, message: SeatRequestEnded, me: int | None) -> str:
    """How the request for ``message.seat`` ended, for ``me``."""
    name = _name(view, message.seat)
    who = _by(view, message.by, me)
    minutes = max(1, message.reclaim // 60)
    outcome = message.outcome
    if outcome in (RequestOutcome.ALLOWED, RequestOutcome.AWAY_LONG) and me == message.seat:
        how = f"{who} let you in" if outcome is RequestOutcome.ALLOWED else "It was away long"
        return (
            f"{how}: you have {name}'s seat on this device. The device it was on can take it "
            f"back within {minutes} minutes."
        )
    sentences = {
        RequestOutcome.ALLOWED: f"{who} let another device take {name}'s seat.",
        RequestOutcome.AWAY_LONG: (
            f"{name}'s seat was taken on another device: nobody was here to ask, and it had "
            "been away long."
        ),
        RequestOutcome.REFUSED: f"{who} refused to let another device take {name}'s seat.",
        RequestOutcome.EXPIRED: f"Nobody answered; {name}'s seat stays as it was.",
        RequestOutcome.WITHDRAWN: f"The other device stopped asking for {name}'s seat.",
        RequestOutcome.RETURNED: f"{name} is back on their own device.",
    }
    return sentences[outcome]


def answer(view: ViewState, allow: bool) -> AnswerSeatRequest | str:
    """The ``answer_seat_request`` of "allow" / "refuse", or why there is none to give."""
    if not can_answer(view) or view.seat_request is None:
        return "Nobody is asking for a seat now."
    return AnswerSeatRequest(seat=view.seat_request, allow=allow)
