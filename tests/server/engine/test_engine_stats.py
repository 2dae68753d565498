"""Statistics against the published figures (docs/rules.md, the reference figures).

Each test plays a fixed set of deals, so it is deterministic; the intervals are honest:
a 99.9% normal interval for the mean from the sample standard deviation, a 99.9%
order-statistic interval for the median, and binomial / chi-square bounds for seats.
"""

from __future__ import annotations

import math
import statistics

import pytest

from server.engine import Game, Rules

Z = 3.29  # two-sided 99.9%


def play(rules: Rules, games: int, first: int = 0) -> tuple[list[int], list[int | None]]:
    rounds: list[int] = []
    winners: list[int | None] = []
    for deal in range(first, first + games):
        game = Game(rules, deal)
        winners.append(game.finish().winner)
        rounds.append(game.summary.rounds)
    return rounds, winners


def mean_interval(values: list[int]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = Z * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def median_interval(values: list[int]) -> tuple[int, int]:
    ordered = sorted(values)
    n = len(ordered)
    half = Z * math.sqrt(n) / 2
    return ordered[max(0, math.floor(n / 2 - half))], ordered[min(n - 1, math.ceil(n / 2 + half))]


def overlaps(interval: tuple[float, float], band: tuple[float, float]) -> bool:
    return interval[0] <= band[1] and band[0] <= interval[1]


@pytest.mark.slow
def test_one_face_down_mean_and_median_rounds() -> None:
    rounds, winners = play(Rules(), 30_000)
    low, high = mean_interval(rounds)
    assert high - low < 15, "interval too wide to say anything"
    assert overlaps((low, high), (440, 445)), (low, high)
    assert overlaps(median_interval(rounds), (330, 335)), median_interval(rounds)
    # seats win equally often: binomial, draws are impossible here
    assert None not in winners
    wins0 = winners.count(0)
    assert abs(wins0 - len(winners) / 2) < Z * math.sqrt(len(winners)) / 2, wins0


@pytest.mark.slow
def test_three_face_down_mean_and_median_rounds() -> None:
    rounds, winners = play(Rules(face_down=3), 20_000, first=1_000_000)
    low, high = mean_interval(rounds)
    assert high - low < 10, "interval too wide to say anything"
    assert overlaps((low, high), (235.5, 236.5)), (low, high)
    assert overlaps(median_interval(rounds), (179.5, 180.5)), median_interval(rounds)
    wins0 = winners.count(0)
    decided = len([w for w in winners if w is not None])
    assert abs(wins0 - decided / 2) < Z * math.sqrt(decided) / 2, wins0


@pytest.mark.slow
def test_three_players_win_equally_often() -> None:
    _, winners = play(Rules(players=3), 3_000)
    decided = [w for w in winners if w is not None]
    expected = len(decided) / 3
    chi2 = sum((decided.count(seat) - expected) ** 2 / expected for seat in range(3))
    assert chi2 < 13.8, chi2  # 99.9th percentile, 2 degrees of freedom
