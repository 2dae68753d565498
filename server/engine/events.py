"""Events returned by `Game.step()`: frozen, slotted, plain ints/strs/tuples.

Round numbers are 1-based: the events of the first round carry ``round=1``. Depth 0 is
the round's first flip; depth k is the k-th war of the round (1 single, 2 double, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from server.engine.outcome import Outcome, Summary
from vocabulary import OutReason

__all__ = [
    "CardsLaidDown",
    "CardsReturned",
    "CardsTaken",
    "CardsTurned",
    "Event",
    "GameOver",
    "PlayerOut",
    "WarDeclared",
]


@dataclass(frozen=True, slots=True)
class CardsTurned:
    """Face-up cards of one flip as ``(seat, card)`` pairs in seat order.

    With ``short_war = last_card`` a war player who has no cards left keeps the card they
    already have face up: it is listed again here (it is what they compete with) although
    it is not a new card on the table.
    """

    round: int
    depth: int
    cards: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class CardsLaidDown:
    """Face-down cards laid for war ``depth``: ``(seat, how many)`` in seat order.

    A player who goes out short in a war (``short_war = lose``) forfeits the rest of
    their pile into the prize; those cards are counted here as that seat's face-down cards.
    """

    round: int
    depth: int
    counts: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class WarDeclared:
    """The flip at ``depth - 1`` tied for highest: war ``depth`` among ``seats``."""

    round: int
    depth: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsTaken:
    """``seat`` took ``count`` cards from the table; ``counts`` are every pile after it."""

    round: int
    seat: int
    count: int
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsReturned:
    """Everyone in a war ran out at once; every player still in the game took their own
    table cards back (under their pile). ``counts`` are every pile after it.

    Cards that a player who went out short in this round forfeited stay on the table: that
    player is out and takes nothing, and nobody won them (the game is over).
    """

    round: int
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """``seat`` is out of the game, for ``reason``: no cards after a round, or short in a
    war."""

    round: int
    seat: int
    reason: OutReason


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended with ``outcome``; ``summary`` holds its final statistics."""

    outcome: Outcome
    summary: Summary


Event: TypeAlias = (
    CardsTurned | CardsLaidDown | WarDeclared | CardsTaken | CardsReturned | PlayerOut | GameOver
)
