"""Which command a room accepts in which phase, and from whom: the room's state machine as data.

A room is ``waiting`` (for players), ``playing``, ``finishing`` or ``over`` (its `Stage`);
a full room starts playing, the engine ends the game (or the time limit), a finish vote
has the rest played out (``finishing``, a slice at a time, then over), a rematch starts
the next one: ``waiting → playing (→ finishing) → over → playing → …``. `TABLE` says, for
each command (the type of the client message) in each stage, whether it is accepted from
a seated player (``seat``), a spectator, or a connection opening the room (``newcomer``),
or which error code refuses it. `server.core.room.Room` consults it before anything
else; what is left to the room are the checks of a command's own content (the step of a
``ready``, a free seat, the spectator cap, a token).

The table is `_ROWS` below, one line per (command, who) with its verdict in each phase;
``protocol/PROTOCOL.md`` shows it to client authors (a test checks they agree).

A refusal names the command and the stage: ``cannot vote_finish while waiting: the game
waits for players to join``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

from protocol import ErrorCode, RoomPhase
from server.core.actions import Refusal
from server.errors import RefusedError

__all__ = ["ACCEPT", "COMMANDS", "TABLE", "Stage", "Who", "check", "refusal"]


class Stage(StrEnum):
    """Where a room is in its state machine.

    Three stages are the wire's phases (`RoomPhase`, ``state.phase``), with the same
    values. `FINISHING` is the room core's own: a finish vote passed and the rest of the
    game is being played out a slice at a time (so that one long game never holds up
    the other rooms) until ``game_over``; clients see ``playing`` with nobody awaited.
    """

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHING = "finishing"
    OVER = "over"

    @property
    def phase(self) -> RoomPhase:
        """The phase the wire shows for this stage."""
        return RoomPhase.PLAYING if self is Stage.FINISHING else RoomPhase(self.value)


class Who(StrEnum):
    """Who sends a command, as the room sees the connection."""

    SEAT = "seat"
    """A connection holding a seat."""
    SPECTATOR = "spectator"
    """A connection watching."""
    NEWCOMER = "newcomer"
    """A connection opening the room (``join_room``, ``watch_room``, ``resume_seat``)."""


ACCEPT = None
"""A cell of `TABLE`: the command is carried out."""

_STAGES = (Stage.WAITING, Stage.PLAYING, Stage.FINISHING, Stage.OVER)
_NOT_STARTED = ErrorCode.GAME_NOT_STARTED
_GAME_OVER = ErrorCode.GAME_OVER
_IN_PROGRESS = ErrorCode.GAME_IN_PROGRESS
_NOT_SEATED = ErrorCode.NOT_SEATED

_Verdict = ErrorCode | None
# (command, who): the verdict while waiting, playing, finishing, over. ACCEPT = carried
# out (a seat's leave: before the start the seat opens again, after it the computer
# plays it; a join takes an open seat, or takes back an away seat by its name: once the
# game has started there is no open seat, and a name that is no away seat's gets
# room_full).
_ROWS: dict[tuple[str, Who], tuple[_Verdict, _Verdict, _Verdict, _Verdict]] = {
    ("join_room", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("watch_room", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("resume_seat", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("ready", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER, _GAME_OVER),
    ("ready", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("set_auto_play", Who.SEAT): (ACCEPT, ACCEPT, _GAME_OVER, _GAME_OVER),
    ("set_auto_play", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("vote_finish", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER, _GAME_OVER),
    ("vote_finish", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("rematch", Who.SEAT): (_NOT_STARTED, _IN_PROGRESS, _IN_PROGRESS, ACCEPT),
    ("rematch", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("leave", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("leave", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("resync", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("resync", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
}

TABLE: Mapping[tuple[str, Stage, Who], ErrorCode | None] = MappingProxyType(
    {
        (command, stage, who): verdict
        for (command, who), verdicts in _ROWS.items()
        for stage, verdict in zip(_STAGES, verdicts, strict=True)
    }
)
"""(command, stage, who) → `ACCEPT` (None), or the error code that refuses the command.

A (command, who) pair that is not in the table cannot happen: the hub answers an opening
command from a connection already in a room (``already_in_room``) and a room command
from one in none (``not_in_room``) before a room is asked.
"""

COMMANDS: tuple[str, ...] = tuple(dict.fromkeys(command for command, _ in _ROWS))
"""Every command of `TABLE`, in the table's order."""

_WHY: Mapping[ErrorCode, str] = MappingProxyType(
    {
        _NOT_STARTED: "the game waits for players to join",
        _GAME_OVER: "the game is over: rematch or leave",
        _IN_PROGRESS: "a rematch is for a finished game",
        _NOT_SEATED: "only seated players may; spectators watch",
    }
)
_WHY_FINISHING = "a finish vote passed and the rest is being played out; game_over follows"


def refusal(command: str, stage: Stage, who: Who) -> Refusal | None:
    """The refusal of ``command`` from ``who`` in ``stage`` by `TABLE`, or None (accepted).

    Raises KeyError for a (command, who) pair the table does not have (our bug).
    """
    code = TABLE[command, stage, who]
    if code is None:
        return None
    why = _WHY[code]
    if stage is Stage.FINISHING and code in {_GAME_OVER, _IN_PROGRESS}:
        why = _WHY_FINISHING
    return Refusal(code, f"cannot {command} while {stage.value}: {why}")


def check(command: str, stage: Stage, who: Who) -> None:
    """Raise the `RefusedError` of `refusal` if `TABLE` refuses the command."""
    refused = refusal(command, stage, who)
    if refused is not None:
        raise RefusedError(refused.code, refused.text)
