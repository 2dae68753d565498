"""How long one slice of a finish vote's play-out holds the event loop.

Run from the repository root::

    .venv/bin/python -m bench.slices [--repeat 5]

A room plays a finish vote's game out `server.core.settings.PLAY_OUT_SLICE` units of work
per call (`server.engine.STEP_WORK` a step of the step path, 1 a step of the two-player
fast path). This times every slice of whole play-outs, in this process, for the cases
that cost the most per step and the least:

- ``step path``: four players, ``won_cards: fixed``, ``fixed_order: seat0``,
  ``round_limit: 1000000``, deal 374 (20,525 steps, every one through the step path);
- ``fast path``: two players, won cards shuffled, ``round_limit: 1000000``, deal 161
  (3,026 steps, nearly all in the two-player loop).

Printed: steps per slice, and the time of one slice (median, p99, max) and of the whole
play-out in one `finish()`. On a shared machine the maximum is the scheduler's as much
as ours; the median is the figure to compare.
"""

from __future__ import annotations

import argparse
import statistics
import time

from server.core.settings import PLAY_OUT_SLICE
from server.engine import FixedOrder, Game, Rules, WonCards

CASES = (
    (
        "step path",
        Rules(
            players=4,
            won_cards=WonCards.FIXED,
            fixed_order=FixedOrder.SEAT0,
            round_limit=1_000_000,
        ),
        374,
    ),
    ("fast path", Rules(players=2, round_limit=1_000_000), 161),
)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.slices", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="play-outs timed per case")
    args = parser.parse_args(argv)
    print(f"# bench.slices  slice = {PLAY_OUT_SLICE} units of work")
    for name, rules, deal in CASES:
        slices: list[float] = []
        steps: list[int] = []
        whole: list[float] = []
        for _ in range(args.repeat):
            game = Game(rules, deal)
            while game.outcome is None:
                before = game.steps
                t0 = time.perf_counter()
                game.play_out(PLAY_OUT_SLICE)
                slices.append(time.perf_counter() - t0)
                steps.append(game.steps - before)
            t0 = time.perf_counter()
            Game(rules, deal).finish()
            whole.append(time.perf_counter() - t0)
        ordered = sorted(slices)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))]
        median = statistics.median(slices)
        print(
            f"{name}: {game.steps} steps in {len(slices) // args.repeat} slices of "
            f"{statistics.median(steps):.0f} steps; one slice median {_ms(median)} "
            f"ms, p99 {_ms(p99)} ms, max {_ms(ordered[-1])} ms; "
            f"the whole play-out at once {_ms(statistics.median(whole))} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
