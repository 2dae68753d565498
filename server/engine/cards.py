"""Cards are ints; labels like ``"QH"``; rank strength depends on the rules.

A deck of R ranks × S suits uses the R highest ranks of ``2 3 4 5 6 7 8 9 T J Q K A`` and
the first S suits of ``S H D C``. Card ``c`` has rank index ``c // S`` (0 = the lowest rank
of the deck in the aces-high order) and suit index ``c % S``. Only rank is compared.
"""

from __future__ import annotations

from functools import lru_cache

from server.engine.errors import CardError
from server.engine.rules import Aces, Rules

__all__ = [
    "RANK_CHARS",
    "SUIT_CHARS",
    "card_label",
    "card_rank",
    "card_suit",
    "parse_card",
    "rank_strength",
    "strength_table",
]

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"


def _check(card: int, rules: Rules) -> None:
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < rules.deck_size:
        raise CardError(f"no card {card!r} in a deck of {rules.deck_size} cards")


def card_rank(card: int, rules: Rules) -> str:
    """The rank character of ``card``: one of ``23456789TJQKA`` (T = ten).

    Raises `CardError` if the card is not in the deck.
    """
    _check(card, rules)
    return RANK_CHARS[len(RANK_CHARS) - rules.ranks + card // rules.suits]


def card_suit(card: int, rules: Rules) -> str:
    """The suit character of ``card`` (``"S"``, ``"H"``, ``"D"`` or ``"C"``).

    Raises `CardError` if the card is not in the deck.
    """
    _check(card, rules)
    return SUIT_CHARS[card % rules.suits]


def card_label(card: int, rules: Rules) -> str:
    """The wire/display code of ``card``: rank char + suit char, e.g. ``"TS"``, ``"QH"``.

    Raises `CardError` if the card is not in the deck.
    """
    labels = _labels(rules.ranks, rules.suits)
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < len(labels):
        raise CardError(f"no card {card!r} in a deck of {len(labels)} cards")
    return labels[card]


@lru_cache(maxsize=64)
def _labels(ranks: int, suits: int) -> tuple[str, ...]:
    """Every card's label of a deck of ``ranks`` × ``suits``, by card number (a message of
    the server labels every card it names)."""
    first = len(RANK_CHARS) - ranks
    return tuple(
        RANK_CHARS[first + c // suits] + SUIT_CHARS[c % suits] for c in range(ranks * suits)
    )


def parse_card(code: str, rules: Rules) -> int:
    """The card number of a code like ``"QH"`` (``"10H"`` and lower case accepted).

    Raises `CardError` if the code is malformed or names a card not in this deck.
    """
    if not isinstance(code, str) or not 2 <= len(code) <= 3:
        raise CardError(f"bad card code {code!r}")
    text = code.upper()
    rank, suit = text[:-1], text[-1]
    if rank == "10":
        rank = "T"
    first = len(RANK_CHARS) - rules.ranks
    index = RANK_CHARS.find(rank) if len(rank) == 1 else -1
    if index < first or suit not in SUIT_CHARS[: rules.suits]:
        raise CardError(f"no card {code!r} in a deck of {rules.deck_size} cards")
    return (index - first) * rules.suits + SUIT_CHARS.index(suit)


def rank_strength(card: int, rules: Rules) -> int:
    """How strong ``card`` is: higher beats lower, equal ties (0 = weakest rank).

    Raises `CardError` if the card is not in the deck.
    """
    _check(card, rules)
    index = card // rules.suits
    if rules.aces is Aces.HIGH:
        return index
    # Aces low: the ace (always the top rank of the deck) drops below everything.
    return 0 if index == rules.ranks - 1 else index + 1


@lru_cache(maxsize=64)
def strength_table(rules: Rules) -> tuple[int, ...]:
    """`rank_strength` of every card of the deck, indexed by card number (cached per rules)."""
    return tuple(rank_strength(card, rules) for card in range(rules.deck_size))
