"""How a game ended: `Outcome(winner, termination)` and the end-of-game `Summary`.

`Termination` is the `vocabulary` package's (shared with the wire), re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from vocabulary import Termination

__all__ = ["Outcome", "Summary", "Termination"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game: the winning seat (``None`` for a draw) and why."""

    winner: int | None
    termination: Termination


@dataclass(frozen=True, slots=True)
class Summary:
    """Statistics of a game so far (final once the game is over).

    ``rounds``: rounds completed; ``wars``: rounds that went to war; ``longest_war``: most
    ties in one round (1 single, 2 double, ...); ``biggest_haul``: most cards taken in one
    round; ``deal``: the deal number.
    """

    rounds: int
    wars: int
    longest_war: int
    biggest_haul: int
    deal: int
