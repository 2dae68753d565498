"""`Game`: one deal of War under one set of `Rules`, advanced flip by flip.

Sans-I/O and deterministic: ``Game(rules, deal)`` plus the same sequence of `Game.step`
(and `Game.stop_by_time`) calls always produces the same events. `Game.finish` plays the
rest out through a fast path (`server.engine._fast`) that gives the same game.

Phases (what the next `step` does)::

    BATTLE  every player still in turns up their top card (a new round's first flip)
    WAR     the tied players lay face-down cards and turn one up (war ``depth``)
    OVER    nothing: `step` raises `GameOverError`
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from server.engine.cards import strength_table
from server.engine.errors import CardError, GameOverError
from server.engine.events import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    GameOver,
    PlayerOut,
    WarDeclared,
)
from server.engine.outcome import Outcome, Summary, Termination
from server.engine.rng import Pcg32
from server.engine.rules import Rules, ShortWar, TieBreak, WonCards

__all__ = ["Game", "Phase", "Table"]

NO_CARDS = "no_cards"
SHORT_WAR = "short_war"


class Phase(StrEnum):
    """What the next `Game.step` does: a round's first flip, a war, or nothing."""

    BATTLE = "battle"
    WAR = "war"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Table:
    """What lies on the table now, as anyone at the table sees it.

    ``face_up[seat]``: the face-up cards that seat turned this round, in order.
    ``face_down[seat]``: how many face-down cards that seat has on the table.
    """

    face_up: tuple[tuple[int, ...], ...]
    face_down: tuple[int, ...]


def _leader(counts: list[int] | tuple[int, ...]) -> int | None:
    """The seat holding strictly the most cards, or ``None`` if the most is shared."""
    best = max(counts)
    if counts.count(best) != 1:
        return None
    return counts.index(best)


class Game:
    """One game of War: ``Game(rules, deal)``. See the module docstring for the phases.

    Raises `DealError` if ``deal`` is not an integer in ``0 .. 2**64 - 1``. Nothing public
    exposes the order of a pile or a face-down card.
    """

    __slots__ = (
        "_active",
        "_depth",
        "_down",
        "_haul",
        "_laid",
        "_longest",
        "_mine",
        "_outcome",
        "_phase",
        "_piles",
        "_rng",
        "_rounds",
        "_rules",
        "_seen",
        "_set_aside",
        "_short_round",
        "_steps",
        "_strength",
        "_time_stop",
        "_up",
        "_war_seats",
        "_wars",
        "deal",
    )

    def __init__(self, rules: Rules, deal: int) -> None:
        self._setup(rules, deal, None)

    @classmethod
    def arranged(cls, rules: Rules, deck: Sequence[int], deal: int = 0) -> Game:
        """A game dealt from ``deck`` (the shuffled order, top card first) instead of a shuffle.

        For tests and worked examples. The cards are dealt exactly as a shuffled deck would
        be; won-card shuffles use the stream of ``deal`` from its start. Raises `CardError`
        unless ``deck`` holds every card of the deck once, and `DealError` for a bad deal.
        """
        cards = list(deck)
        if sorted(cards) != list(range(rules.deck_size)):
            raise CardError(f"arranged deck must hold cards 0..{rules.deck_size - 1} once each")
        game = cls.__new__(cls)
        game._setup(rules, deal, cards)
        return game

    def _setup(self, rules: Rules, deal: int, deck: list[int] | None) -> None:
        self._rng = Pcg32.for_deal(deal)
        self.deal = deal
        self._rules = rules
        self._strength = strength_table(rules)
        n = rules.players
        if deck is None:
            deck = list(range(rules.deck_size))
            self._rng.shuffle(deck)
        dealt = len(deck) - len(deck) % n
        # Dealt one at a time from seat 0 round the table; the top is the first received.
        self._piles: list[deque[int]] = [deque(deck[seat:dealt:n]) for seat in range(n)]
        self._set_aside = tuple(deck[dealt:])
        self._active: list[int] = list(range(n))
        self._up: list[list[int]] = [[] for _ in range(n)]
        self._down = [0] * n
        self._mine: list[list[int]] = [[] for _ in range(n)]
        self._laid: list[int] = []
        self._war_seats: tuple[int, ...] = ()
        self._depth = 0
        self._phase = Phase.BATTLE
        self._rounds = 0
        self._wars = 0
        self._longest = 0
        self._haul = 0
        self._steps = 0
        self._outcome: Outcome | None = None
        self._time_stop = False
        self._short_round = False  # someone went out short in the round being played
        self._seen: set[bytes] | None = None
        if rules.won_cards is WonCards.FIXED:
            self._seen = {self._position()}

    # ------------------------------------------------------------------ queries
    @property
    def rules(self) -> Rules:
        """The rules this game is played by."""
        return self._rules

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards in each seat's pile (index = seat; 0 for players who are out)."""
        return tuple(len(pile) for pile in self._piles)

    @property
    def round(self) -> int:
        """Rounds completed so far."""
        return self._rounds

    @property
    def phase(self) -> Phase:
        """What the next `step` does."""
        return self._phase

    @property
    def next_seats(self) -> tuple[int, ...]:
        """Seats taking part in the next step (``()`` when the game is over)."""
        if self._phase is Phase.BATTLE:
            return tuple(self._active)
        if self._phase is Phase.WAR:
            return self._war_seats
        return ()

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the game, in seat order.

        Once the game is over: the seats that were still in when it ended (the winner alone
        after ``all_cards`` or ``opponents_short``). A seat not in ``active`` holds no cards;
        at the end every seat in it holds at least one.
        """
        return tuple(self._active)

    @property
    def depth(self) -> int:
        """Ties so far in the current round (0 outside a war)."""
        return self._depth

    @property
    def table(self) -> Table:
        """The table now: face-up cards per seat, face-down counts per seat.

        Empty between rounds. At the end of a ``both_short`` game it still holds the cards of
        players who went out short in that last round: nobody won them (docs/rules.md).
        """
        return Table(tuple(tuple(up) for up in self._up), tuple(self._down))

    @property
    def outcome(self) -> Outcome | None:
        """The outcome once the game is over, else ``None``."""
        return self._outcome

    @property
    def summary(self) -> Summary:
        """Statistics so far (final once the game is over)."""
        return Summary(self._rounds, self._wars, self._longest, self._haul, self.deal)

    @property
    def steps(self) -> int:
        """`step` calls so far, counting those `finish` made on the game's behalf."""
        return self._steps

    @property
    def time_stopped(self) -> bool:
        """Whether `stop_by_time` has been called."""
        return self._time_stop

    def __repr__(self) -> str:
        return (
            f"Game(deal={self.deal}, phase={self._phase.value}, round={self._rounds}, "
            f"counts={self.counts})"
        )

    # ------------------------------------------------------------------ commands
    def step(self) -> list[Event]:
        """Advance one flip (a round's first flip, or one war) and return its events.

        Raises `GameOverError` if the game is over.
        """
        if self._phase is Phase.OVER:
            raise GameOverError(f"game {self.deal} is over; step is refused in phase 'over'")
        self._steps += 1
        events: list[Event] = []
        if self._phase is Phase.BATTLE:
            self._battle(events)
        else:
            self._war(events)
        return events

    def finish(self) -> Outcome:
        """Play the rest of the game out (without building events) and return the outcome.

        Returns the existing outcome if the game is already over.
        """
        from server.engine._fast import play_out  # noqa: PLC0415 - cycle: _fast uses Game

        play_out(self)
        assert self._outcome is not None
        return self._outcome

    def stop_by_time(self) -> list[Event]:
        """The server's time limit ran out: end the game by counts (see docs/rules.md).

        Between rounds the game ends now: most cards wins; equal counts are a draw, or with
        ``tie_break = battle`` play goes on until a round ends with one player holding the
        most, and the engine then ends the game by itself. During a war the stop takes
        effect when the round completes. A second call changes nothing. Returns the events
        (a `GameOver`, or nothing yet). Raises `GameOverError` if the game is over.
        """
        if self._phase is Phase.OVER:
            raise GameOverError(f"game {self.deal} is over; stop_by_time is refused")
        events: list[Event] = []
        if self._time_stop:
            return events
        self._time_stop = True
        if self._phase is Phase.BATTLE:
            self._check_limit(events, Termination.TIME_LIMIT)
        return events

    # ------------------------------------------------------------------ the play
    def _battle(self, events: list[Event]) -> None:
        round_no = self._rounds + 1
        turned: list[tuple[int, int]] = []
        for seat in self._active:
            card = self._piles[seat].popleft()
            self._up[seat].append(card)
            self._mine[seat].append(card)
            self._laid.append(card)
            turned.append((seat, card))
        events.append(CardsTurned(round_no, 0, tuple(turned)))
        self._compare(events, turned)

    def _compare(self, events: list[Event], turned: list[tuple[int, int]]) -> None:
        strength = self._strength
        best = max(strength[card] for _, card in turned)
        tied = tuple(seat for seat, card in turned if strength[card] == best)
        if len(tied) == 1:
            self._take(events, tied[0])
            return
        self._depth += 1
        if self._depth == 1:
            self._wars += 1
        self._longest = max(self._longest, self._depth)
        self._war_seats = tied
        self._phase = Phase.WAR
        events.append(WarDeclared(self._rounds + 1, self._depth, tied))

    def _war(self, events: list[Event]) -> None:
        round_no = self._rounds + 1
        depth = self._depth
        need = self._rules.face_down + 1
        piles = self._piles
        seats = self._war_seats
        lose = self._rules.short_war is ShortWar.LOSE
        if lose:
            short = [seat for seat in seats if len(piles[seat]) < need]
        else:
            short = [seat for seat in seats if not piles[seat]]
        if len(short) == len(seats):
            self._return_all(events)
            return
        if lose:
            for seat in short:
                self._short_round = True
                self._active.remove(seat)
                events.append(PlayerOut(round_no, seat, SHORT_WAR))
        playing = [seat for seat in seats if seat not in short] if lose else list(seats)
        laid: list[tuple[int, int]] = []
        for seat in seats:
            pile = piles[seat]
            if lose and seat in short:
                count = len(pile)  # the rest of the pile is forfeited into the prize
            elif len(playing) == 1:
                count = 0  # the last player left in the war takes the table as it is
            else:
                count = min(need - 1, len(pile) - 1) if pile else 0
            for _ in range(count):
                card = pile.popleft()
                self._mine[seat].append(card)
                self._laid.append(card)
            self._down[seat] += count
            laid.append((seat, count))
        events.append(CardsLaidDown(round_no, depth, tuple(laid)))
        if len(playing) == 1:
            self._take(events, playing[0])
            return
        turned: list[tuple[int, int]] = []
        for seat in playing:
            pile = piles[seat]
            if pile:
                card = pile.popleft()
                self._up[seat].append(card)
                self._mine[seat].append(card)
                self._laid.append(card)
            else:  # last_card: the card already face up stands again
                card = self._up[seat][-1]
            turned.append((seat, card))
        events.append(CardsTurned(round_no, depth, tuple(turned)))
        self._compare(events, turned)

    def _clear_table(self, seats: Iterable[int]) -> None:
        """Take ``seats``' cards off the table (the caller has put them somewhere)."""
        for seat in seats:
            self._up[seat].clear()
            self._mine[seat].clear()
            self._down[seat] = 0
        if any(self._mine):  # cards left on the table: keep them in the order laid
            left = {card for mine in self._mine for card in mine}
            self._laid = [card for card in self._laid if card in left]
        else:
            self._laid = []
        self._war_seats = ()
        self._depth = 0

    def _take(self, events: list[Event], winner: int) -> None:
        won = self._laid
        if self._rules.won_cards is WonCards.SHUFFLE:
            self._rng.shuffle(won)
        self._piles[winner].extend(won)
        self._haul = max(self._haul, len(won))
        self._rounds += 1
        self._clear_table(range(self._rules.players))
        events.append(CardsTaken(self._rounds, winner, len(won), self.counts))
        self._end_of_round(events)

    def _return_all(self, events: list[Event]) -> None:
        # Every player still in takes their own cards back. A player who went out short in
        # this round is out: what they forfeited stays on the table, won by nobody.
        for seat in self._active:
            self._piles[seat].extend(self._mine[seat])
        self._clear_table(self._active)
        # Nobody took the table, so the round is not counted.
        counts = self.counts
        events.append(CardsReturned(self._rounds + 1, counts))
        self._end(events, _leader(counts), Termination.BOTH_SHORT)

    def _end_of_round(self, events: list[Event]) -> None:
        self._phase = Phase.BATTLE
        short, self._short_round = self._short_round, False
        for seat in list(self._active):
            if not self._piles[seat]:
                self._active.remove(seat)
                events.append(PlayerOut(self._rounds, seat, NO_CARDS))
        if len(self._active) == 1:
            why = Termination.OPPONENTS_SHORT if short else Termination.ALL_CARDS
            self._end(events, self._active[0], why)
            return
        if self._time_stop:
            self._check_limit(events, Termination.TIME_LIMIT)
        elif self._rules.round_limit is not None and self._rounds >= self._rules.round_limit:
            self._check_limit(events, Termination.ROUND_LIMIT)
        if self._phase is not Phase.OVER and self._seen is not None:
            position = self._position()
            if position in self._seen:
                self._end(events, _leader(self.counts), Termination.ENDLESS)
            else:
                self._seen.add(position)

    def _check_limit(self, events: list[Event], why: Termination) -> None:
        leader = _leader(self.counts)
        if leader is not None or self._rules.tie_break is TieBreak.DRAW:
            self._end(events, leader, why)

    def _end(self, events: list[Event], winner: int | None, why: Termination) -> None:
        self._outcome = Outcome(winner, why)
        self._phase = Phase.OVER
        self._war_seats = ()
        events.append(GameOver(self._outcome, self.summary))

    def _position(self) -> bytes:
        """Every pile in order, as bytes (cards are < 255), separated by 255."""
        return b"\xff".join(bytes(pile) for pile in self._piles)
