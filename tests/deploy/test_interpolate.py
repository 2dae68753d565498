"""The interpolation and .env readers the compose checks rely on."""

from __future__ import annotations

import pytest

from tests.deploy._interpolate import (
    EnvFileError,
    InterpolationError,
    Reference,
    interpolate,
    interpolate_tree,
    parse_env_file,
    references,
)

ENV = {"SET": "value", "EMPTY": ""}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("plain", "plain"),
        ("$SET", "value"),
        ("${SET}", "value"),
        ("a${SET}b$SET.c", "avaluebvalue.c"),
        ("${UNSET}", ""),
        ("${UNSET:-d}", "d"),
        ("${EMPTY:-d}", "d"),
        ("${EMPTY-d}", ""),
        ("${UNSET-d}", "d"),
        ("${SET:-d}", "value"),
        ("${SET:+alt}", "alt"),
        ("${EMPTY:+alt}", ""),
        ("${EMPTY+alt}", "alt"),
        ("${UNSET+alt}", ""),
        ("${SET:?must}", "value"),
        ("${EMPTY?must}", ""),
        ("${UNSET:-${SET}}", "value"),
        ("${UNSET:-${ALSO:-x}y}", "xy"),
        ("$$SET and $${SET}", "$SET and ${SET}"),
        ("${UNSET:-0.0.0.0}:${UNSET:-8765}:8765", "0.0.0.0:8765:8765"),
        ("${UNSET:-}", ""),
    ],
)
def test_interpolate(template: str, expected: str) -> None:
    assert interpolate(template, ENV) == expected


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("${UNSET:?set it}", "required variable UNSET is missing: set it"),
        ("${EMPTY:?set it}", "required variable EMPTY is missing"),
        ("${UNSET?x}", "required variable UNSET"),
        ("${SET", "unterminated"),
        ("${1BAD}", "invalid variable name"),
        ("${}", "invalid variable name"),
        ("${SET:x}", "invalid substitution"),
        ("cost: 5$", "lone '$'"),
        ("$ SET", "lone '$'"),
    ],
)
def test_interpolate_refuses(template: str, fragment: str) -> None:
    with pytest.raises(InterpolationError, match=fragment.replace("$", r"\$")):
        interpolate(template, ENV)


def test_references_include_nested_defaults() -> None:
    assert references("${A:-${B}}$C $$D") == [
        Reference("A", ":-", "${B}"),
        Reference("B", "", ""),
        Reference("C", "", ""),
    ]


def test_interpolate_tree_touches_values_not_keys() -> None:
    tree = {"${KEY}": ["${SET}", 3, {"n": "${UNSET:-x}"}], "t": True}
    assert interpolate_tree(tree, ENV) == {"${KEY}": ["value", 3, {"n": "x"}], "t": True}


def test_parse_env_file() -> None:
    text = "# comment\n\nA=1\nB=\nC=x=y\n  # indented comment\n"
    assert parse_env_file(text) == {"A": "1", "B": "", "C": "x=y"}


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("A = 1", "expected NAME=value"),
        ("1A=1", "expected NAME=value"),
        ("no equals", "expected NAME=value"),
        ('A="quoted"', "plain and unquoted"),
        ("A=x # comment", "plain and unquoted"),
        ("A=$OTHER", "plain and unquoted"),
        ("A=1 ", "plain and unquoted"),
        ("A=1\nA=2", "A given twice"),
    ],
)
def test_parse_env_file_refuses(line: str, fragment: str) -> None:
    with pytest.raises(EnvFileError, match=fragment):
        parse_env_file(line)
