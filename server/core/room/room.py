"""One room, sans-I/O: the entry points of a room's calls, and what a room is made of.

A `Room` is built from its `RoomRecord`: a new room, a room loaded after a restart and a
room rebuilt after a failed write take the same path (the engine replays the recorded
steps, `server.core.room.records.GameRecord.replay`). A room never touches the store. Every
call takes ``now`` (wall-clock seconds, from the caller) and returns `Effects`: the
actions to carry out and the room's record, which the hub stores before it lets the
actions out (persist, then broadcast), and the refusal of the command, if it was
refused (a value, never raised).

A room is its table (`server.core.room.table`: seats, game, stage, seq, its messages), the
arrivals and departures of its people (`server.core.room.arrivals`) and its game
(`server.core.room.play`); its seats are `server.core.room.seats`, their delays
`server.core.room.pacing`, what everyone sees `server.core.room.view`. Its stage is stored in its
record and moved only by the transitions of `server.core.room.phases`; which command is
accepted in which stage, and from whom, is the table of the same module, consulted
before anything else. A refused command changes nothing (but its message still confirms
its seat's token, see Tokens below). What the room checks itself is a command's own
content: the step of a ``ready``, a free seat, the spectator cap, a token.

Finishing: when every voter has voted to finish, the record says so (``finished``) and
the room is ``finishing``: the hub's play-out queue (`server.core.hub.playout`) has it play
the rest out a slice at a time (`Room.play_slice`) and runs none of its timers
meanwhile; ``game_over`` goes out with the last slice. No events are sent for the steps
played out. A room rebuilt from a record that says ``finished`` plays the rest out at
once (a restart mid-finish finishes it).

Tokens: each resume issues a new token, stored (as a hash) before the ``welcome`` that
carries it is sent. That welcome can be lost (a kill -9 of the server, a dropped
connection, before the client read it), so the token the seat was resumed with stays
accepted until the new one is *confirmed*: by a later resume with it, or by any message
the seat's client sends on the connection that received it (a client reads the welcome
before it sends anything there). Resuming with the earlier token issues yet another
token and drops the unconfirmed one. Either way one connection at most holds a seat.
"""

from __future__ import annotations

from protocol import (
    AutoPlay,
    Commit,
    ErrorCode,
    Leave,
    React,
    Ready,
    Rematch,
    Resync,
    Say,
    SetAutoPlay,
    Snapshot,
    VoteFinish,
)
from protocol.closecodes import CloseCode
from protocol.seat_requests import AnswerSeatRequest
from server.core.codes import RandomSource
from server.core.logger import Logger
from server.core.refusals import Refusal
from server.core.room import phases
from server.core.room.actions import Action, Close, ConnId, Effects, Send
from server.core.room.arrivals import Arrivals
from server.core.room.pacing import Pacing
from server.core.room.phases import Who
from server.core.room.play import Play
from server.core.room.records import RoomRecord
from server.core.room.table import Table
from server.core.room.takeover import Takeover, Times
from server.core.room.talk import (
    TalkBuckets,
    TalkSettings,
    invisible_refusal,
    talk_line,
    talk_message,
    talk_refusal,
    with_line,
)
from server.core.settings import HubSettings

__all__ = ["InRoomMessage", "Room", "spectators_per_address"]


def spectators_per_address(places: int) -> int:
    """The spectator places one address may hold in a room of ``places``: half of
    them, at least one (so one household never takes them all, unless a room has one)."""
    return max(1, places // 2)


_Command = Ready | Commit | SetAutoPlay | VoteFinish | Rematch | Leave | Resync | AnswerSeatRequest
InRoomMessage = _Command | React | Say
"""The client messages a room handles (opening messages are the hub's)."""


class Room(Table):
    """One room. Build it with ``Room(record, settings=..., random=..., now=...)``; of the
    ``settings`` it reads ``max_spectators``, ``away_timeout`` and the delays.

    A room is its table (`server.core.room.table.Table`: what it is and holds, read-only for
    everyone but the room) with the commands of `server.core.room.arrivals` and
    `server.core.room.play` over it. ``logger`` (optional, a structlog logger) gets one line
    per room event worth knowing, bound with the room id; never a code or a token.
    Raises ValueError (or the engine's `RulesError`) for a record that does not describe
    a room.
    """

    def __init__(
        self,
        record: RoomRecord,
        *,
        settings: HubSettings,
        random: RandomSource,
        now: float,
        logger: Logger | None = None,
    ) -> None:
        pacing = Pacing(
            calm=settings.calm_delay,
            quick=settings.quick_delay,
            computer=settings.computer_delay,
            away_timeout=settings.away_timeout,
        )
        super().__init__(record, pacing=pacing, logger=logger)
        self.wake_at: float | None = None
        """The deadline the hub holds for this room (`server.core.hub.rooms.Rooms` keeps
        it, and gives `server.core.hub.deadlines` only a deadline that moved)."""
        self.talk_most = settings.talk
        self.spectators_per_address = spectators_per_address(settings.max_spectators)
        self._talk_buckets = TalkBuckets(
            TalkSettings(
                say_rate=settings.say_rate,
                say_burst=settings.say_burst,
                react_rate=settings.react_rate,
                react_burst=settings.react_burst,
            )
        )
        self._play = Play(self, random)
        self._arrivals = Arrivals(
            self, self._play, random=random, max_spectators=settings.max_spectators
        )
        times = Times(
            settings.seat_request_seconds, settings.reclaim_seconds, settings.away_timeout
        )
        self._takeover = Takeover(self, self._arrivals, random=random, times=times)
        for seat in self.seats:
            seat.away_since = now
            if seat.human and seat.auto is AutoPlay.OFF:
                seat.away_deadline = pacing.away_deadline(now)
        self.schedule(now)

    # ------------------------------------------------------------------ queries
    @property
    def connections(self) -> tuple[ConnId, ...]:
        """Every connection in the room: seats in seat order, then spectators."""
        return self.seats.connections

    @property
    def spectators(self) -> int:
        """How many spectators watch."""
        return self.seats.spectators

    @property
    def abandoned(self) -> bool:
        """No human player is left: the room should be removed."""
        return self.seats.abandoned

    @property
    def talk_addresses(self) -> int:
        """How many addresses' talk buckets the room holds (for tests and tools)."""
        return len(self._talk_buckets)

    def seat_of(self, conn: ConnId) -> int | None:
        """The seat ``conn`` plays, or None (a spectator, or not in this room)."""
        return self.seats.seat_of(conn)

    def has(self, conn: ConnId) -> bool:
        """Whether ``conn`` is in this room (seated or watching)."""
        seats = self.seats
        return (
            seats.watching(conn) or seats.seat_of(conn) is not None or self._takeover.asking(conn)
        )

    def next_deadline(self) -> float | None:
        """The earliest time `wake` has something to do, or None (always while finishing:
        the play-out queue has the room's time then)."""
        record = self.game_record
        if self.playing_out:
            return None
        earliest = None if record.deadline is None else self._play.time_limit_due()
        if self.asked is not None or self.displaced:
            takeover = self._takeover.deadline  # a request's, or the forgetting of old tokens
            if takeover is not None:
                earliest = takeover if earliest is None else min(earliest, takeover)
        for seat in self.seats:  # asked after every call: no list built
            due, away = seat.due, seat.away_deadline
            if due is not None and (earliest is None or due < earliest):
                earliest = due
            if away is not None and (earliest is None or away < earliest):
                earliest = away
        return earliest

    # ------------------------------------------------------------------ arrivals
    def open_for_creator(self, conn: ConnId, token: str, now: float) -> Effects:
        """The creator (seat 0, built with ``token``'s hash) arrives on ``conn``."""
        return self._arrivals.open_for_creator(conn, token, now)

    def join(self, conn: ConnId, name: str, now: float, commitment: str | None = None) -> Effects:
        """``conn`` takes the lowest open seat as ``name`` (`server.core.room.arrivals`) or, if
        a seat of that name is away, asks the table for it (`server.core.room.takeover`);
        ``commitment``: its seed commitment for a fair deal, if its client sent one."""
        away = self.seats.away_named(name)
        if away is not None and phases.refusal("join_room", self.stage, Who.NEWCOMER) is None:
            return self._takeover.ask(away, conn, now, commitment)
        return self._arrivals.join(conn, name, now, commitment)

    def watch(self, conn: ConnId, now: float) -> Effects:
        """``conn`` watches. Refused with spectators_full at the cap, or when its address
        holds `spectators_per_address` places already."""
        address = self.address(conn)
        mine = sum(1 for other in self.seats.watchers if self.address(other) == address)
        if mine >= self.spectators_per_address:
            text = (
                f"this address watches this room {mine} times already; the other places "
                "are kept for other households"
            )
            return self.effects([], Refusal(ErrorCode.SPECTATORS_FULL, text))
        return self._arrivals.watch(conn, now)

    def resume(self, conn: ConnId, token: str, now: float) -> Effects:
        """``conn`` takes back the seat of ``token``; a new token is issued (stored first).
        A token of a seat taken over elsewhere takes it back for a while, then is told so
        (`server.core.room.takeover`)."""
        effects = self._arrivals.resume(conn, token, now)
        refused = effects.refused
        if refused is not None and refused.code is ErrorCode.BAD_TOKEN:
            return self._takeover.reclaim_seat(conn, token, now) or effects
        index = self.seats.seat_of(conn)
        if refused is None and index is not None:
            ended = self._takeover.returned(index, now)
            if ended:
                return self.effects(effects.actions + ended)
        return effects

    # ------------------------------------------------------------------ commands
    def handle(self, conn: ConnId, message: InRoomMessage, now: float) -> Effects:
        """A message from ``conn`` (in this room).

        Any message from a seat's connection first confirms the token that connection was
        welcomed with (in the record, even if the command is then refused): the earlier
        token stops working. A refused command comes back in `Effects.refused`.
        """
        self.last_active = now
        if self.asked is not None and self._takeover.asking(conn):
            return self._asking(conn, message, now)
        index = self.seats.seat_of(conn)
        if index is not None and self.seats[index].record.previous_token_hash is not None:
            self._arrivals.confirm(index)  # a seat's token is unconfirmed just after a resume
        who = Who.SPECTATOR if index is None else Who.SEAT
        refused = phases.refusal(message.TYPE, self.game_record.stage, who)
        if refused is None and isinstance(message, React | Say):
            return self._talk(conn, index, message, now)
        if refused is None and isinstance(message, Ready) and index is not None:
            refused = self._play.ready_refusal(index, message.step)
            fair = self.game_record.fair  # once settled, a deal takes no seed any more
            if refused is None and fair is not None and not fair.settled:
                refused = self._play.reveal(index, message.seed)  # kept, or required
        if refused is None and isinstance(message, Commit):
            refused = self._play.commit_refusal()
        if refused is not None:  # nothing changed (but the token's confirmation)
            return self.effects([], refused)
        if isinstance(message, Ready):
            self.played = True
        if isinstance(message, AnswerSeatRequest):
            assert index is not None  # the table refuses it to spectators
            return self._takeover.answer(index, message, now)
        if isinstance(message, Resync | Leave):
            return self.effects(self._command(conn, message, now))
        assert index is not None  # the table refuses the rest to spectators
        assert not isinstance(message, React | Say)  # (talk is answered above)
        return self.effects(self._seat_command(index, message, now))

    def _asking(self, conn: ConnId, message: InRoomMessage, now: float) -> Effects:
        """A message from ``conn``, which waits for the table's answer to its request for
        a seat: only leave counts."""
        if isinstance(message, Leave):
            bye = Close(conn, CloseCode.NORMAL, "left the room")
            return self.effects([*self._takeover.withdraw(now), bye])
        text = "waiting for the table's answer to your request"
        return self.effects([], Refusal(ErrorCode.NOT_SEATED, text))

    def _command(self, conn: ConnId, message: Resync | Leave, now: float) -> list[Action]:
        """Carry out ``message`` (anyone's), which `phases.TABLE` accepts."""
        if isinstance(message, Resync):
            return [Send((conn,), Snapshot(seq=self.seq, state=self.state(now)))]
        actions = self._arrivals.leave(conn, now)
        self._sweep_talk(now)
        return actions

    def _seat_command(
        self, index: int, message: Ready | Commit | SetAutoPlay | VoteFinish | Rematch, now: float
    ) -> list[Action]:
        """Carry out a seated player's command about the game."""
        play = self._play
        if isinstance(message, Ready):
            actions = play.mark_ready(index, now)
            if self.game_record.finish_votes:  # a vote that waited for this seed
                actions += play.finish_if_agreed(now)
            return actions
        if isinstance(message, Commit):
            return play.commit(index, message.seed_commitment, now)
        if isinstance(message, SetAutoPlay):
            return play.set_auto(index, message.mode, now)
        if isinstance(message, VoteFinish):
            return play.vote_finish(index, now)
        return play.vote_rematch(index, message.deal, now, message.seed_commitment)

    def _talk(self, conn: ConnId, index: int | None, message: React | Say, now: float) -> Effects:
        """A reaction or a message, which the phase table accepts: refused unless the
        room's setting and the address's talk budget allow it (and a message shows);
        else announced and kept (never logged)."""
        say = isinstance(message, Say)
        refused = talk_refusal(self.talk_allowed, say=say, seated=index is not None)
        if refused is None and isinstance(message, Say):
            refused = invisible_refusal(message.text)
        address = self.address(conn)
        refused = refused or self._talk_buckets.refusal(address, say=say, now=now)
        if refused is not None:
            return self.effects([], refused)
        text = message.text if isinstance(message, Say) else None
        reaction = message.reaction if isinstance(message, React) else None
        line = talk_line(self.next_seq(), now, index, text, reaction)
        self.talk = with_line(self.talk, line)
        return self.effects(self.to_room(talk_message(line)))

    def confirm(self, conn: ConnId, now: float) -> Effects:
        """``conn`` sent something the hub refused before the room saw it (a frame that
        did not decode, a second opening message): it still confirms the token its seat
        was welcomed with. Nothing else changes (a spectator's: nothing at all)."""
        self.last_active = now
        index = self.seats.seat_of(conn)
        if index is not None:
            self._arrivals.confirm(index)
        return self.effects([])

    def disconnect(self, conn: ConnId, now: float) -> Effects:
        """``conn`` is gone: its seat is away (kept for a resume), or one spectator fewer,
        or its request for a seat is withdrawn."""
        if self._takeover.asking(conn):
            return self.effects(self._takeover.withdraw(now))
        actions = self._arrivals.disconnect(conn, now)
        self._sweep_talk(now)
        return self.effects(actions)

    def _sweep_talk(self, now: float) -> None:
        """Forget the talk buckets of addresses gone from the room (full ones only)."""
        here = {self.address(conn) for conn in self.seats.connections}
        self._talk_buckets.sweep(here.__contains__, now)

    def wake(self, now: float) -> Effects:
        """Run what is due at or before ``now``: a seat request's end, the forgetting of
        earlier devices' tokens, the time limit, away-timeouts and auto-play (nothing while
        finishing: the play-out queue calls `play_slice`)."""
        if self.playing_out:
            return self.effects([])
        actions: list[Action] = self._takeover.expire(now)
        limit = self._play.time_limit_due()
        if limit is not None and limit <= now:
            actions += self._play.time_up(now)
        for index, seat in enumerate(self.seats):
            if seat.away_deadline is not None and seat.away_deadline <= now:
                seat.away_deadline = None
                if seat.away and self._play.unrevealed(index):  # it cannot reveal: void
                    actions += self._play.void(index, now)
                if seat.away and seat.auto is AutoPlay.OFF:
                    actions += self._arrivals.play_for_away(index, now)
        for index, seat in enumerate(self.seats):
            if seat.due is not None and seat.due <= now:
                seat.due = None
                if index in self.waiting_for():
                    actions += self._play.mark_ready(index, now)
        return self.effects(actions)

    def play_slice(self, budget: int, now: float, first: bool) -> Effects:
        """Play the next slice of a finish vote's play-out, about ``budget`` units of
        engine work (the play-out queue's call, `server.core.hub.playout`)."""
        return self._play.play_slice(budget, now, first=first)

    def close_all(self, reason: str) -> list[Action]:
        """Close every connection of the room (4003 room closed) and forget them."""
        everyone = self.seats.connections
        asker = self._takeover.asker
        actions: list[Action] = [
            Close(conn, CloseCode.ROOM_CLOSED, reason)
            for conn in (everyone if asker is None else (*everyone, asker))
        ]
        self.seats.clear()
        if self.log is not None:
            self.log.info("room_removed", why=reason)
        return actions
