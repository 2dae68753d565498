"""What each placeholder of the catalogs holds, and values of each kind to say them with.

A placeholder's name says what it holds, the same in every message (docs/translating.md
lists them): `VARIABLES`. The catalog tests (tests/client/test_catalogs.py) say every
message of every language with the values of `cases`, strictly, so a missing form, plural
category, option or person case fails there; ``tests/vectors/functions/format.json`` keeps
what the Python client said for the browser's catalog.js to say the same
(`client.words.catalog` and ``client/web/js/catalog.js``, twins).

Values cross into JSON as the browser's catalog.js takes them (`value_json`): a person
``{"person": "you"}`` or ``{"person": "name", "name": "Ann"}``, a card ``{"card": "QH",
"owner": {person}}``, ``{"rank": "Q"}``, ``{"suit": "H"}``, ``{"war": 2}``, ``{"count":
"card", "n": 3}``, ``{"number": 1.5, "digits": 1}``, a message ``{"key": …, "values": {…}}``,
and numbers, strings and lists as they are.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from client.words.catalog import (
    COMPUTER,
    IT,
    YOU,
    Card,
    Catalog,
    Count,
    Number,
    Person,
    Rank,
    Said,
    Suit,
    Value,
    War,
)

__all__ = [
    "KINDS",
    "VARIABLES",
    "cases",
    "message_variables",
    "selectors",
    "value_from_json",
    "value_json",
]

VARIABLES: dict[str, str] = {
    # people
    "who": "person",
    "owner": "person",
    "names": "persons",
    "seated": "persons",
    "seats": "persons",
    "new": "persons",
    "same": "persons",
    # cards
    "card": "card",
    "first": "card",
    "second": "card",
    "beaten": "cards",
    "tied": "cards",
    "rank": "rank",
    "suit": "suit",
    "war": "war",
    # counted things, said with their noun
    "cards": "count:card",
    "haul": "count:card",
    "rounds": "count:round",
    "time": "count:minute",
    "length": "count:round",
    "missing": "count:player",
    "wars": "count:war",
    # numbers
    "n": "number",
    "count": "number",
    "seat": "number",
    "players": "number",
    "free": "number",
    "round": "number",
    "limit": "number",
    "game": "number",
    "deal": "number",
    "table": "number",
    "minutes": "number",
    "others": "number",
    "attempt": "number",
    "most": "number",
    "depth": "number",
    "step": "number",
    "derived": "number",
    "delay": "decimal",
    # lists of things already said
    "counts": "texts",
    "rest": "texts",
    # given to a message said within another: the form it was asked in
    "form": "text",
}
"""The kind of value each placeholder holds; any other name holds a text (or, when a
message selects on it, one of the options it lists)."""
KINDS = frozenset({*VARIABLES.values(), "text"})

_NAMED = (Person("name", "Ann"), Person("name", "Ben"), Person("name", "Isabel"))
_PEOPLE = (YOU, COMPUTER, IT, *_NAMED, Person("seat", seat=2))
_RANKS = "AKQJT98765432"
_NUMBERS = (0, 1, 2, 3, 4, 5, 11, 12, 21, 22, 25, 101, 1000000)
_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)(?::[A-Za-z_]+)?\}")
SELECTORS = ("plural", "select", "person")


def message_variables(pattern: Any) -> set[str]:
    """Every variable a pattern uses, in its placeholders and as a selector."""
    if isinstance(pattern, str):
        return {m.group(1)[:1].lower() + m.group(1)[1:] for m in _PLACEHOLDER.finditer(pattern)}
    if isinstance(pattern, list):
        return set().union(*(message_variables(rule[1]) for rule in pattern))
    if isinstance(pattern, Mapping):
        found = {pattern[k] for k in SELECTORS if k in pattern}
        for key, value in pattern.items():
            if key not in SELECTORS:
                found |= message_variables(value)
        return found
    return set()


def selectors(pattern: Any) -> dict[str, tuple[str, set[str]]]:
    """Each variable a pattern selects on: the selector's kind and every case it lists."""
    found: dict[str, tuple[str, set[str]]] = {}
    if isinstance(pattern, Mapping):
        kind = next((k for k in SELECTORS if k in pattern), None)
        if kind is not None:
            cases_ = {k for k in pattern if k != kind}
            old = found.get(pattern[kind], (kind, set()))[1]
            found[pattern[kind]] = (kind, old | cases_)
        for key, value in pattern.items():
            if key in SELECTORS:
                continue
            for name, (inner, listed) in selectors(value).items():
                found[name] = (inner, found.get(name, (inner, set()))[1] | listed)
    return found


def kind_of(name: str) -> str:
    return VARIABLES.get(name, "text")


def samples(name: str, selected: tuple[str, set[str]] | None, *, full: bool) -> list[Value]:
    """Values for variable ``name``; ``selected``: how the message selects on it, if it
    does; ``full``: every rank and number (else a few of each, for the shared vector)."""
    kind = kind_of(name)
    if selected is not None and selected[0] == "select":
        options = sorted(case for case in selected[1] if case != "other")
        values: list[Value] = [int(o) if o.isdigit() and kind == "number" else o for o in options]
        return values + (["something else"] if "other" in selected[1] else [])
    numbers: tuple[int, ...] = _NUMBERS if full else (0, 1, 2, 5, 22, 1000000)
    if selected is not None and selected[0] == "plural":  # and exactly the "=N" it lists
        exact = {int(case[1:]) for case in selected[1] if case.startswith("=")}
        numbers = (*numbers, *sorted(exact - set(numbers)))
    ranks = _RANKS if full else "AKQJT7"
    return _samples(kind, numbers, ranks)


def _samples(kind: str, numbers: tuple[int, ...], ranks: str) -> list[Value]:
    ann, ben, isabel = _NAMED
    base, _, noun = kind.partition(":")
    simple: dict[str, list[Value]] = {
        "person": list(_PEOPLE),
        "persons": [
            [ann],
            [YOU],
            [COMPUTER],
            [ben, YOU],
            [ann, isabel],
            [COMPUTER, ann, isabel],
            [Said("status.away", {"who": ben}), COMPUTER],  # as `status.waiting_for` has it
        ],
        "cards": [
            [Card(YOU, "9S")],
            [Card(ann, "QS"), Card(COMPUTER, "AD")],
            [Card(ben, "JC"), Card(YOU, "TH"), Card(ann, "2D")],
        ],
        "rank": [Rank(r) for r in ranks],
        "suit": [Suit(s) for s in "SHDC"],
        "war": [War(d) for d in (1, 2, 3, 4, 5)],
        "count": [Count(noun, n) for n in numbers],
        "number": list(numbers),
        "decimal": [Number(0.25), Number(1.0), Number(7.5), Number(12.35)],
        "texts": [["x1"], ["x1", "x2"], ["x1", "x2", "x3"]],
        "text": ["x1"],
    }
    if base != "card":
        return simple[base]
    owners = (YOU, COMPUTER, IT, *_NAMED)
    if ranks == _RANKS:
        return [Card(owner, f"{rank}H") for owner in owners for rank in ranks]
    # a few: each owner with a Queen, each rank of `ranks` with each kind of owner
    every: list[Value] = [Card(owner, "QH") for owner in owners]
    return every + [Card(owner, f"{rank}S") for rank in ranks for owner in owners[:4]]


def cases(english: Catalog, key: str, *, full: bool = True) -> Iterator[dict[str, Value]]:
    """Values to say message ``key`` with: every combination of the variables the English
    message selects on, and with each (``full``; else with the first only) each value of
    each other variable in turn."""
    section, _, name = key.partition(".")
    pattern = english.data["messages"][section][name]
    chosen = selectors(pattern)
    names = sorted(message_variables(pattern))
    values = {n: samples(n, chosen.get(n), full=full) for n in names}
    picked = [n for n in names if n in chosen]
    base = {n: values[n][0] for n in names}
    seen: set[str] = set()
    for index, combination in enumerate(itertools.product(*(values[n] for n in picked))):
        varied = [n for n in names if n not in chosen] if full or index == 0 else []
        chosen_now = base | dict(zip(picked, combination, strict=True))
        variants = [chosen_now] + [chosen_now | {n: v} for n in varied for v in values[n][1:]]
        for case in variants:
            mark = repr(case)
            if mark not in seen:
                seen.add(mark)
                yield case


def value_json(value: Value) -> Any:
    """``value`` as the browser's catalog.js takes it."""
    if isinstance(value, Person):
        person: dict[str, Any] = {"person": value.kind}
        if value.kind == "name":
            person["name"] = value.name
        if value.kind == "seat":
            person["seat"] = value.seat
        return person
    if isinstance(value, Card):
        return {"card": value.code, "owner": value_json(value.owner)}
    if isinstance(value, Rank):
        return {"rank": value.code}
    if isinstance(value, Suit):
        return {"suit": value.code}
    if isinstance(value, War):
        return {"war": value.depth}
    if isinstance(value, Count):
        return {"count": value.noun, "n": value.n}
    if isinstance(value, Number):
        return {"number": value.value, "digits": value.digits}
    if isinstance(value, Said):
        return {"key": value.key, "values": {k: value_json(v) for k, v in value.values.items()}}
    if isinstance(value, (list, tuple)):
        return [value_json(item) for item in value]
    return value


def value_from_json(data: Any) -> Value:
    """The Python value `value_json` wrote."""
    if isinstance(data, list):
        return [value_from_json(item) for item in data]
    if not isinstance(data, dict):
        return data  # type: ignore[no-any-return]
    if "person" in data:
        return Person(data["person"], data.get("name", ""), data.get("seat", 0))
    if "card" in data:
        owner = value_from_json(data["owner"])
        assert isinstance(owner, Person)
        return Card(owner, data["card"])
    if "key" in data:
        return Said(data["key"], {k: value_from_json(v) for k, v in data["values"].items()})
    simple = {"rank": Rank, "suit": Suit, "war": War}
    for name, kind in simple.items():
        if name in data:
            return kind(data[name])  # type: ignore[no-any-return]
    if "count" in data:
        return Count(data["count"], data["n"])
    return Number(data["number"], data["digits"])
