"""The rule vocabulary as command-line options spell it: ``last_card`` is ``--short-war
last-card``. ``war-client`` and ``war-sim`` take their choices from here, so both accept
the same words, and a new value of a rule enum reaches both at once."""

from __future__ import annotations

from enum import Enum

__all__ = ["option_name", "option_names", "option_value"]


def option_name(text: str) -> str:
    """The option spelling of a value: ``"last_card"`` → ``"last-card"``; an option
    already spelled so is kept (the wire spelling is accepted on the command line too)."""
    return text.replace("_", "-")


def option_names(vocabulary: type[Enum]) -> tuple[str, ...]:
    """Every value of a rule enum as options spell it: ``("lose", "last-card")``."""
    return tuple(option_name(str(member.value)) for member in vocabulary)


def option_value(text: str) -> str:
    """The wire value of an option spelling: ``"last-card"`` → ``"last_card"``."""
    return text.replace("-", "_")
