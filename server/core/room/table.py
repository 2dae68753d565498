"""The table: what the parts of a room share, and how a room tells everyone at it.

A room (`server.core.room.room.Room`) is its `Table` — its seats and spectators, its game and
the game's record (with the stage), its ``seq`` — and two sets of commands over it: the
arrivals and departures of people (`server.core.room.arrivals`) and the game
(`server.core.room.play`). The table builds the room's record (`Table.record`), moves its
stage (`Table.advance`, the one place: by `server.core.room.phases.TRANSITIONS`), numbers and
addresses its messages (`Table.emit`), and arms its seats' timers (`Table.schedule`).
The commands over it read its attributes but change the room's state through its
methods alone (`Table.set_game`, `set_displaced`, `set_asked`, `active_at`; a test
checks that no other module of the room assigns an attribute of the table).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType

from protocol import RematchDeal, RoomPhase, RoomState, ServerMessage, TalkSetting
from server import engine
from server.core.logger import Logger
from server.core.refusals import Refusal
from server.core.room import fairdeal, phases
from server.core.room.actions import Action, ConnId, Effects, Send
from server.core.room.pacing import Pacing
from server.core.room.phases import Event, Stage, Who
from server.core.room.records import DisplacedRecord, EveningRecord, GameRecord, RoomRecord
from server.core.room.seats import Seats
from server.core.room.talk import clamp, with_game
from server.core.room.view import room_state, welcome
from server.core.room.wire import card_labels, rules_spec

__all__ = ["Table"]

_AWAITS_READIES = phases.accepted("ready", Who.SEAT)
"""The stages whose game waits for readies (and runs the seats' auto-play)."""


class Table:
    """A room's shared state, built from its ``record``. Raises ValueError (or the
    engine's `RulesError`) for a record that does not describe a room."""

    def __init__(self, record: RoomRecord, *, pacing: Pacing, logger: Logger | None) -> None:
        self.room_id = record.room_id
        self.player_code = record.player_code
        self.watch_code = record.watch_code
        self.rules = record.rules
        self.minutes = record.minutes
        self.created = record.created
        self.last_active = record.last_active  # a restart is no activity
        self.seq = record.seq
        self.pacing = pacing
        self.log = None if logger is None else logger.bind(room=record.room_id)
        if len(record.seats) != self.rules.players:
            raise ValueError(f"{len(record.seats)} seats for {self.rules.players} players")
        _check_flags(record.game, len(record.seats))
        self.game_record = record.game
        """The current game as it is to be stored (deal, stage, steps, time stop, flags)."""
        self.game = record.game.replay(self.rules)
        _check_stage(record.game, self.game)
        self.rules_spec = rules_spec(self.rules)
        """The rules as the wire shows them."""
        self.card_labels = card_labels(self.rules)
        """Every card's label on the wire, by card number (its messages name cards)."""
        self.seats = Seats(record.seats)
        self.talk_setting = TalkSetting(record.talk_setting)
        """The setting the room was created with (`server.core.room.talk.clamp` lowers it to
        the server's ``--talk``)."""
        self.talk_most = TalkSetting.ALL
        """The most the server allows (its ``--talk``; the room sets it)."""
        self.talk = record.talk
        """The last messages and reactions (`server.core.room.talk`), oldest first."""
        self.evening = record.evening
        """The room's finished games, oldest first."""
        _check_displaced(record)
        self.displaced = record.displaced
        """The token hashes of the devices seats were taken from (`server.core.room.takeover`)."""
        self.asked: tuple[int, float] | None = None
        """The seat an open request asks for and when it expires (`server.core.room.takeover`
        keeps it; not stored: a restart drops the request with its asker's connection)."""
        self.played = record.game.steps > 0 or bool(record.evening)
        """A person turned a card in this room (or it was stored with cards turned): not
        an empty shell, which goes sooner when nobody is in it (`server.core.hub.rooms`);
        the server's play of away seats does not count."""
        self.addresses: Mapping[ConnId, str] = MappingProxyType({})
        """The address key each connection comes from (`server.core.budgets.address_key`):
        a read-only view of the hub's, which keeps it as connections come and go
        (`server.core.hub.rooms.Rooms` gives it to every room built); a value the table
        reads, never a function of the hub's it calls. By default (and for a connection
        it does not hold) each connection is an address of its own (`address`)."""
        self.playing_out = record.game.stage in phases.PLAYING_OUT
        """The room's stage is the one whose game is played out a slice at a time
        (`phases.PLAYING_OUT`): the hub's play-out queue has its time, it runs no timer of
        its own. Kept by `advance`, the one place the stage moves: no other module asks
        which stage that is."""
        self._stored = record
        self.written: RoomRecord | None = record
        """The room's record as the store holds it once the changes returned so far are
        stored (None: a new room, not written yet): the ``before`` of its next write
        (`server.core.hub.rooms.Rooms` keeps it)."""
        self.note_game_over()  # a room stored before it kept an evening, or mid-finish
        if self.playing_out:  # a restart mid-finish: the replay finished it
            self.advance(Event.PLAYED_OUT)

    # ------------------------------------------------------------------ queries
    def address(self, conn: ConnId) -> str:
        """The address key ``conn`` counts under (`addresses`)."""
        return self.addresses.get(conn) or f"#{conn}"

    @property
    def stage(self) -> Stage:
        return self.game_record.stage

    @property
    def phase(self) -> RoomPhase:
        return self.game_record.stage.phase

    @property
    def awaits_readies(self) -> bool:
        """The game waits for its seats' readies (the phase table accepts ``ready``)."""
        return self.game_record.stage in _AWAITS_READIES

    @property
    def talk_allowed(self) -> TalkSetting:
        """Who may talk here now: the room's setting within the server's."""
        return clamp(self.talk_setting, self.talk_most)

    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose ready the game waits for now (empty unless it waits for readies)."""
        if self.game_record.stage not in _AWAITS_READIES:
            return ()
        fair = self.game_record.fair
        if fair is not None and fair.collecting:
            return ()  # a fresh deal after a void waits for commitments, not readies
        ready = self.game_record.ready
        return tuple(s for s in self.game.next_seats if s not in ready)

    def record(self) -> RoomRecord:
        """The room as it is to be stored now (what a room is rebuilt from).

        The same object while nothing but ``last_active`` changed: ``last_active`` is
        taken along with the next real change.
        """
        stored = self._stored
        if (
            stored.seq != self.seq
            or stored.game is not self.game_record
            or stored.seats is not self.seats.records
            or stored.talk is not self.talk
            or stored.evening is not self.evening
            or stored.displaced is not self.displaced
        ):
            stored = self._stored = RoomRecord(
                room_id=self.room_id,
                player_code=self.player_code,
                watch_code=self.watch_code,
                rules=self.rules,
                minutes=self.minutes,
                seats=self.seats.records,
                game=self.game_record,
                created=self.created,
                last_active=self.last_active,
                seq=self.seq,
                talk_setting=self.talk_setting.value,
                talk=self.talk,
                evening=self.evening,
                displaced=self.displaced,
            )
        return stored

    def state(self, now: float) -> RoomState:
        """The room as everyone at the table sees it (nothing hidden)."""
        return room_state(self, now)

    def welcome(self, conn: ConnId, seat: int | None, token: str | None, now: float) -> Send:
        """The ``welcome`` of ``conn``, at ``seat`` with ``token``, or watching."""
        return welcome(self, conn, seat, token, now)

    # ------------------------------------------------------------------ changes
    def note_game_over(self) -> None:
        """If the game is over, add it to the evening (once)."""
        outcome = self.game.outcome
        if outcome is None:
            return
        record = self.game_record
        entry = EveningRecord(
            record.number,
            record.deal,
            outcome.winner,
            outcome.termination.value,
            self.game.summary.rounds,
            tuple(seat.name for seat in self.seats),
        )
        self.evening = with_game(self.evening, entry)

    def set_game(self, record: GameRecord, game: engine.Game | None = None) -> None:
        """The game's record is ``record`` from now on (and, with a new deal, the engine's
        game is ``game``): the one way the commands over the table change the game
        (its stage moves by `advance` alone)."""
        self.game_record = record
        if game is not None:
            self.game = game

    def set_displaced(self, displaced: tuple[DisplacedRecord, ...]) -> None:
        """The token hashes of the devices seats were taken from are ``displaced``."""
        self.displaced = displaced

    def set_asked(self, asked: tuple[int, float] | None) -> None:
        """The seat an open request asks for and when it expires (None: no request)."""
        self.asked = asked

    def active_at(self, now: float) -> None:
        """Something happened in the room at ``now`` (its idle time starts again)."""
        self.last_active = now

    def advance(self, event: Event) -> None:
        """The one place the room's stage moves: by `phases.TRANSITIONS`."""
        record = self.game_record
        stage = phases.advance(record.stage, event)
        if stage is not record.stage:
            self.game_record = dataclasses.replace(record, stage=stage)
            self.playing_out = stage in phases.PLAYING_OUT

    def emit(self, build: Callable[[int], ServerMessage]) -> list[Action]:
        """Build a room message with the next seq and send it to everyone in the room."""
        return self.to_room(build(self.next_seq()))

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def to_room(self, message: ServerMessage) -> list[Action]:
        """Send ``message`` (it has taken its seq) to everyone in the room now."""
        to = self.seats.connections
        return [Send(to, message)] if to else []

    def schedule(self, now: float, waiting: tuple[int, ...] | None = None) -> None:
        """Arm the auto-play timer of every needed seat that plays by itself (``waiting``:
        `waiting_for`, if the caller has it)."""
        seats = self.seats
        if not seats.paced:  # no seat readies by itself: no timer to arm, any old one off
            for seat in seats:
                seat.due = None
            return
        waiting = self.waiting_for() if waiting is None else waiting
        fair = self.game_record.fair
        if fair is not None and not fair.settled:  # never readied without its seed
            waiting = tuple(seat for seat in waiting if not fairdeal.unrevealed(fair, seat))
        self.pacing.schedule(seats, waiting, now)

    def effects(
        self, actions: list[Action], refused: Refusal | None = None, *, work: int = 0
    ) -> Effects:
        """``actions``, the record to store before them, and the engine work done."""
        return Effects(actions, self.record(), refused, work)


def _check_flags(game: GameRecord, seats: int) -> None:
    """Raise ValueError unless every flag and vote of ``game`` names one of ``seats``."""
    named = (*game.ready, *game.finish_votes, *(seat for seat, _ in game.rematch_votes))
    if any(not 0 <= seat < seats for seat in named):
        raise ValueError(f"a flag or vote of a seat beyond the {seats} seats: {named}")
    if game.voids and len(game.voids) != seats:
        raise ValueError(f"voids of {len(game.voids)} seats in a room of {seats}")
    for _, deal in game.rematch_votes:
        RematchDeal(deal)  # raises ValueError for an unknown deal


def _check_displaced(record: RoomRecord) -> None:
    """Raise ValueError unless every displaced token's seat (and who allowed it) is one
    of ``record``'s seats."""
    seats = len(record.seats)
    for displaced in record.displaced:
        named = (displaced.seat, *(() if displaced.by is None else (displaced.by,)))
        if any(not 0 <= seat < seats for seat in named):
            raise ValueError(f"a displaced token of a seat beyond the {seats} seats: {named}")


def _check_stage(record: GameRecord, game: engine.Game) -> None:
    """Raise ValueError unless ``record``'s stage is the one its replayed ``game`` is in
    (`phases.replays_as`)."""
    started = record.steps != 0 or record.stop_step is not None
    over = game.outcome is not None
    if not phases.replays_as(record.stage, started=started, finished=record.finished, over=over):
        raise ValueError(f"a game stored as {record.stage.value} does not replay as one")
