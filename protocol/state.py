"""Records nested inside messages: the rules, a seat, the room's public state, a summary.

Everything here is what *everyone at the table* can see: counts, face-up cards, how many
cards lie face down, flags and names. Never a pile's order, never a face-down card, never
the random stream's state; the deal number only once revealed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from protocol.fields import (
    MAX_EVENING,
    MAX_MINUTES,
    MAX_PLAYERS,
    MAX_TALK,
    Aces,
    AutoPlay,
    BothShort,
    Card,
    CardCount,
    ComputerNumber,
    Deal,
    Depth,
    FixedOrder,
    GameNumber,
    Hex64,
    IntRange,
    MaxItems,
    Minutes,
    Name,
    Reaction,
    RematchDeal,
    RoomId,
    RoomPhase,
    Round,
    RoundLimit,
    SayText,
    Seat,
    Seats,
    ShortWar,
    Spectators,
    Standings,
    Steps,
    TakenBack,
    TalkSetting,
    Termination,
    TieBreak,
    Voids,
    WonCards,
)
from protocol.seat_requests import SeatRequest
from vocabulary import DEFAULTS, FACE_DOWN_COUNTS, MIN_PLAYERS, check_face_down

__all__ = [
    "EveningGame",
    "Fairness",
    "GameResult",
    "RoomState",
    "RulesSpec",
    "SeatState",
    "Summary",
    "TalkLine",
]

Players = Annotated[int, IntRange(MIN_PLAYERS, MAX_PLAYERS)]
FaceDown = Annotated[int, IntRange(min(FACE_DOWN_COUNTS), max(FACE_DOWN_COUNTS))]
SecondsLeft = Annotated[int, IntRange(0, MAX_MINUTES * 60)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RulesSpec:
    """The game's settings, as in docs/rules.md (a 52-card deck on the wire).

    Same keys and values as the engine's ``Rules.to_dict()`` minus ``ranks``/``suits``;
    a setting left out takes its default, `vocabulary.DEFAULTS` (the engine's too).
    ``both_short``, ``fixed_order`` and ``taken_back`` default to the rules of today; their
    other values (``end``, ``seat0``: versions up to 0.1; ``as_laid``: up to 0.2) are how
    earlier versions played, kept for the rooms they stored. The enums and the bounds are
    the `vocabulary` package's, as the engine's are; ``face_down`` is 1 or 3
    (`vocabulary.check_face_down`). ``server.core.room.wire`` converts between this and the
    engine's ``Rules``, both ways.
    """

    players: Players = DEFAULTS.players
    face_down: FaceDown = DEFAULTS.face_down
    aces: Aces = DEFAULTS.aces
    short_war: ShortWar = DEFAULTS.short_war
    both_short: BothShort = DEFAULTS.both_short
    won_cards: WonCards = DEFAULTS.won_cards
    fixed_order: FixedOrder = DEFAULTS.fixed_order
    taken_back: TakenBack = DEFAULTS.taken_back
    round_limit: RoundLimit | None = DEFAULTS.round_limit
    tie_break: TieBreak = DEFAULTS.tie_break

    def validate(self) -> None:
        """Raise ValueError if the settings do not go together (called by the codec)."""
        check_face_down(self.face_down)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatState:
    """One seat as the table sees it.

    ``name`` is None for an open seat. ``face_up`` are the seat's face-up cards on the
    table in this round, in the order turned; ``face_down`` how many of its cards lie face
    down there. ``out`` once the player is out of the game. ``computer_number``: a seat
    the room was created with for the computer, by its number (1, 2, 3 in seat order),
    which the clients say in the viewer's words ("Ordenador 2"); None for a person's seat,
    even once the computer plays it for someone who left.
    """

    seat: Seat
    name: Name | None = None
    computer: bool = False
    computer_number: ComputerNumber | None = None
    connected: bool = False
    ready: bool = False
    auto: AutoPlay = AutoPlay.OFF
    out: bool = False
    count: CardCount = 0
    face_up: Annotated[tuple[Card, ...], MaxItems(52)] = ()
    face_down: CardCount = 0
    finish_vote: bool = False
    rematch_vote: RematchDeal | None = None
    seed_commitment: Hex64 | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """A finished game's figures (what "Finish the Game" shows)."""

    rounds: Round
    wars: Round
    longest_war: Depth
    biggest_haul: CardCount
    deal: Deal


@dataclass(frozen=True, slots=True, kw_only=True)
class Fairness:
    """What a fair deal reveals at game over (PROTOCOL.md §10): the server's seed and each
    seat's seed (None for a seat that contributed none), in seat order."""

    server_seed: Hex64
    seeds: Annotated[tuple[Hex64 | None, ...], MaxItems(MAX_PLAYERS)]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult:
    """How a game ended: ``winner`` seat (None for a draw), why, the summary, and each
    seat's place (``standings``, index = seat; empty from a server that does not say)."""

    winner: Seat | None
    termination: Termination
    summary: Summary
    standings: Standings = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TalkLine:
    """One line of the room's talk: ``seat`` (None: someone watching) and either a
    ``text`` (a ``said``) or a ``reaction`` (a ``reacted``); the other is left out."""

    OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"text", "reaction"})
    seat: Seat | None = None
    text: SayText | None = None
    reaction: Reaction | None = None

    def validate(self) -> None:
        """Raise ValueError unless exactly one of text and reaction is given."""
        if (self.text is None) == (self.reaction is None):
            raise ValueError("a talk line has a text or a reaction, one of them")


@dataclass(frozen=True, slots=True, kw_only=True)
class EveningGame:
    """One finished game of the room's evening: its number, its (revealed) deal, the
    winner (None: a draw), why it ended, how many rounds, and the seats' names then."""

    game: GameNumber
    deal: Deal
    winner: Seat | None
    termination: Termination
    rounds: Round
    names: Annotated[tuple[Name | None, ...], MaxItems(MAX_PLAYERS)]

    def validate(self) -> None:
        """Raise ValueError if the winner has no seat in the game."""
        if self.winner is not None and self.winner >= len(self.names):
            raise ValueError(f"winner seat {self.winner} of a {len(self.names)}-seat game")


Talk = Annotated[tuple[TalkLine, ...], MaxItems(MAX_TALK)]
"""The room's last messages and reactions, oldest first."""
Evening = Annotated[tuple[EveningGame, ...], MaxItems(MAX_EVENING)]
"""The room's finished games, oldest first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomState:
    """A full public snapshot of a room; a client rebuilds its whole view from it.

    - ``seats``: one per seat of ``rules.players``, index = seat number.
    - ``game``: 1 for the room's first game, +1 per rematch. ``step``: engine steps
      (flips) played in this game; ``Ready.step`` must echo it. ``round``: rounds played.
    - ``war_depth`` 0 when no war is on, else the depth of the war being played and
      ``war_seats`` its players. ``waiting_for``: seats whose ready the game waits for
      (a seat that is also not ``connected`` is *away*: the game waits for it).
    - ``minutes``: the time limit, ``seconds_left`` what remained when this was sent.
    - ``deal``: only if revealed (the creator chose it, or the game is over).
    - ``result``: set when ``phase`` is ``over``.
    - ``talk``: the last messages and reactions (at most 50, oldest first);
      ``talk_setting``: who may talk here (the room's setting, within the server's).
    - ``evening``: the room's finished games (at most the last 100, oldest first).
    - ``deal_commitment``: the server's commitment to a deal it picks (fair deals), from
      the game's start; ``fairness``: what it revealed, once the game is over. Each
      seat's ``seed_commitment`` is the one that seat made for this game.
    - ``seat_request``: the request for an away seat open now (``seat_requested``, until
      its ``seat_request_ended``), with the seconds the table has left to answer it.
    - ``voids``: the fair deals each seat voided this evening (``deal_voided``), in seat
      order (empty: none); ``awaiting_commitments``: after a void, the room waits for each
      present player's ``commit`` (``deal_commitment`` and every ``seed_commitment`` are
      nil until the fresh deal's ``game_started``).
    """

    room: RoomId
    phase: RoomPhase
    rules: RulesSpec
    seats: Annotated[tuple[SeatState, ...], MaxItems(MAX_PLAYERS)]
    game: GameNumber = 1
    step: Steps = 0
    round: Round = 0
    war_depth: Depth = 0
    war_seats: Seats = ()
    waiting_for: Seats = ()
    spectators: Spectators = 0
    minutes: Minutes | None = None
    seconds_left: SecondsLeft | None = None
    deal: Deal | None = None
    result: GameResult | None = None
    talk: Talk = ()
    talk_setting: TalkSetting = TalkSetting.PLAYERS
    evening: Evening = ()
    deal_commitment: Hex64 | None = None
    fairness: Fairness | None = None
    seat_request: SeatRequest | None = None
    voids: Annotated[tuple[Voids, ...], MaxItems(MAX_PLAYERS)] = ()
    awaiting_commitments: bool = False

    def validate(self) -> None:
        """Raise ValueError if the snapshot contradicts itself (called by the codec)."""
        if self.voids and len(self.voids) != self.rules.players:
            raise ValueError(f"voids must be one per seat ({self.rules.players}) or none")
        if len(self.seats) != self.rules.players:
            raise ValueError(
                f"a room of {self.rules.players} players needs {self.rules.players} seats, "
                f"not {len(self.seats)}"
            )
        for index, seat in enumerate(self.seats):
            if seat.seat != index:
                raise ValueError(f"seat {index} is numbered {seat.seat}")
        for label, seats in (("war_seats", self.war_seats), ("waiting_for", self.waiting_for)):
            for seat_number in seats:
                if seat_number >= self.rules.players:
                    raise ValueError(
                        f"{label} names seat {seat_number} of a {self.rules.players}-seat room"
                    )
        for line in self.talk:
            if line.seat is not None and line.seat >= self.rules.players:
                raise ValueError(f"talk from seat {line.seat} of a {self.rules.players}-seat room")
        asked = None if self.seat_request is None else self.seat_request.seat
        if asked is not None and asked >= self.rules.players:
            raise ValueError(f"a seat request for seat {asked} of a {self.rules.players}-seat room")
        winner = None if self.result is None else self.result.winner
        if winner is not None and winner >= self.rules.players:
            raise ValueError(f"winner seat {winner} is not in the room")
