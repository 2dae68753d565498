"""What the fair-deal check found, as the catalogs' ``check`` messages say it.

The check (`client.fair.check`, the engine's `server.engine.check`) says what it found as
language-neutral values: a `protocol.fairness.Finding` of the reveal (a code and its
values) or a `server.engine.check.Mismatch` of the replay (the step, the seat, the cards,
the take or the end that are not the deal's). `check_said` turns either into a `Said`
for the viewer's catalog, naming each seat by the name the table shows (``names``, seat
order; an open seat by its number). The page's ``client/web/js/fairwords.js`` is its
twin, pinned to it by tests/vectors/functions/fair-checks.json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from client.words.catalog import Count, Person, Rank, Said, Suit, Value, said
from protocol.fairness import Finding
from server.engine.check import Mismatch

__all__ = ["check_said", "seat_person"]

FINDINGS: dict[str, str] = {
    "malformed": "check.malformed",
    "seed_size": "check.malformed",
    "server_seed_size": "check.malformed",
    "seeds_per_seat": "check.seeds_per_seat",
    "seeds_for_seats": "check.seeds_per_seat",
    "rules_missing": "check.rules",
    "rules_value": "check.rules",
    "rules_unplayable": "check.rules",
    "server_seed_mismatch": "check.server_seed_mismatch",
    "seat_commitments": "check.seat_commitments",
    "seed_uncommitted": "check.seed_uncommitted",
    "seed_unused": "check.seed_unused",
    "seed_mismatch": "check.seed_mismatch",
    "not_my_seed": "check.not_my_seed",
    "deal_mismatch": "check.deal_mismatch",
    "server_seed": "check.server_seed",
    "seat_seeds": "check.seat_seeds",
    "my_seed": "check.my_seed",
    "deal": "check.deal",
    "commitment_changed": "check.commitment_changed",
    "seat_commitment_changed": "check.seat_commitment_changed",
    "rules_changed": "check.rules_changed",
    "time_up_early": "check.time_up_early",
    "my_seed_dropped": "check.my_seed_dropped",
}
"""The catalog message of each finding's code (an unknown code: ``check.record``)."""
_WHAT = {"seed_size": "seed", "server_seed_size": "server_seed"}
"""What a wrong-sized seed is, for ``check.malformed``."""


def seat_person(names: Sequence[str | Person | None], seat: int) -> Person:
    """``seat`` (from 0) as the table says it: a person of the table's words (a computer
    seat in the viewer's words, `client.words.who.named`), a name, or an open seat."""
    name = names[seat] if 0 <= seat < len(names) else None
    if isinstance(name, Person):
        return name
    return Person("seat", seat=seat + 1) if name is None else Person("name", name)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _card(code: str) -> Said:
    return said("table.card_name", rank=Rank(code), suit=Suit(code))


def _finding(finding: Finding, names: Sequence[str | Person | None]) -> Said:
    values: dict[str, Value] = {}
    seat = _int(finding.values.get("seat"))
    if seat is not None:
        values["who"] = seat_person(names, seat)
    what = finding.values.get("what", _WHAT.get(finding.code))
    if what is not None:
        values["what"] = str(what)
    for name in ("deal", "derived"):
        if name in finding.values:
            values[name] = str(finding.values[name])
    seconds = _int(finding.values.get("seconds"))
    if seconds is not None:
        values["seconds"] = seconds
    return Said(FINDINGS.get(finding.code, "check.record"), values)


def _take(step: int, facts: Mapping[str, object], names: Sequence[str | Person | None]) -> Said:
    seat, count = _int(facts.get("seat")) or 0, _int(facts.get("count")) or 0
    deal_seat, deal_count = _int(facts.get("deal_seat")), _int(facts.get("deal_count"))
    who, cards = seat_person(names, seat), Count("card", count)
    if deal_seat is None or deal_count is None:
        return said("check.take_extra", step=step, who=who, cards=cards)
    if (deal_seat, deal_count) == (seat, count):
        return said("check.take_piles", step=step)
    owner, haul = seat_person(names, deal_seat), Count("card", deal_count)
    return said("check.take", step=step, who=who, cards=cards, owner=owner, haul=haul)


def _card_mismatch(m: Mismatch, names: Sequence[str | Person | None]) -> Said:
    who = seat_person(names, m.seat or 0)
    if m.expected == "none":
        return said("check.card_extra", step=m.step, who=who, shown=_card(m.shown))
    if m.shown == "none":
        return said("check.card_missing", step=m.step, who=who, expected=_card(m.expected))
    expected, shown = _card(m.expected), _card(m.shown)
    return said("check.card", step=m.step, who=who, shown=shown, expected=expected)


def _end(step: int, field: str) -> Said:
    if field == "over":
        return said("check.over", step=step)
    if field == "goes_on":
        return said("check.goes_on", step=step)
    return said("check.end", step=step, field=field)


def _mismatch(m: Mismatch, names: Sequence[str | Person | None]) -> Said:
    if m.what == "card":
        return _card_mismatch(m, names)
    if m.what == "take":
        return _take(m.step, m.facts, names)
    if m.what == "end":
        return _end(m.step, str(m.facts.get("field", "")))
    return _shown_other(m, names)


def _shown_other(m: Mismatch, names: Sequence[str | Person | None]) -> Said:
    """Face-down cards, a war, an out, a step left out, or a flip the deal does not make."""
    who = seat_person(names, m.seat or 0)
    if m.what == "laid":
        return said("check.laid", step=m.step, who=who)
    if m.what == "out":
        return said("check.out", step=m.step, who=who)
    if m.what == "war":
        return said("check.war", step=m.step)
    if m.what == "missing":
        return said("check.missing", step=m.step)
    return said("check.flip", step=m.step)


def check_said(found: Finding | Mismatch, names: Sequence[str | Person | None] = ()) -> Said:
    """What the check ``found`` (a finding, or the replay's first mismatch), to be said in
    the viewer's language; ``names``: each seat's name as the table shows it (``None``
    for an open seat)."""
    if isinstance(found, Mismatch):
        return _mismatch(found, names)
    return _finding(found, names)
