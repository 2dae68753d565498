"""`Rules`: the frozen settings of one game, validated on construction.

The settings' names, values, bounds and defaults are the `vocabulary` package's (shared
with the wire); the enums are re-exported here for the engine's callers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Final

from server.engine.errors import RulesError
from vocabulary import (
    DEFAULTS,
    Aces,
    BothShort,
    FixedOrder,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
    check_face_down,
    check_players,
    check_round_limit,
)

__all__ = [
    "STORED_BEFORE",
    "Aces",
    "BothShort",
    "FixedOrder",
    "Rules",
    "ShortWar",
    "TakenBack",
    "TieBreak",
    "WonCards",
]

MAX_RANKS = 13
MAX_SUITS = 4

_ENUMS: dict[str, type[StrEnum]] = {
    "aces": Aces,
    "short_war": ShortWar,
    "both_short": BothShort,
    "won_cards": WonCards,
    "fixed_order": FixedOrder,
    "taken_back": TakenBack,
    "tie_break": TieBreak,
}

STORED_BEFORE: Final[Mapping[str, Any]] = {"taken_back": TakenBack.AS_LAID.value}
"""Settings added after games were stored, and how those games played them: a stored
rules dict without the key (`Rules.from_dict`) was played by this value. ``taken_back``
came in after 0.2, which took cards back in the order laid (docs/rules.md, "Changing a
rule"). Settings added earlier (``both_short``, ``fixed_order``) are written into every
stored room by the store's migration, so a missing one takes its default."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Rules:
    """The settings of a game (see docs/rules.md). Invalid values raise `RulesError`.

    Every setting but the deck's defaults to `vocabulary.DEFAULTS` (the wire's too).
    Enum settings also accept their string values (``aces="low"``) and are stored as the
    enum. ``both_short``, ``fixed_order`` and ``taken_back`` default to the rules of today;
    their other values are how earlier versions played (stored games keep them). ``ranks`` ×
    ``suits`` picks a smaller deck: the ``ranks`` highest ranks of
    2..A and the first ``suits`` of spades, hearts, diamonds, clubs.
    """

    players: int = DEFAULTS.players
    face_down: int = DEFAULTS.face_down
    aces: Aces = DEFAULTS.aces
    short_war: ShortWar = DEFAULTS.short_war
    both_short: BothShort = DEFAULTS.both_short
    won_cards: WonCards = DEFAULTS.won_cards
    fixed_order: FixedOrder = DEFAULTS.fixed_order
    taken_back: TakenBack = DEFAULTS.taken_back
    round_limit: int | None = DEFAULTS.round_limit
    tie_break: TieBreak = DEFAULTS.tie_break
    ranks: int = 13
    suits: int = 4

    def __post_init__(self) -> None:
        try:
            check_players(self.players)
            check_face_down(self.face_down)
        except ValueError as error:
            raise RulesError(str(error)) from None
        for name, enum in _ENUMS.items():
            value = getattr(self, name)
            allowed = [member.value for member in enum]
            if not isinstance(value, str) or value not in allowed:
                choices = " or ".join(repr(v) for v in allowed)
                raise RulesError(f"{name} must be {choices}, not {value!r}")
            object.__setattr__(self, name, enum(value))
        try:
            check_round_limit(self.round_limit)
        except ValueError as error:
            raise RulesError(str(error)) from None
        if not _is_int(self.ranks) or not 1 <= self.ranks <= MAX_RANKS:
            raise RulesError(f"ranks must be an integer from 1 to {MAX_RANKS}, not {self.ranks!r}")
        if not _is_int(self.suits) or not 1 <= self.suits <= MAX_SUITS:
            raise RulesError(f"suits must be an integer from 1 to {MAX_SUITS}, not {self.suits!r}")
        if self.ranks * self.suits < self.players:
            raise RulesError(
                f"deck of {self.ranks * self.suits} cards is too small for {self.players} players"
            )

    @property
    def deck_size(self) -> int:
        """Number of cards in the deck (``ranks * suits``)."""
        return self.ranks * self.suits

    def to_dict(self) -> dict[str, object]:
        """Every setting as plain str/int/None values (enums as their string values)."""
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Build rules from a stored `to_dict()`-shaped mapping.

        A missing key takes the value games stored before that setting existed were played
        by (`STORED_BEFORE`: ``taken_back`` ``as_laid``), else its default; so a rules dict
        stored by an earlier release replays as it was played. Rules for a new game are
        built with `Rules(...)`, whose defaults are today's rules.

        Raises `RulesError` for a non-dict, an unknown key, a value of the wrong type or an
        invalid value.
        """
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a dict, not {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RulesError(f"unknown rules setting {key!r}")
        for key, value in data.items():
            if key in _ENUMS:
                ok = isinstance(value, str)
            elif key == "round_limit":
                ok = value is None or _is_int(value)
            else:
                ok = _is_int(value)
            if not ok:
                raise RulesError(f"{key} has the wrong type: {value!r}")
        return cls(**{**STORED_BEFORE, **data})
