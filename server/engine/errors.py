"""Exceptions raised by the War engine.

The tree says who is at fault::

    EngineError                    base of everything the engine raises on purpose
    ├── RulesError (ValueError)    a setting has an invalid value (the caller's fault)
    ├── DealError (ValueError)     a deal number is not a non-negative 64-bit integer
    ├── CardError (ValueError)     a card code or card number does not exist in the deck
    └── GameOverError              a move was asked of a game that has already ended
"""

from __future__ import annotations

__all__ = ["CardError", "DealError", "EngineError", "GameOverError", "RulesError"]


class EngineError(Exception):
    """Base class of every error the engine raises deliberately."""


class RulesError(EngineError, ValueError):
    """A rule setting is invalid; the message names the setting and the value."""


class DealError(EngineError, ValueError):
    """A deal number is out of range or of the wrong type."""


class CardError(EngineError, ValueError):
    """A card code or number does not belong to the deck of the given rules."""


class GameOverError(EngineError):
    """The game is over and cannot advance any further."""
