"""Cards for people: suit symbols ("♥") and colours; their words are in the catalogs.

A card on the wire is a rank character (``2-9 T J Q K A``) and a suit character
(``S H D C``); see :mod:`protocol.cards`. Only rank matters in War; suits are shown. How
a rank is named and the letter drawn on its face (``Q``, a German ``D`` for Dame) are each
language's (``words.rank`` of :mod:`client.words.catalog`).
"""

from __future__ import annotations

from protocol import is_card

__all__ = ["SUIT_SYMBOLS", "is_red"]

SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
"""The symbol for each suit character."""


def is_red(card: str) -> bool:
    """True for hearts and diamonds.

    Raises:
        ValueError: ``card`` is not a card code.
    """
    if not is_card(card):
        raise ValueError(f"not a card code: {card!r}")
    return card[1] in "HD"
