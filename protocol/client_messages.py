"""Client → server messages: the four that open a connection, then those sent in a room.

Opening (the first message of a connection, each carries ``v``, the protocol version):
``create_room``, ``join_room``, ``watch_room``, ``resume_seat``, ``look_up`` (whose
table a player code opens, answered by ``room_info`` and a close), and ``second_path``
(this connection carries another's messages too, PROTOCOL.md §11); then ``ready``,
``set_auto_play``, ``vote_finish``, ``rematch``, ``leave``, ``resync``,
``answer_seat_request``, ``react``, ``say``. See :mod:`protocol.messages` for how a
message travels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, ClassVar

from protocol.fields import (
    MAX_PLAYERS,
    AutoPlay,
    Code,
    Deal,
    Hex64,
    IntRange,
    Minutes,
    Name,
    Password,
    PathAfter,
    PathKey,
    Reaction,
    RematchDeal,
    RoomId,
    SayText,
    Steps,
    TalkSetting,
    Token,
)
from protocol.seat_requests import AnswerSeatRequest
from protocol.state import RulesSpec

__all__ = [
    "CLIENT_MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "ClientMessage",
    "Commit",
    "CreateRoom",
    "JoinRoom",
    "Leave",
    "LookUp",
    "React",
    "Ready",
    "Rematch",
    "ResumeSeat",
    "Resync",
    "Say",
    "SecondPath",
    "SetAutoPlay",
    "Version",
    "VoteFinish",
    "WatchRoom",
]

PROTOCOL_VERSION = 1
"""The version this package speaks (the ``v`` of opening messages and ``welcome``)."""
SUPPORTED_VERSIONS: frozenset[int] = frozenset({PROTOCOL_VERSION})
"""Versions a decoder accepts in ``v``; any other is ``unsupported_version``."""

Version = Annotated[int, IntRange(0, 65535)]
Computers = Annotated[int, IntRange(0, MAX_PLAYERS - 1)]


# === client → server: opening ==============================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRoom:
    """Create a room and take seat 0.

    ``computers``: how many seats the computer plays (0 .. players-1; it plays exactly as
    a person on quick auto-play). A limit is either ``rules.round_limit`` (rounds) or
    ``minutes`` (the server's clock), not both. ``deal``: play this deal number (then it
    is revealed from the start). ``password``: the server's, if it has one. ``talk``: who
    may talk in the room (a server allows at most its ``--talk``: more is lowered to it,
    and ``state.talk_setting`` says what the room got). ``seed_commitment``: the SHA-256
    of this client's seed for a fair deal (PROTOCOL.md §10); ``join_room`` and
    ``rematch`` carry it too.
    """

    TYPE: ClassVar[str] = "create_room"
    v: Version = PROTOCOL_VERSION
    name: Name
    rules: RulesSpec = field(default_factory=RulesSpec)
    deal: Deal | None = None
    computers: Computers = 0
    minutes: Minutes | None = None
    password: Password | None = None
    talk: TalkSetting = TalkSetting.PLAYERS
    seed_commitment: Hex64 | None = None

    def validate(self) -> None:
        """Raise ValueError if the options do not go together (called by the codec)."""
        if self.computers >= self.rules.players:
            raise ValueError(
                f"computers must leave a seat for you: at most {self.rules.players - 1} "
                f"in a {self.rules.players}-player game, not {self.computers}"
            )
        if self.minutes is not None and self.rules.round_limit is not None:
            raise ValueError(
                f"choose a round limit or a time limit, not both "
                f"({self.rules.round_limit} rounds, {self.minutes} minutes)"
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinRoom:
    """Take a free seat with the room's player code."""

    TYPE: ClassVar[str] = "join_room"
    v: Version = PROTOCOL_VERSION
    code: Code
    name: Name
    seed_commitment: Hex64 | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WatchRoom:
    """Watch a room with its watch code (never grants a seat)."""

    TYPE: ClassVar[str] = "watch_room"
    v: Version = PROTOCOL_VERSION
    code: Code


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeSeat:
    """Take back a seat after a disconnect with its secret token (a new one comes back)."""

    TYPE: ClassVar[str] = "resume_seat"
    v: Version = PROTOCOL_VERSION
    room: RoomId
    token: Token


@dataclass(frozen=True, slots=True, kw_only=True)
class LookUp:
    """Ask whose table a player code opens and how many seats are free, before joining;
    answered by ``room_info`` and a close (1000). An unknown code is a failed attempt."""

    TYPE: ClassVar[str] = "look_up"
    v: Version = PROTOCOL_VERSION
    code: Code


@dataclass(frozen=True, slots=True, kw_only=True)
class SecondPath:
    """Make this new connection the second path of the connection whose ``welcome`` gave
    ``key`` (PROTOCOL.md §11): from now on the same messages travel on both, and the
    first copy to arrive counts. ``after``: how many messages this client had sent on
    the first connection before it began sending on both. Valid only as the opening
    message of a new connection (on one that opened a room: ``already_in_room``); an
    unknown key is ``bad_path_key`` and close 4004. Answered by ``second_path_ready``."""

    TYPE: ClassVar[str] = "second_path"
    v: Version = PROTOCOL_VERSION
    key: PathKey
    after: PathAfter


# === client → server: in a room ============================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class Ready:
    """Turn over (or, during a war, lay the face-down cards and turn one up).

    ``step`` echoes the game's current step (``RoomState.step``, then the ``step`` of the
    latest game event): a ready sent for an earlier step is refused as ``stale``.
    ``seed``: the seat's seed for a fair deal, with its first ready of the game (it must
    match the ``seed_commitment`` the seat made, else ``seed_mismatch``; a seat that
    committed and sends none is refused with ``seed_required``).
    """

    TYPE: ClassVar[str] = "ready"
    step: Steps
    seed: Hex64 | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit:
    """After a ``deal_voided``: this seat's commitment to a fresh seed for the fresh deal
    (PROTOCOL.md §10, "A void"). Accepted while the room waits for commitments
    (``state.awaiting_commitments``), else refused with ``not_needed``."""

    TYPE: ClassVar[str] = "commit"
    seed_commitment: Hex64


@dataclass(frozen=True, slots=True, kw_only=True)
class SetAutoPlay:
    """Auto-play for my seat: off, calm or quick."""

    TYPE: ClassVar[str] = "set_auto_play"
    mode: AutoPlay


@dataclass(frozen=True, slots=True, kw_only=True)
class VoteFinish:
    """Vote to play the rest of the game out at once (done when every human voted)."""

    TYPE: ClassVar[str] = "vote_finish"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch:
    """After game over: vote for a rematch with a new deal or the same deal."""

    TYPE: ClassVar[str] = "rematch"
    deal: RematchDeal
    seed_commitment: Hex64 | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave:
    """Leave the room for good (the seat's token stops working); the server closes 1000."""

    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resync:
    """Ask for a fresh ``snapshot`` (after a ``seq`` gap, or whenever in doubt)."""

    TYPE: ClassVar[str] = "resync"


@dataclass(frozen=True, slots=True, kw_only=True)
class React:
    """A reaction to the table (one of the fixed names, never free text)."""

    TYPE: ClassVar[str] = "react"
    reaction: Reaction


@dataclass(frozen=True, slots=True, kw_only=True)
class Say:
    """A short message to the table: 1..120 characters after NFC and stripping, one line,
    no control or format characters (a bad text is ``bad_value``, as a bad name is)."""

    TYPE: ClassVar[str] = "say"
    text: SayText


ClientMessage = (
    CreateRoom | JoinRoom | WatchRoom | ResumeSeat | LookUp | SecondPath | Ready | Commit
    | SetAutoPlay | VoteFinish | Rematch | Leave | Resync | AnswerSeatRequest | React | Say
)  # fmt: skip
"""Any client → server message."""


CLIENT_MESSAGE_TYPES: dict[str, type[ClientMessage]] = {
    cls.TYPE: cls
    for cls in (
        CreateRoom, JoinRoom, WatchRoom, ResumeSeat, LookUp, SecondPath, Ready, Commit,
        SetAutoPlay, VoteFinish, Rematch, Leave, Resync, AnswerSeatRequest, React, Say,
    )
}  # fmt: skip
"""Client message classes by their wire ``type``."""
