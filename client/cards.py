"""Cards for people: rank words ("Queen", "10"), suit symbols ("♥") and colours.

A card on the wire is a rank character (``2-9 T J Q K A``) and a suit character
(``S H D C``); see :mod:`protocol.cards`. Only rank matters in War; suits are shown.
"""

from __future__ import annotations

from protocol import is_card

__all__ = ["RANK_WORDS", "SUIT_NAMES", "SUIT_SYMBOLS", "is_red", "rank_label", "rank_word"]

RANK_WORDS: dict[str, str] = {
    "A": "Ace",
    "K": "King",
    "Q": "Queen",
    "J": "Jack",
    "T": "10",
    **{str(n): str(n) for n in range(2, 10)},
}
"""The word for each rank character: Ace, King, Queen, Jack, 10 … 2."""

SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
"""The symbol for each suit character."""

SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
"""The name of each suit character."""


def _checked(card: str) -> str:
    if not is_card(card):
        raise ValueError(f"not a card code: {card!r}")
    return card


def rank_word(card: str) -> str:
    """The rank of ``card`` as a word: ``"QH"`` → ``"Queen"``, ``"TS"`` → ``"10"``.

    Raises:
        ValueError: ``card`` is not a card code.
    """
    return RANK_WORDS[_checked(card)[0]]


def rank_label(card: str) -> str:
    """The short rank drawn on a card face: ``"Q"``, ``"10"``, ``"7"``.

    Raises:
        ValueError: ``card`` is not a card code.
    """
    rank = _checked(card)[0]
    return "10" if rank == "T" else rank


def is_red(card: str) -> bool:
    """True for hearts and diamonds.

    Raises:
        ValueError: ``card`` is not a card code.
    """
    return _checked(card)[1] in "HD"
