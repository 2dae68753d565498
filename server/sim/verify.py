"""``war-sim verify FILE``: check a game record's fair deal offline.

A record is what ``war-client --json`` prints (one server message a line). For every game
in it, `verify_game` checks what the server revealed at game over against the commitment
it showed at the start (`protocol.fairness.check_reveal`), then replays the deal with the
engine and compares every flip, take and the end the viewer was shown
(`server.engine.check.check_replay`). docs/fairness.md says what that proves.

The check says what it found as codes and values (`protocol.fairness.Finding`), which the
clients word in each viewer's language; ``war-sim`` stays English, and `english` is its
sentence for each (``Mismatch.sentence`` for a card, a take or an end).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TextIO

from protocol.fairness import (
    SEED_BYTES,
    Claim,
    FairnessError,
    Finding,
    check_reveal,
    fingerprint,
    parse_seed,
)
from protocol.record import RecordedGame, RecordError, read_record
from server.engine import Rules, RulesError
from server.engine.check import End, Flip, Laid, Out, Replay, Shown, Take, War, check_replay

__all__ = ["Verdict", "build_parser", "english", "main", "my_seed", "shown", "verify_game"]

DESCRIPTION = """\
Check the fair deal of every game in a game record: the JSON lines that
`war-client --json` prints (one server message a line).

For a deal the server picked, the server showed a commitment when the game started (the
SHA-256 of a secret seed) and revealed the seed at game over with every player's seed;
the deal is derived from them (protocol/PROTOCOL.md, "Fair deals"). verify recomputes the
commitment and the deal, then replays the game with this program's own engine and
compares every card, take and the end the record shows. What the game showed at its start
(the deal commitment, every seat's commitment, the rules) is pinned: a later state that
shows otherwise fails the game, and so does a fair game whose seat commitments were never
shown. A void (deal_voided) starts the pin again with the fresh deal. A deal chosen by the
room's creator (or "same deal again") is shown from the start: its cards are checked,
there is nothing more to prove."""

EPILOG = """\
exit status:
  0  every finished game in the record was checked, and everything matched
  1  something did not match, or nothing could be checked (no finished game, or a
     server that does not offer fair deals), or the record cannot be read

examples:
  war-client ws://192.168.1.20:8765 --name Ann --join K7MX-QD4R --json > game.jsonl
  war-sim verify game.jsonl
  war-sim verify --my-seed 5f1e...c2 game.jsonl   also check that your seed was used
  war-sim verify --my-seed 1:5f1e...c2 --my-seed 2:9a07...4d evening.jsonl
                                                   one seed per game of the record
  war-sim verify - < game.jsonl                    read the record from standard input
"""


ENGLISH: Final = {
    "malformed": "{what} must be 64 lowercase hex digits, not {value}",
    "seeds_per_seat": "the revealed seeds must be one per seat ({players}), not {value}",
    "rules_missing": "rules must hold every setting: missing {missing}, extra {extra}",
    "rules_value": "rules setting {setting} cannot be {value}",
    "rules_unplayable": "the rules cannot be played: {error}",
    "seeds_for_seats": "{count} seeds for {seats} seats",
    "seed_size": f"the seed of seat {{seat}} must be {SEED_BYTES} bytes",
    "server_seed_size": f"the server seed must be {SEED_BYTES} bytes",
    "server_seed_mismatch": "the server seed does not match the deal commitment",
    "seat_commitments": "{count} seat commitments for {seats} seats",
    "seed_uncommitted": "seat {seat} revealed a seed it never committed to",
    "seed_unused": "seat {seat} committed to a seed but none was used",
    "seed_mismatch": "the seed of seat {seat} does not match its commitment",
    "not_my_seed": "the seed of seat {seat} is not the seed this client sent",
    "deal_mismatch": "the deal played ({deal}) is not the deal the seeds give ({derived})",
    "server_seed": "the server seed matches the commitment shown at the start",
    "seat_seeds": "every seat's seed matches the commitment it made",
    "my_seed": "this client's seed (seat {seat}) is in the deal",
    "deal": "the deal played is the deal the seeds give ({deal})",
    "commitment_changed": "the deal commitment shown changed after the game started",
    "seat_commitment_changed": (
        "the commitment shown for seat {seat} changed after the game started"
    ),
    "rules_changed": "the rules shown changed after the game started",
    "time_up_early": "the time limit was said to run out {seconds} s before it could have",
}
"""war-sim's sentence for each code of `protocol.fairness.Finding`, given its values."""
_WHAT: Final = {"deal_commitment": "the deal commitment", "server_seed": "the server seed"}


def english(finding: Finding) -> str:
    """What ``war-sim verify`` prints for ``finding`` (an unknown code: the code and its
    values, as they are)."""
    pattern = ENGLISH.get(finding.code)
    if pattern is None:
        return f"{finding.code} {dict(finding.values)}"
    values = dict(finding.values)
    if finding.code == "malformed":
        kind = values.get("what")
        values["what"] = _WHAT.get(str(kind), f"the seed of seat {values.get('seat')}")
    return pattern.format(**values)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What was checked of one game: ``ok`` (``None``: nothing could be checked) and the
    lines to print."""

    ok: bool | None
    lines: tuple[str, ...]


def shown(game: RecordedGame) -> Shown:
    """What the record's viewer was shown of ``game``, in the engine check's terms."""
    end = None
    if game.end is not None:
        e, s = game.end, game.end.summary
        end = End(
            e.step,
            e.winner,
            e.termination,
            e.counts,
            s.rounds,
            s.wars,
            s.longest_war,
            s.biggest_haul,
            tuple(e.standings),
        )
    return Shown(
        tuple(Flip(m.step, m.depth, m.cards) for m in game.flips),
        tuple(Take(m.step, m.seat, m.count, m.counts) for m in game.takes),
        end,
        tuple(Laid(m.step, m.depth, m.counts) for m in game.laid),
        tuple(War(m.step, m.depth, m.seats) for m in game.wars),
        tuple(Out(m.step, m.seat, m.reason.value) for m in game.outs),
        game.seen_whole(),
    )


def _replay(game: RecordedGame, rules: Rules, deal: int) -> Replay:
    return check_replay(rules, deal, shown(game))


def _replayed(replay: Replay) -> str:
    end = " and the end" if replay.end else ""
    return (
        f"every card shown is the deal's: {replay.flips} flips, {replay.cards} cards, "
        f"{replay.takes} takes, {replay.others} face-down counts, wars and outs{end} "
        f"(replayed {replay.steps} steps)"
    )


def verify_game(game: RecordedGame, my_seed: bytes | None = None) -> Verdict:
    """Check one recorded game; never raises for what the record holds. ``my_seed``: the
    seed the viewer's client sent, to find it in the derivation."""
    head = f"game {game.number}"
    try:
        rules = Rules.from_dict(game.rules)
    except RulesError as error:
        return Verdict(False, (f"{head}: FAILED: the rules cannot be played: {error}",))
    if game.shown_deal is not None:
        return _chosen(game, rules, game.shown_deal)
    if game.deal_commitment is None:
        return Verdict(None, (f"{head}: not checked: no deal commitment was shown",))
    return _committed(game, rules, game.deal_commitment, my_seed)


def _committed(
    game: RecordedGame, rules: Rules, deal_commitment: str, my_seed: bytes | None
) -> Verdict:
    """A deal the server picked under a commitment: the reveal, then the replay."""
    lines = [f"game {game.number}: fingerprint {_fingerprint(game, deal_commitment)}"]
    if game.voids:
        lines.append(f"  deals voided before this one: {game.voids}")
    if game.broken is not None:
        lines.append(f"  FAILED: {english(game.broken)}")
        return Verdict(False, tuple(lines))
    if game.end is None or game.server_seed is None or game.seeds is None:
        lines.append("  not checked: the record ends before game over reveals the seeds")
        return Verdict(None, tuple(lines))
    claim = Claim(
        game.rules,
        deal_commitment,
        game.server_seed,
        game.seeds,
        game.end.summary.deal,
        game.seed_commitments,
    )
    reveal = check_reveal(claim, my_seat=game.seat, my_seed=my_seed)
    lines += [f"  {english(found)}" for found in reveal.proved]
    if reveal.problem is not None or reveal.deal is None:
        problem = "no deal" if reveal.problem is None else english(reveal.problem)
        lines.append(f"  FAILED: {problem}")
        return Verdict(False, tuple(lines))
    replay = _replay(game, rules, reveal.deal)
    if replay.mismatch is not None:
        lines.append(f"  FAILED: {replay.mismatch.sentence()}")
        return Verdict(False, tuple(lines))
    lines += [f"  {_replayed(replay)}", "  fair deal: checked"]
    return Verdict(True, tuple(lines))


def _fingerprint(game: RecordedGame, deal_commitment: str) -> str:
    """The fingerprint of what the game pinned at its start (``?``: it cannot be made: the
    seat commitments were never shown, or are not one per seat)."""
    players = game.rules.get("players")
    seats = game.seed_commitments
    try:
        if seats is None or not isinstance(players, int):
            return "?"
        return fingerprint(game.number, deal_commitment, seats, game.rules)
    except FairnessError:
        return "?"


def _chosen(game: RecordedGame, rules: Rules, deal: int) -> Verdict:
    """A deal shown from the start: its cards can be checked, nothing more."""
    head = f"game {game.number}: deal {deal} was chosen, shown from the start"
    if game.broken is not None:
        return Verdict(False, (head, f"  FAILED: {english(game.broken)}"))
    replay = _replay(game, rules, deal)
    if replay.mismatch is not None:
        return Verdict(False, (head, f"  FAILED: {replay.mismatch.sentence()}"))
    return Verdict(True, (head, f"  {_replayed(replay)}"))


def _seed(text: str) -> tuple[int | None, bytes]:
    """``--my-seed``: ``HEX`` (for every game) or ``GAME:HEX`` (for that game alone)."""
    number, _, seed = text.rpartition(":")
    game = None
    if number:
        if not number.isdigit() or int(number) < 1:
            text = f"--my-seed GAME:HEX needs a game number, not {number!r}"
            raise argparse.ArgumentTypeError(text)
        game = int(number)
    try:
        return game, parse_seed(seed, "--my-seed")
    except FairnessError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def my_seed(given: Sequence[tuple[int | None, bytes]], game: int) -> bytes | None:
    """The seed given for ``game`` (``GAME:HEX``), else the one given for every game."""
    for number, seed in given:
        if number == game:
            return seed
    return next((seed for number, seed in given if number is None), None)


def build_parser() -> argparse.ArgumentParser:
    """The ``war-sim verify`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="war-sim verify",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", help="the record (- for standard input)")
    parser.add_argument(
        "--my-seed",
        type=_seed,
        action="append",
        default=[],
        metavar="[GAME:]HEX",
        help=(
            "the seed your client sent (64 hex digits): check that the deal used it; "
            "GAME:HEX for one game of a record with several (give it once per game)"
        ),
    )
    return parser


def _read(path: str, stdin: TextIO) -> list[RecordedGame]:
    if path == "-":
        return read_record(stdin)
    with open(path, encoding="utf-8", errors="strict") as handle:
        return read_record(handle)


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None) -> int:
    """Run ``war-sim verify``; returns the exit status (argparse exits with 2 on bad flags)."""
    args = build_parser().parse_args(argv)
    try:
        games = _read(args.file, stdin or sys.stdin)
    except (OSError, UnicodeDecodeError, RecordError) as error:
        print(f"war-sim verify: {args.file}: {error}", file=sys.stderr)
        return 1
    verdicts = [verify_game(game, my_seed(args.my_seed, game.number)) for game in games]
    for verdict in verdicts:
        for line in verdict.lines:
            print(line)
    checked = [v.ok for v in verdicts if v.ok is not None]
    return 0 if checked and all(checked) else 1
