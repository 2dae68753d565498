"""Names that cannot be confused at one table: a name's *skeleton*, and the names no
seat may take.

Two names are the same at a table when their skeletons are equal (`skeleton`, after
Unicode Technical Standard #39, §4): the name in NFKC, case folded, without its default-
ignorable code points (`DEFAULT_IGNORABLE`: U+034F, U+200B, U+3164, variation
selectors, …) and its spaces, then every character mapped to one representative of the
characters it can be confused with (Unicode's confusables data, as the
`confusable_homoglyphs` package ships it: MIT licence, generated from the Unicode
Consortium's ``confusables.txt``). So "Grandma", "grandma", "Grandma" + U+034F and
"Grаndma" with a Cyrillic а are one name; a server refuses the second with
``name_taken``. A name with no visible character (only U+3164, U+2800, U+034F, spaces,
combining marks) is refused with ``name_invisible`` (`visible`), and the words the
clients use for other people, "you" and "Computer" (`RESERVED`, compared by skeleton),
with ``name_reserved``.

The representative of a character is the smallest code point among it and its single-
character confusables, so it never depends on the order of the data; a sequence the data
lists as confusable with one character (``rn`` with ``m``) becomes that character's
representative first. This is stricter than the standard's prototypes in places (it
may join two characters the standard keeps apart through a common confusable), which at
one family table only ever refuses a name that looked alike.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources

__all__ = ["DEFAULT_IGNORABLE", "RESERVED", "reserved", "same_name", "skeleton", "visible"]

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

RESERVED = ("you", "Computer")
"""The words the clients use for others: a seat's own person, and the computer's seats."""


@cache
def _table() -> tuple[dict[str, str], dict[str, str]]:
    """(character → representative, sequence → representative), from the data."""
    data_file = resources.files("confusable_homoglyphs").joinpath("confusables.json")
    data: dict[str, list[dict[str, str]]] = json.loads(data_file.read_text(encoding="utf-8"))
    chars: dict[str, str] = {}
    sequences: dict[str, str] = {}
    for key, entries in data.items():
        source = _strip(key)
        homoglyphs = {_strip(entry["c"]) for entry in entries}
        singles = [glyph for glyph in homoglyphs | {source} if len(glyph) == 1]
        if len(source) == 1:
            chars[source] = min(singles)
        elif len(source) > 1 and singles:
            sequences[source] = min(singles)
    for sequence, char in sequences.items():
        sequences[sequence] = chars.get(char, char)
    return chars, sequences


def _strip(text: str) -> str:
    return "".join(char for char in text if char not in DEFAULT_IGNORABLE)


def skeleton(name: str) -> str:
    """The form two names are compared in (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(char for char in folded if char not in DEFAULT_IGNORABLE and not char.isspace())
    chars, sequences = _table()
    text = unicodedata.normalize("NFD", text)
    if not text.isascii() or any(sequence in text for sequence in _ascii_sequences()):
        for sequence in _longest_first():
            if sequence in text:
                text = text.replace(sequence, sequences[sequence])
    mapped = "".join(chars.get(char, char) for char in text)
    return unicodedata.normalize("NFD", mapped)


@cache
def _longest_first() -> tuple[str, ...]:
    return tuple(sorted(_table()[1], key=len, reverse=True))


@cache
def _ascii_sequences() -> tuple[str, ...]:
    return tuple(sequence for sequence in _longest_first() if sequence.isascii())


def same_name(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` would be confused at a table."""
    return skeleton(one) == skeleton(other)


def visible(name: str) -> bool:
    """Whether ``name`` shows at least one character (a letter, digit, punctuation or
    symbol, not a blank one)."""
    return any(
        unicodedata.category(char).startswith(_VISIBLE_CATEGORIES) and char not in _BLANK
        for char in unicodedata.normalize("NFKC", name)
        if char not in DEFAULT_IGNORABLE
    )


def reserved(name: str) -> str | None:
    """The reserved word (`RESERVED`) ``name`` would be confused with, or None."""
    form = skeleton(name)
    for word in RESERVED:
        if skeleton(word) == form:
            return word
    return None
