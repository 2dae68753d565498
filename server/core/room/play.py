"""The game of a room: readies, flips, the time limit, auto-play, and the votes.

A flip is played once every seat it needs is ready (a person's ``ready``, or a seat
that plays by itself: auto-play, the computer, `server.core.room.pacing`); the computer never
keeps a person who readied waiting. Ready flags and finish and rematch votes are in the
game's record: they survive a restart. When every voter has voted to finish, the room is
``finishing`` and the play-out queue (`server.core.hub.playout`) has it play the rest out,
a slice at a time (`Play.play_slice`); when every voter has voted for a rematch, the
next game starts (the same deal again only if every vote given asked for it). Who votes
is the clients' own rule (`protocol.votes`). Every move of the stage goes through
`server.core.room.table.Table.advance`, and whether a stage ends is the phase table's to
say (`server.core.room.phases.seats_filled`, ``finish_agreed``, ``rematch_agreed``,
``time_limit``, ``game_end``): this module gathers the facts it weighs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from protocol import (
    AutoPlay,
    AutoPlayChanged,
    DealVoided,
    ErrorCode,
    EveningGame,
    FinishVoted,
    GameOver,
    GameStarted,
    ReadyChanged,
    RematchDeal,
    RematchVoted,
    SeatState,
    ServerMessage,
    TimeUp,
    WaitingFor,
)
from protocol.votes import finish_voters, rematch_voters
from server import engine
from server.core.codes import RandomSource, new_deal
from server.core.refusals import Refusal
from server.core.room import fairdeal, phases
from server.core.room.actions import Action, Effects
from server.core.room.phases import Event
from server.core.room.records import GameRecord
from server.core.room.table import Table
from server.core.room.talk import evening_wire
from server.core.room.wire import event_message, game_over_message

__all__ = ["Play", "played"]


def played(record: GameRecord, steps: int, ready: tuple[int, ...]) -> GameRecord:
    """``record`` with ``steps`` played and the seats ``ready`` ready: what every ready and
    every step changes, built directly (several times faster than `dataclasses.replace`;
    a test checks that it keeps every other field)."""
    return GameRecord(
        number=record.number,
        deal=record.deal,
        revealed=record.revealed,
        stage=record.stage,
        steps=steps,
        stop_step=record.stop_step,
        finished=record.finished,
        deadline=record.deadline,
        ready=ready,
        finish_votes=record.finish_votes,
        rematch_votes=record.rematch_votes,
        fair=record.fair,
        rematch_commitments=record.rematch_commitments,
        voids=record.voids,
    )


class Play:
    """The game's commands on ``table``; ``random`` draws a rematch's new deal."""

    def __init__(self, table: Table, random: RandomSource) -> None:
        self._table = table
        self._random = random

    # ------------------------------------------------------------------ readies and flips
    def ready_refusal(self, index: int, step: int) -> Refusal | None:
        """Why seat ``index``'s ready for ``step`` is refused, or None."""
        game = self._table.game
        if step != game.steps:
            text = f"ready for step {step}, but the game is at step {game.steps}"
            return Refusal(ErrorCode.STALE, text)
        if index not in game.next_seats:
            return Refusal(ErrorCode.NOT_NEEDED, f"seat {index} does not play the next flip")
        if index in self._table.game_record.ready:
            text = f"seat {index} is already ready for step {step}"
            return Refusal(ErrorCode.ALREADY_READY, text)
        return None

    def reveal(self, index: int, seed: str | None) -> Refusal | None:
        """Seat ``index`` readies with ``seed`` (a ``ready`` the room accepts otherwise):
        kept, or refused with ``seed_mismatch`` (`server.core.room.fairdeal.reveal`); a
        ready without the seed this seat committed to is refused with ``seed_required``,
        and any ready while a fresh deal waits for commitments with ``not_needed``."""
        table = self._table
        fair = table.game_record.fair
        if fair is None:
            return None  # a chosen deal: nothing to contribute
        if fair.collecting:
            text = "the fresh deal waits for every player's commit before any ready"
            return Refusal(ErrorCode.NOT_NEEDED, text)
        if seed is None:
            if not fair.settled and fairdeal.unrevealed(fair, index):
                text = f"seat {index} committed to a seed: its first ready must carry it"
                return Refusal(ErrorCode.SEED_REQUIRED, text)
            return None
        revealed = fairdeal.reveal(fair, index, seed)
        if isinstance(revealed, Refusal):
            return revealed
        if revealed is not fair:
            table.set_game(dataclasses.replace(table.game_record, fair=revealed))
        return None

    def unrevealed(self, index: int) -> bool:
        """Whether seat ``index`` committed to a seed for this game and has not revealed it
        (the first cards wait for it; if it cannot come, the deal is void)."""
        return fairdeal.unrevealed(self._table.game_record.fair, index)

    def _unsettled(self) -> bool:
        """Whether the deal cannot be settled yet: a fresh one waits for commitments, or a
        committed seed is not revealed. The time limit and a finish vote wait for it."""
        fair = self._table.game_record.fair
        if fair is None or fair.settled:
            return False
        return fair.collecting or bool(fairdeal.dropped_seats(fair))

    def void(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` cannot reveal the seed it committed to (away past the away
        timeout, gone, or taken over on a device without it): the deal is void. Everyone
        is told (``deal_voided``, with the seat's voids this evening), the server draws a
        fresh seed, and the room waits for every present player's ``commit``."""
        table = self._table
        record = table.game_record
        fair = record.fair
        if fair is None or not fairdeal.unrevealed(fair, index):
            return []
        voids = list(record.voids) or [0] * len(table.seats)
        voids[index] += 1
        table.set_game(
            dataclasses.replace(
                record, fair=fairdeal.voided(fair, self._random), voids=tuple(voids), ready=()
            )
        )
        for seat in table.seats:
            seat.due = None
        if table.log is not None:
            table.log.info("deal_voided", game=record.number, seat=index, voids=voids[index])
        count = voids[index]
        actions = table.emit(lambda seq: DealVoided(seq=seq, seat=index, voids=count))
        actions += table.emit(lambda seq: WaitingFor(seq=seq, seats=()))
        return actions + self.collect_if_done(now)

    def commit_refusal(self) -> Refusal | None:
        """Why a ``commit`` is refused now (no fresh deal waits for commitments), or None."""
        fair = self._table.game_record.fair
        if fair is None or not fair.collecting:
            return Refusal(ErrorCode.NOT_NEEDED, "no fresh deal waits for commitments now")
        return None

    def commit(self, index: int, committed: str, now: float) -> list[Action]:
        """Seat ``index``'s commitment to a fresh seed after a void (``commit``, which
        `commit_refusal` accepts); a second one replaces the first until the deal shows."""
        table = self._table
        fair = table.game_record.fair
        assert fair is not None
        fair = fairdeal.with_commitment(fair, index, committed)
        table.set_game(dataclasses.replace(table.game_record, fair=fair))
        return self.collect_if_done(now)

    def collect_if_done(self, now: float) -> list[Action]:
        """After a void: once every seat held by a connected person has committed (and
        one has), the fresh deal is shown with a ``game_started`` of the same game, and
        the game waits for the first readies again (each with its seed)."""
        table = self._table
        record = table.game_record
        fair = record.fair
        if fair is None or not fair.collecting:
            return []
        present = [i for i, seat in enumerate(table.seats) if seat.human and seat.conn is not None]
        fixed = fairdeal.collected(fair, present)
        if fixed is None:
            return []
        table.set_game(dataclasses.replace(record, fair=fixed))
        counts = table.game.counts
        actions = table.emit(
            lambda seq: GameStarted(
                seq=seq,
                game=record.number,
                counts=counts,
                deal_commitment=fixed.deal_commitment,
                seed_commitments=fixed.commitments,
            )
        )
        waiting = table.waiting_for()
        actions += table.emit(lambda seq: WaitingFor(seq=seq, seats=waiting))
        table.schedule(now)
        return actions

    def settle(self) -> list[Action]:
        """Before the first card: derive the deal from every seed, and set the game to it.
        Every committed seat has revealed by then (the server never readies one without
        its seed, and the time limit and a finish vote wait for them)."""
        table = self._table
        record = table.game_record
        fair = record.fair
        if fair is None or fair.settled:
            return []
        settled, deal = fairdeal.settle(fair, table.rules)
        table.set_game(
            dataclasses.replace(record, deal=deal, fair=settled), engine.Game(table.rules, deal)
        )
        if table.log is not None:
            missing = len(fairdeal.dropped_seats(fair))
            table.log.info("deal_settled", game=record.number, unrevealed=missing)
        return []

    def mark_ready(self, index: int, now: float) -> list[Action]:
        """Seat ``index`` is ready (a person, or by itself): flag it, or play the flip."""
        table = self._table
        seats = table.seats
        seats[index].due = None
        waiting = tuple(seat for seat in table.waiting_for() if seat != index)
        if not waiting:  # the last ready: the step clears every flag
            return self._step(now)
        if not seats[index].computer and all(seats[seat].computer for seat in waiting):
            # only the computer is left to ready: it never keeps a person waiting
            return self._step(now)
        record = table.game_record
        table.set_game(played(record, record.steps, tuple(sorted((*record.ready, index)))))
        actions = table.emit(lambda seq: ReadyChanged(seq=seq, seat=index, ready=True))
        return actions + table.emit(lambda seq: WaitingFor(seq=seq, seats=waiting))

    def _step(self, now: float) -> list[Action]:
        table = self._table
        fair = table.game_record.fair
        actions = [] if fair is None or fair.settled else self.settle()
        events = table.game.step()
        table.set_game(played(table.game_record, table.game.steps, ()))
        actions += self._after_play(events, now)
        if table.game_record.finish_votes:  # a voter may have gone out: re-check the vote
            actions += self.finish_if_agreed(now)
        return actions

    def _after_play(self, events: Iterable[engine.Event], now: float) -> list[Action]:
        """Clear the ready flags, announce ``events`` and who is awaited next; if the game
        is over, the room is too."""
        table = self._table
        if table.game_record.ready:
            table.set_game(dataclasses.replace(table.game_record, ready=()))
        for seat in table.seats:
            seat.due = None
        actions: list[Action] = []
        outcome = table.game.outcome
        evening: tuple[EveningGame, ...] = ()
        if outcome is not None:
            table.note_game_over()
            evening = evening_wire(table.evening)
        labels = table.card_labels
        for event in events:
            message = event_message(event, table.game, table.next_seq(), evening, labels)
            if outcome is not None:  # its game_over carries the fair deal's reveal
                message = self._revealed(message)
            actions += table.to_room(message)
        if outcome is not None:
            table.advance(phases.game_end(table.stage))
            if table.log is not None:
                table.log.info(
                    "game_over",
                    game=table.game_record.number,
                    winner=outcome.winner,
                    termination=outcome.termination.value,
                    steps=table.game.steps,
                )
        waiting = table.waiting_for()
        actions += table.emit(lambda seq: WaitingFor(seq=seq, seats=waiting))
        table.schedule(now, waiting)
        return actions

    # ------------------------------------------------------------------ the time limit
    def time_limit_due(self) -> float | None:
        """When the time limit runs out, if it can still (the table lets time run out)."""
        record = self._table.game_record
        if record.deadline is None:
            return None
        stopped = record.stop_step is not None
        settled = not self._unsettled()
        return phases.time_limit(
            record.stage, deadline=record.deadline, stopped=stopped, settled=settled
        )

    def time_up(self, now: float) -> list[Action]:
        """The time limit ran out: the game ends by counts (between rounds: now)."""
        table = self._table
        settled = self.settle()
        table.advance(Event.TIME_UP)
        stopped_at = table.game.steps
        events = table.game.stop_by_time()
        table.set_game(dataclasses.replace(table.game_record, stop_step=stopped_at))
        actions = settled + table.emit(lambda seq: TimeUp(seq=seq))
        if events:
            actions += self._after_play(events, now)
        return actions

    # ------------------------------------------------------------------ auto-play
    def set_auto(self, index: int, mode: AutoPlay, now: float) -> list[Action]:
        table = self._table
        if table.seats[index].auto is mode:
            return []
        table.seats.change(index, auto=mode.value)
        table.seats[index].due = None
        actions = table.emit(lambda seq: AutoPlayChanged(seq=seq, seat=index, mode=mode))
        table.schedule(now)
        return actions

    # ------------------------------------------------------------------ finishing
    def vote_finish(self, index: int, now: float) -> list[Action]:
        table = self._table
        votes = table.game_record.finish_votes
        if index in votes:
            return []
        table.set_game(
            dataclasses.replace(table.game_record, finish_votes=tuple(sorted((*votes, index))))
        )
        actions = table.emit(lambda seq: FinishVoted(seq=seq, seat=index))
        return actions + self.finish_if_agreed(now)

    def finish_if_agreed(self, now: float) -> list[Action]:
        """If every voter has voted to finish (and a finish can happen now), the room is
        finishing: the play-out queue plays the rest out."""
        table = self._table
        votes = table.game_record.finish_votes
        if not votes:
            return []
        voters = finish_voters(self._voting_seats())
        settled = not self._unsettled()
        if not phases.finish_agreed(table.stage, votes=votes, voters=voters, settled=settled):
            return []
        actions = self.settle()
        table.set_game(dataclasses.replace(table.game_record, ready=(), finished=True))
        table.advance(Event.FINISH_AGREED)
        table.schedule(now, ())  # nobody is awaited any more
        return actions

    def play_slice(self, budget: int, now: float, *, first: bool) -> Effects:
        """Play the next slice of a finish vote's play-out, about ``budget`` units of
        engine work: ``game_over`` after the last one; after the ``first``, if the game
        goes on, tell everyone that nobody is awaited any more."""
        table = self._table
        work = table.game.play_out(budget)
        if table.game.outcome is None:
            actions = table.emit(lambda seq: WaitingFor(seq=seq, seats=())) if first else []
            return table.effects(actions, work=work)
        table.note_game_over()
        evening = evening_wire(table.evening)
        actions = table.emit(
            lambda seq: self._revealed(game_over_message(table.game, seq, evening))
        )
        return table.effects(actions + self._after_play((), now), work=work)

    def _revealed(self, message: ServerMessage) -> ServerMessage:
        """``message``, and if it is the ``game_over`` of a fair deal, with its reveal."""
        fair = self._table.game_record.fair
        if fair is None or not isinstance(message, GameOver):
            return message
        return dataclasses.replace(message, fairness=fairdeal.fairness(fair))

    # ------------------------------------------------------------------ the next game
    def vote_rematch(
        self, index: int, deal: RematchDeal, now: float, commitment: str | None = None
    ) -> list[Action]:
        """Seat ``index`` votes for a rematch, with the ``commitment`` to its seed for the
        next game's fair deal (if its client sent one)."""
        table = self._table
        record = table.game_record
        votes = dict(record.rematch_votes)
        commitments = dict(record.rematch_commitments)
        if commitment is not None:
            commitments[index] = commitment
        else:
            commitments.pop(index, None)
        kept = tuple(sorted(commitments.items()))
        if votes.get(index) == deal.value:
            if kept != record.rematch_commitments:
                table.set_game(dataclasses.replace(record, rematch_commitments=kept))
            return []
        votes[index] = deal.value
        table.set_game(
            dataclasses.replace(
                record, rematch_votes=tuple(sorted(votes.items())), rematch_commitments=kept
            )
        )
        actions = table.emit(lambda seq: RematchVoted(seq=seq, seat=index, deal=deal))
        return actions + self.rematch_if_agreed(now)

    def rematch_if_agreed(self, now: float) -> list[Action]:
        """If every voter has voted for a rematch (and one can happen now), the next game
        starts: the same deal again only if every vote given asked for it and every seat
        a person holds (away too) gave one; else a new deal."""
        table = self._table
        votes = dict(table.game_record.rematch_votes)
        if not votes:
            return []
        voters = rematch_voters(self._voting_seats())
        if not phases.rematch_agreed(table.stage, votes=votes.keys(), voters=voters):
            return []
        # the same deal again only if every vote given asked for it and every seat a
        # person holds, away or not, voted: a vote one player cast while the others were
        # away never replays a known deal into the evening
        people = [index for index, seat in enumerate(table.seats) if seat.human]
        same = all(deal == RematchDeal.SAME.value for deal in votes.values()) and all(
            index in votes for index in people
        )
        deal = table.game_record.deal if same else new_deal(self._random)
        fair = None  # the same deal again is shown, and claims nothing
        if not same:
            committed = dict(table.game_record.rematch_commitments)
            seats = range(len(table.seats))
            fair = fairdeal.new_fair(self._random, [committed.get(seat) for seat in seats])
        table.set_game(
            GameRecord(
                number=table.game_record.number + 1,
                deal=deal,
                revealed=same,
                stage=table.stage,
                fair=fair,
                voids=table.game_record.voids,
            ),
            engine.Game(table.rules, deal),
        )
        return self._start(Event.REMATCH_AGREED, now)

    def start_if_full(self, now: float) -> list[Action]:
        """Start the first game if every seat is taken."""
        table = self._table
        if phases.seats_filled(table.stage, full=table.seats.full):
            return self._start(Event.SEATS_FILLED, now)
        return []

    def _start(self, event: Event, now: float) -> list[Action]:
        """Start the game (``event``: the seats were filled, or a rematch agreed)."""
        table = self._table
        deadline = None if table.minutes is None else now + table.minutes * 60.0
        table.set_game(
            dataclasses.replace(
                table.game_record, deadline=deadline, ready=(), finish_votes=(), rematch_votes=()
            )
        )
        table.advance(event)
        for seat in table.seats:
            seat.due = None
        record = table.game_record
        counts = table.game.counts
        fair = record.fair
        actions = table.emit(
            lambda seq: GameStarted(
                seq=seq,
                game=record.number,
                counts=counts,
                deal=record.deal if record.revealed else None,
                deal_commitment=None if fair is None else fair.deal_commitment,
                seed_commitments=() if fair is None else fair.commitments,
            )
        )
        if table.log is not None:
            table.log.info("game_started", game=record.number, revealed=record.revealed)
        waiting = table.waiting_for()
        actions += table.emit(lambda seq: WaitingFor(seq=seq, seats=waiting))
        table.schedule(now)
        return actions

    def _voting_seats(self) -> list[SeatState]:
        table = self._table
        return table.seats.voting(table.game_record.started, table.game.active)
