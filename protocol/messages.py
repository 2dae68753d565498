"""Every message of the protocol, both directions: frozen, slotted, keyword-only dataclasses.

On the wire each message is a msgpack map: ``{"type": <TYPE>, <field>: <value>, ...}``.
Tuples travel as arrays, records (``RulesSpec``, ``RoomState``…) as maps, enums as their
string values, None as nil. A field with a default may be left out on the wire (the
default applies); a field without one is required.

Client → server (:data:`ClientMessage`):
    opening (the first message of a connection, each carries ``v``, the protocol version):
    ``create_room``, ``join_room``, ``watch_room``, ``resume_seat``;
    then: ``ready``, ``set_auto_play``, ``vote_finish``, ``rematch``, ``leave``, ``resync``.

Server → client (:data:`ServerMessage`): ``welcome``, ``snapshot``, room changes, game
events (mirroring the engine's events), ``game_over`` and ``error``. Every server message
except ``error`` carries ``seq``: the room's message sequence number. Room messages
(everything but ``welcome``, ``snapshot`` and ``error``) are broadcast to the whole room and
each takes the next ``seq`` (+1). ``welcome`` and ``snapshot`` go to one connection and carry
the ``seq`` of the last room message their ``state`` includes, so the next room message a
client gets has ``seq`` one higher; a jump means messages were missed → send ``resync``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, ClassVar

from protocol.fields import (
    MAX_PLAYERS,
    AutoPlay,
    Card,
    CardCount,
    Code,
    Deal,
    Depth,
    ErrorCodeText,
    ErrorText,
    IntRange,
    MaxItems,
    Minutes,
    Name,
    OutReason,
    Password,
    RematchDeal,
    RoomId,
    Round,
    Seat,
    Seq,
    Spectators,
    Steps,
    Termination,
    Token,
)
from protocol.state import RoomState, RulesSpec, Summary

__all__ = [
    "CLIENT_MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGE_TYPES",
    "SUPPORTED_VERSIONS",
    "AutoPlayChanged",
    "CardsLaidDown",
    "CardsReturned",
    "CardsTaken",
    "CardsTurned",
    "ClientMessage",
    "ConnectionChanged",
    "CreateRoom",
    "Error",
    "FinishVoted",
    "GameOver",
    "GameStarted",
    "JoinRoom",
    "Leave",
    "Message",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerOut",
    "Ready",
    "ReadyChanged",
    "Rematch",
    "RematchVoted",
    "ResumeSeat",
    "Resync",
    "ServerMessage",
    "SetAutoPlay",
    "Snapshot",
    "SpectatorsChanged",
    "TimeUp",
    "VoteFinish",
    "WaitingFor",
    "WarDeclared",
    "WatchRoom",
    "Welcome",
]

PROTOCOL_VERSION = 1
"""The version this package speaks (the ``v`` of opening messages and ``welcome``)."""
SUPPORTED_VERSIONS: frozenset[int] = frozenset({PROTOCOL_VERSION})
"""Versions a decoder accepts in ``v``; any other is ``unsupported_version``."""

Version = Annotated[int, IntRange(0, 65535)]
Computers = Annotated[int, IntRange(0, MAX_PLAYERS - 1)]
GameNumber = Annotated[int, IntRange(1, 2**63 - 1)]
Seats = Annotated[tuple[Seat, ...], MaxItems(MAX_PLAYERS)]
Counts = Annotated[tuple[CardCount, ...], MaxItems(MAX_PLAYERS)]


# === client → server: opening ==============================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRoom:
    """Create a room and take seat 0.

    ``computers``: how many seats the computer plays (0 .. players-1; it plays exactly as
    a person on quick auto-play). A limit is either ``rules.round_limit`` (rounds) or
    ``minutes`` (the server's clock), not both. ``deal``: play this deal number (then it
    is revealed from the start). ``password``: the server's, if it has one.
    """

    TYPE: ClassVar[str] = "create_room"
    v: Version = PROTOCOL_VERSION
    name: Name
    rules: RulesSpec = field(default_factory=RulesSpec)
    deal: Deal | None = None
    computers: Computers = 0
    minutes: Minutes | None = None
    password: Password | None = None

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


# === client → server: in a room ============================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class Ready:
    """Turn over (or, during a war, lay the face-down cards and turn one up).

    ``step`` echoes the game's current step (``RoomState.step``, then the ``step`` of the
    latest game event): a ready sent for an earlier step is refused as ``stale``.
    """

    TYPE: ClassVar[str] = "ready"
    step: Steps


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave:
    """Leave the room for good (the seat's token stops working); the server closes 1000."""

    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resync:
    """Ask for a fresh ``snapshot`` (after a ``seq`` gap, or whenever in doubt)."""

    TYPE: ClassVar[str] = "resync"


# === server → client: to one connection ====================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome:
    """The answer to an opening message: who I am here, and the whole room.

    ``seat``/``token`` are None for a spectator. ``token`` is this seat's new secret: keep
    it to ``resume_seat`` (any earlier token of the seat stops working). The codes are
    None when this connection may not see them (a spectator never gets the player code).
    """

    TYPE: ClassVar[str] = "welcome"
    v: Version = PROTOCOL_VERSION
    seq: Seq
    seat: Seat | None = None
    token: Token | None = None
    player_code: Code | None = None
    watch_code: Code | None = None
    state: RoomState


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """A fresh full state (the answer to ``resync``, or sent by the server at will)."""

    TYPE: ClassVar[str] = "snapshot"
    seq: Seq
    state: RoomState


@dataclass(frozen=True, slots=True, kw_only=True)
class Error:
    """A refusal or a complaint: ``code`` (an ErrorCode value) and a human sentence.

    Sent to one connection, no ``seq``. See ``CLOSE_CODE_FOR_ERROR`` for which errors
    are followed by a close.
    """

    TYPE: ClassVar[str] = "error"
    code: ErrorCodeText
    message: ErrorText = ""


# === server → room: room changes ===========================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerJoined:
    """A seat was taken (by a person, or by the computer)."""

    TYPE: ClassVar[str] = "player_joined"
    seq: Seq
    seat: Seat
    name: Name
    computer: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerLeft:
    """A player left for good. What becomes of the seat is the server's rule; if it goes on
    auto-play an ``auto_play_changed`` follows."""

    TYPE: ClassVar[str] = "player_left"
    seq: Seq
    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionChanged:
    """A seat's connection dropped (``connected`` false: the player is away) or came back.

    ``rejoined``: the player came back without the seat's token, by ``join_room`` with the
    player code and the seat's name (a new device); a new token was issued and the old
    one stopped working.
    """

    TYPE: ClassVar[str] = "connection_changed"
    seq: Seq
    seat: Seat
    connected: bool
    rejoined: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadyChanged:
    """A seat's ready flag changed (all flags clear after each step)."""

    TYPE: ClassVar[str] = "ready_changed"
    seq: Seq
    seat: Seat
    ready: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class WaitingFor:
    """The seats whose ready the game now waits for (empty when it waits for nobody)."""

    TYPE: ClassVar[str] = "waiting_for"
    seq: Seq
    seats: Seats


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoPlayChanged:
    """A seat's auto-play changed.

    ``away``: the server changed it because of the seat's absence, not its player: on
    (``calm``) for a seat away past the away-timeout, so that the table goes on; back to
    the player's own mode when they return.
    """

    TYPE: ClassVar[str] = "auto_play_changed"
    seq: Seq
    seat: Seat
    mode: AutoPlay
    away: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishVoted:
    """A player voted to finish the game at once."""

    TYPE: ClassVar[str] = "finish_voted"
    seq: Seq
    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchVoted:
    """A player voted for a rematch (new deal or same deal)."""

    TYPE: ClassVar[str] = "rematch_voted"
    seq: Seq
    seat: Seat
    deal: RematchDeal


@dataclass(frozen=True, slots=True, kw_only=True)
class SpectatorsChanged:
    """How many spectators watch now."""

    TYPE: ClassVar[str] = "spectators_changed"
    seq: Seq
    count: Spectators


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted:
    """A game begins (seats filled, or a rematch): ``counts`` per seat, ``step`` 0.

    ``deal`` is set only when it is revealed (the creator chose it, or "same deal").
    """

    TYPE: ClassVar[str] = "game_started"
    seq: Seq
    game: GameNumber
    counts: Counts
    deal: Deal | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeUp:
    """The time limit was reached: the game ends now, or when the war in progress is
    settled, or (tie_break battle with equal counts) plays on until counts differ."""

    TYPE: ClassVar[str] = "time_up"
    seq: Seq


# === server → room: game events (mirror the engine's events) ===============================
@dataclass(frozen=True, slots=True, kw_only=True)
class CardsTurned:
    """Face-up cards turned in this flip as (seat, card) pairs in seat order.

    ``depth`` 0 is the round's first flip, k the k-th war of the round. ``step`` is the
    game's step count after the step that produced this event (all events of one step
    share it); ``round`` the round they belong to.
    """

    TYPE: ClassVar[str] = "cards_turned"
    seq: Seq
    step: Steps
    round: Round
    depth: Depth
    cards: Annotated[tuple[tuple[Seat, Card], ...], MaxItems(MAX_PLAYERS)]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsLaidDown:
    """Face-down cards laid for war ``depth``: (seat, how many) pairs."""

    TYPE: ClassVar[str] = "cards_laid_down"
    seq: Seq
    step: Steps
    round: Round
    depth: Depth
    counts: Annotated[tuple[tuple[Seat, CardCount], ...], MaxItems(MAX_PLAYERS)]


@dataclass(frozen=True, slots=True, kw_only=True)
class WarDeclared:
    """The flip at ``depth``-1 tied: war number ``depth`` between ``seats``."""

    TYPE: ClassVar[str] = "war_declared"
    seq: Seq
    step: Steps
    round: Round
    depth: Depth
    seats: Seats


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsTaken:
    """``seat`` took ``count`` cards from the table; ``counts`` = every seat's pile after
    the round (index = seat; 0 for players who are out)."""

    TYPE: ClassVar[str] = "cards_taken"
    seq: Seq
    step: Steps
    round: Round
    seat: Seat
    count: CardCount
    counts: Counts


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsReturned:
    """Everyone in a war ran out at once: each took their own table cards back."""

    TYPE: ClassVar[str] = "cards_returned"
    seq: Seq
    step: Steps
    round: Round
    counts: Counts


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerOut:
    """A player is out of the game: no cards after a round, or short in a war."""

    TYPE: ClassVar[str] = "player_out"
    seq: Seq
    step: Steps
    round: Round
    seat: Seat
    reason: OutReason


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver:
    """The game ended: ``winner`` (None = draw), why, the summary and the final counts.

    The summary's ``deal`` reveals the deal number.
    """

    TYPE: ClassVar[str] = "game_over"
    seq: Seq
    step: Steps
    winner: Seat | None
    termination: Termination
    summary: Summary
    counts: Counts


ClientMessage = (
    CreateRoom | JoinRoom | WatchRoom | ResumeSeat | Ready | SetAutoPlay | VoteFinish
    | Rematch | Leave | Resync
)  # fmt: skip
"""Any client → server message."""

ServerMessage = (
    Welcome | Snapshot | Error | PlayerJoined | PlayerLeft | ConnectionChanged
    | ReadyChanged | WaitingFor | AutoPlayChanged | FinishVoted | RematchVoted
    | SpectatorsChanged | GameStarted | TimeUp | CardsTurned | CardsLaidDown
    | WarDeclared | CardsTaken | CardsReturned | PlayerOut | GameOver
)  # fmt: skip
"""Any server → client message."""

Message = ClientMessage | ServerMessage
"""Any message."""

CLIENT_MESSAGE_TYPES: dict[str, type[ClientMessage]] = {
    cls.TYPE: cls
    for cls in (
        CreateRoom, JoinRoom, WatchRoom, ResumeSeat, Ready, SetAutoPlay, VoteFinish,
        Rematch, Leave, Resync,
    )
}  # fmt: skip
"""Client message classes by their wire ``type``."""

SERVER_MESSAGE_TYPES: dict[str, type[ServerMessage]] = {
    cls.TYPE: cls
    for cls in (
        Welcome, Snapshot, Error, PlayerJoined, PlayerLeft, ConnectionChanged,
        ReadyChanged, WaitingFor, AutoPlayChanged, FinishVoted, RematchVoted,
        SpectatorsChanged, GameStarted, TimeUp, CardsTurned, CardsLaidDown,
        WarDeclared, CardsTaken, CardsReturned, PlayerOut, GameOver,
    )
}  # fmt: skip
"""Server message classes by their wire ``type``."""
