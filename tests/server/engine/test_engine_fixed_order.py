"""``won_cards = fixed``: the prize goes under in table order, seat order starting from the
winner (``fixed_order = winner``, today's rule) or from seat 0 (``seat0``, versions up to
0.1, kept for the games they stored).

The statistical tests play fixed sets of deal numbers (deterministic) and apply a
chi-square goodness-of-fit test to the seats' wins among the decided games (draws left
out): with ``k`` seats and ``n`` decided games each seat expects ``n / k`` wins under "no
seat advantage", and ``sum((wins - n/k)**2 / (n/k))`` follows a chi-square law with
``k - 1`` degrees of freedom. Each test compares it with the 99.9th percentile of that law
(10.83, 13.82 and 16.27 for 1, 2 and 3 degrees of freedom): a fair game fails one such
test one time in a thousand, and these deals are fixed, so the result does not move.

What the test can see: if one seat's share of ``n`` decided games is off by ``d`` from
``1/k`` and the other seats share the difference equally, the statistic grows by about
``n * d**2 * k**2 / (k - 1)``. So the games below fail the test for a seat off
by more than about 3.7 points with two players (2,000 games, all decided with today's
order: ``4 * 2,000 * 0.037**2 = 10.9``), 6 with three (1,000 games, ~830 decided) and 4.5
with four (1,500 games, all decided). 0.1's order was far worse: seat 0 won 62.8% of the
decided two-player games (50.5% to 30.0% of 100,000 games in the issue, ``d = 0.128``,
past 10.83 from 165 decided games on); the last test shows it on a few hundred deals.
"""

from __future__ import annotations

import pytest

from server.engine import FixedOrder, Game, Rules, WonCards, card_label
from tests._kit.decks import arrange

# 99.9th percentiles of the chi-square law with 1, 2 and 3 degrees of freedom.
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266}


def seat_chi2(rules: Rules, deals: range) -> tuple[float, list[int]]:
    """The chi-square statistic of the seats' wins over the decided games of ``deals``,
    and the wins per seat."""
    wins = [0] * rules.players
    for deal in deals:
        winner = Game(rules, deal).finish().winner
        if winner is not None:
            wins[winner] += 1
    expected = sum(wins) / rules.players
    return sum((w - expected) ** 2 / expected for w in wins), wins


def pile(game: Game, seat: int) -> list[str]:
    return [card_label(card, game.rules) for card in game._state.piles[seat]]


# Ann QS, Ben JH, Cat QD: Ann and Cat go to war, lay JS and JD, turn KS and AD: Cat wins.
WAR_PILES = ["QS JS KS AS", "JH QH KH AH", "QD JD AD KD"]


def test_the_prize_goes_under_from_the_winner_round_the_table() -> None:
    game = arrange(Rules(players=3, ranks=4, suits=3, won_cards=WonCards.FIXED), WAR_PILES)
    game.step()
    game.step()
    # First face-up cards from Cat round the table (Cat, Ann, Ben), then the war's
    # face-down cards (Cat, Ann), then its face-up cards (Cat, Ann).
    assert pile(game, 2) == ["KD", "QD", "QS", "JH", "JD", "JS", "AD", "KS"]


def test_0_1_put_the_prize_under_from_seat_0() -> None:
    rules = Rules(
        players=3, ranks=4, suits=3, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0
    )
    game = arrange(rules, WAR_PILES)
    game.step()
    game.step()
    assert pile(game, 2) == ["KD", "QS", "JH", "QD", "JS", "JD", "KS", "AD"]


def test_a_shuffled_prize_does_not_depend_on_the_fixed_order() -> None:
    for deal in range(20):
        a = Game(Rules(players=3), deal)
        b = Game(Rules(players=3, fixed_order=FixedOrder.SEAT0), deal)
        assert (a.finish(), a.summary, a.steps) == (b.finish(), b.summary, b.steps)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "games"), [(2, 2_000), (3, 1_000), (4, 1_500)])
def test_every_seat_wins_equally_often_with_fixed_returns(players: int, games: int) -> None:
    rules = Rules(players=players, won_cards=WonCards.FIXED)
    chi2, wins = seat_chi2(rules, range(games))
    assert sum(wins) > 0.75 * games, wins  # enough decided games to say something
    assert chi2 < CHI2_999[players - 1], (chi2, wins)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "games"), [(2, 400), (3, 400), (4, 800)])
def test_the_0_1_order_favoured_seat_0(players: int, games: int) -> None:
    """The same test on 0.1's order fails: it is what the test above guards against."""
    rules = Rules(players=players, won_cards=WonCards.FIXED, fixed_order=FixedOrder.SEAT0)
    chi2, wins = seat_chi2(rules, range(games))
    assert chi2 > CHI2_999[players - 1], (chi2, wins)
    assert wins[0] == max(wins), wins
