"""One room, sans-I/O: seats, spectators, ready flags, auto-play, votes, limits, resume.

A `Room` is rebuilt from its `RoomRecord` (the same path for a new room and for one
loaded after a restart: the engine replays the recorded steps). Every command takes
``now`` (wall-clock seconds, from the caller) and returns the `Action` list to carry out;
a refused command raises `RefusedError` *before* changing anything (but the message still
confirms its seat's token, see Tokens below). Writes go to the store before the messages
they announce are returned (persist, then broadcast).

What each room phase accepts (``waiting`` → ``playing`` → ``over`` → ``playing`` …)::

    command        waiting             playing                   over
    ready          game_not_started    the needed seats          game_over
    set_auto_play  yes                 yes                       game_over
    vote_finish    game_not_started    humans (all → finish)     game_over
    rematch        game_not_started    game_in_progress          humans (all → new game)
    leave          seat freed          computer takes the seat   computer takes the seat
    resync         yes                 yes                       yes

Seats: a *human* seat has a name and a token hash; a *computer* seat (chosen at creation,
or a human seat whose player left a started game) readies ``computer_delay`` after it is
needed. A human seat on auto-play readies ``calm_delay`` or ``quick_delay`` after it is
needed; without auto-play the game waits for it, connected or not ("away"). With an
away-timeout, an away seat goes on calm auto-play once the timeout has passed.

Tokens: each resume issues a new token, stored (as a hash) before the ``welcome`` that
carries it is sent. That welcome can be lost (a kill -9 of the server, a dropped
connection, before the client read it), so the token the seat was resumed with stays
accepted until the new one is *confirmed*: by a later resume with it, or by any message
the seat's client sends on the connection that received it (a client reads the welcome
before it sends anything there). Resuming with the earlier token issues yet another
token and drops the unconfirmed one. Either way one connection at most holds a seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    ConnectionChanged,
    ErrorCode,
    FinishVoted,
    GameStarted,
    Leave,
    PlayerJoined,
    PlayerLeft,
    Ready,
    ReadyChanged,
    Rematch,
    RematchDeal,
    RematchVoted,
    Resync,
    RoomPhase,
    RoomState,
    SeatState,
    ServerMessage,
    SetAutoPlay,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    VoteFinish,
    WaitingFor,
    Welcome,
)
from protocol.closecodes import CloseCode
from server import engine
from server.core.actions import Action, Close, ConnId, Send
from server.core.codes import RandomSource, hash_token, new_deal, new_token, token_matches
from server.core.logger import Logger
from server.core.records import GameRecord, RoomRecord, SeatRecord, Store
from server.core.wire import event_message, game_over_message, game_result, rules_spec
from server.errors import RefusedError

__all__ = ["InRoomMessage", "Room", "RoomSettings", "rebuild_game"]

InRoomMessage = Ready | SetAutoPlay | VoteFinish | Rematch | Leave | Resync
"""The client messages a room handles (opening messages are the hub's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomSettings:
    """Paces and limits of a room, in seconds (0 away-timeout = never)."""

    max_spectators: int = 20
    away_timeout_seconds: float = 0.0
    calm_delay: float = 1.5
    quick_delay: float = 0.3
    computer_delay: float = 0.6


@dataclass(slots=True)
class _Seat:
    """A seat's state; the first six fields are persisted (`SeatRecord`)."""

    name: str | None = None
    token_hash: str | None = None
    computer: bool = False
    auto: AutoPlay = AutoPlay.OFF
    left: bool = False
    previous_token_hash: str | None = None
    """The token the seat was resumed with, accepted until ``token_hash``'s is confirmed."""
    conn: ConnId | None = None
    ready: bool = False
    finish_vote: bool = False
    rematch_vote: RematchDeal | None = None
    due: float | None = None
    """When auto-play / the computer readies this seat."""
    away_deadline: float | None = None
    """When the away-timeout puts this seat on calm auto-play."""

    @property
    def human(self) -> bool:
        """A person plays this seat (it may be away)."""
        return self.name is not None and not self.computer and not self.left

    @property
    def machine(self) -> bool:
        """The computer plays this seat (chosen at creation, or the player left)."""
        return self.computer or self.left

    def record(self) -> SeatRecord:
        return SeatRecord(
            self.name,
            self.token_hash,
            self.computer,
            self.auto.value,
            self.left,
            self.previous_token_hash,
        )

    def holds(self, token: str) -> bool:
        """Whether ``token`` resumes this seat: its latest token, or the unconfirmed one's
        predecessor (both compared in constant time)."""
        latest = token_matches(token, self.token_hash)
        previous = token_matches(token, self.previous_token_hash)
        return self.human and (latest or previous)


def rebuild_game(rules: engine.Rules, record: GameRecord) -> engine.Game:
    """The game of ``record``, replayed: the deal, its steps, the time stop, the finish."""
    game = engine.Game(rules, record.deal)
    for played in range(record.steps):
        if record.stop_step == played and game.outcome is None:
            game.stop_by_time()
        if game.outcome is not None:
            break
        game.step()
    if record.stop_step == record.steps and game.outcome is None:
        game.stop_by_time()
    if record.finished:
        game.finish()
    return game


class Room:
    """One room. Build it with ``Room(record, store=..., settings=..., random=..., now=...)``.

    The record must already be in ``store``. ``logger`` (optional, a structlog logger)
    gets one line per room event worth knowing, bound with the room id; never a code or
    a token.
    """

    def __init__(
        self,
        record: RoomRecord,
        *,
        store: Store,
        settings: RoomSettings,
        random: RandomSource,
        now: float,
        logger: Logger | None = None,
    ) -> None:
        self.room_id = record.room_id
        self.player_code = record.player_code
        self.watch_code = record.watch_code
        self.rules = record.rules
        self.minutes = record.minutes
        self.created = record.created
        self.last_active = max(record.last_active, now)  # a restart counts as activity
        self.seq = record.seq
        self._store = store
        self._settings = settings
        self._random = random
        self._log = None if logger is None else logger.bind(room=record.room_id)
        self._record = record.game
        self.game = rebuild_game(self.rules, record.game)
        self._spec = rules_spec(self.rules)
        self._seats = [
            _Seat(s.name, s.token_hash, s.computer, AutoPlay(s.auto), s.left, s.previous_token_hash)
            for s in record.seats
        ]
        self._spectators: dict[ConnId, None] = {}
        for seat in self._seats:
            if seat.human and seat.auto is AutoPlay.OFF:
                seat.away_deadline = self._away_deadline(now)
        self._schedule(now)

    # ------------------------------------------------------------------ queries
    @property
    def phase(self) -> RoomPhase:
        """Waiting for players, playing, or over."""
        if not self._record.started:
            return RoomPhase.WAITING
        if self.game.outcome is not None:
            return RoomPhase.OVER
        return RoomPhase.PLAYING

    @property
    def game_record(self) -> GameRecord:
        """The current game as stored (deal, steps, time stop, finish)."""
        return self._record

    @property
    def connections(self) -> tuple[ConnId, ...]:
        """Every connection in the room: seats in seat order, then spectators."""
        seated = tuple(seat.conn for seat in self._seats if seat.conn is not None)
        return seated + tuple(self._spectators)

    @property
    def spectators(self) -> int:
        """How many spectators watch."""
        return len(self._spectators)

    @property
    def abandoned(self) -> bool:
        """No human player is left: the room should be removed."""
        return not any(seat.human for seat in self._seats)

    def seat_of(self, conn: ConnId) -> int | None:
        """The seat ``conn`` plays, or None (a spectator, or not in this room)."""
        for index, seat in enumerate(self._seats):
            if seat.conn == conn:
                return index
        return None

    def has(self, conn: ConnId) -> bool:
        """Whether ``conn`` is in this room (seated or watching)."""
        return conn in self._spectators or self.seat_of(conn) is not None

    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose ready the game waits for now (empty unless playing)."""
        if self.phase is not RoomPhase.PLAYING:
            return ()
        return tuple(s for s in self.game.next_seats if not self._seats[s].ready)

    def state(self, now: float) -> RoomState:
        """The room as everyone at the table sees it (nothing hidden)."""
        game = self.game
        phase = self.phase
        started = phase is not RoomPhase.WAITING
        table = game.table
        active = set(game.active)
        seats = []
        for index, seat in enumerate(self._seats):
            seats.append(
                SeatState(
                    seat=index,
                    name=seat.name,
                    computer=seat.machine,
                    connected=seat.conn is not None,
                    ready=seat.ready,
                    auto=AutoPlay.QUICK if seat.machine else seat.auto,
                    out=started and index not in active,
                    count=game.counts[index] if started else 0,
                    face_up=tuple(engine.card_label(c, self.rules) for c in table.face_up[index]),
                    face_down=table.face_down[index],
                    finish_vote=seat.finish_vote,
                    rematch_vote=seat.rematch_vote,
                )
            )
        at_war = phase is RoomPhase.PLAYING and game.phase is engine.Phase.WAR
        return RoomState(
            room=self.room_id,
            phase=phase,
            rules=self._spec,
            seats=tuple(seats),
            game=self._record.number,
            step=game.steps,
            round=game.round,
            war_depth=game.depth if at_war else 0,
            war_seats=game.next_seats if at_war else (),
            waiting_for=self.waiting_for(),
            spectators=len(self._spectators),
            minutes=self.minutes,
            seconds_left=self._seconds_left(now),
            deal=self._record.deal if self._record.revealed or phase is RoomPhase.OVER else None,
            result=game_result(game),
        )

    def next_deadline(self) -> float | None:
        """The earliest time `wake` has something to do, or None."""
        times = [seat.due for seat in self._seats if seat.due is not None]
        times += [s.away_deadline for s in self._seats if s.away_deadline is not None]
        limit = self._time_limit_due()
        if limit is not None:
            times.append(limit)
        return min(times, default=None)

    # ------------------------------------------------------------------ arrivals
    def open_for_creator(self, conn: ConnId, token: str, now: float) -> list[Action]:
        """The creator (seat 0, just stored with ``token``'s hash) arrives on ``conn``.

        Announces every seat taken at creation, welcomes the creator, and starts the game
        if the computer fills every other seat.
        """
        actions: list[Action] = []
        for index, seat in enumerate(self._seats):
            if seat.name is not None:
                joined = PlayerJoined(
                    seq=self._next_seq(), seat=index, name=seat.name, computer=seat.computer
                )
                actions += self._to_room(joined)
        self._seats[0].conn = conn
        self._seats[0].away_deadline = None
        actions.append(self._welcome(conn, 0, token, now))
        if self._log is not None:
            self._log.info("room_created", seat=0, players=self.rules.players)
        return actions + self._start_if_full(now)

    def join(self, conn: ConnId, name: str, now: float) -> list[Action]:
        """``conn`` takes the lowest open seat as ``name``. Raises `RefusedError` (room_full)."""
        if self.phase is not RoomPhase.WAITING:
            raise RefusedError(ErrorCode.ROOM_FULL, "the game has started: every seat is taken")
        index = next((i for i, s in enumerate(self._seats) if s.name is None), None)
        if index is None:
            raise RefusedError(ErrorCode.ROOM_FULL, "every seat is taken")
        token = new_token(self._random)
        seat = self._seats[index]
        seat.name, seat.token_hash, seat.auto, seat.left = (
            name,
            hash_token(token),
            AutoPlay.OFF,
            False,
        )
        seat.previous_token_hash = None
        self._persist_seats()
        self.last_active = now
        actions = self._emit(lambda seq: PlayerJoined(seq=seq, seat=index, name=name))
        seat.conn = conn
        actions.append(self._welcome(conn, index, token, now))
        if self._log is not None:
            self._log.info("seat_joined", seat=index)
        return actions + self._start_if_full(now)

    def watch(self, conn: ConnId, now: float) -> list[Action]:
        """``conn`` watches. Raises `RefusedError` (spectators_full) at the cap."""
        cap = self._settings.max_spectators
        if len(self._spectators) >= cap:
            raise RefusedError(ErrorCode.SPECTATORS_FULL, f"this room has its {cap} spectators")
        count = len(self._spectators) + 1
        actions = self._emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        self._spectators[conn] = None
        actions.append(self._welcome(conn, None, None, now))
        return actions

    def resume(self, conn: ConnId, token: str, now: float) -> list[Action]:
        """``conn`` takes back the seat of ``token``; a new token is issued (stored first).

        ``token`` is the seat's latest token, or — while that one is unconfirmed — the
        token the seat was resumed with before (the welcome carrying the latest may have
        been lost). Either way ``token`` stays accepted until the new one is confirmed
        (see the module docstring), and any other token stops working. A connection still
        on the seat is closed with 4002 (replaced).

        Raises:
            RefusedError: bad_token, if no seat takes this token (a superseded one, or the
                latest token of a seat resumed since with the token before it).
            StoreError: the store failed (the seat and its tokens are unchanged).
        """
        index = next((i for i, s in enumerate(self._seats) if s.holds(token)), None)
        if index is None:
            raise RefusedError(ErrorCode.BAD_TOKEN, "this seat token is unknown or was replaced")
        seat = self._seats[index]
        lost_welcome = not token_matches(token, seat.token_hash)
        fresh = new_token(self._random)
        self._set_tokens(seat, hash_token(fresh), hash_token(token))
        self.last_active = now
        actions: list[Action] = []
        if seat.conn is not None:
            actions.append(
                Close(seat.conn, CloseCode.REPLACED, "seat resumed on another connection")
            )
            seat.conn = conn
            if self._log is not None:
                self._log.info("seat_replaced", seat=index, earlier_token=lost_welcome)
        else:
            actions += self._emit(
                lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True)
            )
            seat.conn = conn
            seat.away_deadline = None
            if self._log is not None:
                self._log.info("seat_resumed", seat=index, earlier_token=lost_welcome)
        actions.append(self._welcome(conn, index, fresh, now))
        return actions

    # ------------------------------------------------------------------ commands
    def handle(self, conn: ConnId, message: InRoomMessage, now: float) -> list[Action]:
        """A message from ``conn`` (in this room).

        Any message from a seat's connection first confirms the token that connection was
        welcomed with (stored, even if the command is then refused): the earlier token
        stops working.

        Raises:
            RefusedError: the command is refused (nothing else changed).
            StoreError: the store failed.
        """
        self.last_active = now
        index = self.seat_of(conn)
        if index is not None:
            self._confirm_token(self._seats[index])
        if isinstance(message, Resync):
            return [Send((conn,), Snapshot(seq=self.seq, state=self.state(now)))]
        if isinstance(message, Leave):
            return self._leave(conn, now)
        if index is None:
            raise RefusedError(ErrorCode.NOT_SEATED, f"spectators cannot {_VERBS[type(message)]}")
        if isinstance(message, Ready):
            return self._ready(index, message.step, now)
        if isinstance(message, SetAutoPlay):
            return self._set_auto(index, message.mode, now)
        if isinstance(message, VoteFinish):
            return self._vote_finish(index, now)
        return self._vote_rematch(index, message.deal, now)

    def disconnect(self, conn: ConnId, now: float) -> list[Action]:
        """``conn`` is gone: its seat is away (kept for a resume), or one spectator fewer."""
        self.last_active = now
        if conn in self._spectators:
            del self._spectators[conn]
            count = len(self._spectators)
            return self._emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        index = self.seat_of(conn)
        if index is None:
            return []
        seat = self._seats[index]
        seat.conn = None
        if seat.auto is AutoPlay.OFF:
            seat.away_deadline = self._away_deadline(now)
        self._store.touch(self.room_id, now, self.seq)
        if self._log is not None:
            self._log.info("seat_away", seat=index)
        return self._emit(lambda seq: ConnectionChanged(seq=seq, seat=index, connected=False))

    def wake(self, now: float) -> list[Action]:
        """Run what is due at or before ``now``: the time limit, away-timeouts, auto-play."""
        actions: list[Action] = []
        limit = self._time_limit_due()
        if limit is not None and limit <= now:
            actions += self._time_up(now)
        for index, seat in enumerate(self._seats):
            if seat.away_deadline is not None and seat.away_deadline <= now:
                seat.away_deadline = None
                if (
                    seat.human
                    and seat.conn is None
                    and seat.auto is AutoPlay.OFF
                    and self.phase is not RoomPhase.OVER
                ):
                    actions += self._change_auto(index, AutoPlay.CALM, now)
        for index, seat in enumerate(self._seats):
            if seat.due is not None and seat.due <= now:
                seat.due = None
                if index in self.waiting_for():
                    actions += self._mark_ready(index, now)
        return actions

    def close_all(self, reason: str) -> list[Action]:
        """Close every connection of the room (4003 room closed) and forget them."""
        actions: list[Action] = [
            Close(conn, CloseCode.ROOM_CLOSED, reason) for conn in self.connections
        ]
        for seat in self._seats:
            seat.conn = None
        self._spectators.clear()
        if self._log is not None:
            self._log.info("room_removed", why=reason)
        return actions

    # ------------------------------------------------------------------ the game
    def _ready(self, index: int, step: int, now: float) -> list[Action]:
        phase = self.phase
        if phase is RoomPhase.WAITING:
            raise RefusedError(ErrorCode.GAME_NOT_STARTED, "the game waits for players to join")
        if phase is RoomPhase.OVER:
            raise RefusedError(ErrorCode.GAME_OVER, "the game is over: rematch or leave")
        if step != self.game.steps:
            raise RefusedError(
                ErrorCode.STALE, f"ready for step {step}, but the game is at step {self.game.steps}"
            )
        if index not in self.game.next_seats:
            raise RefusedError(ErrorCode.NOT_NEEDED, f"seat {index} does not play the next flip")
        if self._seats[index].ready:
            raise RefusedError(
                ErrorCode.ALREADY_READY, f"seat {index} is already ready for step {step}"
            )
        return self._mark_ready(index, now)

    def _mark_ready(self, index: int, now: float) -> list[Action]:
        seat = self._seats[index]
        seat.ready = True
        seat.due = None
        waiting = self.waiting_for()
        if not waiting:
            try:
                return self._step(now)
            except BaseException:  # not stored, so not played: this ready is still to come
                seat.ready = False
                self._schedule(now)
                raise
        actions = self._emit(lambda seq: ReadyChanged(seq=seq, seat=index, ready=True))
        return actions + self._emit(lambda seq: WaitingFor(seq=seq, seats=waiting))

    def _step(self, now: float) -> list[Action]:
        events = self.game.step()
        self._persist_or_rewind(
            lambda: self._store.record_steps(self.room_id, self.game.steps, self.seq)
        )
        self._record = dataclasses.replace(self._record, steps=self.game.steps)
        return self._after_play(events, now)

    def _after_play(self, events: Iterable[engine.Event], now: float) -> list[Action]:
        """Clear the flags, announce ``events`` and who is awaited next."""
        for seat in self._seats:
            seat.ready = False
            seat.due = None
        actions: list[Action] = []
        for event in events:
            actions += self._to_room(event_message(event, self.game, self._next_seq()))
        waiting = self.waiting_for()
        actions += self._emit(lambda seq: WaitingFor(seq=seq, seats=waiting))
        if self.game.outcome is not None and self._log is not None:
            self._log.info(
                "game_over",
                game=self._record.number,
                winner=self.game.outcome.winner,
                termination=self.game.outcome.termination.value,
                steps=self.game.steps,
            )
        self._schedule(now)
        return actions

    def _time_up(self, now: float) -> list[Action]:
        stopped_at = self.game.steps
        events = self.game.stop_by_time()
        self._persist_or_rewind(lambda: self._store.record_stop(self.room_id, stopped_at))
        self._record = dataclasses.replace(self._record, stop_step=stopped_at)
        actions = self._emit(lambda seq: TimeUp(seq=seq))
        if events:
            actions += self._after_play(events, now)
        return actions

    def _set_auto(self, index: int, mode: AutoPlay, now: float) -> list[Action]:
        if self.phase is RoomPhase.OVER:
            raise RefusedError(ErrorCode.GAME_OVER, "the game is over: rematch or leave")
        if self._seats[index].auto is mode:
            return []
        return self._change_auto(index, mode, now)

    def _change_auto(self, index: int, mode: AutoPlay, now: float) -> list[Action]:
        seat = self._seats[index]
        seat.auto = mode
        seat.due = None
        self._persist_seats()
        actions = self._emit(lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=mode))
        self._schedule(now)
        return actions

    def _vote_finish(self, index: int, now: float) -> list[Action]:
        phase = self.phase
        if phase is RoomPhase.WAITING:
            raise RefusedError(ErrorCode.GAME_NOT_STARTED, "the game waits for players to join")
        if phase is RoomPhase.OVER:
            raise RefusedError(ErrorCode.GAME_OVER, "the game is over already")
        seat = self._seats[index]
        if seat.finish_vote:
            return []
        seat.finish_vote = True
        actions = self._emit(lambda seq: FinishVoted(seq=seq, seat=index))
        return actions + self._finish_if_agreed(now)

    def _finish_if_agreed(self, now: float) -> list[Action]:
        humans = [seat for seat in self._seats if seat.human]
        if self.phase is not RoomPhase.PLAYING or not humans:
            return []
        if not all(seat.finish_vote for seat in humans):
            return []
        self.game.finish()
        self._persist_or_rewind(lambda: self._store.record_finish(self.room_id, self.seq))
        self._record = dataclasses.replace(self._record, finished=True)
        actions = self._emit(lambda seq: game_over_message(self.game, seq))
        return actions + self._after_play((), now)

    def _vote_rematch(self, index: int, deal: RematchDeal, now: float) -> list[Action]:
        phase = self.phase
        if phase is RoomPhase.WAITING:
            raise RefusedError(ErrorCode.GAME_NOT_STARTED, "the game waits for players to join")
        if phase is RoomPhase.PLAYING:
            raise RefusedError(ErrorCode.GAME_IN_PROGRESS, "a rematch is for a finished game")
        seat = self._seats[index]
        if seat.rematch_vote is deal:
            return []
        seat.rematch_vote = deal
        actions = self._emit(lambda seq: RematchVoted(seq=seq, seat=index, deal=deal))
        return actions + self._rematch_if_agreed(now)

    def _rematch_if_agreed(self, now: float) -> list[Action]:
        humans = [seat for seat in self._seats if seat.human]
        if self.phase is not RoomPhase.OVER or not humans:
            return []
        if any(seat.rematch_vote is None for seat in humans):
            return []
        same = all(seat.rematch_vote is RematchDeal.SAME for seat in humans)
        deal = self._record.deal if same else new_deal(self._random)
        self._record = GameRecord(
            number=self._record.number + 1, deal=deal, revealed=same, started=False
        )
        self.game = engine.Game(self.rules, deal)
        return self._start(now)

    def _start_if_full(self, now: float) -> list[Action]:
        if self.phase is RoomPhase.WAITING and all(s.name is not None for s in self._seats):
            return self._start(now)
        return []

    def _start(self, now: float) -> list[Action]:
        deadline = None if self.minutes is None else now + self.minutes * 60.0
        self._record = dataclasses.replace(self._record, started=True, deadline=deadline)
        self._store.record_game(self.room_id, self._record, self.seq)
        for seat in self._seats:
            seat.ready = False
            seat.due = None
            seat.finish_vote = False
            seat.rematch_vote = None
        record = self._record
        counts = self.game.counts
        actions = self._emit(
            lambda seq: GameStarted(
                seq=seq,
                game=record.number,
                counts=counts,
                deal=record.deal if record.revealed else None,
            )
        )
        if self._log is not None:
            self._log.info("game_started", game=record.number, revealed=record.revealed)
        waiting = self.waiting_for()
        actions += self._emit(lambda seq: WaitingFor(seq=seq, seats=waiting))
        self._schedule(now)
        return actions

    def _leave(self, conn: ConnId, now: float) -> list[Action]:
        bye = Close(conn, CloseCode.NORMAL, "left the room")
        if conn in self._spectators:
            return [*self.disconnect(conn, now), bye]
        index = self.seat_of(conn)
        if index is None:
            return [bye]
        seat = self._seats[index]
        seat.conn = None
        seat.token_hash = seat.previous_token_hash = None
        seat.away_deadline = None
        seat.finish_vote = False
        seat.rematch_vote = None
        if self.phase is RoomPhase.WAITING:
            seat.name = None
            seat.auto = AutoPlay.OFF
        else:
            seat.left = True
        self._persist_seats()
        self._store.touch(self.room_id, now, self.seq)
        if self._log is not None:
            self._log.info("seat_left", seat=index)
        actions = [bye, *self._emit(lambda seq: PlayerLeft(seq=seq, seat=index))]
        if seat.left:
            actions += self._emit(
                lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=AutoPlay.QUICK)
            )
            self._schedule(now)
            actions += self._finish_if_agreed(now)
            actions += self._rematch_if_agreed(now)
        return actions

    # ------------------------------------------------------------------ helpers
    def _persist_or_rewind(self, write: Callable[[], None]) -> None:
        """Run the store ``write`` for the play just made; if it raises, the game goes back
        to what the store holds (nothing is announced) and the error propagates."""
        try:
            write()
        except BaseException:
            self.game = rebuild_game(self.rules, self._record)
            raise

    def _emit(self, build: Callable[[int], ServerMessage]) -> list[Action]:
        """Build a room message with the next seq and send it to everyone in the room."""
        return self._to_room(build(self._next_seq()))

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def _to_room(self, message: ServerMessage) -> list[Action]:
        """Send ``message`` (it has taken its seq) to everyone in the room now."""
        to = self.connections
        return [Send(to, message)] if to else []

    def _welcome(self, conn: ConnId, seat: int | None, token: str | None, now: float) -> Send:
        return Send(
            (conn,),
            Welcome(
                seq=self.seq,
                seat=seat,
                token=token,
                player_code=self.player_code if seat is not None else None,
                watch_code=self.watch_code,
                state=self.state(now),
            ),
        )

    def _persist_seats(self) -> None:
        self._store.update_seats(
            self.room_id, tuple(seat.record() for seat in self._seats), self.seq
        )

    def _set_tokens(self, seat: _Seat, latest: str | None, previous: str | None) -> None:
        """Give ``seat`` these token hashes and store them; if the store fails, the seat
        keeps its old ones and the error propagates."""
        before = seat.token_hash, seat.previous_token_hash
        seat.token_hash, seat.previous_token_hash = latest, previous
        try:
            self._persist_seats()
        except BaseException:
            seat.token_hash, seat.previous_token_hash = before
            raise

    def _confirm_token(self, seat: _Seat) -> None:
        """The seat's client has its latest token: the earlier one stops working."""
        if seat.previous_token_hash is not None:
            self._set_tokens(seat, seat.token_hash, None)

    def _schedule(self, now: float) -> None:
        """Arm the auto-play timer of every needed seat that plays by itself."""
        waiting = set(self.waiting_for())
        for index, seat in enumerate(self._seats):
            if index not in waiting:
                seat.due = None
                continue
            delay = self._delay(seat)
            if delay is None:
                seat.due = None
            elif seat.due is None:
                seat.due = now + delay

    def _delay(self, seat: _Seat) -> float | None:
        settings = self._settings
        if seat.machine:
            return settings.computer_delay
        if seat.auto is AutoPlay.CALM:
            return settings.calm_delay
        if seat.auto is AutoPlay.QUICK:
            return settings.quick_delay
        return None

    def _away_deadline(self, now: float) -> float | None:
        timeout = self._settings.away_timeout_seconds
        return now + timeout if timeout > 0 else None

    def _time_limit_due(self) -> float | None:
        record = self._record
        if record.deadline is None or self.phase is not RoomPhase.PLAYING:
            return None
        if record.stop_step is not None:
            return None
        return record.deadline

    def _seconds_left(self, now: float) -> int | None:
        deadline = self._record.deadline
        if self.minutes is None or deadline is None or not self._record.started:
            return None
        if self.phase is RoomPhase.OVER or self._record.stop_step is not None:
            return 0
        return min(self.minutes * 60, max(0, int(deadline - now)))


_VERBS: dict[type[Any], str] = {
    Ready: "turn over",
    SetAutoPlay: "set auto-play",
    VoteFinish: "vote to finish",
    Rematch: "vote for a rematch",
}
