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

**One letter the data does not know.** The data has no entry for some letters (U+13C1
CHEROKEE LETTER NE), so ``ᏴᎬᏁ`` maps to ``beᏁ`` and would sit beside ``Ben``. Two names
are also the same (`one_letter_apart`) when a skeleton of each has the same length, they
agree at every place but one and at two places at least, and at that one place

- one name has a letter the data joins with nothing (it has no look-alike and is no
  representative), and
- the other has a letter the data does join with others, none of whose characters (in
  any case) is of the first letter's script.

So the unknown letter stands where the data knows the other's look-alikes but none in
the unknown letter's script: a whole-script look-alike with one letter missing from the
data still meets its Latin twin (``ᏴᎬᏁ`` and ``BEN``; ``BEᏁ`` too). A letter's *script*
here is the head of its Unicode name before ``LETTER``, ``CAPITAL``, ``SMALL``, …
(``LATIN``, ``CYRILLIC``, ``GREEK``, ``CHEROKEE``), cheap and close enough for this. Names
of one script do not meet this way (``Бен`` and ``Ден``, ``Саша`` and ``Даша`` sit
together), nor names that differ in two letters (``Ира`` beside ``Ira``, ``Ева`` beside
``Eva``, ``Анна`` beside ``Anna``), nor names of two letters. The price: a name of another
script that is a Latin name's look-alike but for one letter the data knows nothing of is
refused beside it, such as ``Ада`` (Cyrillic д) beside ``Ana`` (but not beside ``Ada``:
the data has a Cyrillic look-alike of ``d``); the newcomer adds an initial.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib import resources

__all__ = [
    "COMPUTER_WORDS",
    "DEFAULT_IGNORABLE",
    "RESERVED",
    "YOU_WORDS",
    "one_letter_apart",
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
    """Whether ``one`` and ``other`` would be confused at a table: they share a skeleton,
    or a skeleton of each is `one_letter_apart`."""
    ones, others = skeletons(one), skeletons(other)
    return not ones.isdisjoint(others) or _any_apart(ones, others)


def _any_apart(ones: Iterable[str], others: Iterable[str]) -> bool:
    return any(one_letter_apart(a, b) for a in ones for b in others)


_SCRIPT_ENDS = frozenset(
    {"LETTER", "CAPITAL", "SMALL", "SYLLABLE", "SYLLABICS", "LIGATURE", "DIGIT", "SIGN"}
)


@cache
def _script(char: str) -> str:
    """The head of ``char``'s Unicode name, which stands for its script here."""
    words = unicodedata.name(char, "").split()
    head: list[str] = []
    for word in words:
        if word in _SCRIPT_ENDS or word.startswith("IDEOGRAPH"):
            break
        head.append(word)
    return " ".join(head or words[:1])


@cache
def _members() -> dict[str, frozenset[str]]:
    """Representative → every character the data maps to it (and itself)."""
    chars, sequences = _table()
    members: dict[str, set[str]] = {}
    for char, rep in chars.items():
        members.setdefault(rep, {rep}).add(char)
    for rep in sequences.values():
        members.setdefault(rep, {rep})
    return {rep: frozenset(group) for rep, group in members.items()}


@cache
def _twin_scripts(letter: str) -> frozenset[str] | None:
    """The scripts of the characters joined with ``letter`` in any of its cases, or
    None when the data joins it with nothing."""
    chars = _table()[0]
    members = _members()
    reps = {
        _mapped(variant)
        for variant in {letter, letter.lower(), letter.upper(), letter.casefold()}
        if len(variant) == 1
    } | {chars.get(letter, letter)}
    joined = [members[rep] for rep in reps if rep in members and len(members[rep]) > 1]
    if not joined:
        return None
    return frozenset(_script(char) for group in joined for char in group)


def one_letter_apart(one: str, other: str) -> bool:
    """Whether skeletons ``one`` and ``other`` differ at one place only, out of three at
    least, where one has a letter the data knows nothing of and the other a letter with
    look-alikes, none of them of the first's script (see the module docstring)."""
    if len(one) != len(other) or len(one) < 3:
        return False
    places = [at for at, (a, b) in enumerate(zip(one, other, strict=True)) if a != b]
    if len(places) != 1:
        return False
    a, b = one[places[0]], other[places[0]]
    return _unknown_beside(a, b) or _unknown_beside(b, a)


def _unknown_beside(unknown: str, known: str) -> bool:
    if not (unknown.isalpha() and known.isalpha()) or _twin_scripts(unknown) is not None:
        return False
    if unknown in _members():
        return False
    scripts = _twin_scripts(known)
    return scripts is not None and _script(unknown) not in scripts


def visible(name: str) -> bool:
    """Whether ``name`` shows at least one character (a letter, digit, punctuation or
    symbol, not a blank one)."""
    return any(
        unicodedata.category(char).startswith(_VISIBLE_CATEGORIES) and char not in _BLANK
        for char in unicodedata.normalize("NFKC", name)
        if char not in DEFAULT_IGNORABLE
    )


@cache
def _reserved_by_length() -> dict[int, tuple[tuple[str, str], ...]]:
    """The reserved forms (`_reserved_forms`) by length: (form, word)."""
    lengths: dict[int, list[tuple[str, str]]] = {}
    for form, word in _reserved_forms().items():
        lengths.setdefault(len(form), []).append((form, word))
    return {length: tuple(forms) for length, forms in lengths.items()}


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
    """The reserved word (`RESERVED`) ``name`` would be confused with (as `same_name`
    compares), or None."""
    forms = _reserved_forms()
    names = sorted(skeletons(name))
    for form in names:
        if form in forms:
            return forms[form]
    for form in names:
        for word_form, word in _reserved_by_length().get(len(form), ()):
            if one_letter_apart(form, word_form):
                return word
    return None
