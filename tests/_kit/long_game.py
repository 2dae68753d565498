"""The longest finish vote the tests know: a stranger's game that would hold the server.

One seat and three computers, cards returned in a fixed order, a round limit of a
million, deal 374: playing it out takes 20,525 steps (about 150 ms in one go on the
machine of docs/performance.md), the case of the sliced play-out's tests.
"""

from __future__ import annotations

from protocol import FixedOrder, RulesSpec, WonCards

__all__ = ["LONG_DEAL", "LONG_RULES", "LONG_STEPS"]

LONG_RULES = RulesSpec(
    players=4, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0, round_limit=1_000_000
)
LONG_DEAL = 374
LONG_STEPS = 20_525
"""Steps from the deal to the end (checked against the engine by the tests that use it)."""
