"""Engine benchmark: `war-sim` games per second against the tgvoskuilen baseline, and the
time of `Game.finish()` for one default game.

Run from the repository root::

    .venv/bin/python -m bench.engine [--games 20000] [--repeat 3] [--jobs J] [--markdown]

Both simulators play default-rule games (2 players, one card face down, won cards
shuffled, running short in a war loses) on a process pool of ``--jobs`` processes (default:
every core), pool start-up included, alternately in one run (baseline, war-sim, war-sim,
baseline, ...) so that any other load on the machine hits both alike. The machine's load
average is printed before and after: on a shared machine treat the figures as a ratio,
not as absolutes. Then ``finish()`` is timed alone on ``--finish-games`` fresh games
(dealing is timed separately).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from bench import baseline_tgvoskuilen
from server.engine import Game, Rules
from server.sim.run import default_jobs, simulate


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def compare(games: int, repeat: int, jobs: int) -> tuple[list[float], list[float], float, float]:
    """Games/s of the baseline and of war-sim, ``repeat`` runs each, interleaved ABBA."""
    base: list[float] = []
    ours: list[float] = []
    base_mean = ours_mean = 0.0
    for run in range(repeat):
        order = ("base", "ours") if run % 2 == 0 else ("ours", "base")
        for who in order:
            if who == "base":
                rounds, seconds = baseline_tgvoskuilen.run(games, jobs)
                base.append(games / seconds)
                base_mean = statistics.fmean(rounds)
            else:
                report = simulate(Rules(), games, seed=run, jobs=jobs)
                ours.append(report.games_per_second)
                ours_mean = report.mean_rounds
            print(
                f"  run {run + 1} {'baseline' if who == 'base' else 'war-sim '}:"
                f" {(base if who == 'base' else ours)[-1]:>9,.0f} games/s",
                file=sys.stderr,
            )
    return base, ours, base_mean, ours_mean


def finish_times(games: int) -> tuple[list[float], list[float], list[int]]:
    """Microseconds to deal (``Game(...)``) and to ``finish()`` each of ``games`` deals."""
    deal_us: list[float] = []
    finish_us: list[float] = []
    rounds: list[int] = []
    rules = Rules()
    clock = time.perf_counter
    for deal in range(games):
        t0 = clock()
        game = Game(rules, deal)
        t1 = clock()
        game.finish()
        t2 = clock()
        deal_us.append((t1 - t0) * 1e6)
        finish_us.append((t2 - t1) * 1e6)
        rounds.append(game.summary.rounds)
    return deal_us, finish_us, rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--games", type=int, default=20_000, help="games per run (20000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each simulator (3)")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="processes (all cores)")
    parser.add_argument("--finish-games", type=int, default=5_000, help="games timed alone")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--profile", action="store_true", help="also show where the time of a game goes"
    )
    args = parser.parse_args(argv)

    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cpus, {args.jobs} processes; load before: {_load()}",
        file=sys.stderr,
    )
    base, ours, base_mean, ours_mean = compare(args.games, args.repeat, args.jobs)
    deal_us, finish_us, rounds = finish_times(args.finish_games)
    load_after = _load()

    b, o = statistics.median(base), statistics.median(ours)
    ordered = sorted(finish_us)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    rows = [
        ("baseline (tgvoskuilen algorithm), games/s", f"{b:,.0f}", _spread(base)),
        ("war-sim, games/s", f"{o:,.0f}", _spread(ours)),
        ("war-sim / baseline", f"{o / b:.2f}x", ""),
        ("mean rounds per game, baseline / war-sim", f"{base_mean:.1f} / {ours_mean:.1f}", ""),
        ("Game(rules, deal): deal one game, µs", f"{statistics.median(deal_us):.1f}", "median"),
        ("finish() of one default game, µs: mean", f"{statistics.fmean(finish_us):.0f}", ""),
        (
            "finish(), µs: median / p99 / max",
            f"{statistics.median(finish_us):.0f} / {p99:.0f} / {ordered[-1]:.0f}",
            "",
        ),
        ("mean rounds of the timed games", f"{statistics.fmean(rounds):.1f}", ""),
    ]
    if args.profile:
        _profile(deal_us, finish_us, args.finish_games)
    print(f"load after: {load_after}", file=sys.stderr)
    settings = f"{args.games} games x {args.repeat} runs each, {args.jobs} processes"
    if args.markdown:
        print(f"| measure ({settings}) | value | runs |")
        print("|---|---:|---|")
        for name, value, spread in rows:
            print(f"| {name} | {value} | {spread} |")
    else:
        print(settings)
        for name, value, spread in rows:
            print(f"  {name:<44} {value:>14}  {spread}")
    return 0


def _profile(deal_us: list[float], finish_us: list[float], games: int) -> None:
    """Split a game's time into dealing, a cost per round and a cost per war (least
    squares over the timed games), then show cProfile's view of war-sim's worker loop."""
    rules = Rules()
    rows = []
    for deal in range(games):
        game = Game(rules, deal)
        game.finish()
        rows.append((game.summary.rounds, game.summary.wars))
    # Normal equations for finish_us ~ a + b * rounds + c * wars.
    xs = [(1.0, float(r), float(w)) for r, w in rows]
    m = [[sum(x[i] * x[j] for x in xs) for j in range(3)] for i in range(3)]
    v: list[float] = [sum(x[i] * y for x, y in zip(xs, finish_us, strict=True)) for i in range(3)]
    for i in range(3):
        pivot = m[i][i]
        m[i] = [e / pivot for e in m[i]]
        v[i] /= pivot
        for k in range(3):
            if k != i:
                f = m[k][i]
                m[k] = [a - f * b for a, b in zip(m[k], m[i], strict=True)]
                v[k] -= f * v[i]
    mean_rounds = statistics.fmean(r for r, _ in rows)
    mean_wars = statistics.fmean(w for _, w in rows)
    dealing = statistics.fmean(deal_us)
    total = dealing + statistics.fmean(finish_us)
    print("where the time of one default game goes (least squares over the timed games):")
    print(
        f"  dealing (Pcg32 seeding + 52-card Fisher–Yates): {dealing:6.1f} µs"
        f"  {dealing / total:4.0%}"
    )
    print(f"  fixed cost of finish():                         {v[0]:6.1f} µs")
    per_round = v[1] * mean_rounds
    per_war = v[2] * mean_wars
    print(
        f"  plain rounds: {v[1] * 1000:.0f} ns x {mean_rounds:.0f} = {per_round:6.1f} µs  "
        f"{per_round / total:4.0%}"
    )
    print(
        f"  wars (extra over a plain round): {v[2]:.2f} µs x {mean_wars:.1f} = {per_war:6.1f} µs"
        f"  {per_war / total:4.0%}"
    )
    import cProfile  # noqa: PLC0415 - only for --profile
    import pstats  # noqa: PLC0415

    from server.sim.run import play_range  # noqa: PLC0415

    profiler = cProfile.Profile()
    profiler.runcall(play_range, rules, 0, min(games, 2_000))
    pstats.Stats(profiler).sort_stats("tottime").print_stats(8)


def _spread(values: list[float]) -> str:
    return "median of " + ", ".join(f"{v:,.0f}" for v in values)


if __name__ == "__main__":
    sys.exit(main())
