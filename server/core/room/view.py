"""The room's view: the state everyone at the table sees (nothing hidden), and a welcome.

`room_state` is what a ``welcome``, a ``snapshot`` and the tests read: every seat (name,
whether the computer plays it, connected, ready, auto-play, out, cards, the table, its
votes), the game's step, round and war, who is awaited, the time left, the deal once
it may be known (revealed from the start, or the game is over), the room's last talk, who
may talk, its evening of finished games, and the request for an away seat open now (with
the seconds left to answer it). Face-down cards and piles are never shown.
"""

from __future__ import annotations

from typing import Protocol

from protocol import (
    AutoPlay,
    RematchDeal,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    TalkSetting,
    Welcome,
)
from protocol.seat_requests import SeatRequest
from server import engine
from server.core.room import fairdeal
from server.core.room.actions import ConnId, Send
from server.core.room.records import EveningRecord, GameRecord, TalkRecord
from server.core.room.seats import Seats
from server.core.room.talk import evening_wire, talk_wire
from server.core.room.wire import game_result

__all__ = ["Viewed", "room_state", "welcome"]


class Viewed(Protocol):
    """What the view reads of a room (`server.core.room.table.Table` is one)."""

    room_id: str
    player_code: str
    watch_code: str
    seq: int
    minutes: int | None
    rules: engine.Rules
    rules_spec: RulesSpec
    game: engine.Game
    game_record: GameRecord
    seats: Seats
    talk: tuple[TalkRecord, ...]
    evening: tuple[EveningRecord, ...]
    asked: tuple[int, float] | None

    @property
    def awaits_readies(self) -> bool: ...

    @property
    def talk_allowed(self) -> TalkSetting: ...

    def waiting_for(self) -> tuple[int, ...]: ...


def room_state(room: Viewed, now: float) -> RoomState:
    """``room`` as everyone at the table sees it at ``now``."""
    game = room.game
    record = room.game_record
    phase = record.stage.phase
    waiting = room.waiting_for()
    at_war = room.awaits_readies and game.phase is engine.Phase.WAR
    fair = record.fair
    over = phase is RoomPhase.OVER and fair is not None and fair.settled
    collecting = fair is not None and fair.collecting  # a fresh deal, shown by game_started
    return RoomState(
        room=room.room_id,
        phase=phase,
        rules=room.rules_spec,
        seats=_seats(room),
        game=record.number,
        step=game.steps,
        round=game.round,
        war_depth=game.depth if at_war else 0,
        war_seats=game.next_seats if at_war else (),
        waiting_for=waiting,
        spectators=room.seats.spectators,
        minutes=room.minutes,
        seconds_left=_seconds_left(room, now),
        deal=record.deal if record.revealed or phase is RoomPhase.OVER else None,
        result=game_result(game),
        talk=talk_wire(room.talk),
        talk_setting=room.talk_allowed,
        evening=evening_wire(room.evening),
        deal_commitment=None if fair is None or collecting else fair.deal_commitment,
        fairness=fairdeal.fairness(fair) if fair is not None and over else None,
        seat_request=_seat_request(room.asked, now),
        voids=record.voids,
        awaiting_commitments=collecting,
    )


def _seat_request(asked: tuple[int, float] | None, now: float) -> SeatRequest | None:
    """The request open now (seat, deadline) with its whole seconds left, or None."""
    if asked is None:
        return None
    seat, deadline = asked
    return SeatRequest(seat=seat, seconds=max(0, int(deadline - now)))


def welcome(room: Viewed, conn: ConnId, seat: int | None, token: str | None, now: float) -> Send:
    """The ``welcome`` of ``conn`` to ``room``: at ``seat`` with ``token`` (and the player
    code), or watching (None, None)."""
    return Send(
        (conn,),
        Welcome(
            seq=room.seq,
            seat=seat,
            token=token,
            player_code=room.player_code if seat is not None else None,
            watch_code=room.watch_code,
            state=room_state(room, now),
        ),
    )


def _seats(room: Viewed) -> tuple[SeatState, ...]:
    game = room.game
    record = room.game_record
    started = record.started
    table = game.table
    active = set(game.active)
    rematch = dict(record.rematch_votes)
    rules = room.rules
    fair = record.fair
    shown = fair is not None and not fair.collecting  # a fresh deal's, with its game_started
    committed = fair.commitments if fair is not None and shown else (None,) * len(room.seats)
    numbers = room.seats.computer_numbers()
    return tuple(
        SeatState(
            seat=index,
            name=seat.name,
            computer=seat.computer,
            computer_number=numbers[index],
            connected=seat.conn is not None,
            ready=index in record.ready,
            auto=AutoPlay.QUICK if seat.computer else seat.mode,
            out=started and index not in active,
            count=game.counts[index] if started else 0,
            face_up=tuple(engine.card_label(card, rules) for card in table.face_up[index]),
            face_down=table.face_down[index],
            finish_vote=index in record.finish_votes,
            rematch_vote=RematchDeal(rematch[index]) if index in rematch else None,
            seed_commitment=committed[index],
        )
        for index, seat in enumerate(room.seats)
    )


def _seconds_left(room: Viewed, now: float) -> int | None:
    """The time limit's seconds left (None: no limit, or the game has not started; 0 once
    it ran out or the game is over)."""
    record = room.game_record
    deadline = record.deadline
    if room.minutes is None or deadline is None or not record.started:
        return None
    if record.stage.phase is RoomPhase.OVER or record.stop_step is not None:
        return 0
    return min(room.minutes * 60, max(0, int(deadline - now)))
