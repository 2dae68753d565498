"""`State`: everything one game in play holds, owned by `Game` and advanced by both paths.

The step path (`server.engine._step`, events for every flip) and the fast path
(`server.engine._fast`, no events) work on this one object; `Game` is the public face
that reads it. A rule that needs more memory adds a field here, with its starting value
in `State.dealt`, and both paths see it. Nothing public exposes a pile's order or a
face-down card.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum

from server.engine.cards import strength_table
from server.engine.outcome import Outcome, Summary
from server.engine.rng import Pcg32
from server.engine.rules import Rules, WonCards

__all__ = ["Phase", "State"]


class Phase(StrEnum):
    """What the next `Game.step` does: a round's first flip, a war, or nothing."""

    BATTLE = "battle"
    WAR = "war"
    OVER = "over"


@dataclass(slots=True, eq=False)
class State:
    """One game's state. Seats index every per-seat list; a seat that is out keeps its
    (empty) entries.

    - ``piles[seat]``: the seat's pile, top card first; ``set_aside``: the cards left over
      when the deck does not divide evenly (out of play).
    - ``active``: seats still in, in seat order. The table: ``up[seat]`` face-up cards of
      this round in order, ``down[seat]`` how many face down, ``mine[seat]`` every card
      the seat put on the table this round, ``laid`` every table card in laying order and
      ``tags[i]`` who laid ``laid[i]`` and in which flip: ``flip << 2 | seat``, where
      ``flip`` counts the groups of cards laid (a round's first face-up cards, then each
      war's face-down cards, then its face-up cards) from 0 for an empty table, ``flips``
      the next one (``won_cards = fixed`` orders the prize by them).
    - ``phase``, ``war_seats`` and ``depth``: what the next step plays.
    - Figures: ``rounds`` completed, ``wars`` (rounds that went to war), ``longest`` (the
      deepest war), ``haul`` (most cards taken in one round), ``steps`` played.
    - ``outcome`` once over; ``time_stop`` once the clock stopped the game;
      ``short_round`` while someone went out short in the round being played; ``seen``
      the positions met between rounds (``won_cards = fixed`` only, to find endless
      games); ``given_back`` the positions met after rounds whose cards were given back
      since round ``given_back_at`` (``both_short = play_on``; with ``won_cards = fixed``
      ``seen`` serves).
    - Who went out when: ``given_backs`` counts the rounds given back so far, and
      ``out_at[seat]`` is the round *played* in which the seat went out (``rounds +
      given_backs`` of the round it went out in, from 1; ``None`` while it is in), so a
      round played again after it was given back is a later round than the first try.
    """

    rules: Rules
    deal: int
    rng: Pcg32
    strength: tuple[int, ...]
    piles: list[deque[int]]
    set_aside: tuple[int, ...]
    active: list[int]
    up: list[list[int]]
    down: list[int]
    mine: list[list[int]]
    laid: list[int]
    tags: list[int]
    flips: int = 0
    war_seats: tuple[int, ...] = ()
    depth: int = 0
    phase: Phase = Phase.BATTLE
    rounds: int = 0
    wars: int = 0
    longest: int = 0
    haul: int = 0
    steps: int = 0
    outcome: Outcome | None = None
    time_stop: bool = False
    short_round: bool = False
    seen: set[bytes] | None = None
    given_back: set[bytes] | None = None
    given_back_at: int = -1
    given_backs: int = 0
    out_at: list[int | None] = field(default_factory=list)

    @classmethod
    def dealt(cls, rules: Rules, deal: int, deck: list[int] | None = None) -> State:
        """A new game: ``deck`` (top card first; None: shuffled by ``deal``'s stream) dealt
        one card at a time from seat 0 round the table; the top of a pile is the first
        card it received. Raises `DealError` for a bad ``deal``."""
        rng = Pcg32.for_deal(deal)
        n = rules.players
        if deck is None:
            deck = list(range(rules.deck_size))
            rng.shuffle(deck)
        dealt = len(deck) - len(deck) % n
        state = cls(
            rules=rules,
            deal=deal,
            rng=rng,
            strength=strength_table(rules),
            piles=[deque(deck[seat:dealt:n]) for seat in range(n)],
            set_aside=tuple(deck[dealt:]),
            active=list(range(n)),
            up=[[] for _ in range(n)],
            down=[0] * n,
            mine=[[] for _ in range(n)],
            laid=[],
            tags=[],
            out_at=[None] * n,
        )
        if rules.won_cards is WonCards.FIXED:
            state.seen = {state.position()}
        return state

    def counts(self) -> tuple[int, ...]:
        """Cards in each seat's pile (index = seat; 0 for players who are out)."""
        return tuple(len(pile) for pile in self.piles)

    def summary(self) -> Summary:
        """The game's figures so far."""
        return Summary(self.rounds, self.wars, self.longest, self.haul, self.deal)

    def position(self) -> bytes:
        """Every pile in order, as bytes (cards are < 255), separated by 255; then, if
        cards lie on the table (only after a round given back), 254, the table cards in
        laying order and their tags (``flips`` then stays below 64, so tags are < 256)."""
        piles = b"\xff".join(map(bytes, self.piles))
        if not self.laid:
            return piles
        return piles + b"\xfe" + bytes(self.laid) + bytes(self.tags)
