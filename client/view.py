"""The view state: what this seat (or this spectator) knows about the room, and its reducer.

Pure: :func:`apply` takes a :class:`ViewState` and one decoded server message and returns
the next :class:`ViewState`. No I/O, no clock, no randomness; the client never computes a
game result, it only records what the server said.

Sequence numbers (PROTOCOL.md §5): ``welcome`` and ``snapshot`` replace the whole view and
set ``last_seq``; a room message with ``seq == last_seq + 1`` is applied, one with
``seq <= last_seq`` is ignored (already included), one with ``seq > last_seq + 1`` means
messages were missed: the view is kept as it was and ``needs_resync`` is set, and room
messages are ignored until the next ``snapshot`` (or ``welcome``) arrives. The connection
sends ``resync`` when ``needs_resync`` turns on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    Error,
    FinishVoted,
    GameOver,
    GameResult,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    ReadyChanged,
    RematchVoted,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
)

__all__ = ["RECENT_LIMIT", "Flip", "Taken", "ViewState", "apply", "apply_all"]

RECENT_LIMIT = 16
"""How many of the latest applied room messages a view keeps in ``recent``."""

GameEvent = CardsTurned | CardsLaidDown | WarDeclared | CardsTaken | CardsReturned | PlayerOut
RoomMessage = (
    PlayerJoined | PlayerLeft | ConnectionChanged | ReadyChanged | WaitingFor | AutoPlayChanged
    | FinishVoted | RematchVoted | SpectatorsChanged | GameStarted | TimeUp | GameEvent
    | GameOver
)  # fmt: skip


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
    ``time_up`` and game over); :mod:`client.countdown` counts down from it.
    ``last_flip`` stays after the cards are taken so a sentence can say which card won;
    ``last_taken`` is the latest haul. ``left`` are seats whose player left for good.
    ``recent`` holds the latest applied room messages, oldest first. ``last_seq`` is None
    until a ``welcome``.
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
    time_up: bool = False
    left: frozenset[int] = frozenset()
    last_flip: Flip | None = None
    last_taken: Taken | None = None
    last_error: Error | None = None
    recent: tuple[ServerMessage, ...] = ()
    last_seq: int | None = None
    needs_resync: bool = False

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


# --- the reducer ---------------------------------------------------------------------------
def apply(view: ViewState, message: ServerMessage) -> ViewState:
    """Return the view after ``message``; ``view`` itself is never changed.

    Never raises for a decoded message: a message that names a seat the room does not
    have is ignored (the codec has already checked every field's type and range).
    """
    if isinstance(message, Welcome):
        fresh = _from_state(view, message.state, message.seq)
        return replace(
            fresh,
            my_seat=message.seat,
            player_code=message.player_code,
            watch_code=message.watch_code,
        )
    if isinstance(message, Snapshot):
        if not view.welcomed:
            return view
        return _from_state(view, message.state, message.seq)
    if isinstance(message, Error):
        return replace(view, last_error=message)
    if view.last_seq is None or view.needs_resync or message.seq <= view.last_seq:
        return view
    if message.seq > view.last_seq + 1:
        return replace(view, needs_resync=True)
    after = _room_message(view, message)
    recent = (*view.recent, message)[-RECENT_LIMIT:]
    return replace(after, last_seq=message.seq, recent=recent)


def apply_all(view: ViewState, messages: list[ServerMessage]) -> ViewState:
    """Apply ``messages`` in order (a convenience for replaying a recorded sequence)."""
    for message in messages:
        view = apply(view, message)
    return view


def _from_state(view: ViewState, state: RoomState, seq: int) -> ViewState:
    """A view rebuilt from a full snapshot (keeping who I am and the room's codes)."""
    flip = view.last_flip if state.war_depth or any(s.face_up for s in state.seats) else None
    same_game = state.room == view.room and state.game == view.game
    return ViewState(
        my_seat=view.my_seat,
        room=state.room,
        phase=state.phase,
        rules=state.rules,
        seats=state.seats,
        game=state.game,
        step=state.step,
        round=state.round,
        war_depth=state.war_depth,
        war_seats=state.war_seats,
        waiting_for=state.waiting_for,
        spectators=state.spectators,
        minutes=state.minutes,
        seconds_left=state.seconds_left,
        deal=state.deal if state.result is None else state.result.summary.deal,
        result=state.result,
        time_up=view.time_up and same_game and state.phase is RoomPhase.PLAYING,
        player_code=view.player_code,
        watch_code=view.watch_code,
        left=view.left if state.room == view.room else frozenset(),
        last_flip=flip,
        last_taken=view.last_taken if state.room == view.room else None,
        last_error=view.last_error,
        recent=view.recent if state.room == view.room else (),
        last_seq=seq,
        needs_resync=False,
    )


_OPEN_SEAT: dict[str, object] = {
    "name": None,
    "computer": False,
    "connected": False,
    "ready": False,
    "auto": AutoPlay.OFF,
}
"""A seat nobody holds (PROTOCOL.md: a player who leaves before the game frees it)."""


def _with_seat(view: ViewState, seat: int, **changes: object) -> ViewState:
    if not 0 <= seat < len(view.seats):
        return view
    seats = list(view.seats)
    seats[seat] = replace(seats[seat], **changes)  # type: ignore[arg-type]
    return replace(view, seats=tuple(seats))


def _with_counts(
    view: ViewState, counts: tuple[int, ...], *, clear_table: bool, keep_out: bool = False
) -> ViewState:
    """New counts; ``clear_table`` clears every seat's table cards, except, with
    ``keep_out``, those of seats that are out (left on the table: docs/rules.md)."""
    seats = []
    for record in view.seats:
        count = counts[record.seat] if record.seat < len(counts) else record.count
        if clear_table and not (keep_out and record.out):
            seats.append(replace(record, count=count, face_up=(), face_down=0))
        else:
            seats.append(replace(record, count=count))
    return replace(view, seats=tuple(seats))


def _room_message(view: ViewState, message: RoomMessage) -> ViewState:
    match message:
        case PlayerJoined(seat=seat, name=name, computer=computer):
            view = replace(view, left=view.left - {seat})
            return _with_seat(view, seat, name=name, computer=computer, connected=True)
        case PlayerLeft(seat=seat):
            if view.phase is RoomPhase.WAITING:  # before the game the seat opens again
                return _with_seat(view, seat, **_OPEN_SEAT)
            # Once started the computer plays the seat, name kept; its votes are dropped.
            view = replace(view, left=view.left | {seat})
            return _with_seat(
                view,
                seat,
                computer=True,
                connected=False,
                ready=False,
                finish_vote=False,
                rematch_vote=None,
            )
        case ConnectionChanged(seat=seat, connected=connected):
            return _with_seat(view, seat, connected=connected)
        case ReadyChanged(seat=seat, ready=ready):
            return _with_seat(view, seat, ready=ready)
        case WaitingFor(seats=seats):
            return replace(view, waiting_for=seats)
        case AutoPlayChanged(seat=seat, mode=mode):
            return _with_seat(view, seat, auto=mode)
        case FinishVoted(seat=seat):
            return _with_seat(view, seat, finish_vote=True)
        case RematchVoted(seat=seat, deal=deal):
            return _with_seat(view, seat, rematch_vote=deal)
        case SpectatorsChanged(count=count):
            return replace(view, spectators=count)
        case GameStarted():
            return _game_started(view, message)
        case TimeUp():
            return replace(view, time_up=True, seconds_left=0 if view.minutes else None)
        case GameOver():
            return _game_over(view, message)
        case _:
            return _game_event(view, message)


def _game_started(view: ViewState, message: GameStarted) -> ViewState:
    seats = tuple(
        replace(
            record,
            ready=False,
            out=False,
            count=message.counts[record.seat] if record.seat < len(message.counts) else 0,
            face_up=(),
            face_down=0,
            finish_vote=False,
            rematch_vote=None,
        )
        for record in view.seats
    )
    return replace(
        view,
        phase=RoomPhase.PLAYING,
        seats=seats,
        game=message.game,
        step=0,
        round=0,
        war_depth=0,
        war_seats=(),
        waiting_for=(),
        deal=message.deal,
        result=None,
        seconds_left=None if view.minutes is None else view.minutes * 60,
        time_up=False,
        last_flip=None,
        last_taken=None,
    )


def _game_over(view: ViewState, message: GameOver) -> ViewState:
    # In the step the view has already seen, the events left the table as the game ends
    # (empty, or what out players left after cards_returned). A game_over that jumps ahead
    # (the rest of the game finished at once) clears it: a snapshot tells more.
    clear = message.step > view.step
    view = _new_step(view, message.step)
    view = _with_counts(view, message.counts, clear_table=clear)
    result = GameResult(
        winner=message.winner, termination=message.termination, summary=message.summary
    )
    return replace(
        view,
        phase=RoomPhase.OVER,
        result=result,
        deal=message.summary.deal,
        round=message.summary.rounds,
        seconds_left=0 if view.minutes is not None else None,
        war_depth=0,
        war_seats=(),
        waiting_for=(),
    )


def _new_step(view: ViewState, step: int) -> ViewState:
    """A game event of a later step clears every ready flag (PROTOCOL.md §5)."""
    if step <= view.step:
        return view
    seats = tuple(replace(s, ready=False) if s.ready else s for s in view.seats)
    return replace(view, step=step, seats=seats)


def _game_event(view: ViewState, message: GameEvent) -> ViewState:
    view = _new_step(view, message.step)
    match message:
        case CardsTurned(depth=depth, cards=cards):
            if depth == 0:  # a new round; cards an out player forfeited in a round given
                # back stay on the table until someone takes them (docs/rules.md)
                counts = tuple(s.count for s in view.seats)
                view = _with_counts(view, counts, clear_table=True, keep_out=True)
            for seat, card in cards:
                record = view.seat(seat)
                if record is None or card in record.face_up:
                    continue  # last_card: the card already showing stands again
                view = _with_seat(
                    view, seat, face_up=(*record.face_up, card), count=max(0, record.count - 1)
                )
            return replace(view, last_flip=Flip(message.step, depth, cards), war_depth=depth)
        case CardsLaidDown(counts=counts):
            for seat, count in counts:
                record = view.seat(seat)
                if record is not None and count:
                    view = _with_seat(
                        view,
                        seat,
                        face_down=record.face_down + count,
                        count=max(0, record.count - count),
                    )
            return view
        case WarDeclared(depth=depth, seats=seats):
            return replace(view, war_depth=depth, war_seats=seats)
        case CardsTaken(round=round_no, seat=seat, count=count, counts=counts):
            table = tuple(s.face_up for s in view.seats), tuple(s.face_down for s in view.seats)
            view = _with_counts(view, counts, clear_table=True)
            return replace(
                view,
                round=round_no,
                war_depth=0,
                war_seats=(),
                last_taken=Taken(round_no, seat, count, *table),
            )
        case CardsReturned(counts=counts):
            # Players still in take their cards back; an out player's stay on the table.
            view = _with_counts(view, counts, clear_table=True, keep_out=True)
            return replace(view, war_depth=0, war_seats=())
        case PlayerOut(seat=seat):
            return _with_seat(view, seat, out=True)
    return view  # pragma: no cover - every game event is matched above
