"""The ``war-sim`` command line: argument parsing, output, the progress bar."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from protocol import option_name, option_names, option_value
from server.engine import Rules, RulesError
from server.sim import verify
from server.sim.run import MAX_SEED, Report, default_jobs, play_deal, simulate
from server.sim.trace import describe_rules, trace
from vocabulary import (
    DEFAULTS,
    FACE_DOWN_COUNTS,
    MAX_DEAL,
    MAX_ROUND_LIMIT,
    PLAYER_COUNTS,
    Aces,
    BothShort,
    FixedOrder,
    ShortWar,
    TakenBack,
    TieBreak,
    WonCards,
)

__all__ = ["PROGRESS_DELAY", "ProgressBar", "build_parser", "format_report", "main"]

PROGRESS_DELAY = 1.0  # seconds a run must last before the progress bar appears

DESCRIPTION = """\
Play many deals of War with the project's engine and report how games go, or tell one
deal round by round.

Every game has a deal number; the same deal number with the same rules is the same game,
card for card, on any machine. A run of --games N with --seed S plays the deals
S * 2**32 + 0, 1, ..., N-1, so the same arguments always give the same figures (only the
speed differs), whatever --jobs is. Any game of a run can be replayed alone with --deal.
The rules are those of docs/rules.md; the flags below change the settings."""

EPILOG = """\
what is reported:
  games            how many deals were played
  rounds           mean, median, p90, p99 (nearest rank) and max rounds per game
                   (a round counts once someone takes the table, however many wars)
  wars             mean rounds that went to war per game; longest war in any game
                   (1 = single, 2 = double, ...); biggest haul (most cards in one round)
  wins             games won by each seat; draws; endless games (a position came back:
                   with --won-cards fixed, or rounds given back with three or four)
  games/s          games per second of wall-clock time, all processes together

--json prints one object with the keys: games, mean_rounds, median_rounds, p90_rounds,
p99_rounds, max_rounds, mean_wars, longest_war, biggest_haul, wins (one per seat), draws,
endless, games_per_second.

war-sim verify FILE checks the fair deal of a game record (war-client --json); see
war-sim verify --help.

examples:
  war-sim --games 100000                      the published default: about 440 rounds
  war-sim --games 20000 --face-down 3 --json  three cards down in a war, as JSON
  war-sim --games 5000 --players 4 --won-cards fixed
  war-sim --deal 42 --trace                   deal 42 told round by round
  war-sim --deal 7 --rounds 26 --tie-break battle --trace
  war-sim verify game.jsonl                   check a recorded game's fair deal
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, not {value}")
    return value


def _ranged(low: int, high: int) -> type[int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {low} to {high}, not {value}")
        return value

    parse.__name__ = "number"
    return parse  # type: ignore[return-value]


def build_parser() -> argparse.ArgumentParser:
    """The ``war-sim`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="war-sim",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_argument_group("what to play")
    pick = what.add_mutually_exclusive_group()
    pick.add_argument(
        "--games", type=_positive, metavar="N", help="play N deals and report (default 1000)"
    )
    pick.add_argument(
        "--deal",
        type=_ranged(0, MAX_DEAL),
        metavar="D",
        help="play only deal number D (0 to 2**64-1) and print its result",
    )
    what.add_argument(
        "--seed",
        type=_ranged(0, MAX_SEED),
        default=0,
        metavar="S",
        help="which deals a --games run plays: S * 2**32 + 0..N-1 (default 0)",
    )
    what.add_argument(
        "--trace", action="store_true", help="with --deal: tell the game round by round in words"
    )

    rules = parser.add_argument_group("rules (defaults are the standard game)")
    rules.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        default=DEFAULTS.players,
        help="2, 3 or 4 (default %(default)s)",
    )
    rules.add_argument(
        "--face-down",
        type=int,
        choices=FACE_DOWN_COUNTS,
        default=DEFAULTS.face_down,
        help="cards each player lays face down in a war (default %(default)s)",
    )
    rules.add_argument(
        "--aces",
        choices=option_names(Aces),
        default=DEFAULTS.aces.value,
        help="aces above kings or below twos (default %(default)s)",
    )
    rules.add_argument(
        "--short-war",
        type=option_name,
        choices=option_names(ShortWar),
        default=option_name(DEFAULTS.short_war.value),
        help="without enough cards for a war: lose, or turn up your last card"
        " (default %(default)s)",
    )
    rules.add_argument(
        "--won-cards",
        choices=option_names(WonCards),
        default=DEFAULTS.won_cards.value,
        help="won cards go under shuffled, or in the order laid (may loop forever: such games"
        " end as endless; default %(default)s)",
    )
    rules.add_argument(
        "--fixed-order",
        choices=option_names(FixedOrder),
        default=DEFAULTS.fixed_order.value,
        help="with --won-cards fixed: seat order starts from the winner, or from seat 0 whoever"
        " won (seat0: versions up to 0.1; it favours seat 0; default %(default)s)",
    )
    rules.add_argument(
        "--both-short",
        type=option_name,
        choices=option_names(BothShort),
        default=option_name(DEFAULTS.both_short.value),
        help="3-4 players, everyone in a war short while another player is still in: the"
        " cards go back and play goes on (play-on), or the game ends (end: versions up to"
        " 0.1; default %(default)s)",
    )
    rules.add_argument(
        "--taken-back",
        type=option_name,
        choices=option_names(TakenBack),
        default=option_name(DEFAULTS.taken_back.value),
        help="cards taken back from a war nobody could settle go under the pile as won cards"
        " do (as-won, default: shuffled with --won-cards shuffle), or in the order laid"
        " (as-laid: versions up to 0.2; such rounds can then loop until the game ends as"
        " endless)",
    )
    rules.add_argument(
        "--rounds",
        type=_ranged(1, MAX_ROUND_LIMIT),
        metavar="N",
        help=f"stop after N rounds (1 to {MAX_ROUND_LIMIT:,}); most cards wins (default: no limit)",
    )
    rules.add_argument(
        "--tie-break",
        choices=option_names(TieBreak),
        default=DEFAULTS.tie_break.value,
        help="equal counts at the round limit: a draw, or play on until they differ"
        " (default %(default)s)",
    )
    rules.add_argument(
        "--ranks",
        type=_ranged(1, 13),
        default=13,
        metavar="R",
        help="a smaller deck for experiments: the R highest ranks (default 13)",
    )
    rules.add_argument(
        "--suits",
        type=_ranged(1, 4),
        default=4,
        metavar="K",
        help="... and the first K suits (default 4)",
    )

    out = parser.add_argument_group("running and output")
    out.add_argument(
        "--jobs",
        type=_positive,
        metavar="J",
        help=f"processes to use (default: all cores, here {default_jobs()})",
    )
    out.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


def _rules(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Rules:
    try:
        return Rules(
            players=args.players,
            face_down=args.face_down,
            aces=args.aces,
            short_war=ShortWar(option_value(args.short_war)),
            won_cards=args.won_cards,
            fixed_order=args.fixed_order,
            both_short=BothShort(option_value(args.both_short)),
            taken_back=TakenBack(option_value(args.taken_back)),
            round_limit=args.rounds,
            tie_break=args.tie_break,
            ranks=args.ranks,
            suits=args.suits,
        )
    except RulesError as exc:
        parser.error(str(exc))


class ProgressBar:
    """A one-line bar on a terminal, shown only once a run has lasted a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO, delay: float = PROGRESS_DELAY) -> None:
        self.stream = stream
        self.delay = delay
        self.shown = False

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        if elapsed < self.delay:
            return
        self.shown = True
        filled = round(self.WIDTH * done / total)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        rate = done / elapsed if elapsed > 0 else 0.0
        self.stream.write(f"\r[{bar}] {done}/{total} games, {rate:,.0f}/s ")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar if it was drawn."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def format_report(report: Report, rules: Rules, seed: int) -> str:
    """The human-readable report."""
    n = report.games
    wins = "  ".join(f"seat {seat}: {w} ({100 * w / n:.1f}%)" for seat, w in enumerate(report.wins))
    return "\n".join(
        [
            f"rules          {describe_rules(rules)}",
            f"games          {n} (seed {seed})",
            f"rounds         mean {report.mean_rounds:.1f}  median {report.median_rounds:g}"
            f"  p90 {report.p90_rounds}  p99 {report.p99_rounds}  max {report.max_rounds}",
            f"wars           {report.mean_wars:.2f} per game  longest {report.longest_war}"
            f"  biggest haul {report.biggest_haul} cards",
            f"wins           {wins}",
            f"draws          {report.draws}  endless {report.endless}",
            f"speed          {report.games_per_second:,.0f} games/s"
            f" ({report.jobs} processes, {report.seconds:.2f} s)",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``war-sim`` (or ``war-sim verify ...``, `server.sim.verify`); returns the exit
    status (argparse exits with 2 on bad flags)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["verify"]:
        return verify.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.trace and args.deal is None:
        parser.error("--trace needs --deal D (one game)")
    rules = _rules(args, parser)
    if args.deal is not None:
        return _one_deal(rules, args)
    bar = None
    if not args.json and sys.stderr.isatty():
        bar = ProgressBar(sys.stderr, PROGRESS_DELAY)
    try:
        report = simulate(rules, args.games or 1000, args.seed, args.jobs, bar)
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(format_report(report, rules, args.seed))
    return 0


def _one_deal(rules: Rules, args: argparse.Namespace) -> int:
    if args.trace:
        try:
            for line in trace(rules, args.deal):
                print(line)
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. `war-sim --deal 1 --trace | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        return 0
    record = play_deal(rules, args.deal)
    if args.json:
        print(
            json.dumps(
                {
                    "deal": record.deal,
                    "rounds": record.rounds,
                    "wars": record.wars,
                    "longest_war": record.longest_war,
                    "biggest_haul": record.biggest_haul,
                    "winner": record.winner,
                    "termination": record.termination.value,
                }
            )
        )
    else:
        who = "a draw" if record.winner is None else f"seat {record.winner} wins"
        print(
            f"deal {record.deal}: {who} ({record.termination.value}) after {record.rounds} rounds,"
            f" {record.wars} war{'' if record.wars == 1 else 's'}, longest {record.longest_war},"
            f" biggest haul {record.biggest_haul}"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
