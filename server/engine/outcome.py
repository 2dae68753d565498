"""How a game ended: `Outcome(winner, termination)`, the end-of-game `Summary`, and each
seat's place (`standings`).

`Termination` is the `vocabulary` package's (shared with the wire), re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vocabulary import Termination

__all__ = ["Outcome", "Summary", "Termination", "standings"]


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


def standings(counts: Sequence[int], out_at: Sequence[int | None]) -> tuple[int, ...]:
    """Each seat's place at the end of a game (index = seat; 1 is first), as RULES.md's
    "Standings" define them.

    ``counts[seat]``: the cards in the seat's pile at the end; ``out_at[seat]``: ``None``
    for a seat still in at the end, else when it went out (any number that grows with
    time and is equal for seats that went out in the same round: `Game.standings` passes
    the round played, a round given back and played again counting as two). Seats still
    in come first, by the cards they hold (the winner alone first; after a limit, an
    endless game or ``both_short``, equal counts share a place, so a draw shares first
    place among those with most cards); then the seats that went out, the later out the
    better, those that went out in the same round sharing a place.

    A place is one more than the number of seats that did better, so a shared place
    leaves a gap: two first, then third (as on a podium). Raises `ValueError` when the
    two sequences differ in length or a seat that went out holds cards.
    """
    if len(counts) != len(out_at):
        raise ValueError(f"{len(counts)} counts for {len(out_at)} seats")
    for seat, (count, out) in enumerate(zip(counts, out_at, strict=True)):
        if out is not None and count:
            raise ValueError(f"seat {seat} went out but holds {count} cards")
    # Better is larger: every seat still in is above every seat out.
    keys = [
        (1, count) if out is None else (0, out) for count, out in zip(counts, out_at, strict=True)
    ]
    return tuple(1 + sum(other > key for other in keys) for key in keys)
