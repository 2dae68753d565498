"""Playing many deals, in one process or several, and summing them into a `Report`.

Every figure except ``games_per_second`` depends only on the rules, the seed and the
number of games: chunks may finish in any order and on any number of processes, the sums
are exact integers (rounds are kept as a histogram) and are combined the same way.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from server.engine import Game, Rules, Termination

__all__ = [
    "MAX_SEED",
    "GameRecord",
    "Report",
    "Tally",
    "deal_numbers",
    "play_deal",
    "play_range",
    "simulate",
]

MAX_SEED = 2**32 - 1
SEED_STRIDE = 2**32

Progress = Callable[[int, int, float], None]


def deal_numbers(seed: int, games: int) -> range:
    """The deal numbers a run plays: ``seed * 2**32 + i`` for ``i`` in ``0 .. games - 1``.

    Raises `ValueError` for a seed outside ``0 .. 2**32 - 1`` or more than 2**32 games.
    """
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be from 0 to {MAX_SEED}, not {seed}")
    if not 0 <= games <= SEED_STRIDE:
        raise ValueError(f"games must be from 0 to {SEED_STRIDE}, not {games}")
    start = seed * SEED_STRIDE
    return range(start, start + games)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The figures of one finished game."""

    deal: int
    rounds: int
    wars: int
    longest_war: int
    biggest_haul: int
    winner: int | None
    termination: Termination


def play_deal(rules: Rules, deal: int) -> GameRecord:
    """Play ``deal`` to the end with `Game.finish` and return its figures."""
    game = Game(rules, deal)
    outcome = game.finish()
    s = game.summary
    return GameRecord(
        deal, s.rounds, s.wars, s.longest_war, s.biggest_haul, outcome.winner, outcome.termination
    )


@dataclass(slots=True)
class Tally:
    """Exact running sums over games; `merge` is associative and order-independent."""

    players: int
    games: int = 0
    rounds: Counter[int] = field(default_factory=Counter)
    wars: int = 0
    longest_war: int = 0
    biggest_haul: int = 0
    wins: list[int] = field(default_factory=list)
    draws: int = 0
    endless: int = 0

    def __post_init__(self) -> None:
        if not self.wins:
            self.wins = [0] * self.players

    def add(self, record: GameRecord) -> None:
        """Count one game."""
        self.games += 1
        self.rounds[record.rounds] += 1
        self.wars += record.wars
        self.longest_war = max(self.longest_war, record.longest_war)
        self.biggest_haul = max(self.biggest_haul, record.biggest_haul)
        if record.winner is None:
            self.draws += 1
        else:
            self.wins[record.winner] += 1
        if record.termination is Termination.ENDLESS:
            self.endless += 1

    def merge(self, other: Tally) -> None:
        """Add another tally's games to this one."""
        self.games += other.games
        self.rounds.update(other.rounds)
        self.wars += other.wars
        self.longest_war = max(self.longest_war, other.longest_war)
        self.biggest_haul = max(self.biggest_haul, other.biggest_haul)
        self.wins = [a + b for a, b in zip(self.wins, other.wins, strict=True)]
        self.draws += other.draws
        self.endless += other.endless


def play_range(rules: Rules, start: int, stop: int) -> Tally:
    """Play deals ``start .. stop - 1`` and tally them (the unit of work of a process)."""
    tally = Tally(rules.players)
    for deal in range(start, stop):
        tally.add(play_deal(rules, deal))
    return tally


def _work(job: tuple[dict[str, object], int, int]) -> Tally:
    settings, start, stop = job
    return play_range(Rules.from_dict(settings), start, stop)


def _percentile(rounds: Counter[int], games: int, p: float) -> int:
    """Nearest-rank percentile: the smallest value with at least p% of games at or below."""
    rank = max(1, math.ceil(p / 100 * games))
    seen = 0
    for value in sorted(rounds):
        seen += rounds[value]
        if seen >= rank:
            return value
    raise ValueError("no games")


def _median(rounds: Counter[int], games: int) -> float:
    """The median; the mean of the two middle games when the count is even."""
    ordered = sorted(rounds)
    low_rank, high_rank = (games + 1) // 2, games // 2 + 1
    low = high = None
    seen = 0
    for value in ordered:
        seen += rounds[value]
        if low is None and seen >= low_rank:
            low = value
        if seen >= high_rank:
            high = value
            break
    assert low is not None and high is not None
    return (low + high) / 2


@dataclass(frozen=True, slots=True)
class Report:
    """What `war-sim` prints; `as_dict` gives the ``--json`` object."""

    games: int
    mean_rounds: float
    median_rounds: float
    p90_rounds: int
    p99_rounds: int
    max_rounds: int
    mean_wars: float
    longest_war: int
    biggest_haul: int
    wins: tuple[int, ...]
    draws: int
    endless: int
    games_per_second: float
    seconds: float
    jobs: int

    @classmethod
    def from_tally(cls, tally: Tally, seconds: float, jobs: int) -> Report:
        """Figures of a finished tally (at least one game). Raises `ValueError` if empty."""
        n = tally.games
        if n == 0:
            raise ValueError("no games were played")
        total_rounds = sum(value * count for value, count in tally.rounds.items())
        return cls(
            games=n,
            mean_rounds=total_rounds / n,
            median_rounds=_median(tally.rounds, n),
            p90_rounds=_percentile(tally.rounds, n, 90),
            p99_rounds=_percentile(tally.rounds, n, 99),
            max_rounds=max(tally.rounds),
            mean_wars=tally.wars / n,
            longest_war=tally.longest_war,
            biggest_haul=tally.biggest_haul,
            wins=tuple(tally.wins),
            draws=tally.draws,
            endless=tally.endless,
            games_per_second=n / seconds if seconds > 0 else float("inf"),
            seconds=seconds,
            jobs=jobs,
        )

    def as_dict(self) -> dict[str, object]:
        """The ``--json`` keys, exactly as documented in ``war-sim --help``."""
        return {
            "games": self.games,
            "mean_rounds": self.mean_rounds,
            "median_rounds": self.median_rounds,
            "p90_rounds": self.p90_rounds,
            "p99_rounds": self.p99_rounds,
            "max_rounds": self.max_rounds,
            "mean_wars": self.mean_wars,
            "longest_war": self.longest_war,
            "biggest_haul": self.biggest_haul,
            "wins": list(self.wins),
            "draws": self.draws,
            "endless": self.endless,
            "games_per_second": self.games_per_second,
        }


def _chunks(deals: range, jobs: int) -> Iterator[tuple[int, int]]:
    """Split deals into chunks: enough for load balance and progress, few enough to be cheap."""
    size = max(1, min(2_000, math.ceil(len(deals) / (jobs * 16))))
    for start in range(deals.start, deals.stop, size):
        yield start, min(start + size, deals.stop)


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def simulate(
    rules: Rules,
    games: int,
    seed: int = 0,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> Report:
    """Play ``games`` deals from ``seed`` on ``jobs`` processes (default: all cores).

    ``progress(done, total, elapsed)`` is called after every finished chunk. Raises
    `ValueError` for a bad seed, a bad number of games or jobs.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    deals = deal_numbers(seed, games)
    settings = rules.to_dict()
    tally = Tally(rules.players)
    start = time.perf_counter()
    work = [(settings, a, b) for a, b in _chunks(deals, jobs)]
    if jobs == 1:
        results: Iterator[Tally] = map(_work, work)
        _collect(tally, results, games, start, progress)
    else:
        with multiprocessing.get_context().Pool(min(jobs, len(work))) as pool:
            _collect(tally, pool.imap_unordered(_work, work), games, start, progress)
    seconds = time.perf_counter() - start
    return Report.from_tally(tally, seconds, jobs)


def _collect(
    tally: Tally, results: Iterator[Tally], total: int, start: float, progress: Progress | None
) -> None:
    for part in results:
        tally.merge(part)
        if progress is not None:
            progress(tally.games, total, time.perf_counter() - start)
