"""The view state's reducer: what this seat (or this spectator) knows after each message.

Pure: :func:`apply` takes a :class:`ViewState` and one decoded server message and returns
the next :class:`ViewState`. No I/O, no clock, no randomness; the client never computes a
game result, it only records what the server said.

Sequence numbers (PROTOCOL.md §5): ``welcome`` and ``snapshot`` replace the whole view and
set ``last_seq``; a room message with ``seq == last_seq + 1`` is applied, one with
``seq <= last_seq`` is ignored (already included), one with ``seq > last_seq + 1`` means
messages were missed: the view is kept as it was and ``needs_resync`` is set, and room
messages are ignored until the next ``snapshot`` (or ``welcome``) arrives. The connection
sends ``resync`` when ``needs_resync`` turns on.

The view state itself (:class:`ViewState`, :class:`Flip`, :class:`Taken`) is in
:mod:`client.state.viewstate`, re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from client.state.viewstate import RECENT_LIMIT, Flip, GameEvent, Taken, ViewState
from protocol import (
    MAX_TALK,
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    DealVoided,
    Error,
    FinishVoted,
    GameOver,
    GameResult,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    Reacted,
    ReadyChanged,
    RematchVoted,
    RoomInfo,
    RoomPhase,
    RoomState,
    Said,
    SecondPathReady,
    ServerMessage,
    Snapshot,
    SpectatorsChanged,
    TalkLine,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from protocol.seat_requests import SeatRequested, SeatRequestEnded, SeatRequestWaiting

__all__ = ["RECENT_LIMIT", "Flip", "Taken", "ViewState", "apply", "apply_all"]

RoomMessage = (
    PlayerJoined | PlayerLeft | ConnectionChanged | ReadyChanged | WaitingFor | AutoPlayChanged
    | FinishVoted | RematchVoted | SpectatorsChanged | GameStarted | DealVoided | TimeUp
    | GameEvent
    | SeatRequested | SeatRequestEnded
    | Reacted | Said
    | GameOver
)  # fmt: skip


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
            addresses=message.addresses,
            outside=message.outside,
        )
    if isinstance(message, Snapshot):
        return _from_state(view, message.state, message.seq) if view.welcomed else view
    if isinstance(message, Error):
        return replace(view, last_error=message)
    if isinstance(message, SeatRequestWaiting):  # to the asker, before any welcome
        return replace(view, asking_for=message.seat)
    if isinstance(message, (RoomInfo, SecondPathReady)):
        return view  # a look-up's answer (no room is open), a second path's own reply
    return _in_order(view, message)


def _in_order(view: ViewState, message: RoomMessage) -> ViewState:
    """A room message applied if it is the next by ``seq``; a gap asks for a resync."""
    if view.last_seq is None or view.needs_resync or message.seq <= view.last_seq:
        return view
    if message.seq > view.last_seq + 1:
        return replace(view, needs_resync=True)
    if isinstance(message, GameEvent):
        after = _GAME_EVENTS[type(message)](_new_step(view, message.step), message)
    else:
        after = _ROOM_CHANGES[type(message)](view, message)
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
        talk=state.talk,
        talk_setting=state.talk_setting,
        evening=state.evening,
        last_seq=seq,
        needs_resync=False,
        seat_request=None if state.seat_request is None else state.seat_request.seat,
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


def _player_joined(view: ViewState, message: PlayerJoined) -> ViewState:
    view = replace(view, left=view.left - {message.seat})
    return _with_seat(
        view,
        message.seat,
        name=message.name,
        computer=message.computer,
        computer_number=message.computer_number,
        connected=True,
    )


def _player_left(view: ViewState, message: PlayerLeft) -> ViewState:
    if view.phase is RoomPhase.WAITING:  # before the game the seat opens again
        return _with_seat(view, message.seat, **_OPEN_SEAT)
    # Once started the computer plays the seat, name kept; its votes are dropped.
    view = replace(view, left=view.left | {message.seat})
    return _with_seat(
        view,
        message.seat,
        computer=True,
        connected=False,
        ready=False,
        finish_vote=False,
        rematch_vote=None,
    )


def _connection_changed(view: ViewState, message: ConnectionChanged) -> ViewState:
    return _with_seat(view, message.seat, connected=message.connected)


def _ready_changed(view: ViewState, message: ReadyChanged) -> ViewState:
    return _with_seat(view, message.seat, ready=message.ready)


def _waiting_for(view: ViewState, message: WaitingFor) -> ViewState:
    return replace(view, waiting_for=message.seats)


def _auto_play_changed(view: ViewState, message: AutoPlayChanged) -> ViewState:
    return _with_seat(view, message.seat, auto=message.mode)


def _finish_voted(view: ViewState, message: FinishVoted) -> ViewState:
    return _with_seat(view, message.seat, finish_vote=True)


def _rematch_voted(view: ViewState, message: RematchVoted) -> ViewState:
    return _with_seat(view, message.seat, rematch_vote=message.deal)


def _spectators_changed(view: ViewState, message: SpectatorsChanged) -> ViewState:
    return replace(view, spectators=message.count)


def _time_up(view: ViewState, message: TimeUp) -> ViewState:
    return replace(view, time_up=True, seconds_left=0 if view.minutes else None)


def _at(values: tuple[str | None, ...], index: int) -> str | None:
    return values[index] if 0 <= index < len(values) else None


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
            # each seat's commitment for this deal (a finish waits for the seeds)
            seed_commitment=_at(message.seed_commitments, record.seat),
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
        winner=message.winner,
        termination=message.termination,
        summary=message.summary,
        standings=message.standings,
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
        evening=message.evening or view.evening,
    )


def _talked(view: ViewState, message: Reacted | Said) -> ViewState:
    if isinstance(message, Said):
        line = TalkLine(seat=message.seat, text=message.text)
    else:
        line = TalkLine(seat=message.seat, reaction=message.reaction)
    return replace(view, talk=(*view.talk, line)[-MAX_TALK:])


def _new_step(view: ViewState, step: int) -> ViewState:
    """A game event of a later step clears every ready flag (PROTOCOL.md §5)."""
    if step <= view.step:
        return view
    seats = tuple(replace(s, ready=False) if s.ready else s for s in view.seats)
    return replace(view, step=step, seats=seats)


def _cards_turned(view: ViewState, message: CardsTurned) -> ViewState:
    if message.depth == 0:  # a new round; cards an out player forfeited in a round given
        # back stay on the table until someone takes them (docs/rules.md)
        counts = tuple(s.count for s in view.seats)
        view = _with_counts(view, counts, clear_table=True, keep_out=True)
    for seat, card in message.cards:
        record = view.seat(seat)
        if record is None or card in record.face_up:
            continue  # last_card: the card already showing stands again
        view = _with_seat(
            view, seat, face_up=(*record.face_up, card), count=max(0, record.count - 1)
        )
    flip = Flip(message.step, message.depth, message.cards)
    return replace(view, last_flip=flip, war_depth=message.depth)


def _cards_laid_down(view: ViewState, message: CardsLaidDown) -> ViewState:
    for seat, count in message.counts:
        record = view.seat(seat)
        if record is not None and count:
            view = _with_seat(
                view,
                seat,
                face_down=record.face_down + count,
                count=max(0, record.count - count),
            )
    return view


def _war_declared(view: ViewState, message: WarDeclared) -> ViewState:
    return replace(view, war_depth=message.depth, war_seats=message.seats)


def _cards_taken(view: ViewState, message: CardsTaken) -> ViewState:
    table = tuple(s.face_up for s in view.seats), tuple(s.face_down for s in view.seats)
    view = _with_counts(view, message.counts, clear_table=True)
    return replace(
        view,
        round=message.round,
        war_depth=0,
        war_seats=(),
        last_taken=Taken(message.round, message.seat, message.count, *table),
    )


def _cards_returned(view: ViewState, message: CardsReturned) -> ViewState:
    # Players still in take their cards back; an out player's stay on the table.
    view = _with_counts(view, message.counts, clear_table=True, keep_out=True)
    return replace(view, war_depth=0, war_seats=())


def _player_out(view: ViewState, message: PlayerOut) -> ViewState:
    return _with_seat(view, message.seat, out=True)


def _seat_requested(view: ViewState, message: SeatRequested) -> ViewState:
    return replace(view, seat_request=message.seat)


def _seat_request_ended(view: ViewState, message: SeatRequestEnded) -> ViewState:
    return replace(view, seat_request=None)


_Reducer = Callable[[ViewState, Any], ViewState]
_ROOM_CHANGES: dict[type[RoomMessage], _Reducer] = {
    PlayerJoined: _player_joined,
    PlayerLeft: _player_left,
    ConnectionChanged: _connection_changed,
    ReadyChanged: _ready_changed,
    WaitingFor: _waiting_for,
    AutoPlayChanged: _auto_play_changed,
    FinishVoted: _finish_voted,
    RematchVoted: _rematch_voted,
    SpectatorsChanged: _spectators_changed,
    GameStarted: _game_started,
    DealVoided: lambda view, _message: view,  # the fair-deal check follows it (fairwatch)
    TimeUp: _time_up,
    GameOver: _game_over,
    SeatRequested: _seat_requested,
    SeatRequestEnded: _seat_request_ended,
    Reacted: _talked,
    Said: _talked,
}
"""How each room change (every room message but the game events) changes the view."""
_GAME_EVENTS: dict[type[GameEvent], _Reducer] = {
    CardsTurned: _cards_turned,
    CardsLaidDown: _cards_laid_down,
    WarDeclared: _war_declared,
    CardsTaken: _cards_taken,
    CardsReturned: _cards_returned,
    PlayerOut: _player_out,
}
"""How each game event changes the view, once its step cleared the ready flags."""
