"""Cards on the wire: two-character codes, rank then suit, e.g. ``"QH"``, ``"TS"``, ``"2C"``.

Ranks ``"23456789TJQKA"`` (``T`` is ten; a renderer shows ``10``), suits ``"SHDC"``
(spades, hearts, diamonds, clubs). The protocol carries only cards everyone at the table
can see (face-up cards); it never carries a pile's order or a face-down card.
"""

from __future__ import annotations

import re

__all__ = ["ALL_CARDS", "CARD_PATTERN", "RANKS", "SUITS", "is_card"]

RANKS = "23456789TJQKA"
"""Rank characters, lowest to highest with aces high."""
SUITS = "SHDC"
"""Suit characters: spades, hearts, diamonds, clubs."""
CARD_PATTERN = re.compile(r"[2-9TJQKA][SHDC]")
"""A card code (use ``fullmatch``)."""
ALL_CARDS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 52 card codes."""


def is_card(code: object) -> bool:
    """True if ``code`` is a ``str`` that is exactly one valid card code."""
    return isinstance(code, str) and CARD_PATTERN.fullmatch(code) is not None
