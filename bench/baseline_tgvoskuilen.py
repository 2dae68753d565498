"""Baseline for `bench/engine.py`: the algorithm of tgvoskuilen/War-Simulator, re-written.

This is a faithful re-implementation, in this project's own words, of how the public
simulator https://github.com/tgvoskuilen/War-Simulator (``war_simulator.py``) plays a game
and runs many of them; none of its code is copied. What it does, kept exactly:

- a card is an object with an integer ``rank`` attribute (2..14); the deck is 4 × 13 such
  objects, shuffled with ``random.shuffle`` and split into two halves of 26;
- a player holds a Python list; playing a card is ``list.pop(0)`` after a length check,
  and an empty pile raises an exception that ends the game;
- each round draws both top cards into a pot and compares ranks; the winner gets the pot
  ``random.shuffle``-d and appended (every pot is shuffled, two cards included);
- a tie adds one face-down card per player to the pot and recurses into the comparison,
  so running out in a war loses (the first player to fail a draw loses);
- a round counts when a pot is won; the game's length is the number of rounds;
- many games run through ``multiprocessing.Pool().map`` over one function per game.

Differences that do not change the cost per game: its verbose printing branches are
kept as cheap ``if`` tests, and its plotting and numpy percentile code (run once, after
timing) are left out. The original's workers inherit one ``random`` state through fork,
so they replay identical games; here each game seeds its own ``random.Random`` from the
game number instead, which costs the same per game and makes the games distinct.
"""

from __future__ import annotations

import random
import statistics
import time
from multiprocessing import Pool

__all__ = ["BaselineGame", "run"]

RANKS = range(2, 15)


class PlayingCard:
    """One card; only the rank matters."""

    __slots__ = ("rank",)

    def __init__(self, rank: int) -> None:
        self.rank = rank


class OutOfCardsError(Exception):
    """Raised when a player must play a card and has none: that player has lost."""


class Hand:
    """A player's pile as a plain list, top at index 0."""

    def __init__(self, cards: list[PlayingCard], rng: random.Random) -> None:
        self.cards = cards
        self.rng = rng

    def play(self) -> PlayingCard:
        if len(self.cards) > 0:
            return self.cards.pop(0)
        raise OutOfCardsError

    def collect(self, pot: list[PlayingCard]) -> None:
        self.rng.shuffle(pot)
        self.cards.extend(pot)


class BaselineGame:
    """One two-player game, played by recursive comparison as the original does."""

    def __init__(self, seed: int, verbose: bool = False) -> None:
        rng = random.Random(seed)
        deck = [PlayingCard(rank) for _suit in range(4) for rank in RANKS]
        rng.shuffle(deck)
        self.first = Hand(deck[:26], rng)
        self.second = Hand(deck[26:], rng)
        self.verbose = verbose

    def play(self) -> int:
        """Play to the end; return the number of completed rounds."""
        rounds = 0
        try:
            while True:
                if self.verbose:
                    print(f"round {rounds + 1}")
                self._battle([])
                rounds += 1
        except OutOfCardsError:
            pass
        return rounds

    def _battle(self, pot: list[PlayingCard]) -> None:
        a = self.first.play()
        b = self.second.play()
        pot.extend([a, b])
        if self.verbose:
            print(a.rank, b.rank)
        if a.rank > b.rank:
            self.first.collect(pot)
        elif b.rank > a.rank:
            self.second.collect(pot)
        else:
            pot.append(self.first.play())
            pot.append(self.second.play())
            self._battle(pot)


def play_one(game_number: int) -> int:
    """The pool's unit of work: one game, its round count."""
    return BaselineGame(game_number).play()


def run(games: int, jobs: int | None = None) -> tuple[list[int], float]:
    """Play ``games`` games on a process pool of ``jobs`` (default: all cores).

    Returns the rounds of every game and the wall-clock seconds, pool start-up included,
    as the original measures it.
    """
    start = time.perf_counter()
    with Pool(jobs) as pool:
        rounds = pool.map(play_one, range(games))
    return rounds, time.perf_counter() - start


if __name__ == "__main__":
    played, seconds = run(20_000)
    print(
        f"{len(played)} games in {seconds:.2f} s: {len(played) / seconds:,.0f} games/s; "
        f"mean {statistics.fmean(played):.1f}, median {statistics.median(played):g} rounds"
    )
