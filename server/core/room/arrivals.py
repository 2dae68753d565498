"""Who comes to a room and who goes: the creator, a join, a spectator, a resume, a leave, a
dropped connection, and an away seat the server plays for.

Before the game starts, a join takes the lowest open seat (under a name no other seat's
looks like, `server.core.room.naming`) and a leave opens it again
(`server.core.room.phases.SEATS_OPEN`); once it has started, a join naming a connected seat
is refused with ``seat_in_use`` (names are no secret: not a failed attempt), one naming
no seat with ``room_full`` (counted as a failed attempt: someone may be guessing), and a
leave hands the seat to the computer. A join naming an away seat, in any stage, is a
request to the table (`server.core.room.takeover`), which ends in `Arrivals.rejoin`. A
resume takes back the seat of a token and issues a new one (see Tokens in
`server.core.room.room`); a connection still on the seat is closed with 4002 (replaced). A
dropped connection leaves its seat away, kept for a resume: with an away-timeout the
server then plays it at the calm pace until its player returns. An away seat never
holds a vote up.
"""

from __future__ import annotations

import dataclasses

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    ConnectionChanged,
    ErrorCode,
    PlayerJoined,
    PlayerLeft,
    SpectatorsChanged,
)
from protocol.closecodes import CloseCode
from server.core.codes import RandomSource, hash_token, new_token, token_matches
from server.core.refusals import Refusal
from server.core.room import fairdeal, phases
from server.core.room.actions import Action, Close, ConnId, Effects
from server.core.room.naming import name_refusal
from server.core.room.phases import Who
from server.core.room.play import Play
from server.core.room.records import SeatRecord
from server.core.room.seats import OPEN_SEAT
from server.core.room.table import Table

__all__ = ["Arrivals"]


class Arrivals:
    """The arrivals and departures at ``table`` (``play``: the game they may start, end or
    unblock); ``random`` draws tokens; at most ``max_spectators`` watch."""

    def __init__(
        self, table: Table, play: Play, *, random: RandomSource, max_spectators: int
    ) -> None:
        self._table = table
        self._play = play
        self._random = random
        self._max_spectators = max_spectators

    # ------------------------------------------------------------------ arrivals
    def open_for_creator(self, conn: ConnId, token: str, now: float) -> Effects:
        """The creator (seat 0, built with ``token``'s hash) arrives on ``conn``: every seat
        taken at creation is announced, the creator welcomed, and the game starts if the
        computer fills every other seat."""
        table = self._table
        actions: list[Action] = []
        numbers = table.seats.computer_numbers()
        for index, seat in enumerate(table.seats):
            if seat.name is not None:
                joined = PlayerJoined(
                    seq=table.next_seq(),
                    seat=index,
                    name=seat.name,
                    computer=seat.computer,
                    computer_number=numbers[index],
                )
                actions += table.to_room(joined)
        table.seats.attach(0, conn)
        table.seats[0].away_deadline = None
        actions.append(table.welcome(conn, 0, token, now))
        if table.log is not None:
            table.log.info("room_created", seat=0, players=table.rules.players)
        return table.effects(actions + self._play.start_if_full(now))

    def join(self, conn: ConnId, name: str, now: float, commitment: str | None = None) -> Effects:
        """``conn`` takes the lowest open seat as ``name`` or, if a seat named exactly
        ``name`` is away, takes that seat back; ``commitment``: its seed commitment."""
        table = self._table
        refused = phases.refusal("join_room", table.stage, Who.NEWCOMER)
        if refused is not None:
            return table.effects([], refused)
        started = table.stage.started
        if started and table.seats.connected_named(name) is not None:  # names are no secret
            text = "a player of that name is at the table; only their own device takes the seat"
            return table.effects([], Refusal(ErrorCode.SEAT_IN_USE, text))
        index = table.seats.open_seat()
        if index is None:
            text = "every seat is taken" + (" and no seat of that name is away" if started else "")
            return table.effects([], Refusal(ErrorCode.ROOM_FULL, text, failed_attempt=started))
        refused = name_refusal(name, table.seats)
        if refused is not None:
            return table.effects([], refused)
        token = new_token(self._random)
        table.seats.set(index, SeatRecord(name, hash_token(token)))
        self._commit(index, commitment)
        table.active_at(now)
        actions = table.emit(lambda seq: PlayerJoined(seq=seq, seat=index, name=name))
        table.seats.attach(index, conn)
        actions.append(table.welcome(conn, index, token, now))
        if table.log is not None:
            table.log.info("seat_joined", seat=index)
        return table.effects(actions + self._play.start_if_full(now))

    def _commit(self, index: int, commitment: str | None) -> None:
        """Seat ``index``'s seed commitment for the fair deal of a game not yet started."""
        table = self._table
        fair = table.game_record.fair
        if fair is not None and fair.commitments[index] != commitment:
            fair = fairdeal.with_commitment(fair, index, commitment)
            table.set_game(dataclasses.replace(table.game_record, fair=fair))

    def rejoin(
        self, index: int, conn: ConnId, now: float, commitment: str | None = None
    ) -> list[Action]:
        """Seat ``index``, away, is taken back on ``conn`` without its token (``join_room``
        with the player code and the seat's name, allowed: `server.core.room.takeover`). A new
        token is issued; the earlier ones stop working here (the takeover keeps them for
        a way back). The table is told (``rejoined``). Before the game starts, the new
        device's seed ``commitment`` replaces the old one's (nobody can reveal yet); after,
        a seed the old device owed cannot come from this one: the caller voids the deal
        (`void_owed`) once it has told the table the request ended, so that the void
        follows the takeover it comes from."""
        table = self._table
        if not table.stage.started:
            self._commit(index, commitment)
        fresh = new_token(self._random)
        table.seats.change(index, token_hash=hash_token(fresh), previous_token_hash=None)
        table.active_at(now)
        actions = table.emit(
            lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True, rejoined=True)
        )
        table.seats.attach(index, conn)
        table.seats[index].away_deadline = None
        actions.append(table.welcome(conn, index, fresh, now))
        if table.log is not None:
            table.log.info("seat_rejoined", seat=index)
        return actions + self.back_from_away(index, now)

    def void_owed(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` was taken over (`rejoin`) on a device without the seed its old
        device owed the game's fair deal: the deal is void (nothing if it owed none)."""
        return self._play.void(index, now)

    def watch(self, conn: ConnId, now: float) -> Effects:
        """``conn`` watches. Refused with spectators_full at the cap."""
        table = self._table
        refused = phases.refusal("watch_room", table.stage, Who.NEWCOMER)
        if refused is None and table.seats.spectators >= self._max_spectators:
            text = f"this room has its {self._max_spectators} spectators"
            refused = Refusal(ErrorCode.SPECTATORS_FULL, text)
        if refused is not None:
            return table.effects([], refused)
        count = table.seats.spectators + 1
        actions = table.emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        table.seats.watch(conn)
        actions.append(table.welcome(conn, None, None, now))
        return table.effects(actions)

    def resume(self, conn: ConnId, token: str, now: float) -> Effects:
        """``conn`` takes back the seat of ``token`` (its latest token, or the one before
        while the latest is unconfirmed); a new token is issued (stored first). Refused
        with bad_token if no seat takes this token."""
        table = self._table
        refused = phases.refusal("resume_seat", table.stage, Who.NEWCOMER)
        index = table.seats.holding(token)
        if refused is None and index is None:
            refused = Refusal(ErrorCode.BAD_TOKEN, "this seat token is unknown or was replaced")
        if refused is not None or index is None:
            return table.effects([], refused)
        seat = table.seats[index]
        lost_welcome = not token_matches(token, seat.record.token_hash)
        fresh = new_token(self._random)
        table.seats.change(
            index, token_hash=hash_token(fresh), previous_token_hash=hash_token(token)
        )
        table.active_at(now)
        actions: list[Action] = []
        if seat.conn is not None:
            actions.append(
                Close(seat.conn, CloseCode.REPLACED, "seat resumed on another connection")
            )
            event = "seat_replaced"
        else:
            actions += table.emit(
                lambda seq: ConnectionChanged(seq=seq, seat=index, connected=True)
            )
            seat.away_deadline = None
            event = "seat_resumed"
        table.seats.attach(index, conn)
        if table.log is not None:
            table.log.info(event, seat=index, earlier_token=lost_welcome)
        actions.append(table.welcome(conn, index, fresh, now))
        return table.effects(actions + self.back_from_away(index, now))

    def confirm(self, index: int) -> None:
        """Any message from seat ``index``'s connection confirms the token it was welcomed
        with: the earlier one stops working."""
        seats = self._table.seats
        if seats[index].record.previous_token_hash is not None:
            seats.change(index, previous_token_hash=None)

    # ------------------------------------------------------------------ away
    def play_for_away(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` has been away past the away-timeout: the server plays it at the
        calm pace until its player returns, and tells the table so."""
        table = self._table
        seat = table.seats[index]
        table.seats.play_for_away(index, True)
        seat.due = None
        if table.log is not None:
            table.log.info("seat_played_while_away", seat=index)
        actions = table.emit(
            lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=AutoPlay.CALM, away=True)
        )
        table.schedule(now)
        return actions

    def back_from_away(self, index: int, now: float) -> list[Action]:
        """Seat ``index``'s player is back: if the server was playing for them, it stops
        and says so (after their welcome, which still shows the calm pace)."""
        table = self._table
        seat = table.seats[index]
        if not seat.away_play:
            return []
        table.seats.play_for_away(index, False)
        seat.due = None
        mode = seat.auto
        actions = table.emit(lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=mode, away=True))
        table.schedule(now)
        return actions

    # ------------------------------------------------------------------ departures
    def disconnect(self, conn: ConnId, now: float) -> list[Action]:
        """``conn`` is gone: its seat is away (kept for a resume), or one spectator fewer."""
        table = self._table
        table.active_at(now)
        seats = table.seats
        if seats.watching(conn):
            seats.unwatch(conn)
            count = seats.spectators
            return table.emit(lambda seq: SpectatorsChanged(seq=seq, count=count))
        index = seats.seat_of(conn)
        if index is None:
            return []
        seat = seats[index]
        seats.attach(index, None)
        seat.away_since = now
        if seat.auto is AutoPlay.OFF or self._play.unrevealed(index):
            # (a seat that owes its seed voids the deal once away that long, auto-play or not)
            seat.away_deadline = table.pacing.away_deadline(now)
        if table.log is not None:
            table.log.info("seat_away", seat=index)
        actions = table.emit(lambda seq: ConnectionChanged(seq=seq, seat=index, connected=False))
        # an away seat does not hold a vote up, nor a fresh deal's commitments: the others'
        # may now be complete
        play = self._play
        return (
            actions
            + play.finish_if_agreed(now)
            + play.rematch_if_agreed(now)
            + (play.collect_if_done(now))
        )

    def leave(self, conn: ConnId, now: float) -> list[Action]:
        """``conn`` leaves (``leave``): a spectator is gone; a seat opens again before the
        start, or the computer plays it from then on; the connection is closed (1000)."""
        table = self._table
        bye = Close(conn, CloseCode.NORMAL, "left the room")
        seats = table.seats
        if seats.watching(conn):
            return [*self.disconnect(conn, now), bye]
        index = seats.seat_of(conn)
        if index is None:
            return [bye]
        seat = seats[index]
        seats.attach(index, None)
        seat.away_deadline = None
        seats.play_for_away(index, False)
        record = table.game_record
        table.set_game(
            dataclasses.replace(
                record,
                finish_votes=tuple(vote for vote in record.finish_votes if vote != index),
                rematch_votes=tuple(vote for vote in record.rematch_votes if vote[0] != index),
            )
        )
        table.set_game(
            dataclasses.replace(
                table.game_record,
                rematch_commitments=tuple(
                    c for c in table.game_record.rematch_commitments if c[0] != index
                ),
            )
        )
        if table.stage in phases.SEATS_OPEN:
            seats.set(index, OPEN_SEAT)
            self._commit(index, None)
        else:
            seats.change(index, token_hash=None, previous_token_hash=None, left=True)
        if table.log is not None:
            table.log.info("seat_left", seat=index)
        actions = [bye, *table.emit(lambda seq: PlayerLeft(seq=seq, seat=index))]
        if seat.computer:  # the computer plays it from now on
            actions += self._play.void(index, now)  # a seed it owed is never revealed now
            actions += table.emit(
                lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=AutoPlay.QUICK)
            )
            actions += self._play.collect_if_done(now)
            table.schedule(now)
            actions += self._play.finish_if_agreed(now)
            actions += self._play.rematch_if_agreed(now)
        return actions
