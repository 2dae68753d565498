"""Every message catalog is complete: the same keys as English, every placeholder used, the
plural categories CLDR gives its language, every option, form and person case a message
can meet (each message said strictly with every kind of value, tests/vectors/samples.py).

docs/translating.md is the guide these tests keep true.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from client.errors import CatalogError
from client.words.catalog import FOLDER, SELECTORS, available, catalog
from protocol import CloseCode, ErrorCode
from tests.vectors.samples import VARIABLES, cases, message_variables, selectors

LANGUAGES = available()
OTHERS = [tag for tag in LANGUAGES if tag != "en"]
ENGLISH = catalog("en", strict=True)
INTEGERS = [*range(0, 230), 1000, 1001, 10**6, 2 * 10**6, 10**9, 10**12]
"""Enough whole numbers to meet every category CLDR gives a whole number in these
languages (one, two, few, many, other), the millions of Spanish and French included."""


def data(tag: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((FOLDER / f"{tag}.json").read_text(encoding="utf-8"))
    return value


def messages(tag: str) -> Iterator[tuple[str, Any]]:
    for section, entries in data(tag)["messages"].items():
        for name, pattern in entries.items():
            yield f"{section}.{name}", pattern


def integer_categories(tag: str) -> set[str]:
    words = catalog(tag)
    return {words.plural(n) for n in INTEGERS}


def plurals(pattern: Any) -> Iterator[dict[str, Any]]:
    """Every plural selector in a pattern (or a word's forms)."""
    if isinstance(pattern, Mapping):
        if "plural" in pattern:
            yield dict(pattern)
        for key, value in pattern.items():
            if key not in SELECTORS:
                yield from plurals(value)
    elif isinstance(pattern, list):
        for rule in pattern:
            if isinstance(rule, list) and len(rule) == 2:
                yield from plurals(rule[1])


def persons(pattern: Any) -> Iterator[dict[str, Any]]:
    if isinstance(pattern, Mapping):
        if "person" in pattern:
            yield dict(pattern)
        for key, value in pattern.items():
            if key not in SELECTORS:
                yield from persons(value)


def test_there_are_the_five_languages_and_english_comes_first() -> None:
    assert LANGUAGES[0] == "en"
    assert set(LANGUAGES) >= {"en", "es", "fr", "de", "pl"}
    for tag in LANGUAGES:
        language = data(tag)["language"]
        assert language["tag"] == tag and language["name"], tag
        assert language.get("decimal") in (".", ","), tag


@pytest.mark.parametrize("tag", OTHERS)
def test_every_key_of_english_and_no_other(tag: str) -> None:
    english = dict(messages("en"))
    theirs = dict(messages(tag))
    assert sorted(set(english) - set(theirs)) == [], f"{tag} lacks these keys"
    assert sorted(set(theirs) - set(english)) == [], f"{tag} has keys English has not"


@pytest.mark.parametrize("tag", OTHERS)
def test_every_placeholder_of_english_is_used_and_no_other(tag: str) -> None:
    english = dict(messages("en"))
    for key, pattern in messages(tag):
        wanted = message_variables(english[key])
        used = message_variables(pattern)
        assert wanted <= used, f"{tag} {key} leaves out {sorted(wanted - used)}"
        assert used <= wanted | {"form"}, f"{tag} {key} uses unknown {sorted(used - wanted)}"


def test_every_placeholder_name_says_what_it_holds() -> None:
    """A placeholder holds what its name says (tests/vectors/samples.py's VARIABLES, listed
    in docs/translating.md); any other name holds a text or an option."""
    kinds = {"text"} | set(VARIABLES.values())
    for tag in LANGUAGES:
        for key, pattern in messages(tag):
            for name in message_variables(pattern):
                assert re.fullmatch(r"[a-z][a-z0-9_]*", name), (tag, key, name)
    assert all(kind.split(":")[0] in {k.split(":")[0] for k in kinds} for kind in kinds)


@pytest.mark.parametrize("tag", LANGUAGES)
def test_plurals_have_exactly_the_categories_cldr_gives_whole_numbers(tag: str) -> None:
    wanted = integer_categories(tag)
    found = [(key, p) for key, pattern in messages(tag) for p in plurals(pattern)]
    found += [
        (f"words.{kind}", p) for kind, word in data(tag)["words"].items() for p in plurals(word)
    ]
    assert found
    for where, selector in found:
        listed = {k for k in selector if k != "plural" and not k.startswith("=")}
        assert listed == wanted, f"{tag} {where}: {sorted(listed)}, CLDR: {sorted(wanted)}"
        assert all(re.fullmatch(r"=\d+", k) for k in selector if k.startswith("=")), where


@pytest.mark.parametrize("tag", LANGUAGES)
def test_selections_list_the_options_english_lists(tag: str) -> None:
    english = dict(messages("en"))
    for key, pattern in messages(tag):
        theirs = selectors(pattern)
        for name, (kind, listed) in selectors(english[key]).items():
            if kind != "select":
                continue
            assert name in theirs, f"{tag} {key} does not select on {name!r}"
            options = theirs[name][1]
            missing = listed - options - {"other"} if "other" in options else listed - options
            assert not missing, f"{tag} {key}: no case for {sorted(missing)}"
            assert options <= listed | {"other"}, f"{tag} {key}: unknown {sorted(options - listed)}"


@pytest.mark.parametrize("tag", LANGUAGES)
def test_person_selections_say_you_and_the_others(tag: str) -> None:
    for key, pattern in messages(tag):
        for selector in persons(pattern):
            cases_ = set(selector) - {"person"}
            assert {"you", "other"} <= cases_ <= {"you", "other", "computer", "it"}, (tag, key)


def test_english_says_every_error_code_and_every_close_code() -> None:
    reasons = ENGLISH.data["messages"]["error"]["reason"]
    assert {code.value for code in ErrorCode} <= set(reasons)
    closes = ENGLISH.data["messages"]["close"]["reason"]
    assert {str(int(code)) for code in CloseCode} | {"1006"} <= set(closes)


@pytest.mark.parametrize("tag", LANGUAGES)
def test_the_words_are_all_there(tag: str) -> None:
    words = data(tag)["words"]
    assert {"you", "computer", "it", "name", "seat"} <= set(words)
    assert set(words["rank"]) == set("AKQJT98765432")
    assert all("label" in entry for entry in words["rank"].values()), tag
    assert set(words["suit"]) == set("SHDC")
    assert set(words["card"]) == {"you", "computer", "it", "name"}
    assert {"1", "2", "3", "4", "other"} <= set(words["war"])
    assert set(words["count"]) == set(data("en")["words"]["count"])
    assert set(data(tag)["list"]) == {"two", "start", "middle", "end"}


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_message_can_be_said_with_every_kind_of_value(tag: str) -> None:
    """Strictly, every message with every combination of what it selects on and each
    value of the rest: a missing form, case, option or rank fails here, not at a table."""
    words = catalog(tag, strict=True)
    said = 0
    for key, _ in messages("en"):
        for values in cases(ENGLISH, key):
            try:
                text = words.text(key, **values)
            except CatalogError as error:
                pytest.fail(f"{key} with {values}: {error}")
            assert text.strip() and "{" not in text, (tag, key, values, text)
            said += 1
    assert said > 1000


def test_a_strict_catalog_refuses_what_a_lenient_one_gets_round() -> None:
    lenient = catalog("en")
    assert lenient.text("no.such") == "no.such"
    assert lenient.text("said.joined") == "{Who} takes seat {seat}."
    with pytest.raises(CatalogError, match=r"no message 'no\.such'"):
        ENGLISH.text("no.such")
    with pytest.raises(CatalogError, match="no value for"):
        ENGLISH.text("said.joined", seat=2)
    with pytest.raises(CatalogError, match="no catalog for the language 'xx'"):
        catalog("xx")


def test_french_spaces_its_punctuation_as_french_does() -> None:
    """A no-break space before : ; ! ? and inside « », never a plain one (a line would
    break before the mark)."""
    for key, pattern in messages("fr"):
        for text in _texts(pattern):
            assert not re.search(r" [:;!?»]|« ", text), (key, text)
            assert not re.search(r"\w[;!?]", text), (key, text)


@pytest.mark.parametrize("tag", LANGUAGES)
def test_the_fingerprint_line_is_one_sentence_the_page_says_alike(tag: str) -> None:
    """The fair deal's fingerprint line (``fair.fingerprint``: war-client's ``--plain`` and
    its TUI) ends as a sentence does, and says after the fingerprint what the page's
    line (``fair.page_fingerprint``, js/fairview.js) says, word for word."""
    said = dict(messages(tag))
    plain, page = said["fair.fingerprint"], said["fair.page_fingerprint"]
    assert plain.endswith(".") and page.endswith("."), (plain, page)

    def after(text: str) -> str:
        return text.split("{print}", 1)[1].lstrip(" \u202f:;—–-")

    assert after(plain) == after(page), (plain, page)


def _texts(pattern: Any) -> Iterator[str]:
    if isinstance(pattern, str):
        yield pattern
    elif isinstance(pattern, Mapping):
        for key, value in pattern.items():
            if key not in SELECTORS:
                yield from _texts(value)
    elif isinstance(pattern, list):
        for rule in pattern:
            yield from _texts(rule[1])


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_browser_and_babel_give_whole_numbers_the_same_plural_category() -> None:
    """Intl.PluralRules (the page) and Babel's CLDR data (war-client) agree, so both
    clients choose the same form."""
    script = (
        "const [tags, ns] = JSON.parse(process.argv[1]);"
        "const say = (t) => ns.map((n) => new Intl.PluralRules(t).select(n));"
        "console.log(JSON.stringify(tags.map(say)));"
    )
    argument = json.dumps([list(LANGUAGES), INTEGERS])
    out = subprocess.run(
        ["node", "-e", script, argument], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    browser = dict(zip(LANGUAGES, json.loads(out), strict=True))
    for tag in LANGUAGES:
        words = catalog(tag)
        assert browser[tag] == [words.plural(n) for n in INTEGERS], tag


def test_the_catalogs_are_package_data() -> None:
    assert Path(__file__).resolve().parents[2] / "client" / "web" / "lang" == FOLDER
