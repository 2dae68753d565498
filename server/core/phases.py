"""Which command a room accepts in which phase, and from whom: the room's state machine as data.

A room is ``waiting`` (for players), ``playing``, or ``over``; a full room starts playing,
the engine ends the game (or a finish vote, or the time limit), a rematch starts the next
one: ``waiting → playing → over → playing → …``. `TABLE` says, for each command (the type
of the client message) in each phase, whether it is accepted from a seated player
(``seat``), a spectator, or a connection opening the room (``newcomer``), or which error
code refuses it. `server.core.room.Room` consults it before anything else; what is left
to the room are the checks of a command's own content (the step of a ``ready``, a free
seat, the spectator cap, a token).

The table is `_ROWS` below, one line per (command, who) with its verdict in each phase;
``protocol/PROTOCOL.md`` shows it to client authors (a test checks they agree).

A refusal names the command and the phase: ``cannot vote_finish while waiting: the game
waits for players to join``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

from protocol import ErrorCode, RoomPhase
from server.errors import RefusedError

__all__ = ["ACCEPT", "COMMANDS", "TABLE", "Who", "check", "refusal"]


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

_WAITING, _PLAYING, _OVER = RoomPhase.WAITING, RoomPhase.PLAYING, RoomPhase.OVER
_NOT_STARTED = ErrorCode.GAME_NOT_STARTED
_GAME_OVER = ErrorCode.GAME_OVER
_IN_PROGRESS = ErrorCode.GAME_IN_PROGRESS
_NOT_SEATED = ErrorCode.NOT_SEATED

# (command, who): the verdict while waiting, playing, over. ACCEPT = carried out (a
# seat's leave: before the start the seat opens again, after it the computer plays it;
# a join takes an open seat, or takes back an away seat by its name: once the game has
# started there is no open seat, and a name that is no away seat's gets room_full).
_ROWS: dict[tuple[str, Who], tuple[ErrorCode | None, ErrorCode | None, ErrorCode | None]] = {
    ("join_room", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT),
    ("watch_room", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT),
    ("resume_seat", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT),
    ("ready", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER),
    ("ready", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("set_auto_play", Who.SEAT): (ACCEPT, ACCEPT, _GAME_OVER),
    ("set_auto_play", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("vote_finish", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER),
    ("vote_finish", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("rematch", Who.SEAT): (_NOT_STARTED, _IN_PROGRESS, ACCEPT),
    ("rematch", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("leave", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT),
    ("leave", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT),
    ("resync", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT),
    ("resync", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT),
}

TABLE: Mapping[tuple[str, RoomPhase, Who], ErrorCode | None] = MappingProxyType(
    {
        (command, phase, who): verdict
        for (command, who), verdicts in _ROWS.items()
        for phase, verdict in zip((_WAITING, _PLAYING, _OVER), verdicts, strict=True)
    }
)
"""(command, phase, who) → `ACCEPT` (None), or the error code that refuses the command.

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


def refusal(command: str, phase: RoomPhase, who: Who) -> RefusedError | None:
    """The refusal of ``command`` from ``who`` in ``phase`` by `TABLE`, or None (accepted).

    Raises KeyError for a (command, who) pair the table does not have (our bug).
    """
    code = TABLE[command, phase, who]
    if code is None:
        return None
    return RefusedError(code, f"cannot {command} while {phase.value}: {_WHY[code]}")


def check(command: str, phase: RoomPhase, who: Who) -> None:
    """Raise the `RefusedError` of `refusal` if `TABLE` refuses the command."""
    refused = refusal(command, phase, who)
    if refused is not None:
        raise refused
