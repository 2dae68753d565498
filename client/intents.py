"""What a key press asks for, as the protocol message to send (or why there is none).

Shared by the Textual app and the ``--plain`` command reader, so both behave alike.
Each function takes the current view and returns the message, or a short sentence saying
why nothing is sent now.
"""

from __future__ import annotations

from client.view import ViewState
from protocol import (
    AutoPlay,
    ClientMessage,
    Ready,
    Rematch,
    RematchDeal,
    RoomPhase,
    SetAutoPlay,
    VoteFinish,
)

__all__ = [
    "AUTO_CYCLE",
    "KEYS",
    "cycle_auto",
    "finish",
    "for_key",
    "rematch",
    "set_auto",
    "turn_over",
]

AUTO_CYCLE = (AutoPlay.OFF, AutoPlay.CALM, AutoPlay.QUICK)
"""The order ``a`` steps through."""
KEYS = ("space", "a", "f", "r", "d")
"""The keys of the table, the same in both clients: ``space`` (or enter) turns over, ``a``
steps auto-play on, ``f`` votes to finish, ``r`` asks for a rematch with a new deal, ``d``
for this deal again."""
_REMATCH_KEYS = {"r": RematchDeal.NEW, "d": RematchDeal.SAME}


def for_key(
    key: str, view: ViewState, *, sent: int | None = None, asked: AutoPlay | None = None
) -> ClientMessage | str | None:
    """What pressing ``key`` (one of `KEYS`) asks for in ``view``: the message to send, or
    why nothing is sent now; None for a key that is not the table's. ``sent`` and
    ``asked``: as for `turn_over` and `cycle_auto`."""
    if key == "space":
        return turn_over(view, sent=sent)
    if key == "a":
        return cycle_auto(view, asked=asked)
    if key == "f":
        return finish(view)
    deal = _REMATCH_KEYS.get(key)
    return None if deal is None else rematch(view, deal)


def turn_over(view: ViewState, *, sent: int | None = None) -> Ready | str:
    """A ``ready`` for the current step, if the game waits for my turn.

    ``sent``: the step of a ``ready`` already sent on this connection and not answered
    yet, so a second quick press does not send a ``ready`` the server would refuse as
    stale once the first one has played the step.
    """
    me = view.me
    if me is None:
        return "Spectators watch; only players turn over."
    if view.phase is not RoomPhase.PLAYING:
        return "The game is not on."
    if me.ready or sent == view.step:
        return "You are ready; waiting for the others."
    if me.seat not in view.waiting_for:
        return "The game does not need your card now."
    return Ready(step=view.step)


def cycle_auto(view: ViewState, *, asked: AutoPlay | None = None) -> SetAutoPlay | str:
    """The next auto-play mode after mine: off → calm → quick → off. ``asked``: a mode
    sent but not yet confirmed by the room, so two quick presses step twice."""
    me = view.me
    current = asked if asked is not None else me.auto if me is not None else AutoPlay.OFF
    index = AUTO_CYCLE.index(current) if current in AUTO_CYCLE else 0
    return set_auto(view, AUTO_CYCLE[(index + 1) % len(AUTO_CYCLE)])


def set_auto(view: ViewState, mode: AutoPlay) -> SetAutoPlay | str:
    """Auto-play ``mode`` for my seat."""
    if view.me is None:
        return "Spectators have no auto-play."
    if view.phase is RoomPhase.OVER:
        return "The game is over."
    return SetAutoPlay(mode=mode)


def finish(view: ViewState) -> VoteFinish | str:
    """A vote to play the rest out at once."""
    me = view.me
    if me is None:
        return "Spectators do not vote."
    if view.phase is not RoomPhase.PLAYING:
        return "Finishing is for a game in progress."
    if me.finish_vote:
        return "You have voted to finish; waiting for the others."
    return VoteFinish()


def rematch(view: ViewState, deal: RematchDeal) -> Rematch | str:
    """A rematch vote (a new deal, or this deal again) once the game is over."""
    me = view.me
    if me is None:
        return "Spectators do not vote."
    if view.phase is not RoomPhase.OVER:
        return "A rematch comes after game over."
    return Rematch(deal=deal)
