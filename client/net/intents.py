"""What a key press asks for, as the protocol message to send (or why there is none).

Shared by the Textual app and the ``--plain`` command reader, so both behave alike, and
twinned by the browser table's ``js/intents.js``: both are checked against the same
vectors (``tests/vectors/functions/intents.json``). Each function takes the current view
and returns the message, or a short sentence saying why nothing is sent now (a
:class:`client.words.catalog.Said`, for the viewer's catalog to say).

Whether a command may be sent in the room's phase at all, and by a seat or a spectator,
is the server's own phase table (`client.state.phases.PHASE_TABLE`, written from the room
core's): a command the table refuses is not sent, and the player is told why in words.
What is left here is the command's own content (the step of a ``ready``, a vote already
given).
"""

from __future__ import annotations

from client.state.phases import PHASE_TABLE
from client.state.view import ViewState
from client.words.catalog import Said, said
from protocol import (
    AutoPlay,
    ClientMessage,
    ErrorCode,
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
    "accepted_phases",
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

_SPECTATORS_SAY = {
    Ready.TYPE: said("keys.spectator_ready"),
    SetAutoPlay.TYPE: said("keys.spectator_auto"),
    VoteFinish.TYPE: said("keys.spectator_vote"),
    Rematch.TYPE: said("keys.spectator_vote"),
}
"""Why a spectator's key does nothing (the table refuses it as ``not_seated``)."""
_NOT_NOW = {
    Ready.TYPE: said("keys.not_on"),
    SetAutoPlay.TYPE: said("keys.over"),
    VoteFinish.TYPE: said("keys.finish_not_now"),
    Rematch.TYPE: said("keys.rematch_not_now"),
}
"""Why a player's key does nothing in this phase (the table refuses it)."""


def accepted_phases(command: str, *, seated: bool = True) -> tuple[RoomPhase, ...]:
    """The phases in which the server accepts ``command`` from a seat (or a spectator)."""
    refusals = PHASE_TABLE[command]["seat" if seated else "spectator"]
    return tuple(phase for phase in RoomPhase if phase.value not in refusals)


def _refused(view: ViewState, command: str) -> Said | None:
    """Why the phase table refuses ``command`` from me now, in words; None if it may go."""
    who = "spectator" if view.me is None else "seat"
    code = PHASE_TABLE[command][who].get(view.phase.value)
    if code is None:
        return None
    return _SPECTATORS_SAY[command] if code == ErrorCode.NOT_SEATED else _NOT_NOW[command]


def for_key(
    key: str, view: ViewState, *, sent: int | None = None, asked: AutoPlay | None = None
) -> ClientMessage | Said | None:
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


def turn_over(view: ViewState, *, sent: int | None = None) -> Ready | Said:
    """A ``ready`` for the current step, if the game waits for my turn.

    ``sent``: the step of a ``ready`` already sent on this connection and not answered
    yet. A second quick press then sends nothing (the server would refuse it as
    ``already_ready``, or as ``stale`` once the first one has played the step) and says
    so, exactly as once the server has confirmed the first: "You are ready; waiting for
    the others."
    """
    refused = _refused(view, Ready.TYPE)
    if refused is not None:
        return refused
    me = view.me
    assert me is not None  # the table refuses a spectator's ready
    if me.ready or sent == view.step:
        return said("keys.ready_already")
    if me.seat not in view.waiting_for:
        return said("keys.not_needed")
    return Ready(step=view.step)


def cycle_auto(view: ViewState, *, asked: AutoPlay | None = None) -> SetAutoPlay | Said:
    """The next auto-play mode after mine: off → calm → quick → off. ``asked``: a mode
    sent but not yet confirmed by the room, so two quick presses step twice."""
    me = view.me
    current = asked if asked is not None else me.auto if me is not None else AutoPlay.OFF
    index = AUTO_CYCLE.index(current) if current in AUTO_CYCLE else 0
    return set_auto(view, AUTO_CYCLE[(index + 1) % len(AUTO_CYCLE)])


def set_auto(view: ViewState, mode: AutoPlay) -> SetAutoPlay | Said:
    """Auto-play ``mode`` for my seat."""
    refused = _refused(view, SetAutoPlay.TYPE)
    return SetAutoPlay(mode=mode) if refused is None else refused


def finish(view: ViewState) -> VoteFinish | Said:
    """A vote to play the rest out at once."""
    refused = _refused(view, VoteFinish.TYPE)
    if refused is not None:
        return refused
    if view.me is not None and view.me.finish_vote:
        return said("keys.voted_already")
    return VoteFinish()


def rematch(view: ViewState, deal: RematchDeal) -> Rematch | Said:
    """A rematch vote (a new deal, or this deal again) once the game is over."""
    refused = _refused(view, Rematch.TYPE)
    return Rematch(deal=deal) if refused is None else refused
