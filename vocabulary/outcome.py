"""How a game ends, and why a player leaves it: the outcome words of every layer.

`Termination` is the ``termination`` of the engine's ``Outcome`` and of the wire's
``game_over``; `OutReason` the ``reason`` of the engine's and the wire's ``player_out``.
Pure: imports nothing but the standard library.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["OutReason", "Termination"]


class Termination(StrEnum):
    """Why a game ended.

    - ``ALL_CARDS``: one player holds every card in play (the others ran out in
      ordinary play).
    - ``OPPONENTS_SHORT``: the last opponent went out because they could not finish a war
      (``short_war = lose``).
    - ``BOTH_SHORT``: every player in a war ran out at the same moment and nobody outside
      the war was still in (always so with two players; with ``both_short = end``, whoever
      else was in); each player still in took their own cards back and the most cards won
      (equal: a draw). Cards forfeited by a player who went out short in that round stay
      on the table.
    - ``ROUND_LIMIT``: the round limit was reached; the most cards won.
    - ``TIME_LIMIT``: the server's clock stopped the game; the most cards won.
    - ``ENDLESS``: a position repeated, so play would go round forever: with ``won_cards =
      fixed`` between any two rounds, and with either setting between rounds whose cards
      were all given back (``both_short = play_on``); the most cards won (equal: a draw).
    """

    ALL_CARDS = "all_cards"
    OPPONENTS_SHORT = "opponents_short"
    BOTH_SHORT = "both_short"
    ROUND_LIMIT = "round_limit"
    TIME_LIMIT = "time_limit"
    ENDLESS = "endless"


class OutReason(StrEnum):
    """Why a player is out: no cards left after a round, or short in a war
    (``short_war = lose``)."""

    NO_CARDS = "no_cards"
    SHORT_WAR = "short_war"
