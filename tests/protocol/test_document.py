"""PROTOCOL.md documents every message type, field, error code and close code."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from protocol import CLIENT_MESSAGE_TYPES, SERVER_MESSAGE_TYPES, CloseCode, ErrorCode

DOC = (Path(__file__).parents[2] / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
ALL_TYPES = {**CLIENT_MESSAGE_TYPES, **SERVER_MESSAGE_TYPES}


@pytest.mark.parametrize("tag", sorted(ALL_TYPES))
def test_every_message_type_and_field_is_documented(tag: str) -> None:
    assert f"`{tag}`" in DOC
    for field in dataclasses.fields(ALL_TYPES[tag]):
        assert f"`{field.name}`" in DOC, f"{tag}.{field.name} is not documented"


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_every_error_code_is_in_the_table(code: ErrorCode) -> None:
    assert re.search(rf"^\| `{code.value}` \|", DOC, re.MULTILINE)


@pytest.mark.parametrize("code", list(CloseCode), ids=lambda c: str(c.value))
def test_every_close_code_is_in_the_table(code: CloseCode) -> None:
    assert re.search(rf"^\| {code.value} \|", DOC, re.MULTILINE)


def test_no_undocumented_error_code_is_in_the_table() -> None:
    documented = set(re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| (?:no|\d{4})", DOC, re.MULTILINE))
    assert documented == {code.value for code in ErrorCode}


def test_example_codes_follow_the_documented_code_format() -> None:
    """Codes in the examples look like the server's own (server.core.codes)."""
    from server.core.codes import CODE_ALPHABET, CODE_LENGTH  # noqa: PLC0415

    half = CODE_LENGTH // 2
    symbol = f"[{CODE_ALPHABET}]"
    shape = re.compile(rf"{symbol}{{{half}}}-{symbol}{{{half}}}")
    assert f"`{CODE_ALPHABET}`" in DOC  # the format is written down
    examples = re.findall(r'"(?:code|player_code|watch_code)":"([^"]+)"', DOC)
    assert examples
    for example in examples:
        if example in {code.value for code in ErrorCode}:
            continue  # an error message's "code"
        assert shape.fullmatch(example), example
