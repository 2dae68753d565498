"""Server → client messages: to one connection, room changes, and game events.

``welcome``, ``snapshot`` and ``error`` go to one connection; the room changes and the
game events (mirroring the engine's events) and ``game_over`` are broadcast to the room,
each with the next ``seq``. See :mod:`protocol.messages` for how a message travels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from protocol.client_messages import PROTOCOL_VERSION, Version
from protocol.fields import (
    MAX_PLAYERS,
    AutoPlay,
    Card,
    CardCount,
    Code,
    ComputerNumber,
    Counts,
    Deal,
    Depth,
    ErrorCodeText,
    ErrorText,
    GameNumber,
    Hex64,
    MaxItems,
    Name,
    OutReason,
    PageUrl,
    PageUrls,
    PathAfter,
    PathKey,
    Reaction,
    RematchDeal,
    RoomPhase,
    Round,
    SayText,
    Seat,
    SeatCount,
    Seats,
    Seq,
    Spectators,
    Standings,
    Steps,
    Termination,
    Token,
    Voids,
)
from protocol.seat_requests import SeatRequested, SeatRequestEnded, SeatRequestWaiting
from protocol.state import Evening, Fairness, RoomState, Summary

__all__ = [
    "SERVER_MESSAGE_TYPES",
    "AutoPlayChanged",
    "CardsLaidDown",
    "CardsReturned",
    "CardsTaken",
    "CardsTurned",
    "ConnectionChanged",
    "DealVoided",
    "Error",
    "FinishVoted",
    "GameOver",
    "GameStarted",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerOut",
    "Reacted",
    "ReadyChanged",
    "RematchVoted",
    "RoomInfo",
    "Said",
    "SecondPathReady",
    "ServerMessage",
    "Snapshot",
    "SpectatorsChanged",
    "TimeUp",
    "WaitingFor",
    "WarDeclared",
    "Welcome",
]


# === server → client: to one connection ====================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome:
    """The answer to an opening message: who I am here, and the whole room.

    ``seat``/``token`` are None for a spectator. ``token`` is this seat's new secret: keep
    it to ``resume_seat`` (any earlier token of the seat stops working). The codes are
    None when this connection may not see them (a spectator never gets the player code).
    ``addresses``: the browser table's addresses another device can open (the public URL,
    or one for each network address of the machine; ``()`` when it listens on loopback
    alone), told only to a connection from the machine itself; None to every other.
    ``outside``: the link for relatives elsewhere of a server started with ``--outside``
    (``https://203.0.113.2/``), told only to a connection from the house; None to every
    other, and while the server has none.
    ``path_key``: the key with which another connection may become this one's second
    path (``second_path``, PROTOCOL.md §11), when the server offers one; None otherwise.
    """

    TYPE: ClassVar[str] = "welcome"
    v: Version = PROTOCOL_VERSION
    seq: Seq
    seat: Seat | None = None
    token: Token | None = None
    player_code: Code | None = None
    watch_code: Code | None = None
    state: RoomState
    addresses: PageUrls | None = None
    outside: PageUrl | None = None
    path_key: PathKey | None = None


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


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomInfo:
    """The answer to ``look_up``: whose table (``host``, seat 0's name), its seats, how
    many are free and how many are away, and its phase; ``seq``: the room's latest, as a
    ``welcome`` carries it. Never a token or a code."""

    TYPE: ClassVar[str] = "room_info"
    seq: Seq
    host: Name | None = None
    players: SeatCount
    free: SeatCount = 0
    away: SeatCount = 0
    phase: RoomPhase


@dataclass(frozen=True, slots=True, kw_only=True)
class SecondPathReady:
    """The answer to ``second_path``, on the second connection only: from now on every
    message the server sends on the first connection goes on this one too, in the same
    order. ``after``: how many messages the server had sent on the first connection
    before (the next one mirrored here has this index). Not itself part of the mirrored
    stream: neither side counts it (PROTOCOL.md §11)."""

    TYPE: ClassVar[str] = "second_path_ready"
    after: PathAfter


# === server → room: room changes ===========================================================
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerJoined:
    """A seat was taken (by a person, or by the computer)."""

    TYPE: ClassVar[str] = "player_joined"
    seq: Seq
    seat: Seat
    name: Name
    computer: bool = False
    computer_number: ComputerNumber | None = None


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
    Otherwise the server picks it fairly (PROTOCOL.md §10): ``deal_commitment`` is its
    commitment and ``seed_commitments`` each seat's (None: that seat contributes none).
    """

    TYPE: ClassVar[str] = "game_started"
    seq: Seq
    game: GameNumber
    counts: Counts
    deal: Deal | None = None
    deal_commitment: Hex64 | None = None
    seed_commitments: Annotated[tuple[Hex64 | None, ...], MaxItems(MAX_PLAYERS)] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class DealVoided:
    """The fair deal of the game is void before its first card: ``seat`` committed to a
    seed and could not reveal it (away past the away timeout, left, or taken over on a
    device without it). ``voids``: that seat's voids this evening, this one included. The
    room draws a fresh server seed and waits for each present player's ``commit``; a
    ``game_started`` of the same game then shows the fresh deal (PROTOCOL.md §10)."""

    TYPE: ClassVar[str] = "deal_voided"
    seq: Seq
    seat: Seat
    voids: Voids


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeUp:
    """The time limit was reached: the game ends now, or when the war in progress is
    settled, or (tie_break battle with equal counts) plays on until counts differ."""

    TYPE: ClassVar[str] = "time_up"
    seq: Seq


@dataclass(frozen=True, slots=True, kw_only=True)
class Reacted:
    """Someone reacted: ``seat`` (None: someone watching) and the reaction's name."""

    TYPE: ClassVar[str] = "reacted"
    seq: Seq
    seat: Seat | None = None
    reaction: Reaction


@dataclass(frozen=True, slots=True, kw_only=True)
class Said:
    """Someone said something: ``seat`` (None: someone watching) and the text (plain
    text, never markup)."""

    TYPE: ClassVar[str] = "said"
    seq: Seq
    seat: Seat | None = None
    text: SayText


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
    """The game ended: ``winner`` (None = draw), why, the summary, the final counts and
    each seat's place (``standings``, index = seat: 1 is first, a shared place the same
    number; empty from a server that does not say).

    The summary's ``deal`` reveals the deal number; ``fairness`` the seeds it was derived
    from, when the server picked it fairly. ``evening``: the room's finished games, this
    one last (as ``state.evening``).
    """

    TYPE: ClassVar[str] = "game_over"
    seq: Seq
    step: Steps
    winner: Seat | None
    termination: Termination
    summary: Summary
    counts: Counts
    standings: Standings = ()
    evening: Evening = ()
    fairness: Fairness | None = None


ServerMessage = (
    Welcome | Snapshot | Error | RoomInfo | SecondPathReady | PlayerJoined | PlayerLeft
    | ConnectionChanged
    | ReadyChanged | WaitingFor | AutoPlayChanged | FinishVoted | RematchVoted
    | SpectatorsChanged | GameStarted | DealVoided | TimeUp | CardsTurned
    | CardsLaidDown
    | WarDeclared | CardsTaken | CardsReturned | PlayerOut | GameOver
    | SeatRequestWaiting | SeatRequested | SeatRequestEnded | Reacted | Said
)  # fmt: skip
"""Any server → client message."""


SERVER_MESSAGE_TYPES: dict[str, type[ServerMessage]] = {
    cls.TYPE: cls
    for cls in (
        Welcome, Snapshot, Error, RoomInfo, SecondPathReady, PlayerJoined, PlayerLeft,
        ConnectionChanged,
        ReadyChanged, WaitingFor, AutoPlayChanged, FinishVoted, RematchVoted,
        SpectatorsChanged, GameStarted, DealVoided, TimeUp, CardsTurned,
        CardsLaidDown,
        WarDeclared, CardsTaken, CardsReturned, PlayerOut, GameOver,
        SeatRequestWaiting, SeatRequested, SeatRequestEnded, Reacted, Said,
    )
}  # fmt: skip
"""Server message classes by their wire ``type``."""
