"""The fair-deal check war-client makes at game over (docs/fairness.md).

`check_fair_deal` is the Python twin of the browser's ``checkFairDeal``
(``client/web/js/engine/fairness.js``), pinned to it by tests/vectors/engine/checks.json:
first what the server revealed against what it committed to
(`protocol.fairness.check_reveal`), then, if that holds, the derived deal replayed with
the engine and compared with every flip, take and the end this client was shown
(`server.engine.check.check_replay`). The client imports the engine for this alone: it is
pure (no I/O, no clock), and the layering contracts in pyproject.toml allow the client
exactly ``server.engine``. The client never computes a result it shows; it proves the one
the server sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.fairness import Claim, Finding, Reveal, check_reveal
from server.engine import Rules, RulesError
from server.engine.check import Mismatch, Replay, Shown, check_replay

__all__ = ["FairDeal", "check_fair_deal"]


@dataclass(frozen=True, slots=True)
class FairDeal:
    """What the check found: ``reveal`` always, ``replay`` once the reveal held."""

    reveal: Reveal
    replay: Replay | None

    @property
    def ok(self) -> bool:
        """Whether everything checked matched: the reveal and every card shown."""
        return self.reveal.ok and self.replay is not None and self.replay.ok

    @property
    def problem(self) -> Finding | Mismatch | None:
        """The first thing that did not match (``None`` when all did): a finding of the
        reveal, or the first card, take or end of the replay that is not the deal's
        (`client.fair.words` words either)."""
        if self.reveal.problem is not None:
            return self.reveal.problem
        if self.replay is not None and self.replay.mismatch is not None:
            return self.replay.mismatch
        return None


def check_fair_deal(
    claim: Claim, shown: Shown, *, my_seat: int | None = None, my_seed: bytes | None = None
) -> FairDeal:
    """Check ``claim`` (the reveal), then replay its deal against what was ``shown``.

    ``my_seat`` and ``my_seed``: this client's seat and the seed it sent, if it sent one.
    Never raises for what the server sent: rules the engine cannot play are a failed
    reveal.
    """
    reveal = check_reveal(claim, my_seat=my_seat, my_seed=my_seed)
    if not reveal.ok or reveal.deal is None:
        return FairDeal(reveal, None)
    try:
        rules = Rules.from_dict(dict(claim.rules))
    except RulesError as error:
        unplayable = Finding("rules_unplayable", {"error": str(error)})
        return FairDeal(Reveal(reveal.deal, unplayable, ()), None)
    return FairDeal(reveal, check_replay(rules, reveal.deal, shown))
