"""`Rules`: the frozen settings of one game, validated on construction."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from server.engine.errors import RulesError

__all__ = ["Aces", "Rules", "ShortWar", "TieBreak", "WonCards"]

MAX_RANKS = 13
MAX_SUITS = 4


class Aces(StrEnum):
    """Where the ace ranks: above the king (``high``) or below every other rank (``low``)."""

    HIGH = "high"
    LOW = "low"


class ShortWar(StrEnum):
    """What happens to a player without ``face_down + 1`` cards in a war."""

    LOSE = "lose"
    LAST_CARD = "last_card"


class WonCards(StrEnum):
    """How taken cards go under the winner's pile: shuffled, or in table order."""

    SHUFFLE = "shuffle"
    FIXED = "fixed"


class TieBreak(StrEnum):
    """What a limit does with equal counts: a draw, or play on until counts differ."""

    DRAW = "draw"
    BATTLE = "battle"


_ENUMS: dict[str, type[StrEnum]] = {
    "aces": Aces,
    "short_war": ShortWar,
    "won_cards": WonCards,
    "tie_break": TieBreak,
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Rules:
    """The settings of a game (see docs/rules.md). Invalid values raise `RulesError`.

    Enum settings also accept their string values (``aces="low"``) and are stored as the
    enum. ``ranks`` × ``suits`` picks a smaller deck: the ``ranks`` highest ranks of
    2..A and the first ``suits`` of spades, hearts, diamonds, clubs.
    """

    players: int = 2
    face_down: int = 1
    aces: Aces = Aces.HIGH
    short_war: ShortWar = ShortWar.LOSE
    won_cards: WonCards = WonCards.SHUFFLE
    round_limit: int | None = None
    tie_break: TieBreak = TieBreak.DRAW
    ranks: int = 13
    suits: int = 4

    def __post_init__(self) -> None:
        if not _is_int(self.players) or self.players not in (2, 3, 4):
            raise RulesError(f"players must be 2, 3 or 4, not {self.players!r}")
        if not _is_int(self.face_down) or self.face_down not in (1, 3):
            raise RulesError(f"face_down must be 1 or 3, not {self.face_down!r}")
        for name, enum in _ENUMS.items():
            value = getattr(self, name)
            allowed = [member.value for member in enum]
            if not isinstance(value, str) or value not in allowed:
                choices = " or ".join(repr(v) for v in allowed)
                raise RulesError(f"{name} must be {choices}, not {value!r}")
            object.__setattr__(self, name, enum(value))
        limit = self.round_limit
        if limit is not None and (not _is_int(limit) or limit < 1):
            raise RulesError(f"round_limit must be a positive integer or None, not {limit!r}")
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
        """Build rules from a `to_dict()`-shaped mapping; missing keys take defaults.

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
        return cls(**data)
