"""The game's words, defined once: rule settings, their bounds and defaults, how games end.

The engine (``server.engine``) and the wire (``protocol``) both use these names and
bounds; neither imports the other. This package imports nothing but the standard
library (an import-linter contract in ``pyproject.toml`` checks it). See
``docs/architecture.md`` for why it stands apart.
"""

from __future__ import annotations

from vocabulary.outcome import OutReason, Termination
from vocabulary.rules import (
    DEFAULTS,
    FACE_DOWN_COUNTS,
    MAX_DEAL,
    MAX_PLAYERS,
    MAX_ROUND_LIMIT,
    MIN_PLAYERS,
    PLAYER_COUNTS,
    RULE_NAMES,
    Aces,
    BothShort,
    FixedOrder,
    RuleDefaults,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
    check_face_down,
    check_players,
    check_round_limit,
)

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
    "OutReason",
    "RuleDefaults",
    "ShortWar",
    "TakenBack",
    "Termination",
    "TieBreak",
    "WonCards",
    "check_face_down",
    "check_players",
    "check_round_limit",
]
