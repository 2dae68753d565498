"""Games the tests of several layers share: the longest finish vote they know, and one
check that two games ended the same.

`LONG_RULES`, `LONG_DEAL`: a stranger's game that would hold the server. One seat and
three computers, cards returned in a fixed order, a round limit of a
million, deal 374: playing it out takes 20,525 steps (about 150 ms in one go on the
machine of docs/performance.md), the case of the sliced play-out's tests.
"""

from __future__ import annotations

from protocol import FixedOrder, RulesSpec, WonCards
from server.engine import Game

__all__ = ["LONG_DEAL", "LONG_RULES", "LONG_STEPS", "assert_same_end"]

LONG_RULES = RulesSpec(
    players=4, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0, round_limit=1_000_000
)
LONG_DEAL = 374
LONG_STEPS = 20_525
"""Steps from the deal to the end (checked against the engine by the tests that use it)."""


def assert_same_end(a: Game, b: Game) -> None:
    """``a`` and ``b`` ended the same: outcome, figures, piles, who is in, the table, and
    the steps it took (the fast path, the step path and a play-out in slices must)."""
    assert a.outcome == b.outcome
    assert a.summary == b.summary
    assert a.counts == b.counts
    assert a.steps == b.steps
    assert a.active == b.active
    assert a.table == b.table
