"""The view state: what this seat (or this spectator) knows about the room.

:class:`ViewState` and the records it holds (:class:`Flip`, :class:`Taken`), with the
questions a renderer asks of it (``me``, ``my_turn``, ``away_waited``…). The reducer that
makes one view from the last and a server message is :mod:`client.state.view`, which
re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Error,
    EveningGame,
    GameResult,
    PlayerOut,
    RoomPhase,
    RulesSpec,
    SeatState,
    ServerMessage,
    TalkLine,
    TalkSetting,
    WarDeclared,
)

__all__ = ["RECENT_LIMIT", "Flip", "GameEvent", "Taken", "ViewState"]

RECENT_LIMIT = 16
"""How many of the latest applied room messages a view keeps in ``recent``."""

GameEvent = CardsTurned | CardsLaidDown | WarDeclared | CardsTaken | CardsReturned | PlayerOut


@dataclass(frozen=True, slots=True)
class Flip:
    """The latest flip of the round: the game ``step`` it came with, its war ``depth``
    (0 = first flip) and the cards turned, as ``(seat, card)`` pairs in seat order."""

    step: int
    depth: int
    cards: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Taken:
    """The latest haul: ``seat`` took ``count`` cards in round ``round``. ``face_up`` and
    ``face_down`` say, per seat, what lay on the table just before (the cards turned, in
    order, and how many lay face down), so a table can still show the round."""

    round: int
    seat: int
    count: int
    face_up: tuple[tuple[str, ...], ...] = ()
    face_down: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ViewState:
    """Everything one participant knows about the room. Build the first with
    ``ViewState()`` and feed every server message through :func:`apply`.

    ``my_seat`` is None for a spectator (or before the ``welcome``). ``round`` counts the
    rounds completed. ``seconds_left`` is the time limit's remaining time as the latest
    message that told it said (a snapshot; ``minutes`` in full at ``game_started``; 0 at
    ``time_up`` and game over); :mod:`client.words.countdown` counts down from it.
    ``last_flip`` stays after the cards are taken so a sentence can say which card won;
    ``last_taken`` is the latest haul. ``left`` are seats whose player left for good.
    ``recent`` holds the latest applied room messages, oldest first. ``talk`` the room's
    last messages and reactions (at most `protocol.MAX_TALK`, oldest first), ``evening``
    its finished games. ``last_seq`` is None until a ``welcome``.
    """

    my_seat: int | None = None
    room: str | None = None
    phase: RoomPhase = RoomPhase.WAITING
    rules: RulesSpec = field(default_factory=RulesSpec)
    seats: tuple[SeatState, ...] = ()
    game: int = 1
    step: int = 0
    round: int = 0
    war_depth: int = 0
    war_seats: tuple[int, ...] = ()
    waiting_for: tuple[int, ...] = ()
    spectators: int = 0
    minutes: int | None = None
    seconds_left: int | None = None
    deal: int | None = None
    result: GameResult | None = None
    player_code: str | None = None
    watch_code: str | None = None
    addresses: tuple[str, ...] | None = None
    """What the server told a client on its own machine: the browser table's addresses
    others can open (``welcome.addresses``; ``()``: it listens on loopback alone)."""
    outside: str | None = None
    """What the server told a client in the house: the link for relatives elsewhere
    (``welcome.outside``, ``war-server --outside``), or None."""
    time_up: bool = False
    left: frozenset[int] = frozenset()
    last_flip: Flip | None = None
    last_taken: Taken | None = None
    last_error: Error | None = None
    recent: tuple[ServerMessage, ...] = ()
    talk: tuple[TalkLine, ...] = ()
    talk_setting: TalkSetting = TalkSetting.PLAYERS
    evening: tuple[EveningGame, ...] = ()
    last_seq: int | None = None
    needs_resync: bool = False
    seat_request: int | None = None
    """The away seat someone asks to take on another device (``seat_requested``, or the
    ``seat_request`` of a welcome's or a snapshot's state), until the request ends: a
    seated player answers it."""
    asking_for: int | None = None
    """The seat this connection asked the table for (``seat_request_waiting``)."""

    # --- questions a renderer asks ---------------------------------------------------------
    @property
    def welcomed(self) -> bool:
        """True once a ``welcome`` arrived (the view describes a room)."""
        return self.last_seq is not None

    @property
    def spectating(self) -> bool:
        """True for a spectator (welcomed without a seat)."""
        return self.welcomed and self.my_seat is None

    @property
    def me(self) -> SeatState | None:
        """My seat's record, or None for a spectator."""
        return self.seat(self.my_seat)

    def seat(self, seat: int | None) -> SeatState | None:
        """The record of ``seat``, or None if there is no such seat."""
        if seat is None or not 0 <= seat < len(self.seats):
            return None
        return self.seats[seat]

    def name(self, seat: int) -> str:
        """The name at ``seat``, or a stand-in such as ``"seat 2"`` while it is open."""
        record = self.seat(seat)
        if record is None or record.name is None:
            return f"seat {seat + 1}"
        return record.name

    @property
    def open_seats(self) -> tuple[int, ...]:
        """Seats nobody has taken yet."""
        return tuple(s.seat for s in self.seats if s.name is None)

    @property
    def my_turn(self) -> bool:
        """True when the game waits for my ready (and I have not given it yet)."""
        me = self.me
        return (
            self.phase is RoomPhase.PLAYING
            and me is not None
            and me.seat in self.waiting_for
            and not me.ready
        )

    @property
    def away_waited(self) -> tuple[int, ...]:
        """Seats the game waits for whose player is away (a person, not connected)."""
        return tuple(
            s
            for s in self.waiting_for
            if (r := self.seat(s)) is not None and not (r.connected or r.computer or s in self.left)
        )
