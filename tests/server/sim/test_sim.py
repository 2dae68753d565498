"""`war-sim`: figures, determinism across --jobs, JSON keys, trace, flags, progress bar."""

from __future__ import annotations

import io
import json
import statistics
import subprocess
import sys

import pytest

from server.engine import Rules, Termination
from server.sim import cli, deal_numbers, main, simulate
from server.sim.cli import ProgressBar
from server.sim.run import Report, Tally, play_deal

JSON_KEYS = [
    "games",
    "mean_rounds",
    "median_rounds",
    "p90_rounds",
    "p99_rounds",
    "max_rounds",
    "mean_wars",
    "longest_war",
    "biggest_haul",
    "wins",
    "draws",
    "endless",
    "games_per_second",
]


def without_speed(report: Report) -> dict[str, object]:
    figures = report.as_dict()
    del figures["games_per_second"]
    return figures


def test_deal_numbers_from_seed() -> None:
    assert deal_numbers(0, 3) == range(0, 3)
    assert deal_numbers(5, 2) == range(5 * 2**32, 5 * 2**32 + 2)
    with pytest.raises(ValueError, match="seed must be from 0 to 4294967295, not -1"):
        deal_numbers(-1, 1)


def test_figures_match_the_games_one_by_one() -> None:
    rules = Rules(face_down=3)
    records = [play_deal(rules, deal) for deal in deal_numbers(3, 201)]
    report = simulate(rules, 201, seed=3, jobs=1)
    rounds = sorted(r.rounds for r in records)
    assert report.games == 201
    assert report.mean_rounds == pytest.approx(statistics.fmean(rounds))
    assert report.median_rounds == statistics.median(rounds)
    assert report.p90_rounds == rounds[181 - 1]  # nearest rank: ceil(0.9 * 201) = 181
    assert report.p99_rounds == rounds[199 - 1]  # ceil(0.99 * 201) = 199
    assert report.max_rounds == rounds[-1]
    assert report.mean_wars == pytest.approx(statistics.fmean(r.wars for r in records))
    assert report.longest_war == max(r.longest_war for r in records)
    assert report.biggest_haul == max(r.biggest_haul for r in records)
    assert report.wins == tuple(sum(r.winner == s for r in records) for s in range(2))
    assert report.draws == sum(r.winner is None for r in records)
    assert report.endless == sum(r.termination is Termination.ENDLESS for r in records)


def test_even_median_is_the_mean_of_the_middle_two() -> None:
    tally = Tally(2)
    for rounds in (10, 20, 30, 41):
        tally.rounds[rounds] += 1
    tally.games = 4
    report = Report.from_tally(tally, 1.0, 1)
    assert report.median_rounds == 25
    assert report.p90_rounds == 41
    assert report.mean_rounds == 25.25


@pytest.mark.slow
def test_same_figures_whatever_the_number_of_jobs() -> None:
    rules = Rules(players=3, won_cards="fixed")  # type: ignore[arg-type]
    one = simulate(rules, 120, seed=9, jobs=1)
    two = simulate(rules, 120, seed=9, jobs=2)
    assert without_speed(one) == without_speed(two)
    assert one.endless + one.draws + sum(one.wins) >= 120


def test_json_output_has_exactly_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "30", "--json", "--jobs", "1", "--players", "4"]) == 0
    out, err = capsys.readouterr()
    figures = json.loads(out)
    assert list(figures) == JSON_KEYS
    assert figures["games"] == 30
    assert len(figures["wins"]) == 4
    assert err == ""  # no progress bar: --json, and stderr is not a terminal here


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "20", "--jobs", "1", "--short-war", "last-card", "--aces", "low"]) == 0
    out, err = capsys.readouterr()
    assert "short in a war: last card" in out
    assert "aces low" in out
    assert "games          20 (seed 0)" in out
    assert "wins           seat 0:" in out
    assert err == ""


def test_trace_tells_every_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deal", "2", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    record = play_deal(Rules(), 2)
    rounds = [line for line in lines if line.startswith("Round ")]
    assert [line.split(":")[0] for line in rounds] == [
        f"Round {n}" for n in range(1, record.rounds + 1)
    ]
    assert lines[0].startswith("Deal 2: 2 players, 52-card deck")
    assert lines[1] == "Each player holds 26, 26 cards."
    assert lines[2] == (
        "Round 1: Seat 0 turns up the ace of hearts, seat 1 the jack of spades. "
        "Seat 0 takes 2 cards. Piles: 27 - 25."
    )
    assert "War between seats 0 and 1! Each lays 1 card face down." in lines[10]
    assert lines[-1].startswith("Game over after 89 rounds: seat 0 wins")
    assert len(lines) == record.rounds + 3


def test_one_deal_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deal", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {
        "deal": 2,
        "rounds": 89,
        "wars": 6,
        "longest_war": 1,
        "biggest_haul": 6,
        "winner": 0,
        "termination": "opponents_short",
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "argument --games: expected a number of at least 1, not 0"),
        (["--games", "x"], "argument --games: expected a whole number, not 'x'"),
        (["--players", "5"], "argument --players: invalid choice: 5"),
        (["--face-down", "2"], "argument --face-down: invalid choice: 2"),
        (["--short-war", "gentle"], "argument --short-war: invalid choice: 'gentle'"),
        (["--fixed-order", "seat1"], "argument --fixed-order: invalid choice: 'seat1'"),
        (["--both-short", "stop"], "argument --both-short: invalid choice: 'stop'"),
        (["--seed", "-1"], "argument --seed: expected 0 to 4294967295, not -1"),
        (["--trace"], "--trace needs --deal D (one game)"),
        (["--games", "5", "--deal", "1"], "argument --deal: not allowed with argument --games"),
        (["--jobs", "0"], "argument --jobs: expected a number of at least 1, not 0"),
        (["--deal", "1", "--ranks", "1", "--suits", "3", "--players", "4"], "too small"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_flags_exit_2_with_a_clear_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for needle in ("deal number", "S * 2**32", "--json prints one object", "examples:", "--trace"):
        assert needle in text


def test_progress_bar_waits_a_second_then_draws_and_erases() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar(10, 100, 0.5)
    assert stream.getvalue() == ""
    bar(50, 100, 2.0)
    assert stream.getvalue() == "\r[###############---------------] 50/100 games, 25/s "
    bar.close()
    assert stream.getvalue().endswith("\r\x1b[K")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("as_json", [False, True])
def test_progress_bar_only_on_a_terminal_without_json(
    as_json: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(cli, "PROGRESS_DELAY", 0.0)  # instead of waiting a real second
    main(["--games", "50", "--jobs", "1"] + (["--json"] if as_json else []))
    if as_json:
        assert terminal.getvalue() == ""
    else:
        assert "[##############################] 50/50 games" in terminal.getvalue()
        assert terminal.getvalue().endswith("\r\x1b[K")
    assert "\r" not in capsys.readouterr().out


def test_console_entry_point_with_processes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.sim", "--games", "40", "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    figures = json.loads(done.stdout)
    assert figures["games"] == 40
    assert done.stderr == ""
    alone = simulate(Rules(), 40, jobs=1)
    assert {k: v for k, v in figures.items() if k != "games_per_second"} == without_speed(alone)


def test_0_1_rules_by_flag_and_the_round_given_back_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Deal 1684 with four players: seats 1 and 3 run out in a war in round 16. Today the
    round is played again; with --both-short end (0.1) the game ends there."""
    assert main(["--deal", "1684", "--players", "4", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    again = [line for line in lines if line.startswith("Round 16:")]
    assert len(again) == 2
    assert again[0].endswith(
        "Piles: 34 - 2 - 14 - 2. The round does not count; it is played again."
    )
    assert main(["--deal", "1684", "--players", "4", "--both-short", "end", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "all short in a war: the game ends" in lines[0]
    assert lines[-1].startswith("Game over after 15 rounds: seat 0 wins (everyone in a war")
    assert (
        main(["--games", "4", "--jobs", "1", "--won-cards", "fixed", "--fixed-order", "seat0"]) == 0
    )
    assert "won cards fixed from seat 0," in capsys.readouterr().out
    assert main(["--games", "4", "--jobs", "1", "--won-cards", "fixed"]) == 0
    assert "won cards fixed from the winner," in capsys.readouterr().out


def test_trace_tells_a_standing_card(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deal", "2", "--short-war", "last-card", "--face-down", "3", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(line for line in lines if line.startswith("Round 487:"))
    assert "Seat 0 lays 3 cards face down." in line
    assert "seat 1 has no cards left, so the ten of spades stands." in line
    assert line.endswith("Seat 1 takes 11 cards. Piles: 41 - 11.")


def test_one_deal_counts_its_wars_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deal", "0", "--rounds", "10"]) == 0
    assert ", 1 war, longest 1," in capsys.readouterr().out, "not '1 wars'"
    assert main(["--deal", "3", "--rounds", "10"]) == 0
    assert ", 0 wars, longest 0," in capsys.readouterr().out
