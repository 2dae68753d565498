"""`Game`: one deal of War under one set of `Rules`, advanced flip by flip.

Sans-I/O and deterministic: ``Game(rules, deal)`` plus the same sequence of `Game.step`
(and `Game.stop_by_time`) calls always produces the same events. A `Game` owns one
`State` (`server.engine._state`): `Game.step` advances it through the step path
(`server.engine._step`), `Game.finish` plays the rest out through a fast path
(`server.engine._fast`) that gives the same game, and `Game.play_out` does the same a
bounded slice at a time. Neither path imports this module.

Phases (what the next `step` does)::

    BATTLE  every player still in turns up their top card (a new round's first flip)
    WAR     the tied players lay face-down cards and turn one up (war ``depth``)
    OVER    nothing: `step` raises `GameOverError`
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.engine import _fast, _step
from server.engine._fast import STEP_WORK
from server.engine._state import Phase, State
from server.engine.errors import CardError, GameOverError
from server.engine.events import Event
from server.engine.outcome import Outcome, Summary, standings
from server.engine.rules import Rules

__all__ = ["STEP_WORK", "Game", "OnTable", "Phase"]


@dataclass(frozen=True, slots=True)
class OnTable:
    """What lies on the table now, as anyone at the table sees it.

    ``face_up[seat]``: the face-up cards that seat turned this round, in order.
    ``face_down[seat]``: how many face-down cards that seat has on the table.
    """

    face_up: tuple[tuple[int, ...], ...]
    face_down: tuple[int, ...]


class Game:
    """One game of War: ``Game(rules, deal)``. See the module docstring for the phases.

    Raises `DealError` if ``deal`` is not an integer in ``0 .. 2**64 - 1``. Nothing public
    exposes the order of a pile or a face-down card.
    """

    __slots__ = ("_state",)

    def __init__(self, rules: Rules, deal: int) -> None:
        self._state = State.dealt(rules, deal)

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
        game._state = State.dealt(rules, deal, cards)
        return game

    @classmethod
    def replay(
        cls,
        rules: Rules,
        deal: int,
        steps: int,
        *,
        stop_step: int | None = None,
        finished: bool = False,
    ) -> Game:
        """The game of ``deal`` replayed as it was played: ``steps`` calls of `step`, the
        time limit stopping it (`stop_by_time`) when ``stop_step`` steps had been played,
        and then, if ``finished``, the rest played out (`finish`), as a chess board
        replays its move stack. Steps past the game's end are not played (a stop that
        ended it between rounds ends it there).

        Raises `DealError` for a bad deal, ValueError for a negative ``steps``.
        """
        if steps < 0:
            raise ValueError(f"steps must be at least 0, not {steps}")
        game = cls(rules, deal)
        for done in range(steps):
            if stop_step == done and game.outcome is None:
                game.stop_by_time()
            if game.outcome is not None:
                break
            game.step()
        if stop_step == steps and game.outcome is None:
            game.stop_by_time()
        if finished:
            game.finish()
        return game

    # ------------------------------------------------------------------ queries
    @property
    def deal(self) -> int:
        """The deal number."""
        return self._state.deal

    @property
    def rules(self) -> Rules:
        """The rules this game is played by."""
        return self._state.rules

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards in each seat's pile (index = seat; 0 for players who are out)."""
        return self._state.counts()

    @property
    def round(self) -> int:
        """Rounds completed so far."""
        return self._state.rounds

    @property
    def phase(self) -> Phase:
        """What the next `step` does."""
        return self._state.phase

    @property
    def next_seats(self) -> tuple[int, ...]:
        """Seats taking part in the next step (``()`` when the game is over)."""
        state = self._state
        if state.phase is Phase.BATTLE:
            return tuple(state.active)
        if state.phase is Phase.WAR:
            return state.war_seats
        return ()

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the game, in seat order.

        Once the game is over: the seats that were still in when it ended (the winner alone
        after ``all_cards`` or ``opponents_short``). A seat not in ``active`` holds no cards;
        at the end every seat in it holds at least one.
        """
        return tuple(self._state.active)

    @property
    def depth(self) -> int:
        """Ties so far in the current round (0 outside a war)."""
        return self._state.depth

    @property
    def table(self) -> OnTable:
        """The table now: face-up cards per seat, face-down counts per seat.

        Empty between rounds. At the end of a ``both_short`` game it still holds the cards of
        players who went out short in that last round: nobody won them (docs/rules.md).
        """
        state = self._state
        return OnTable(tuple(tuple(up) for up in state.up), tuple(state.down))

    @property
    def outcome(self) -> Outcome | None:
        """The outcome once the game is over, else ``None``."""
        return self._state.outcome

    @property
    def standings(self) -> tuple[int, ...] | None:
        """Each seat's place once the game is over (index = seat; 1 is first, a shared
        place has the same number; see `server.engine.outcome.standings`), else ``None``."""
        state = self._state
        if state.outcome is None:
            return None
        return standings(state.counts(), state.out_at)

    @property
    def summary(self) -> Summary:
        """Statistics so far (final once the game is over)."""
        return self._state.summary()

    @property
    def steps(self) -> int:
        """`step` calls so far, counting those `finish` made on the game's behalf."""
        return self._state.steps

    @property
    def time_stopped(self) -> bool:
        """Whether `stop_by_time` has been called."""
        return self._state.time_stop

    def __repr__(self) -> str:
        return (
            f"Game(deal={self.deal}, phase={self.phase.value}, round={self.round}, "
            f"counts={self.counts})"
        )

    # ------------------------------------------------------------------ commands
    def step(self) -> list[Event]:
        """Advance one flip (a round's first flip, or one war) and return its events.

        Raises `GameOverError` if the game is over.
        """
        if self._state.phase is Phase.OVER:
            raise GameOverError(f"game {self.deal} is over; step is refused in phase 'over'")
        return _step.advance(self._state)

    def finish(self) -> Outcome:
        """Play the rest of the game out (without building events) and return the outcome.

        Returns the existing outcome if the game is already over.
        """
        _fast.play_out(self._state)
        assert self._state.outcome is not None
        return self._state.outcome

    def play_out(self, budget: int) -> int:
        """Play the rest out as `finish` does, but for about ``budget`` units of work at
        most (a step costs `STEP_WORK` units, or 1 on the two-player fast path); return
        the units spent. `outcome` says whether the game is over.

        Playing a game out in any number of such calls gives the game `finish` gives.
        A call plays at least one step (if the game is not over) and overspends by at
        most ``STEP_WORK + deck_size // 2`` units (the two-player path ends the round it
        is in).
        """
        return _fast.play_out(self._state, budget)

    def stop_by_time(self) -> list[Event]:
        """The server's time limit ran out: end the game by counts (see docs/rules.md).

        Between rounds the game ends now: most cards wins; equal counts are a draw, or with
        ``tie_break = battle`` play goes on until a round ends with one player holding the
        most, and the engine then ends the game by itself. During a war the stop takes
        effect when the round completes. A second call changes nothing. Returns the events
        (a `GameOver`, or nothing yet). Raises `GameOverError` if the game is over.
        """
        if self._state.phase is Phase.OVER:
            raise GameOverError(f"game {self.deal} is over; stop_by_time is refused")
        return _step.stop_by_time(self._state)
