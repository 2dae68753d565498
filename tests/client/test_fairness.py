"""war-client's fair-deal check (`client.fair.check.check_fair_deal`) gives what the shared
vectors say, honest or tampered (tests/vectors/engine/checks.json, which the browser's
``checkFairDeal`` is checked against too)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from client.fair.check import check_fair_deal
from protocol.fairness import Claim
from server.engine.check import Shown
from tests.vectors.generate_engine import FOLDER, _shown_of

VECTORS: dict[str, Any] = json.loads((FOLDER / "checks.json").read_text(encoding="utf-8"))


def _shown(record: dict[str, Any]) -> Shown:
    return _shown_of(record)


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_the_shared_checks(case: dict[str, Any]) -> None:
    claim = Claim(
        case["rules"],
        case["deal_commitment"],
        case["server_seed"],
        case["seeds"],
        None if case["deal"] is None else int(case["deal"]),
        case["seed_commitments"],
    )
    my_seed = None if case["my_seed"] is None else bytes.fromhex(case["my_seed"])
    result = check_fair_deal(
        claim, _shown(VECTORS["shown"][case["shown"]]), my_seat=case["my_seat"], my_seed=my_seed
    )
    reveal = case["reveal"]
    problem = result.reveal.problem
    assert (None if problem is None else problem.to_json()) == reveal["problem"]
    assert [found.to_json() for found in result.reveal.proved] == reveal["proved"]
    assert (None if result.reveal.deal is None else str(result.reveal.deal)) == reveal["deal"]
    if case["replay"] is None:
        assert result.replay is None
        assert result.problem == problem
        assert not result.ok
        return
    assert result.replay is not None
    mismatch = case["replay"]["mismatch"]
    assert result.ok == (mismatch is None)
    assert (result.replay.steps, result.replay.flips, result.replay.cards) == (
        case["replay"]["steps"],
        case["replay"]["flips"],
        case["replay"]["cards"],
    )
    if mismatch is not None:
        assert result.replay.mismatch is not None
        assert result.problem == result.replay.mismatch
        assert result.replay.mismatch.what == mismatch["what"]
        assert result.replay.mismatch.facts == mismatch["facts"]


def test_every_tampering_is_caught() -> None:
    names = {c["name"]: c for c in VECTORS["cases"]}
    caught = [
        name
        for name, c in names.items()
        if c["reveal"]["problem"] is not None or c["replay"]["mismatch"] is not None
    ]
    assert set(names) - set(caught) == {"honest", "joined late", "steps missed while away"}
