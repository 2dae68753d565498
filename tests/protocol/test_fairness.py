"""The fair-deal derivation, commitments and fingerprint (`protocol.fairness`) against the
documented vectors (tests/vectors/engine/fairness.json, protocol/PROTOCOL.md "Fair deals"),
and what it refuses."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairness import (
    DEAL_LABEL,
    FINGERPRINT_ALPHABET,
    RULE_FIELDS,
    Claim,
    FairnessError,
    Finding,
    check_reveal,
    commitment,
    deal_message,
    derive_deal,
    fingerprint,
    fingerprint_message,
    fingerprint_symbols,
    new_seed,
    parse_commitment,
    parse_seed,
    rules_text,
)
from server.core.codes import CODE_ALPHABET
from server.engine import Rules
from tests.vectors.generate_engine import FOLDER

VECTORS: dict[str, Any] = json.loads((FOLDER / "fairness.json").read_text(encoding="utf-8"))
ZERO = bytes(32)


def _seeds(hexes: list[str | None]) -> list[bytes | None]:
    return [None if h is None else bytes.fromhex(h) for h in hexes]


@pytest.mark.parametrize("case", VECTORS["derivations"], ids=lambda c: c["deal"])
def test_the_documented_derivations(case: dict[str, Any]) -> None:
    key, seeds = bytes.fromhex(case["server_seed"]), _seeds(case["seeds"])
    assert rules_text(case["rules"]).decode("ascii") == case["rules_text"]
    message = deal_message(case["rules"], seeds)
    assert message.hex() == case["message"]
    assert hmac.new(key, message, hashlib.sha256).hexdigest() == case["hmac"]
    assert derive_deal(key, case["rules"], seeds) == int(case["deal"]) == int(case["hmac"][:16], 16)
    assert commitment(key) == case["deal_commitment"]
    assert [None if s is None else commitment(s) for s in seeds] == case["seed_commitments"]
    seats, game = case["seed_commitments"], case["game"]
    pinned = fingerprint_message(game, case["deal_commitment"], seats, case["rules"])
    assert pinned.hex() == case["fingerprint_message"]
    assert fingerprint(game, case["deal_commitment"], seats, case["rules"]) == case["fingerprint"]


def test_the_message_byte_by_byte() -> None:
    rules = Rules().to_dict()
    text = rules_text(rules)
    assert text.startswith(b"players=2\nface_down=1\naces=high\nshort_war=lose\n")
    assert b"taken_back=as_won\nround_limit=none\ntie_break=draw\nranks=13\nsuits=4\n" in text
    message = deal_message(rules, [b"\x07" * 32, None])
    assert message == (
        DEAL_LABEL
        + len(text).to_bytes(2, "big")
        + text
        + b"\x02"
        + b"\x01"
        + b"\x07" * 32
        + b"\x00"
    )
    assert DEAL_LABEL == b"family-war deal v1\x00"


def test_every_rule_setting_is_in_the_derivation_in_the_engine_s_order() -> None:
    assert tuple(Rules().to_dict()) == RULE_FIELDS


def test_a_seat_s_seed_cannot_move_to_another_seat() -> None:
    rules, seed = Rules().to_dict(), b"\x05" * 32
    assert deal_message(rules, [seed, None]) != deal_message(rules, [None, seed])
    assert derive_deal(ZERO, rules, [seed, None]) != derive_deal(ZERO, rules, [None, seed])


def test_the_rules_change_the_deal() -> None:
    seeds = [b"\x01" * 32, b"\x02" * 32]
    deals = {
        derive_deal(ZERO, Rules(**change).to_dict(), seeds)
        for change in ({}, {"taken_back": "as_laid"}, {"round_limit": 26}, {"aces": "low"})
    }
    assert len(deals) == 4


@pytest.mark.parametrize("case", VECTORS["refused"], ids=str)
def test_refused(case: dict[str, Any]) -> None:
    with pytest.raises(FairnessError):
        deal_message(case["rules"], [bytes.fromhex(s) for s in case["seeds"]])


def test_seeds_and_commitments_are_64_lowercase_hex_digits() -> None:
    assert parse_seed("ab" * 32) == b"\xab" * 32
    for bad in ("AB" * 32, "ab" * 31, "ab" * 33, 12, None, "zz" * 32, " " + "a" * 63):
        with pytest.raises(FairnessError):
            parse_seed(bad)
        with pytest.raises(FairnessError):
            parse_commitment(bad)
    with pytest.raises(FairnessError, match="the server seed must be 32 bytes"):
        derive_deal(b"short", Rules().to_dict(), [None, None])
    assert len(new_seed()) == 32
    assert new_seed() != new_seed()


def test_the_fingerprint_uses_the_room_codes_alphabet() -> None:
    assert FINGERPRINT_ALPHABET == CODE_ALPHABET
    symbols = fingerprint_symbols
    assert symbols(bytes(32)) == "2222-2222-2222"
    assert symbols(bytes.fromhex("0" * 63 + "1")) == "2222-2222-2223"
    assert symbols(bytes.fromhex("0" * 62 + "1d")) == "2222-2222-222Z"  # 29
    assert symbols(bytes.fromhex("0" * 62 + "1e")) == "2222-2222-2232"  # 30: the next digit
    assert symbols(bytes.fromhex(f"{30**12:064x}")) == "2222-2222-2222"  # modulo 30**12


@given(st.binary(min_size=32, max_size=32))
def test_fingerprints_are_three_groups_of_four(seed: bytes) -> None:
    text = fingerprint(1, commitment(seed), [commitment(seed), None], Rules().to_dict())
    groups = text.split("-")
    assert [len(g) for g in groups] == [4, 4, 4]
    assert set("".join(groups)) <= set(FINGERPRINT_ALPHABET)


@given(
    st.fixed_dictionaries(
        {
            "rules": st.sampled_from([Rules().to_dict(), {"players": 2}, {}]),
            "deal_commitment": st.one_of(st.none(), st.text(max_size=70), st.integers()),
            "server_seed": st.one_of(st.none(), st.text(max_size=70), st.binary()),
            "seeds": st.lists(
                st.one_of(st.none(), st.text(max_size=70), st.integers()), max_size=5
            ),
            "deal": st.one_of(st.none(), st.integers(), st.text(max_size=5)),
        }
    )
)
def test_check_reveal_never_raises_for_hostile_values(fields: dict[str, Any]) -> None:
    reveal = check_reveal(Claim(**fields))
    assert reveal.problem is not None


def test_check_reveal_of_an_honest_table() -> None:
    rules = Rules(players=3).to_dict()
    key, seeds = b"\x09" * 32, [b"\x01" * 32, None, b"\x03" * 32]
    deal = derive_deal(key, rules, seeds)
    hexes = [None if s is None else s.hex() for s in seeds]
    commitments = [None if s is None else commitment(s) for s in seeds]
    claim = Claim(rules, commitment(key), key.hex(), hexes, deal, commitments)
    reveal = check_reveal(claim, my_seat=2, my_seed=seeds[2])
    assert reveal.ok
    assert reveal.deal == deal
    assert reveal.proved == (
        Finding("server_seed"),
        Finding("seat_seeds"),
        Finding("my_seed", {"seat": 2}),
        Finding("deal", {"deal": str(deal)}),
    )


def test_the_protocol_s_worked_example_is_the_second_vector() -> None:
    doc = (Path(__file__).parents[2] / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    section = doc[doc.index("## 10. Fair deals") :]
    case = VECTORS["derivations"][1]
    message = bytes.fromhex(case["message"])
    assert f"the {len(rules_text(case['rules']))}-byte text" in section
    assert "`" + case["rules_text"].replace("\n", "\\n") + "`" in section
    assert f"M is {len(message)} bytes" in section
    assert f"HMAC starts `{case['hmac'][:16]}`" in section
    assert f"0x{case['hmac'][:16]} = {case['deal']}" in section
    assert f"`{case['deal_commitment'][:8]}…{case['deal_commitment'][-8:]}`" in section
    assert f"`{case['server_seed'][:8]}…{case['server_seed'][-6:]}`" in section
    assert f"`{case['fingerprint']}`" in section
    assert case["server_seed"] == hashlib.sha256(b"server").hexdigest()
    for name in RULE_FIELDS:
        assert f"`{name}`" in section
