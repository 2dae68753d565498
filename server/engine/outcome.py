"""How a game ended: `Outcome(winner, termination)` and the end-of-game `Summary`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Outcome", "Summary", "Termination"]


class Termination(StrEnum):
    """Why a game ended.

    - ``ALL_CARDS``: one player holds every card in play (the others ran out in
      ordinary play).
    - ``OPPONENTS_SHORT``: the last opponent went out because they could not finish a war
      (``short_war = lose``).
    - ``BOTH_SHORT``: every player in a war ran out at the same moment; each player still in
      took their own cards back and the most cards won (equal: a draw). Cards forfeited by a
      player who went out short in that round stay on the table.
    - ``ROUND_LIMIT``: the round limit was reached; the most cards won.
    - ``TIME_LIMIT``: the server's clock stopped the game; the most cards won.
    - ``ENDLESS``: with ``won_cards = fixed`` a position repeated, so play would go round
      forever; the most cards won (equal: a draw).
    """

    ALL_CARDS = "all_cards"
    OPPONENTS_SHORT = "opponents_short"
    BOTH_SHORT = "both_short"
    ROUND_LIMIT = "round_limit"
    TIME_LIMIT = "time_limit"
    ENDLESS = "endless"


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
