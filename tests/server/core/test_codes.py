"""Codes and tokens: readable codes, unguessable tokens kept only as hashes."""

from __future__ import annotations

import re

from protocol.fields import Code, RoomId, Text, Token
from server.core.codes import (
    CODE_ALPHABET,
    hash_token,
    new_code,
    new_deal,
    new_room_id,
    new_token,
    normalize_code,
    token_matches,
)
from tests.server.core._roomkit import SeededSource


def _pattern(alias: object) -> re.Pattern[str]:
    text = next(m for m in alias.__metadata__ if isinstance(m, Text))  # type: ignore[attr-defined]
    assert text.pattern is not None
    return text.pattern


def test_alphabet_has_no_symbol_that_reads_like_another() -> None:
    for confusable in "01OILU":
        assert confusable not in CODE_ALPHABET
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET) == 30


def test_codes_are_two_groups_of_four_from_the_alphabet_and_fit_the_protocol() -> None:
    for _ in range(200):
        code = new_code()
        assert re.fullmatch(f"[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}", code), code
        assert _pattern(Code).fullmatch(code)


def test_codes_vary() -> None:
    assert len({new_code() for _ in range(200)}) == 200


def test_room_ids_fit_the_protocol() -> None:
    room = new_room_id()
    assert len(room) == 10
    assert room == room.lower()
    assert _pattern(RoomId).fullmatch(room)


def test_normalize_ignores_case_and_hyphens() -> None:
    assert normalize_code("k7mx-qd4r") == normalize_code("K7MXQD4R") == "K7MXQD4R"


def test_tokens_are_long_url_safe_and_fit_the_protocol() -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100
    for token in tokens:
        assert len(token) == 32
        assert _pattern(Token).fullmatch(token)


def test_token_hash_matches_only_its_token() -> None:
    token, other = new_token(), new_token()
    stored = hash_token(token)
    assert re.fullmatch("[0-9a-f]{64}", stored)
    assert token not in stored
    assert token_matches(token, stored)
    assert not token_matches(other, stored)
    assert not token_matches(token, None)


def test_seeded_source_reproduces_and_deals_cover_64_bits() -> None:
    first, second = SeededSource(5), SeededSource(5)
    assert [new_code(first), new_token(first), new_deal(first)] == [
        new_code(second),
        new_token(second),
        new_deal(second),
    ]
    deals = [new_deal(SeededSource(seed)) for seed in range(50)]
    assert all(0 <= deal < 2**64 for deal in deals)
    assert max(deals) > 2**63  # the whole range is used, not just 32 bits
