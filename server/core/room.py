"""One room, sans-I/O: seats, spectators, ready flags, auto-play, votes, limits, resume.

A `Room` is built from its `RoomRecord`: a new room, a room loaded after a restart and a
room rebuilt after a failed write take the same path (the engine replays the recorded
steps). A room never touches the store. Every call takes ``now`` (wall-clock seconds,
from the caller) and returns `Effects`: the actions to carry out and the room's record,
which the hub stores before it lets the actions out (persist, then broadcast). If that
write fails, the hub throws this room away and builds it again from the stored record.

Which command is accepted in which stage, and from whom, is the table of
`server.core.phases` (``waiting`` → ``playing`` (→ ``finishing``) → ``over`` →
``playing`` …); the room consults it first. A refused command changes nothing (but its
message still confirms its seat's token, see Tokens below): the refusal comes back in
`Effects.refused`. A refused opening call (join, watch, resume) raises `RefusedError`
instead, having changed nothing.

Seats: a *human* seat has a name and a token hash; a *computer* seat (chosen at creation,
or a human seat whose player left a started game) readies ``computer_delay`` after it is
needed. A human seat on auto-play readies ``calm_delay`` or ``quick_delay`` after it is
needed; without auto-play the game waits for it, connected or not ("away"). With an
away-timeout, an away seat goes on calm auto-play once the timeout has passed. Ready
flags and finish and rematch votes are in the record: they survive a restart.

Finishing: when every voter has voted to finish, the record says so (``finished``) and
the room is ``finishing``: the hub's play-out queue (`server.core.playout`) has it play
the rest out a slice at a time (`Room.play_slice`), and runs none of its timers
meanwhile; ``game_over`` goes out with the last slice. No events are sent for the steps
played out. A room rebuilt from a record that says ``finished`` plays the rest out at
once (a restart mid-finish finishes it). `Effects.work` reports the work of a slice.

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
from protocol.votes import finish_voters, rematch_voters
from server import engine
from server.core import phases
from server.core.actions import Action, Close, ConnId, Effects, Refusal, Send
from server.core.codes import RandomSource, hash_token, new_deal, new_token, token_matches
from server.core.logger import Logger
from server.core.phases import Stage, Who
from server.core.records import GameRecord, RoomRecord, SeatRecord
from server.core.wire import event_message, game_over_message, game_result, rules_spec
from server.errors import RefusedError

__all__ = ["PLAY_OUT_SLICE", "InRoomMessage", "Room", "RoomSettings", "played"]

PLAY_OUT_SLICE = 256 * engine.STEP_WORK
"""The engine work one call may spend playing a finish vote's game out: 256 steps of the
step path or 4,096 of the two-player fast path, under 2 ms either way on the machine of
docs/performance.md (a few on a small board computer)."""

InRoomMessage = Ready | SetAutoPlay | VoteFinish | Rematch | Leave | Resync
"""The client messages a room handles (opening messages are the hub's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomSettings:
    """Paces and limits of a room, in seconds (0 away-timeout = never)."""

    max_spectators: int = 20
    away_timeout_seconds: float = 120.0
    calm_delay: float = 1.5
    quick_delay: float = 0.3
    computer_delay: float = 0.6
    play_out_slice: int = PLAY_OUT_SLICE


_OPEN_SEAT = SeatRecord()


@dataclass(slots=True)
class _Seat:
    """A seat: its stored part (``record``, replaced on every change, never mutated,
    with what follows from it) and what only lives in memory. Its ready flag and votes
    are in the game's record (`GameRecord`)."""

    record: SeatRecord
    auto: AutoPlay = AutoPlay.OFF
    human: bool = False
    """A person plays this seat (it may be away)."""
    machine: bool = False
    """The computer plays this seat (chosen at creation, or the player left)."""
    conn: ConnId | None = None
    due: float | None = None
    """When auto-play / the computer readies this seat."""
    away_deadline: float | None = None
    """When the away-timeout puts this seat on calm auto-play."""
    away_play: bool = False
    """The server plays this seat at the calm pace while its player is away (past the
    away-timeout); the stored ``auto`` stays the player's own. Not stored: after a restart
    the away-timeout runs again."""

    def __post_init__(self) -> None:
        self.set(self.record)

    def set(self, record: SeatRecord) -> None:
        """Take ``record`` as the stored part."""
        self.record = record
        self.auto = AutoPlay(record.auto)
        self.human = record.name is not None and not record.computer and not record.left
        self.machine = record.computer or record.left

    @property
    def name(self) -> str | None:
        return self.record.name

    @property
    def mode(self) -> AutoPlay:
        """The auto-play in force: the player's own, or calm while the server plays for
        them."""
        return AutoPlay.CALM if self.away_play else self.auto

    @property
    def computer(self) -> bool:
        return self.record.computer

    @property
    def left(self) -> bool:
        return self.record.left

    def holds(self, token: str) -> bool:
        """Whether ``token`` resumes this seat: its latest token, or the unconfirmed one's
        predecessor (both compared in constant time)."""
        latest = token_matches(token, self.record.token_hash)
        previous = token_matches(token, self.record.previous_token_hash)
        return self.human and (latest or previous)


def played(record: GameRecord, steps: int, ready: tuple[int, ...]) -> GameRecord:
    """``record`` with ``steps`` played and the seats ``ready`` ready: what every ready and
    every step changes, built directly (several times faster than `dataclasses.replace`;
    a test checks that it keeps every other field)."""
    return GameRecord(
        number=record.number,
        deal=record.deal,
        revealed=record.revealed,
        started=record.started,
        steps=steps,
        stop_step=record.stop_step,
        finished=record.finished,
        deadline=record.deadline,
        ready=ready,
        finish_votes=record.finish_votes,
        rematch_votes=record.rematch_votes,
    )


class Room:
    """One room. Build it with ``Room(record, settings=..., random=..., now=...)``.

    ``logger`` (optional, a structlog logger) gets one line per room event worth knowing,
    bound with the room id; never a code or a token. Raises ValueError (or the engine's
    `RulesError`) for a record that does not describe a room.
    """

    def __init__(
        self,
        record: RoomRecord,
        *,
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
        self.last_active = record.last_active  # a restart is no activity
        self.seq = record.seq
        self._settings = settings
        self._random = random
        self._log = None if logger is None else logger.bind(room=record.room_id)
        if len(record.seats) != self.rules.players:
            raise ValueError(f"{len(record.seats)} seats for {self.rules.players} players")
        _check_flags(record.game, len(record.seats))
        self._record = record.game
        self.game = record.game.replay(self.rules)
        self._spec = rules_spec(self.rules)
        self._seats = [_Seat(seat) for seat in record.seats]
        self._seat_records = record.seats
        self._spectators: dict[ConnId, None] = {}
        self._connections: tuple[ConnId, ...] | None = ()
        self._stored = record
        for seat in self._seats:
            if seat.human and seat.auto is AutoPlay.OFF:
                seat.away_deadline = self._away_deadline(now)
        self._schedule(now)

    # ------------------------------------------------------------------ queries
    @property
    def stage(self) -> Stage:
        """Waiting for players, playing, finishing (a finish vote's play-out), or over."""
        if not self._record.started:
            return Stage.WAITING
        if self.game.outcome is not None:
            return Stage.OVER
        if self._record.finished:
            return Stage.FINISHING
        return Stage.PLAYING

    @property
    def phase(self) -> RoomPhase:
        """Waiting for players, playing, or over, as the wire says (finishing: playing)."""
        return self.stage.phase

    @property
    def game_record(self) -> GameRecord:
        """The current game as it is to be stored (deal, steps, time stop, finish, flags)."""
        return self._record

    def record(self) -> RoomRecord:
        """The room as it is to be stored now (what `Room` is rebuilt from).

        The same object while nothing but ``last_active`` changed: ``last_active`` is
        taken along with the next real change.
        """
        stored = self._stored
        if (
            stored.seq != self.seq
            or stored.game is not self._record
            or stored.seats is not self._seat_records
        ):
            stored = self._stored = RoomRecord(
                room_id=self.room_id,
                player_code=self.player_code,
                watch_code=self.watch_code,
                rules=self.rules,
                minutes=self.minutes,
                seats=self._seat_records,
                game=self._record,
                created=self.created,
                last_active=self.last_active,
                seq=self.seq,
            )
        return stored

    @property
    def connections(self) -> tuple[ConnId, ...]:
        """Every connection in the room: seats in seat order, then spectators."""
        connections = self._connections
        if connections is None:
            seated = tuple(seat.conn for seat in self._seats if seat.conn is not None)
            connections = self._connections = seated + tuple(self._spectators)
        return connections

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
        if self.stage is not Stage.PLAYING:
            return ()
        ready = self._record.ready
        return tuple(s for s in self.game.next_seats if s not in ready)

    def state(self, now: float) -> RoomState:
        """The room as everyone at the table sees it (nothing hidden)."""
        game = self.game
        stage = self.stage
        phase = stage.phase
        started = phase is not RoomPhase.WAITING
        table = game.table
        active = set(game.active)
        seats = []
        record = self._record
        rematch = dict(record.rematch_votes)
        for index, seat in enumerate(self._seats):
            seats.append(
                SeatState(
                    seat=index,
                    name=seat.name,
                    computer=seat.machine,
                    connected=seat.conn is not None,
                    ready=index in record.ready,
                    auto=AutoPlay.QUICK if seat.machine else seat.mode,
                    out=started and index not in active,
                    count=game.counts[index] if started else 0,
                    face_up=tuple(engine.card_label(c, self.rules) for c in table.face_up[index]),
                    face_down=table.face_down[index],
                    finish_vote=index in record.finish_votes,
                    rematch_vote=RematchDeal(rematch[index]) if index in rematch else None,
                )
            )
        at_war = stage is Stage.PLAYING and game.phase is engine.Phase.WAR
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
        """The earliest time `wake` has something to do, or None (always while finishing:
        the play-out queue says when the next slice is due)."""
        if self.stage is Stage.FINISHING:
            return None
        times = [seat.due for seat in self._seats if seat.due is not None]
        times += [s.away_deadline for s in self._seats if s.away_deadline is not None]
        limit = self._time_limit_due()
        if limit is not None:
            times.append(limit)
        return min(times, default=None)

    # ------------------------------------------------------------------ arrivals
    def open_for_creator(self, conn: ConnId, token: str, now: float) -> Effects:
        """The creator (seat 0, built with ``token``'s hash) arrives on ``conn``.

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
        self._attach(0, conn)
        self._seats[0].away_deadline = None
        actions.append(self._welcome(conn, 0, token, now))
        if self._log is not None:
            self._log.info("room_created", seat=0, players=self.rules.players)
        return self._effects(actions + self._start_if_full(now))

    def join(self, conn: ConnId, name: str, now: float) -> Effects:
        """``conn`` takes the lowest open seat as ``name`` or, if a seat named exactly
        ``name`` is away, takes that seat back (`rejoin`).

        Refused with room_full when no seat is open and no away seat has this name; once
        the game has started that counts as a failed attempt (a guessed name).
        """
        try:
            return self._join(conn, name, now)
        except RefusedError as refusal:
            return self._effects([], _refusal(refusal))

    def _join(self, conn: ConnId, name: str, now: float) -> Effects:
        phases.check("join_room", self.stage, Who.NEWCOMER)
        away = self._away_seat_named(name)
        if away is not None:
            return self._rejoin(away, conn, now)
        index = next((i for i, s in enumerate(self._seats) if s.name is None), None)
        if index is None:
            started = self.phase is not RoomPhase.WAITING
            text = "every seat is taken" + (" and no seat of that name is away" if started else "")
            raise RefusedError(ErrorCode.ROOM_FULL, text, failed_attempt=started)
        token = new_token(self._random)
        self._set_seat(index, SeatRecord(name, hash_token(token)))
        self.last_active = now
        actions = self._emit(lambda seq: PlayerJoined(seq=seq, seat=index, name=name))
        self._attach(index, conn)
        actions.append(self._welcome(conn, index, token, now))
        if self._log is not None:
            self._log.info("seat_joined", seat=index)
        return self._effects(actions + self._start_if_full(now))

    def _away_seat_named(self, name: str) -> int | None:
        """The away seat a person named exactly ``name`` holds (same characters, same
        case; the name as it was stored), or None."""
        for index, seat in enumerate(self._seats):
            if seat.human and seat.conn is None and seat.name == name:
                return index
        return None

    def _rejoin(self, index: int, conn: ConnId, now: float) -> Effects:
        """Seat ``index``, away, is taken back on ``conn`` without its token (``join_room``
        with the player code and the seat's name: a player on a new device). A new token
        is issued; every earlier one stops working. The table is told (``rejoined``)."""
        fresh = new_token(self._random)
        self._change_seat(index, token_hash=hash_token(fresh), previous_token_hash=None)
        self.last_active = now
        actions = self._emit(
            lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True, rejoined=True)
        )
        self._attach(index, conn)
        self._seats[index].away_deadline = None
        actions.append(self._welcome(conn, index, fresh, now))
        if self._log is not None:
            self._log.info("seat_rejoined", seat=index)
        return self._effects(actions + self._back_from_away(index, now))

    def watch(self, conn: ConnId, now: float) -> Effects:
        """``conn`` watches. Refused with spectators_full at the cap."""
        try:
            return self._watch(conn, now)
        except RefusedError as refusal:
            return self._effects([], _refusal(refusal))

    def _watch(self, conn: ConnId, now: float) -> Effects:
        phases.check("watch_room", self.stage, Who.NEWCOMER)
        cap = self._settings.max_spectators
        if len(self._spectators) >= cap:
            raise RefusedError(ErrorCode.SPECTATORS_FULL, f"this room has its {cap} spectators")
        count = len(self._spectators) + 1
        actions = self._emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        self._spectators[conn] = None
        self._connections = None
        actions.append(self._welcome(conn, None, None, now))
        return self._effects(actions)

    def resume(self, conn: ConnId, token: str, now: float) -> Effects:
        """``conn`` takes back the seat of ``token``; a new token is issued (stored first).

        ``token`` is the seat's latest token, or — while that one is unconfirmed — the
        token the seat was resumed with before (the welcome carrying the latest may have
        been lost). Either way ``token`` stays accepted until the new one is confirmed
        (see the module docstring), and any other token stops working. A connection still
        on the seat is closed with 4002 (replaced).

        Refused with bad_token if no seat takes this token (a superseded one, or the
        latest token of a seat resumed since with the token before it).
        """
        try:
            return self._resume(conn, token, now)
        except RefusedError as refusal:
            return self._effects([], _refusal(refusal))

    def _resume(self, conn: ConnId, token: str, now: float) -> Effects:
        phases.check("resume_seat", self.stage, Who.NEWCOMER)
        index = next((i for i, s in enumerate(self._seats) if s.holds(token)), None)
        if index is None:
            raise RefusedError(ErrorCode.BAD_TOKEN, "this seat token is unknown or was replaced")
        seat = self._seats[index]
        lost_welcome = not token_matches(token, seat.record.token_hash)
        fresh = new_token(self._random)
        self._change_seat(
            index, token_hash=hash_token(fresh), previous_token_hash=hash_token(token)
        )
        self.last_active = now
        actions: list[Action] = []
        if seat.conn is not None:
            actions.append(
                Close(seat.conn, CloseCode.REPLACED, "seat resumed on another connection")
            )
            self._attach(index, conn)
            if self._log is not None:
                self._log.info("seat_replaced", seat=index, earlier_token=lost_welcome)
        else:
            actions += self._emit(
                lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True)
            )
            self._attach(index, conn)
            seat.away_deadline = None
            if self._log is not None:
                self._log.info("seat_resumed", seat=index, earlier_token=lost_welcome)
        actions.append(self._welcome(conn, index, fresh, now))
        return self._effects(actions + self._back_from_away(index, now))

    def _back_from_away(self, index: int, now: float) -> list[Action]:
        """Seat ``index``'s player is back: if the server was playing for them, it stops
        and says so (after their welcome, which still shows the calm pace)."""
        seat = self._seats[index]
        if not seat.away_play:
            return []
        seat.away_play = False
        seat.due = None
        mode = seat.auto
        actions = self._emit(lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=mode, away=True))
        self._schedule(now)
        return actions

    # ------------------------------------------------------------------ commands
    def handle(self, conn: ConnId, message: InRoomMessage, now: float) -> Effects:
        """A message from ``conn`` (in this room).

        Any message from a seat's connection first confirms the token that connection was
        welcomed with (in the record, even if the command is then refused): the earlier
        token stops working. A refused command comes back in `Effects.refused`.
        """
        self.last_active = now
        index = self.seat_of(conn)
        if index is not None:
            self._confirm(index)
        who = Who.SPECTATOR if index is None else Who.SEAT
        refused = phases.refusal(message.TYPE, self.stage, who)
        if refused is not None:
            return self._effects([], refused)
        try:
            return self._effects(self._command(conn, index, message, now))
        except RefusedError as refusal:  # by the command's content: nothing changed
            return self._effects([], _refusal(refusal))

    def _command(
        self, conn: ConnId, index: int | None, message: InRoomMessage, now: float
    ) -> list[Action]:
        """Carry out ``message``, which `phases.TABLE` accepts; raises `RefusedError`."""
        if isinstance(message, Resync):
            return [Send((conn,), Snapshot(seq=self.seq, state=self.state(now)))]
        if isinstance(message, Leave):
            return self._leave(conn, now)
        assert index is not None  # the table refuses the rest to spectators
        if isinstance(message, Ready):
            return self._ready(index, message.step, now)
        if isinstance(message, SetAutoPlay):
            return self._set_auto(index, message.mode, now)
        if isinstance(message, VoteFinish):
            return self._vote_finish(index, now)
        return self._vote_rematch(index, message.deal, now)

    def confirm(self, conn: ConnId, now: float) -> Effects:
        """``conn`` sent something the hub refused before the room saw it (a frame that
        did not decode, a second opening message): it still confirms the token its seat
        was welcomed with. Nothing else changes (a spectator's: nothing at all)."""
        self.last_active = now
        index = self.seat_of(conn)
        if index is not None:
            self._confirm(index)
        return self._effects([])

    def _confirm(self, index: int) -> None:
        """Seat ``index``'s latest token is confirmed: the earlier one stops working."""
        if self._seats[index].record.previous_token_hash is not None:
            self._change_seat(index, previous_token_hash=None)

    def disconnect(self, conn: ConnId, now: float) -> Effects:
        """``conn`` is gone: its seat is away (kept for a resume), or one spectator fewer."""
        return self._effects(self._disconnect(conn, now))

    def _disconnect(self, conn: ConnId, now: float) -> list[Action]:
        self.last_active = now
        if conn in self._spectators:
            del self._spectators[conn]
            self._connections = None
            count = len(self._spectators)
            return self._emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        index = self.seat_of(conn)
        if index is None:
            return []
        seat = self._seats[index]
        self._attach(index, None)
        if seat.auto is AutoPlay.OFF:
            seat.away_deadline = self._away_deadline(now)
        if self._log is not None:
            self._log.info("seat_away", seat=index)
        actions = self._emit(lambda seq: ConnectionChanged(seq=seq, seat=index, connected=False))
        # an away seat does not hold a vote up: the others' votes may now be complete
        return actions + self._finish_if_agreed(now) + self._rematch_if_agreed(now)

    def wake(self, now: float) -> Effects:
        """Run what is due at or before ``now``: the time limit, away-timeouts and
        auto-play (nothing while finishing)."""
        if self.stage is Stage.FINISHING:
            return self._effects([])
        actions: list[Action] = []
        limit = self._time_limit_due()
        if limit is not None and limit <= now:
            actions += self._time_up(now)
        for index, seat in enumerate(self._seats):
            if seat.away_deadline is not None and seat.away_deadline <= now:
                seat.away_deadline = None
                if seat.human and seat.conn is None and seat.auto is AutoPlay.OFF:
                    actions += self._play_for_away(index, now)
        for index, seat in enumerate(self._seats):
            if seat.due is not None and seat.due <= now:
                seat.due = None
                if index in self.waiting_for():
                    actions += self._mark_ready(index, now)
        return self._effects(actions)

    def _play_for_away(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` has been away past the away-timeout: the server plays it at the
        calm pace until its player returns, and tells the table so."""
        seat = self._seats[index]
        seat.away_play = True
        seat.due = None
        if self._log is not None:
            self._log.info("seat_played_while_away", seat=index)
        actions = self._emit(
            lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=AutoPlay.CALM, away=True)
        )
        self._schedule(now)
        return actions

    def close_all(self, reason: str) -> list[Action]:
        """Close every connection of the room (4003 room closed) and forget them."""
        actions: list[Action] = [
            Close(conn, CloseCode.ROOM_CLOSED, reason) for conn in self.connections
        ]
        for seat in self._seats:
            seat.conn = None
        self._spectators.clear()
        self._connections = None
        if self._log is not None:
            self._log.info("room_removed", why=reason)
        return actions

    # ------------------------------------------------------------------ the game
    def _ready(self, index: int, step: int, now: float) -> list[Action]:
        if step != self.game.steps:
            raise RefusedError(
                ErrorCode.STALE, f"ready for step {step}, but the game is at step {self.game.steps}"
            )
        if index not in self.game.next_seats:
            raise RefusedError(ErrorCode.NOT_NEEDED, f"seat {index} does not play the next flip")
        if index in self._record.ready:
            raise RefusedError(
                ErrorCode.ALREADY_READY, f"seat {index} is already ready for step {step}"
            )
        return self._mark_ready(index, now)

    def _mark_ready(self, index: int, now: float) -> list[Action]:
        seats = self._seats
        seats[index].due = None
        waiting = tuple(seat for seat in self.waiting_for() if seat != index)
        if not waiting:  # the last ready: the step clears every flag
            return self._step(now)
        if not seats[index].machine and all(seats[seat].machine for seat in waiting):
            # only the computer is left to ready: it never keeps a person waiting
            return self._step(now)
        record = self._record
        self._record = played(record, record.steps, tuple(sorted((*record.ready, index))))
        actions = self._emit(lambda seq: ReadyChanged(seq=seq, seat=index, ready=True))
        return actions + self._emit(lambda seq: WaitingFor(seq=seq, seats=waiting))

    def _step(self, now: float) -> list[Action]:
        events = self.game.step()
        self._record = played(self._record, self.game.steps, ())
        actions = self._after_play(events, now)
        if self._record.finish_votes:  # a voter may have gone out: re-check the vote
            actions += self._finish_if_agreed(now)
        return actions

    def _after_play(self, events: Iterable[engine.Event], now: float) -> list[Action]:
        """Clear the ready flags, announce ``events`` and who is awaited next."""
        if self._record.ready:
            self._record = dataclasses.replace(self._record, ready=())
        for seat in self._seats:
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
        self._schedule(now, waiting)
        return actions

    def _time_up(self, now: float) -> list[Action]:
        stopped_at = self.game.steps
        events = self.game.stop_by_time()
        self._record = dataclasses.replace(self._record, stop_step=stopped_at)
        actions = self._emit(lambda seq: TimeUp(seq=seq))
        if events:
            actions += self._after_play(events, now)
        return actions

    def _set_auto(self, index: int, mode: AutoPlay, now: float) -> list[Action]:
        if self._seats[index].auto is mode:
            return []
        return self._change_auto(index, mode, now)

    def _change_auto(self, index: int, mode: AutoPlay, now: float) -> list[Action]:
        self._change_seat(index, auto=mode.value)
        self._seats[index].due = None
        actions = self._emit(lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=mode))
        self._schedule(now)
        return actions

    def _vote_finish(self, index: int, now: float) -> list[Action]:
        votes = self._record.finish_votes
        if index in votes:
            return []
        self._record = dataclasses.replace(
            self._record, finish_votes=tuple(sorted((*votes, index)))
        )
        actions = self._emit(lambda seq: FinishVoted(seq=seq, seat=index))
        return actions + self._finish_if_agreed(now)

    def _voting_seats(self) -> list[SeatState]:
        """The seats as `protocol.votes` reads them (who holds them, whether the computer
        plays them, connected, out): the clients' own rule of who votes."""
        started = self._record.started
        active = self.game.active
        return [
            SeatState(
                seat=index,
                name=seat.name,
                computer=seat.machine,
                connected=seat.conn is not None,
                out=started and index not in active,
            )
            for index, seat in enumerate(self._seats)
        ]

    def _finish_if_agreed(self, now: float) -> list[Action]:
        votes = self._record.finish_votes
        if self.stage is not Stage.PLAYING or not votes:
            return []
        voters = finish_voters(self._voting_seats())
        if not voters or any(seat not in votes for seat in voters):
            return []
        self._record = dataclasses.replace(self._record, ready=(), finished=True)
        self._schedule(now, ())  # nobody is awaited any more
        return []

    def play_slice(self, budget: int, now: float, *, first: bool) -> Effects:
        """Play the next slice of a finish vote's play-out, about ``budget`` units of
        engine work (the play-out queue's call, `server.core.playout`): ``game_over``
        after the last one; after the ``first``, if the game goes on, tell everyone that
        nobody is awaited any more."""
        work = self.game.play_out(budget)
        if self.game.outcome is None:
            actions = self._emit(lambda seq: WaitingFor(seq=seq, seats=())) if first else []
            return self._effects(actions, work=work)
        actions = self._emit(lambda seq: game_over_message(self.game, seq))
        return self._effects(actions + self._after_play((), now), work=work)

    def _vote_rematch(self, index: int, deal: RematchDeal, now: float) -> list[Action]:
        votes = dict(self._record.rematch_votes)
        if votes.get(index) == deal.value:
            return []
        votes[index] = deal.value
        self._record = dataclasses.replace(self._record, rematch_votes=tuple(sorted(votes.items())))
        actions = self._emit(lambda seq: RematchVoted(seq=seq, seat=index, deal=deal))
        return actions + self._rematch_if_agreed(now)

    def _rematch_if_agreed(self, now: float) -> list[Action]:
        votes = dict(self._record.rematch_votes)
        if self.stage is not Stage.OVER or not votes:
            return []
        voters = rematch_voters(self._voting_seats())
        if not voters or any(seat not in votes for seat in voters):
            return []
        # the same deal again only if every vote given asked for it
        same = all(deal == RematchDeal.SAME.value for deal in votes.values())
        deal = self._record.deal if same else new_deal(self._random)
        self._record = GameRecord(
            number=self._record.number + 1, deal=deal, revealed=same, started=False
        )
        self.game = engine.Game(self.rules, deal)
        return self._start(now)

    def _start_if_full(self, now: float) -> list[Action]:
        if self.stage is Stage.WAITING and all(s.name is not None for s in self._seats):
            return self._start(now)
        return []

    def _start(self, now: float) -> list[Action]:
        deadline = None if self.minutes is None else now + self.minutes * 60.0
        self._record = dataclasses.replace(
            self._record,
            started=True,
            deadline=deadline,
            ready=(),
            finish_votes=(),
            rematch_votes=(),
        )
        for seat in self._seats:
            seat.due = None
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
            return [*self._disconnect(conn, now), bye]
        index = self.seat_of(conn)
        if index is None:
            return [bye]
        seat = self._seats[index]
        self._attach(index, None)
        seat.away_deadline = None
        seat.away_play = False
        record = self._record
        self._record = dataclasses.replace(
            record,
            finish_votes=tuple(vote for vote in record.finish_votes if vote != index),
            rematch_votes=tuple(vote for vote in record.rematch_votes if vote[0] != index),
        )
        if self.stage is Stage.WAITING:
            self._set_seat(index, _OPEN_SEAT)
        else:
            self._change_seat(index, token_hash=None, previous_token_hash=None, left=True)
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
    def _effects(
        self, actions: list[Action], refused: Refusal | None = None, *, work: int = 0
    ) -> Effects:
        """``actions``, the record to store before them, and the engine work done."""
        return Effects(actions, self.record(), refused, work)

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

    def _set_seat(self, index: int, record: SeatRecord) -> None:
        """Seat ``index`` is stored as ``record`` from now on."""
        self._seats[index].set(record)
        self._seat_records = tuple(seat.record for seat in self._seats)

    def _change_seat(self, index: int, **fields: Any) -> None:
        """Seat ``index`` is stored with these ``fields`` changed from now on."""
        self._set_seat(index, dataclasses.replace(self._seats[index].record, **fields))

    def _attach(self, index: int, conn: ConnId | None) -> None:
        """Seat ``index`` is played on ``conn`` (None: nobody is connected to it)."""
        self._seats[index].conn = conn
        self._connections = None

    def _schedule(self, now: float, waiting: tuple[int, ...] | None = None) -> None:
        """Arm the auto-play timer of every needed seat that plays by itself (``waiting``:
        `waiting_for`, if the caller has it)."""
        if waiting is None:
            waiting = self.waiting_for()
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
        if seat.machine:
            return self._computer_pace()
        return self._pace(seat.mode)

    def _pace(self, mode: AutoPlay) -> float | None:
        """Seconds an auto-play mode takes to ready (None: off)."""
        settings = self._settings
        if mode is AutoPlay.CALM:
            return settings.calm_delay
        if mode is AutoPlay.QUICK:
            return settings.quick_delay
        return None

    def _computer_pace(self) -> float:
        """The computer keeps pace with the fastest person at the table: its own delay, or
        a person's auto-play if that is quicker (quick auto-play against the computer
        flips at the quick pace). It never holds up a person who readied (`_mark_ready`)."""
        pace = self._settings.computer_delay
        for seat in self._seats:
            if seat.human:
                mine = self._pace(seat.mode)
                if mine is not None and mine < pace:
                    pace = mine
        return pace

    def _away_deadline(self, now: float) -> float | None:
        timeout = self._settings.away_timeout_seconds
        return now + timeout if timeout > 0 else None

    def _time_limit_due(self) -> float | None:
        record = self._record
        if record.deadline is None or self.stage is not Stage.PLAYING:
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


def _check_flags(game: GameRecord, seats: int) -> None:
    """Raise ValueError unless every flag and vote of ``game`` names one of ``seats``."""
    named = (*game.ready, *game.finish_votes, *(seat for seat, _ in game.rematch_votes))
    if any(not 0 <= seat < seats for seat in named):
        raise ValueError(f"a flag or vote of a seat beyond the {seats} seats: {named}")
    for _, deal in game.rematch_votes:
        RematchDeal(deal)  # raises ValueError for an unknown deal


def _refusal(error: RefusedError) -> Refusal:
    return Refusal(error.code, str(error), error.failed_attempt)
