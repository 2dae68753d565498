"""Names that cannot be confused at one table: a name's *skeleton*, and the names no
seat may take.

Two names are the same at a table when they share a skeleton (`skeletons`, after
Unicode Technical Standard #39, §4). A name has two: the name in NFKC without its
default-ignorable code points (`DEFAULT_IGNORABLE`: U+034F, U+200B, U+3164, variation
selectors, …) and its spaces, then

- case folded, then every character mapped to the representative of the characters it
  can be confused with (Unicode's confusables data, as the `confusable_homoglyphs`
  package ships it: MIT licence, generated from the Unicode Consortium's
  ``confusables.txt``); and
- mapped first, then case folded and mapped again: so a capital look-alike (Greek
  ``Β``, Cyrillic ``В``, Cherokee ``Ᏼ`` for ``B``; ``I`` and ``l``; ``O`` and ``0``),
  whose lower case is no look-alike of anything, still meets its Latin letter.

So "Grandma", "grandma", "Grandma" + U+034F, "Grаndma" with a Cyrillic а, "Βen" with a
Greek Beta, "BiII" beside "Bill" and "0llie" beside "Ollie" are one name; a server
refuses the second with ``name_taken``. A name with no visible character (only U+3164,
U+2800, U+034F, spaces, combining marks) is refused with ``name_invisible``
(`visible`), and the words the clients use for other people — "you" and "the computer"
in every language the clients speak, and the computer seats' own names ("Computer 1",
…), `RESERVED` — with ``name_reserved`` (compared by skeleton, in lower, upper and
title case: ``ΥOU`` and ``C0MPUTER`` are reserved).

The representative of a character is the smallest code point of its class: the
characters joined by the data's single-character confusables, transitively (``|``, ``I``,
``l`` and ``1`` are one class), so it never depends on the order of the data; then a
sequence the data lists as confusable with one character (``rn`` with ``m``), its
characters mapped, becomes that character's representative. This is stricter than the standard's
prototypes in places, which at one family table only ever refuses a name that looked
alike.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources

__all__ = [
    "COMPUTER_WORDS",
    "DEFAULT_IGNORABLE",
    "RESERVED",
    "YOU_WORDS",
    "reserved",
    "same_name",
    "skeleton",
    "skeletons",
    "visible",
]

_DEFAULT_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
DEFAULT_IGNORABLE = frozenset(
    chr(code) for low, high in _DEFAULT_IGNORABLE_RANGES for code in range(low, high + 1)
)
"""Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, 15.1)."""

_BLANK = frozenset({"\u2800"})
"""Characters of a visible category that show nothing (BRAILLE PATTERN BLANK)."""
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")

YOU_WORDS = (
    *("you", "yourself"),  # en
    *("tú", "tu", "ti", "usted", "vos", "vosotros"),  # es
    *("toi", "vous"),  # fr ("tu" above)
    *("du", "dich", "dir", "sie"),  # de
    *("ty", "ciebie", "wy"),  # pl
)
""""You" as the clients say it to a seat's own person, in en, es, fr, de and pl."""
COMPUTER_WORDS = (
    *("computer", "the computer"),  # en, de ("Computer")
    *("ordenador", "el ordenador", "computadora"),  # es
    *("ordinateur", "l'ordinateur"),  # fr
    *("der computer", "rechner"),  # de
    *("komputer",),  # pl
)
""""The computer" as the clients name its seats, in en, es, fr, de and pl."""
COMPUTER_NUMBERS = range(1, 10)
"""The numbers a computer seat's name may carry ("Computer 1"; a room has at most 3)."""
RESERVED = (
    *YOU_WORDS,
    *COMPUTER_WORDS,
    *(f"{word} {number}" for word in COMPUTER_WORDS for number in COMPUTER_NUMBERS),
)
"""The names no seat may take: the words the clients use for others (a seat's own
person, the computer) and the computer seats' own names, in every client language."""


@cache
def _table() -> tuple[dict[str, str], dict[str, str]]:
    """(character → representative, sequence → representative), from the data: the
    single characters the data joins are one class (transitively), and a class's
    representative is its smallest code point."""
    data_file = resources.files("confusable_homoglyphs").joinpath("confusables.json")
    data: dict[str, list[dict[str, str]]] = json.loads(data_file.read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while (up := parent.get(char, char)) != char:
            parent[char] = parent.get(up, up)  # halve the path
            char = up
        return char

    sequences: dict[str, str] = {}
    for key, entries in data.items():
        source = _strip(key)
        homoglyphs = {_strip(entry["c"]) for entry in entries} | {source}
        singles = sorted(glyph for glyph in homoglyphs if len(glyph) == 1)
        for glyph in singles[1:]:
            low, high = sorted((root(singles[0]), root(glyph)))
            if low != high:
                parent[high] = low
        if len(source) > 1 and singles:
            sequences[source] = singles[0]
    chars = {char: root(char) for char in list(parent)}
    mapped: dict[str, str] = {}  # the sequences with their characters mapped first
    for sequence, char in sequences.items():
        key = "".join(chars.get(c, c) for c in unicodedata.normalize("NFD", sequence))
        rep = chars.get(char, char)
        if len(key) > 1 and (key not in mapped or rep < mapped[key]):
            mapped[key] = rep
    return chars, mapped


def _strip(text: str) -> str:
    return "".join(char for char in text if char not in DEFAULT_IGNORABLE)


def _mapped(text: str) -> str:
    """``text`` with every confusable sequence and character replaced by its
    representative (in NFD)."""
    chars, sequences = _table()
    text = "".join(chars.get(char, char) for char in unicodedata.normalize("NFD", text))
    if not text.isascii() or any(sequence in text for sequence in _ascii_sequences()):
        for sequence in _longest_first():
            if sequence in text:
                text = text.replace(sequence, sequences[sequence])
    return unicodedata.normalize("NFD", text)


def _base(name: str) -> str:
    """``name`` in NFKC without default-ignorable characters and spaces."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(char for char in text if char not in DEFAULT_IGNORABLE and not char.isspace())


def skeletons(name: str) -> frozenset[str]:
    """The forms two names are compared in (see the module docstring): folded then
    mapped, and mapped, folded and mapped again."""
    base = _base(name)
    return frozenset((_mapped(base.casefold()), _mapped(_mapped(base).casefold())))


def skeleton(name: str) -> str:
    """The first of `skeletons` (case folded, then mapped)."""
    return _mapped(_base(name).casefold())


@cache
def _longest_first() -> tuple[str, ...]:
    return tuple(sorted(_table()[1], key=len, reverse=True))


@cache
def _ascii_sequences() -> tuple[str, ...]:
    return tuple(sequence for sequence in _longest_first() if sequence.isascii())


def same_name(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` would be confused at a table."""
    return not skeletons(one).isdisjoint(skeletons(other))


def visible(name: str) -> bool:
    """Whether ``name`` shows at least one character (a letter, digit, punctuation or
    symbol, not a blank one)."""
    return any(
        unicodedata.category(char).startswith(_VISIBLE_CATEGORIES) and char not in _BLANK
        for char in unicodedata.normalize("NFKC", name)
        if char not in DEFAULT_IGNORABLE
    )


@cache
def _reserved_forms() -> dict[str, str]:
    """Every skeleton of a reserved word in lower, upper and title case → the word."""
    forms: dict[str, str] = {}
    for word in RESERVED:
        for variant in (word, word.lower(), word.upper(), word.title()):
            for form in skeletons(variant):
                forms.setdefault(form, word)
    return forms


def reserved(name: str) -> str | None:
    """The reserved word (`RESERVED`) ``name`` would be confused with, or None."""
    forms = _reserved_forms()
    for form in sorted(skeletons(name)):
        if form in forms:
            return forms[form]
    return None
