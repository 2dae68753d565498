"""The settings of a game of War: their names, their values and what each may be.

Defined here once for every layer: the engine (`server.engine.Rules`), the wire
(`protocol.RulesSpec`, whose enum fields travel as these string values) and the command
lines all use these enums and these bounds, so a setting cannot mean one thing in one
layer and another in the next. Pure: imports nothing but the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Final

__all__ = [
    "DEFAULTS",
    "FACE_DOWN_COUNTS",
    "MAX_DEAL",
    "MAX_PLAYERS",
    "MAX_ROUND_LIMIT",
    "MIN_PLAYERS",
    "PLAYER_COUNTS",
    "RULE_NAMES",
    "Aces",
    "BothShort",
    "FixedOrder",
    "RuleDefaults",
    "ShortWar",
    "TakenBack",
    "TieBreak",
    "WonCards",
    "check_face_down",
    "check_players",
    "check_round_limit",
]


class Aces(StrEnum):
    """Where the ace ranks (``aces``): above the king, or below every other rank."""

    HIGH = "high"
    LOW = "low"


class ShortWar(StrEnum):
    """What happens to a player without ``face_down + 1`` cards in a war (``short_war``).

    ``LOSE``: they are out of the game; ``LAST_CARD``: they lay what they can and their
    last card (or the card already face up) competes.
    """

    LOSE = "lose"
    LAST_CARD = "last_card"


class WonCards(StrEnum):
    """How taken cards go under the winner's pile (``won_cards``): shuffled, or in table
    order."""

    SHUFFLE = "shuffle"
    FIXED = "fixed"


class FixedOrder(StrEnum):
    """Where "seat order" starts when ``won_cards = fixed`` puts the prize under the
    winner's pile (``fixed_order``).

    ``WINNER`` (default): from the winner round the table (winner, next seat, ...), the
    same for every seat. ``SEAT0``: from seat 0 whoever won, as versions up to 0.1 played
    it (it favours seat 0, the room's creator); kept so that games stored by those versions
    replay exactly.
    """

    WINNER = "winner"
    SEAT0 = "seat0"


class BothShort(StrEnum):
    """What happens when every player in a war runs short at the same moment while a
    player outside the war is still in the game (``both_short``; with two players, or when
    the war takes in everyone still in, the game always ends ``both_short``).

    ``PLAY_ON`` (default): every player still in takes their own cards back, the round is
    not counted, and play goes on. ``END``: the game ends at once, most cards wins, as
    versions up to 0.1 played it (kept so that games stored by those versions replay
    exactly).
    """

    PLAY_ON = "play_on"
    END = "end"


class TakenBack(StrEnum):
    """How the cards each player takes back from a war nobody could settle go under their
    pile (``taken_back``; it matters only with ``won_cards = shuffle``).

    ``AS_WON`` (default): the way won cards go, shuffled by the game's stream with
    ``won_cards = shuffle`` (in the order laid with ``fixed``). ``AS_LAID``: always in the
    order laid, as versions up to 0.2 played it; with four players and three cards down a
    shuffled game could then loop on one round given back hundreds of times and end as
    endless. Kept so that games stored by those versions replay exactly.
    """

    AS_WON = "as_won"
    AS_LAID = "as_laid"


class TieBreak(StrEnum):
    """What a limit does with equal counts (``tie_break``): a draw, or play on until a
    round ends with one player holding the most."""

    DRAW = "draw"
    BATTLE = "battle"


MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
PLAYER_COUNTS: Final = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
"""How many may play one game: 2, 3 or 4."""
FACE_DOWN_COUNTS: Final = (1, 3)
"""How many cards each war player lays face down before turning one up."""
MAX_ROUND_LIMIT: Final = 1_000_000
"""The highest round limit (26, 50 and 100 are the ones clients offer)."""
MAX_DEAL: Final = 2**64 - 1
"""Deal numbers run from 0 to 2**64-1: the seed of a game's random stream."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleDefaults:
    """The ten settings of a game, each at its default: the standard game (docs/rules.md).

    Written here once. The wire's ``RulesSpec``, the engine's ``Rules``, ``war-sim``'s and
    ``war-client``'s flags (and their help) and the browser table (through the generated
    ``client/web/js/vocabulary.js``) all read `DEFAULTS`; a setting left out of a
    ``create_room`` or of a stored room's rules takes the value here.
    """

    players: int = 2
    face_down: int = 1
    aces: Aces = Aces.HIGH
    short_war: ShortWar = ShortWar.LOSE
    both_short: BothShort = BothShort.PLAY_ON
    won_cards: WonCards = WonCards.SHUFFLE
    fixed_order: FixedOrder = FixedOrder.WINNER
    taken_back: TakenBack = TakenBack.AS_WON
    round_limit: int | None = None
    tie_break: TieBreak = TieBreak.DRAW

    def to_dict(self) -> dict[str, int | str | None]:
        """Every setting by name, enums as their wire strings: ``{"players": 2, ...}``."""
        out: dict[str, int | str | None] = {}
        for name in RULE_NAMES:
            value = getattr(self, name)
            out[name] = value.value if isinstance(value, StrEnum) else value
        return out


DEFAULTS: Final = RuleDefaults()
"""The default of every rule setting (``DEFAULTS.face_down`` is 1)."""
RULE_NAMES: Final = tuple(f.name for f in fields(RuleDefaults))
"""The rule settings' names, in the order the wire and the engine list them."""


def _choices(values: tuple[int, ...]) -> str:
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def check_players(value: object) -> int:
    """``value`` if it is a number of players (`PLAYER_COUNTS`); else raise ValueError."""
    if isinstance(value, int) and not isinstance(value, bool) and value in PLAYER_COUNTS:
        return value
    raise ValueError(f"players must be {_choices(PLAYER_COUNTS)}, not {value!r}")


def check_face_down(value: object) -> int:
    """``value`` if it is a face-down count (`FACE_DOWN_COUNTS`); else raise ValueError."""
    if isinstance(value, int) and not isinstance(value, bool) and value in FACE_DOWN_COUNTS:
        return value
    raise ValueError(f"face_down must be {_choices(FACE_DOWN_COUNTS)}, not {value!r}")


def check_round_limit(value: object) -> int | None:
    """``value`` if it is None (no limit) or 1..`MAX_ROUND_LIMIT`; else raise ValueError."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"round_limit must be a positive integer or None, not {value!r}")
    if value > MAX_ROUND_LIMIT:
        raise ValueError(f"round_limit must be at most {MAX_ROUND_LIMIT:,}, not {value!r}")
    return value
