"""The War engine: pure, synchronous, deterministic (no asyncio, no clock, no I/O).

``Game(Rules(...), deal)`` plays one deal; `Game.step` returns typed events, `Game.finish`
plays the rest out. See docs/rules.md for the rules as implemented.
"""

from __future__ import annotations

from server.engine.cards import (
    RANK_CHARS,
    SUIT_CHARS,
    card_label,
    card_rank,
    card_suit,
    parse_card,
    rank_strength,
    strength_table,
)
from server.engine.errors import CardError, DealError, EngineError, GameOverError, RulesError
from server.engine.events import (
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    GameOver,
    PlayerOut,
    WarDeclared,
)
from server.engine.game import STEP_WORK, Game, OnTable, Phase
from server.engine.outcome import Outcome, Summary, Termination, standings
from server.engine.rng import Pcg32, splitmix64
from server.engine.rules import (
    STORED_BEFORE,
    Aces,
    BothShort,
    FixedOrder,
    Rules,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
)
from vocabulary import OutReason

__all__ = [
    "RANK_CHARS",
    "STEP_WORK",
    "STORED_BEFORE",
    "SUIT_CHARS",
    "Aces",
    "BothShort",
    "CardError",
    "CardsLaidDown",
    "CardsReturned",
    "CardsTaken",
    "CardsTurned",
    "DealError",
    "EngineError",
    "Event",
    "FixedOrder",
    "Game",
    "GameOver",
    "GameOverError",
    "OnTable",
    "OutReason",
    "Outcome",
    "Pcg32",
    "Phase",
    "PlayerOut",
    "Rules",
    "RulesError",
    "ShortWar",
    "Summary",
    "TakenBack",
    "Termination",
    "TieBreak",
    "WarDeclared",
    "WonCards",
    "card_label",
    "card_rank",
    "card_suit",
    "parse_card",
    "rank_strength",
    "splitmix64",
    "standings",
    "strength_table",
]
