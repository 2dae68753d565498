"""Arranged games that tests of several layers tell card by card (the engine's rules, the
clients' views, the shared sentence vectors): `arrange` deals chosen piles, and two games
are kept here as their rules and each seat's pile, top first.

Both of those deal won cards in 0.1's fixed order (``fixed_order = seat0``), the order in which
their stories below were worked out.
"""

from __future__ import annotations

from collections.abc import Sequence

from server import engine

__all__ = ["GIVEN_BACK", "RUN_OUT", "arrange"]


def arrange(rules: engine.Rules, piles: Sequence[str], aside: str = "") -> engine.Game:
    """A game whose seats hold ``piles`` (space-separated card labels, top first; every
    pile as long) and that sets ``aside`` apart (the cards the deal leaves over)."""
    hands = [[engine.parse_card(code, rules) for code in pile.split()] for pile in piles]
    size = len(hands[0])
    assert all(len(hand) == size for hand in hands)
    deck = [hand[i] for i in range(size) for hand in hands]
    deck += [engine.parse_card(code, rules) for code in aside.split()]
    return engine.Game.arranged(rules, deck)


RUN_OUT: tuple[engine.Rules, tuple[str, ...]] = (
    engine.Rules(
        players=3,
        ranks=5,
        suits=3,
        face_down=3,
        won_cards=engine.WonCards.FIXED,
        fixed_order=engine.FixedOrder.SEAT0,
    ),
    ("AS JD KS QS QH", "TS TH KH QD AD", "JS AH KD TD JH"),
)
"""Ann (seat 0), Ben and Cat; 5 ranks x 3 suits, three cards face down. R1 Ann's ace takes
TS JS; R2 Cat's ace takes JD TH; R3 three kings: Ben has two cards left, too few, so he is
out and forfeits them. Ann and Cat lay three, turn TS and TH (the tens they won), tie again
and have one card each: nobody can settle it, and nobody else is still in, so the game
ends (``both_short``) under either value of ``both_short``; Ben's cards stay on the
table."""

GIVEN_BACK: tuple[engine.Rules, tuple[str, ...]] = (
    engine.Rules(
        players=4,
        ranks=5,
        suits=4,
        face_down=3,
        won_cards=engine.WonCards.FIXED,
        fixed_order=engine.FixedOrder.SEAT0,
    ),
    ("AS JD KS QS QH", "TS TH KH QD AD", "JS AH KD TD JH", "TC JC QC KC AC"),
)
"""`RUN_OUT` with a fourth player, Dan, holding the clubs. R1 Ann's ace takes AS TS JS TC;
R2 Cat's ace takes JD TH AH JC; R3 Ann, Ben and Cat turn kings and Dan a queen: Ben has two
cards, too few, so he is out and forfeits QD AD; Ann and Cat lay three, turn TS and TH, tie
again and have two cards each (four needed). Dan, outside the war, is still in: with
``both_short = play_on`` they all take their own cards back, the round is played again,
and Ben's KH QD AD stay on the table until Cat takes them with the next flip (her AH over
Ann's JS and Dan's KC)."""
