"""The room's state machine as data: which command is accepted in which stage, from whom,
and which event moves a room to which stage.

A room is ``waiting`` (for players), ``playing``, ``finishing`` or ``over`` (its `Stage`,
stored with its game: `server.core.room.records.GameRecord.stage`)::

    waiting --seats_filled--> playing --game_ended---> over --rematch_agreed--> playing
                                 |  ^                    ^
                         time_up +--+  finish_agreed     | played_out
                                 +------------------> finishing

Everything that decides a room's stage lives here, as in h11's ``_state.py``:

- `TABLE`: for each command (the type of the client message) in each stage, whether it
  is accepted from a seated player (``seat``), a spectator, or a connection opening the
  room (``newcomer``), or which error code refuses it. `server.core.room.room.Room` consults
  it before anything else (`refusal`); what is left to the room are the checks of a
  command's own content (the step of a ``ready``, a free seat, the spectator cap, a
  token). ``protocol/PROTOCOL.md`` shows it to client authors (a test checks they agree).
  Two refusals come before any room and are about the connection, not a stage: an
  opening message on a connection already in a room (``already_in_room``) and a room
  message on one in none (``not_in_room``), `server.core.hub.hub`.
- `TRANSITIONS`: stage × `Event` → the next stage. The room applies it in one method
  (`server.core.room.table.Table.advance`); an event a stage does not list cannot happen
  in it, and `advance` raises for a bug.
- The conditions under which a stage ends, one function per event, which the room asks
  before it acts (each also asks `may`): `seats_filled`, `finish_agreed`,
  `rematch_agreed`, `time_limit` (when the time limit ends the stage) and `game_end` (the
  event a game's outcome is in a stage: the game ended, or the play-out's last slice).
  The facts they weigh are the room's (its votes, the voters of `protocol.votes`, its
  seats, whether its fair deal is settled); what they decide is here.
- `SEATS_OPEN`: the stage in which seats are open: a leave opens the seat again (later,
  the computer takes it over), a join takes an open seat (later, only an away seat by
  its name: a failed attempt otherwise), and a room nobody is in is removed sooner.
- `PLAYING_OUT`: the stage whose game is being played out a slice at a time by the
  hub's play-out queue (no timer, no deadline of the room's own); and `replays_as`, the
  condition a stored game's stage must meet against its replay. No other module names
  `Stage.FINISHING`, and only the table (`server.core.room.table.Table.playing_out`, kept
  where the stage moves) asks whether a stage is in `PLAYING_OUT`: the hub and the room
  read that value (a test checks both).

Read-only public views for tools and generators: `TABLE`, `COMMANDS`, `ROWS` (each
(command, who) with its verdict in every stage), `accepted` (the stages that accept a
(command, who)), `TRANSITIONS` and `SEATS_OPEN`. A refusal names the command and the
stage: ``cannot vote_finish while waiting: the game waits for players to join``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum
from types import MappingProxyType

from protocol import ErrorCode, RoomPhase
from server.core.refusals import Refusal

__all__ = [
    "ACCEPT",
    "COMMANDS",
    "PLAYING_OUT",
    "ROWS",
    "SEATS_OPEN",
    "TABLE",
    "TRANSITIONS",
    "Event",
    "Stage",
    "Who",
    "accepted",
    "advance",
    "finish_agreed",
    "game_end",
    "may",
    "refusal",
    "rematch_agreed",
    "replays_as",
    "seats_filled",
    "time_limit",
]


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

    @property
    def started(self) -> bool:
        """A game is on, or over: the room no longer waits for players."""
        return self not in SEATS_OPEN


class Event(StrEnum):
    """What moves a room from one stage to another (`TRANSITIONS`)."""

    SEATS_FILLED = "seats_filled"
    """Every seat is taken: the first game starts."""
    TIME_UP = "time_up"
    """The time limit ran out (the game ends by counts, between rounds: then
    `GAME_ENDED` follows)."""
    GAME_ENDED = "game_ended"
    """The engine ended the game: a flip, or the time limit."""
    FINISH_AGREED = "finish_agreed"
    """Every voter voted to finish: the rest is played out, a slice at a time."""
    PLAYED_OUT = "played_out"
    """The last slice of a finish vote's play-out was played (or a restart played the
    rest out at once)."""
    REMATCH_AGREED = "rematch_agreed"
    """Every voter voted for a rematch: the next game starts."""


class Who(StrEnum):
    """Who sends a command, as the room sees the connection."""

    SEAT = "seat"
    """A connection holding a seat."""
    SPECTATOR = "spectator"
    """A connection watching."""
    NEWCOMER = "newcomer"
    """A connection opening the room (``join_room``, ``watch_room``, ``resume_seat``), or
    asking what a code opens (``look_up``)."""


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
    ("look_up", Who.NEWCOMER): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("ready", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER, _GAME_OVER),
    ("ready", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    ("commit", Who.SEAT): (_NOT_STARTED, ACCEPT, _GAME_OVER, _GAME_OVER),
    ("commit", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
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
    ("answer_seat_request", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("answer_seat_request", Who.SPECTATOR): (_NOT_SEATED, _NOT_SEATED, _NOT_SEATED, _NOT_SEATED),
    # talk in every stage; who may is the room's talk setting (server.core.room.talk)
    ("react", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("react", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("say", Who.SEAT): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
    ("say", Who.SPECTATOR): (ACCEPT, ACCEPT, ACCEPT, ACCEPT),
}

ROWS: Mapping[tuple[str, Who], Mapping[Stage, ErrorCode | None]] = MappingProxyType(
    {
        row: MappingProxyType(dict(zip(_STAGES, verdicts, strict=True)))
        for row, verdicts in _ROWS.items()
    }
)
"""(command, who) → {stage: `ACCEPT` (None) or the error code that refuses it}, in the
table's order: `TABLE` row by row."""

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


def accepted(command: str, who: Who) -> frozenset[Stage]:
    """The stages in which `TABLE` accepts ``command`` from ``who``.

    Raises KeyError for a (command, who) pair the table does not have.
    """
    return frozenset(stage for stage, verdict in ROWS[command, who].items() if verdict is ACCEPT)


# ---------------------------------------------------------------------- transitions
TRANSITIONS: Mapping[Stage, Mapping[Event, Stage]] = MappingProxyType(
    {
        Stage.WAITING: MappingProxyType({Event.SEATS_FILLED: Stage.PLAYING}),
        Stage.PLAYING: MappingProxyType(
            {
                Event.TIME_UP: Stage.PLAYING,
                Event.GAME_ENDED: Stage.OVER,
                Event.FINISH_AGREED: Stage.FINISHING,
            }
        ),
        Stage.FINISHING: MappingProxyType({Event.PLAYED_OUT: Stage.OVER}),
        Stage.OVER: MappingProxyType({Event.REMATCH_AGREED: Stage.PLAYING}),
    }
)
"""stage → {event: the next stage}: every move a room can make (the events a stage does
not list cannot happen in it)."""

SEATS_OPEN: frozenset[Stage] = frozenset({Stage.WAITING})
"""The stages in which seats are open (see the module docstring)."""

PLAYING_OUT: frozenset[Stage] = frozenset({Stage.FINISHING})
"""The stages in which the rest of the game is being played out (a finish vote passed):
the play-out queue (`server.core.hub.playout`) has the room's time, a slice per hub call,
until `Event.PLAYED_OUT`; the room runs no timer of its own and has no deadline. A room
rebuilt in it (a restart mid-finish) has had the rest played out by its replay."""


def replays_as(stage: Stage, *, started: bool, finished: bool, over: bool) -> bool:
    """Whether a game stored in ``stage`` agrees with its replay: ``started`` (a step was
    played, or the time limit stopped it), ``finished`` (a finish vote passed), ``over``
    (the replayed game has an outcome). A stored room that does not is not rebuilt."""
    if stage is Stage.WAITING:
        return not started and not finished
    if stage is Stage.PLAYING:
        return not over and not finished
    if stage is Stage.FINISHING:
        return finished
    return over


def may(stage: Stage, event: Event) -> bool:
    """Whether ``event`` can happen in ``stage`` (`TRANSITIONS` lists it)."""
    return event in TRANSITIONS[stage]


def advance(stage: Stage, event: Event) -> Stage:
    """The stage ``event`` moves a room in ``stage`` to.

    Raises ValueError if it cannot happen in that stage (a bug of the room core: the room
    asks `may` first where the event depends on the stage).
    """
    following = TRANSITIONS[stage].get(event)
    if following is None:
        raise ValueError(f"{event.value} cannot happen while {stage.value}")
    return following


# ---------------------------------------------------------------------- when a stage ends
def seats_filled(stage: Stage, *, full: bool) -> bool:
    """Whether the room, in ``stage``, starts its first game: every seat is taken
    (``full``) while it waits for players."""
    return full and may(stage, Event.SEATS_FILLED)


def _agreed(votes: Collection[int], voters: Collection[int]) -> bool:
    """A vote passed: some vote was given, and every voter's is in."""
    return bool(votes) and bool(voters) and all(seat in votes for seat in voters)


def finish_agreed(
    stage: Stage, *, votes: Collection[int], voters: Collection[int], settled: bool
) -> bool:
    """Whether the game, in ``stage``, is played out: every one of ``voters`` is among
    ``votes`` to finish, and the deal is ``settled`` (a finish plays the deal out: it
    waits for every committed seed)."""
    return settled and may(stage, Event.FINISH_AGREED) and _agreed(votes, voters)


def rematch_agreed(stage: Stage, *, votes: Collection[int], voters: Collection[int]) -> bool:
    """Whether the next game starts, in ``stage``: every one of ``voters`` is among
    ``votes`` for a rematch."""
    return may(stage, Event.REMATCH_AGREED) and _agreed(votes, voters)


def time_limit(
    stage: Stage, *, deadline: float | None, stopped: bool, settled: bool
) -> float | None:
    """When the time limit ends the game in ``stage`` (`Event.TIME_UP`), or None: its
    ``deadline``, unless there is none, the limit ``stopped`` the game already, or the
    deal is not ``settled`` (the time limit waits for the deal's seeds, as the first
    cards do)."""
    if deadline is None or stopped or not settled or not may(stage, Event.TIME_UP):
        return None
    return deadline


def game_end(stage: Stage) -> Event:
    """The event a game's outcome is in ``stage``: the last slice of a finish vote's
    play-out, or the game ended (a flip, or the time limit)."""
    return Event.PLAYED_OUT if may(stage, Event.PLAYED_OUT) else Event.GAME_ENDED
