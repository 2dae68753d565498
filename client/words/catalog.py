"""The message catalogs: every word the clients show, one JSON file per language.

``client/web/lang/<tag>.json`` (``en``, ``es``, ``fr``, ``de``, ``pl``) is read by this
module for war-client and fetched by the browser table (``client/web/js/catalog.js``, this
module's twin, pinned to it by ``tests/vectors/functions/format.json`` and by the recorded
games in every language). The format, its grammar and how to add a language are in
docs/translating.md; in short:

- ``messages``: sections of keys (``"said": {"joined": …}`` is the key ``said.joined``),
  each a *pattern*: a string with named placeholders (``"{who} takes seat {seat}."``;
  ``{Who}`` capitalises the first letter; ``{who:poss}`` asks for a form of a word), or a
  *selector* choosing a pattern: ``{"plural": "n", "one": …, "other": …}`` by the CLDR
  plural category of a number, a count or a list's length (``"=3"`` for exactly 3
  first), ``{"select": "mode", "calm": …}`` by a value (``"other"`` for the rest),
  ``{"person": "who", "you": …, "other": …}`` by who it is about (``"computer"`` and
  ``"it"``, the computer named again, fall back to ``"other"``). Selectors nest. A
  message said within another is given the form it was asked in as the value ``form``.
- ``words``: how the values the code passes are said. A person: ``you``, ``computer``,
  ``it``, ``name``, ``seat`` (an open seat); a card: ``rank``, ``suit``, and ``card`` (a
  card with its owner, by the owner's kind: "your Queen", "la reina de Ben"); ``war`` by
  its depth; ``count`` (cards, rounds, minutes…, by the plural of the number). A word is a
  pattern, or an object of *forms*: ``nom`` (taken by a placeholder without ``:form``)
  and any the language needs (``poss``, ``acc``, ``gen``, ``de``…); a rank also has a
  ``gender`` (which the card patterns select on) and the ``label`` drawn on its face.
- ``list``: how a list is joined (CLDR's ``two``, ``start``, ``middle``, ``end``).
- The pattern of a name's form, of a card (by its owner's name) or of a list join may be
  a list of ``[regex, pattern]`` pairs: the first whose regex finds the word concerned
  (the name; the next item) is used (French "d’Ann" but "de Ben", Spanish "Ben e
  Isabel", German "Bens Dame" but "die Dame von Computer 1").

Values are language-neutral: numbers, strings (said as they are), lists, and the small
frozen records below (:class:`Person`, :class:`Card`, :class:`Rank`, :class:`Suit`,
:class:`War`, :class:`Count`, :class:`Number`, and :class:`Said`: a message with its
values, said later or elsewhere). Plurals follow the CLDR data of Babel
(``Intl.PluralRules`` in the page).

A :class:`Catalog` made with ``strict=True`` (the tests) raises :class:`CatalogError` for a
missing key, form, plural category, option or value; otherwise it says what it can (the
``nom`` form, ``other``, the key itself) rather than fail at the table.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias

from client.errors import CatalogError

__all__ = [
    "COMPUTER",
    "DEFAULT",
    "FOLDER",
    "IT",
    "NO_BABEL",
    "YOU",
    "Card",
    "Catalog",
    "Count",
    "Number",
    "Person",
    "Rank",
    "Said",
    "Suit",
    "Value",
    "War",
    "available",
    "catalog",
    "said",
]

FOLDER = Path(__file__).parents[1] / "web" / "lang"
"""Where the catalogs are: package data, served to the browser as ``lang/<tag>.json``."""
DEFAULT = "en"
"""The language of a viewer whose own has no catalog."""
SELECTORS = ("plural", "select", "person")
"""The keys that make an object a selector rather than a word's forms."""
ATTRIBUTES = ("gender", "label")
"""Keys of a rank's entry that are not forms."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*|[0-9])(?::([A-Za-z_]+))?\}")
_FALLBACK = {"it": ("it", "computer", "other"), "computer": ("computer", "other")}


@dataclass(frozen=True, slots=True)
class Person:
    """Who a word is about: ``kind`` ``"you"`` (the viewer), ``"computer"`` (the room's one
    computer opponent), ``"it"`` (the same, just named), ``"name"`` (``name``), ``"seat"``
    (open seat number ``seat``, counted from 1) or ``"computer_n"`` (one of several
    computer seats, number ``seat``: the catalog's ``words.computer_n``, said as a name)."""

    kind: str
    name: str = ""
    seat: int = 0


YOU = Person("you")
COMPUTER = Person("computer")
IT = Person("it")


@dataclass(frozen=True, slots=True)
class Card:
    """A card (``code``: ``"QH"``) and whose it is."""

    owner: Person
    code: str


@dataclass(frozen=True, slots=True)
class Rank:
    """A card's rank alone (``code``: the card, ``"QH"``, or its rank character)."""

    code: str


@dataclass(frozen=True, slots=True)
class Suit:
    """A card's suit (``code``: the card, ``"QH"``, or its suit character)."""

    code: str


@dataclass(frozen=True, slots=True)
class War:
    """A war by its depth: 1 a war, 2 a double war…"""

    depth: int


@dataclass(frozen=True, slots=True)
class Count:
    """``n`` of something counted (``noun``: ``"card"``, ``"round"``, ``"minute"``…), said
    with the noun's plural form: ``"2 cards"``, ``"5 kart"``."""

    noun: str
    n: int


@dataclass(frozen=True, slots=True)
class Number:
    """A number with ``digits`` decimals, written with the language's decimal sign."""

    value: float
    digits: int = 1


@dataclass(frozen=True, slots=True)
class Said:
    """A message to be said (``key`` with its ``values``), in whatever language reads it."""

    key: str
    values: Mapping[str, Value] = field(default_factory=dict)


Value: TypeAlias = (
    "int | str | Person | Card | Rank | Suit | War | Count | Number | Said | Sequence[Value]"
)


def said(key: str, /, **values: Value) -> Said:
    """``Said(key, values)``, written as a call: ``said("close.reason", code=4002)``."""
    return Said(key, values)


def available() -> tuple[str, ...]:
    """The tags of every catalog there is, English first."""
    tags = sorted(path.stem for path in FOLDER.glob("*.json"))
    return (DEFAULT, *(tag for tag in tags if tag != DEFAULT))


NO_BABEL = (
    "war-client's words need Babel (the CLDR plural rules), which is not installed: "
    "pip install 'family-war[client]'"
)


@cache
def _plural_rule(tag: str) -> Callable[[int], str]:
    """The CLDR plural rule of language ``tag`` (Babel's data; imported here, so that a
    server without the ``client`` extra never needs it)."""
    try:
        from babel import Locale, UnknownLocaleError  # noqa: PLC0415 - only war-client needs it
    except ImportError:
        raise CatalogError(NO_BABEL) from None
    try:
        rule: Callable[[int], str] = Locale.parse(tag.replace("-", "_")).plural_form
    except (UnknownLocaleError, ValueError):
        raise CatalogError(f"Babel has no plural rules for the language {tag!r}") from None
    return rule


@cache
def _load(tag: str) -> dict[str, Any]:
    path = FOLDER / f"{tag}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CatalogError(f"cannot read the catalog {path.name}: {error}") from None
    return data


def catalog(tag: str = DEFAULT, *, strict: bool = False) -> Catalog:
    """The catalog of language ``tag`` (read once).

    Raises:
        CatalogError: there is no such catalog, or it is not JSON.
    """
    if tag not in available():
        raise CatalogError(f"no catalog for the language {tag!r}: {', '.join(available())}")
    return Catalog(_load(tag), strict=strict)


class Catalog:
    """One language's words (see the module docstring); ``strict``: raise on any gap."""

    def __init__(self, data: Mapping[str, Any], *, strict: bool = False) -> None:
        language = data.get("language", {})
        self.tag: str = language.get("tag", DEFAULT)
        """The BCP 47 tag: ``"pl"``."""
        self.name: str = language.get("name", self.tag)
        """The language's name in itself: ``"Polski"``."""
        self.data = data
        self.strict = strict
        self._plural = _plural_rule(self.tag)

    def __repr__(self) -> str:
        return f"Catalog({self.tag!r})"

    # --- the public calls ----------------------------------------------------------------
    def text(self, key: str, /, **values: Value) -> str:
        """Message ``key`` (``"section.name"``) said with ``values``."""
        return self._message(key, values)

    def say(self, message: Said) -> str:
        """A :class:`Said` in this language."""
        return self._message(message.key, message.values)

    def plural(self, count: int) -> str:
        """The CLDR plural category of ``count``: ``"one"``, ``"few"``, ``"many"``, ``"other"``…"""
        return str(self._plural(abs(count)))

    def word(self, value: Value, form: str = "nom") -> str:
        """How ``value`` is said on its own, in ``form``."""
        return self._render(value, form, "a word")

    def label(self, card: str) -> str:
        """The rank drawn on a card's face: ``"Q"``, ``"10"`` (``"D"`` for a German Dame)."""
        entry = self._rank_entry(card)
        label = entry.get("label") if isinstance(entry, Mapping) else None
        return str(label) if label is not None else self._fail(f"no label for {card!r}", card)

    def list_of(self, items: Sequence[str]) -> str:
        """``items`` joined as this language joins a list: ``"a, b and c"``."""
        patterns = self.data.get("list", {})
        words = list(items)
        if len(words) <= 1:
            return "".join(words)
        if len(words) == 2:
            return self._join(patterns, "two", words[0], words[1])
        joined = self._join(patterns, "end", words[-2], words[-1])
        for item in reversed(words[1:-2]):
            joined = self._join(patterns, "middle", item, joined)
        return self._join(patterns, "start", words[0], joined)

    # --- messages and patterns -----------------------------------------------------------
    def _message(self, key: str, values: Mapping[str, Value]) -> str:
        section, _, name = key.partition(".")
        pattern = self.data.get("messages", {}).get(section, {}).get(name)
        if pattern is None:
            return self._fail(f"{self.tag}: no message {key!r}", key)
        return self._pattern(pattern, values, key)

    def _pattern(
        self, pattern: Any, values: Mapping[str, Value], where: str, subject: str | None = None
    ) -> str:
        if isinstance(pattern, str):
            return self._fill(pattern, values, where)
        if isinstance(pattern, list):
            return self._pattern(self._rule(pattern, subject, where), values, where)
        if isinstance(pattern, Mapping):
            chosen = self._select(pattern, values, where)
            return self._pattern(chosen, values, where, subject)
        return self._fail(f"{self.tag}: {where}: not a pattern: {pattern!r}", where)

    def _rule(self, rules: list[Any], subject: str | None, where: str) -> Any:
        """The pattern of the first ``[regex, pattern]`` whose regex finds ``subject``."""
        for rule in rules:
            if not (isinstance(rule, list) and len(rule) == 2):
                break
            if subject is not None and re.search(rule[0], subject):
                return rule[1]
        self._fail(f"{self.tag}: {where}: no rule for {subject!r}", where)
        return rules[-1][1] if rules and isinstance(rules[-1], list) else ""

    def _select(self, selector: Mapping[str, Any], values: Mapping[str, Value], where: str) -> Any:
        kind = next((k for k in SELECTORS if k in selector), None)
        if kind is None:
            self._fail(f"{self.tag}: {where}: a word's forms where a pattern goes", where)
            return selector.get("nom", "")
        name = selector[kind]
        if name not in values and name != "form":  # a message not said within another: nom
            self._fail(f"{self.tag}: {where}: no value for {name!r}", where)
            return selector.get("other", "")
        value = values.get(name, "nom")
        choices: tuple[str, ...]
        if kind == "plural":
            count = _number(value)
            choices = (f"={count}", self.plural(count))
        elif kind == "select":
            choices = (_option(value), "other")  # "other": every option not listed
        else:
            choices = _FALLBACK.get(_person(value), (_person(value),))
        for choice in choices:
            if choice in selector:
                return selector[choice]
        self._fail(f"{self.tag}: {where}: no {kind} case {choices[-1]!r}", where)
        cases = [case for name, case in selector.items() if name != kind]
        return selector.get("other", cases[0] if cases else "")

    def _fill(self, text: str, values: Mapping[str, Value], where: str) -> str:
        def one(match: re.Match[str]) -> str:
            name, form = match.group(1), match.group(2) or "nom"
            key = name[:1].lower() + name[1:]
            if key not in values:
                return self._fail(f"{self.tag}: {where}: no value for {{{key}}}", match.group(0))
            said = self._render(values[key], form, where)
            return said[:1].upper() + said[1:] if name[:1].isupper() else said

        return _PLACEHOLDER.sub(one, text)

    # --- values ----------------------------------------------------------------------------
    def _render(self, value: Value, form: str, where: str) -> str:
        if isinstance(value, bool):
            return self._fail(f"{self.tag}: {where}: a truth value is no word", str(value))
        if isinstance(value, (int, str)):
            return str(value)
        if isinstance(value, (list, tuple)):
            return self.list_of([self._render(item, form, where) for item in value])
        sayer = _SAYERS.get(type(value))
        if sayer is None:
            return self._fail(f"{self.tag}: {where}: not a value: {value!r}", str(value))
        return sayer(self, value, form, where)

    def _said(self, value: Said, form: str, where: str) -> str:
        """A message within a message, told the form it was asked in as ``form`` (so that
        Spanish can say "a Ben (ausente)" where the list asks for the form ``a``)."""
        if "form" in value.values:
            return self.say(value)
        return self._message(value.key, {**value.values, "form": form})

    def _rank(self, value: Rank, form: str, where: str) -> str:
        return self._forms(self._rank_entry(value.code), form, {}, f"rank {value.code}")

    def _suit(self, value: Suit, form: str, where: str) -> str:
        entry = self._words("suit").get(value.code[-1])
        return self._forms(entry, form, {}, f"suit {value.code}")

    def _war(self, value: War, form: str, where: str) -> str:
        wars = self._words("war")
        entry = wars.get(str(value.depth), wars.get("other"))
        return self._forms(entry, form, {"n": value.depth}, f"war {value.depth}")

    def _count(self, value: Count, form: str, where: str) -> str:
        entry = self._words("count").get(value.noun)
        return self._forms(entry, form, {"n": value.n}, f"count of {value.noun}")

    def _number(self, value: Number, form: str, where: str) -> str:
        """Rounded half up (as catalog.js does: Python's format rounds half to even)."""
        scale = 10**value.digits
        scaled = math.floor(abs(value.value) * scale + 0.5)
        whole, part = divmod(scaled, scale)
        sign = "-" if value.value < 0 and scaled else ""
        if not value.digits:
            return f"{sign}{whole}"
        decimal = self.data.get("language", {}).get("decimal", ".")
        return f"{sign}{whole}{decimal}{part:0{value.digits}d}"

    def _words(self, kind: str) -> Mapping[str, Any]:
        words: Mapping[str, Any] = self.data.get("words", {}).get(kind, {})
        return words

    def _rank_entry(self, card: str) -> Any:
        return self._words("rank").get(card[:1])

    def _person(self, person: Person, form: str, where: str) -> str:
        words = self.data.get("words", {})
        if person.kind == "computer_n":
            return self._person(self._computer_name(person, where), form, where)
        kind = "computer" if person.kind == "it" and "it" not in words else person.kind
        values: dict[str, Value] = {"name": person.name, "n": person.seat}
        return self._forms(words.get(kind), form, values, f"{where}: {kind}", person.name)

    def _card(self, card: Card, form: str, where: str) -> str:
        patterns = self._words("card")
        owner = card.owner
        if owner.kind == "computer_n":  # said as a name: "la dama de Ordenador 1"
            owner = self._computer_name(owner, where)
        kind = "name" if owner.kind == "seat" else owner.kind
        if kind == "it" and "it" not in patterns:
            kind = "computer"
        entry = patterns.get(kind)
        rank = self._rank_entry(card.code)
        gender = rank.get("gender", "") if isinstance(rank, Mapping) else ""
        values: dict[str, Value] = {"rank": Rank(card.code), "owner": owner, "gender": gender}
        return self._forms(entry, form, values, f"{where}: card of {kind}", owner.name)

    def _computer_name(self, person: Person, where: str) -> Person:
        """A numbered computer seat as the name this language gives it: "Ordinateur 2"."""
        entry = self.data.get("words", {}).get("computer_n")
        name = self._forms(entry, "nom", {"n": person.seat}, f"{where}: computer_n")
        return Person("name", name)

    def _forms(
        self,
        entry: Any,
        form: str,
        values: Mapping[str, Value],
        where: str,
        subject: str | None = None,
    ) -> str:
        """``entry`` (a pattern, or an object of forms) in ``form``."""
        if entry is None:
            return self._fail(f"{self.tag}: {where}: missing", "")
        if isinstance(entry, Mapping) and not any(k in entry for k in SELECTORS):
            pattern = entry.get(form)
            if pattern is None:
                self._fail(f"{self.tag}: {where}: no form {form!r}", "")
                pattern = entry.get("nom", "")
            return self._pattern(pattern, values, where, subject)
        return self._pattern(entry, values, where, subject)

    def _join(self, patterns: Mapping[str, Any], part: str, first: str, rest: str) -> str:
        pattern = patterns.get(part)
        if pattern is None:
            return self._fail(f"{self.tag}: no list pattern {part!r}", f"{first}, {rest}")
        return self._pattern(pattern, {"0": first, "1": rest}, f"list {part}", rest)

    def _fail(self, problem: str, instead: str) -> str:
        if self.strict:
            raise CatalogError(problem)
        return instead


_SAYERS: dict[type, Callable[[Catalog, Any, str, str], str]] = {
    Said: Catalog._said,
    Person: Catalog._person,
    Card: Catalog._card,
    Rank: Catalog._rank,
    Suit: Catalog._suit,
    War: Catalog._war,
    Count: Catalog._count,
    Number: Catalog._number,
}
"""How each kind of word is said (:meth:`Catalog._render`)."""


def _number(value: Value) -> int:
    """What a plural selector counts: a number, a :class:`Count`'s, a list's length."""
    if isinstance(value, Count):
        return value.n
    if isinstance(value, (list, tuple)):
        return len(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _option(value: Value) -> str:
    if isinstance(value, Person):
        return value.kind
    return str(value) if isinstance(value, (int, str)) else ""


def _person(value: Value) -> str:
    """The person selector's case for ``value``: a person's kind (names and open seats
    are ``other``), or for a list ``you`` when it holds the viewer."""
    if isinstance(value, Person):
        return value.kind if value.kind in ("you", "computer", "it") else "other"
    if isinstance(value, (list, tuple)):
        return "you" if any(isinstance(v, Person) and v.kind == "you" for v in value) else "other"
    return "other"
