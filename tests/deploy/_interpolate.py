"""Compose-file variable interpolation and the .env format, as the tests need them.

Sans-I/O: text and mappings in, text out. Follows the Compose Specification's
"Interpolation" section: ``$$`` is a literal ``$``; ``$NAME`` and ``${NAME}`` substitute;
``${NAME:-default}`` / ``${NAME-default}`` fall back when unset-or-empty / unset;
``${NAME:?error}`` / ``${NAME?error}`` refuse when unset-or-empty / unset;
``${NAME:+alt}`` / ``${NAME+alt}`` give ``alt`` when set-and-non-empty / set. Defaults
may themselves contain references. Anything else after ``$`` is an invalid template, as
in Compose itself.

The .env reader accepts a strict subset of Compose's dotenv syntax (comments, blank
lines, ``NAME=value`` with an unquoted value) so that .env.example stays unambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "EnvFileError",
    "InterpolationError",
    "Reference",
    "interpolate",
    "interpolate_tree",
    "parse_env_file",
    "references",
]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (":-", ":?", ":+", "-", "?", "+")


class InterpolationError(ValueError):
    """A string is not a valid Compose template, or a required variable is missing."""


class EnvFileError(ValueError):
    """A .env line is outside the strict subset this project allows."""


@dataclass(frozen=True, slots=True)
class Reference:
    """One ``${...}`` or ``$NAME`` reference: the variable, its operator and argument."""

    name: str
    operator: str  # "" for a plain reference, else one of _OPERATORS
    argument: str  # raw text after the operator, may hold nested references


def _braced_end(text: str, start: int) -> int:
    """Return the index of the ``}`` closing the ``${`` whose body starts at ``start``."""
    depth = 1
    i = start
    while i < len(text):
        if text.startswith("$$", i):
            i += 2
            continue
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise InterpolationError(f"unterminated '${{' in {text!r}")


def _parse_braced(body: str, whole: str) -> Reference:
    match = _NAME.match(body)
    if match is None:
        raise InterpolationError(f"invalid variable name in '${{{body}}}' of {whole!r}")
    rest = body[match.end() :]
    if not rest:
        return Reference(match.group(), "", "")
    for operator in _OPERATORS:
        if rest.startswith(operator):
            return Reference(match.group(), operator, rest[len(operator) :])
    raise InterpolationError(f"invalid substitution '${{{body}}}' in {whole!r}")


def _scan(text: str) -> list[str | Reference]:
    """Split ``text`` into literal pieces and references; raises InterpolationError."""
    pieces: list[str | Reference] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "$":
            literal.append(char)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt == "$":
            literal.append("$")
            i += 2
            continue
        if literal:
            pieces.append("".join(literal))
            literal = []
        if nxt == "{":
            end = _braced_end(text, i + 2)
            pieces.append(_parse_braced(text[i + 2 : end], text))
            i = end + 1
            continue
        match = _NAME.match(text, i + 1)
        if match is None:
            raise InterpolationError(f"invalid template: lone '$' at {i} in {text!r}")
        pieces.append(Reference(match.group(), "", ""))
        i = match.end()
    if literal:
        pieces.append("".join(literal))
    return pieces


def references(text: str) -> list[Reference]:
    """Every reference in ``text``, nested ones in defaults included, in order.

    Raises InterpolationError if ``text`` is not a valid template.
    """
    found: list[Reference] = []
    for piece in _scan(text):
        if isinstance(piece, Reference):
            found.append(piece)
            found.extend(references(piece.argument))
    return found


def _resolve(ref: Reference, env: Mapping[str, str]) -> str:
    value = env.get(ref.name)
    is_set = value is not None
    non_empty = bool(value)
    op = ref.operator
    if op == "":
        return value or ""
    if op in (":-", "-"):
        keep = non_empty if op == ":-" else is_set
        return (value or "") if keep else interpolate(ref.argument, env)
    if op in (":?", "?"):
        ok = non_empty if op == ":?" else is_set
        if not ok:
            raise InterpolationError(
                f"required variable {ref.name} is missing: {interpolate(ref.argument, env)}"
            )
        return value or ""
    use_alt = non_empty if op == ":+" else is_set
    return interpolate(ref.argument, env) if use_alt else ""


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Return ``text`` with every reference substituted from ``env``.

    Raises InterpolationError for an invalid template or a missing required variable.
    """
    return "".join(
        piece if isinstance(piece, str) else _resolve(piece, env) for piece in _scan(text)
    )


def interpolate_tree(node: object, env: Mapping[str, str]) -> object:
    """Interpolate every string value (not mapping keys) of a loaded YAML/JSON tree.

    Raises InterpolationError as ``interpolate`` does.
    """
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, Mapping):
        return {key: interpolate_tree(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [interpolate_tree(item, env) for item in node]
    return node


def parse_env_file(text: str) -> dict[str, str]:
    """Read ``NAME=value`` lines (comments and blank lines skipped) into a dict.

    Raises EnvFileError for anything outside the strict subset: a malformed name, spaces
    around ``=``, quotes, ``$``, an inline comment, or a name given twice.
    """
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or _NAME.fullmatch(name) is None:
            raise EnvFileError(f"line {number}: expected NAME=value, got {line!r}")
        if value != value.strip() or any(c in value for c in "\"'$`") or " #" in value:
            raise EnvFileError(f"line {number}: value must be plain and unquoted: {line!r}")
        if name in values:
            raise EnvFileError(f"line {number}: {name} given twice")
        values[name] = value
    return values
