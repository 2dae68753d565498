"""The command line: what it accepts, what it refuses (one clear line), what it builds."""

from __future__ import annotations

import argparse
import random
import re

import pytest

from client.cli import build_parser, main, plan
from client.errors import UsageError
from client.net.policy import backoff_delay, should_reconnect
from client.words.catalog import catalog
from client.words.sentences import closed_because
from protocol import (
    Aces,
    AutoPlay,
    CloseCode,
    CreateRoom,
    Error,
    JoinRoom,
    RulesSpec,
    ShortWar,
    TieBreak,
    WatchRoom,
    WonCards,
)
from server.core.codes import CODE_ALPHABET

URL = "ws://127.0.0.1:8765"
CODE_SHAPE = f"[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}"
"""A room code as the server writes them: 8 symbols, no 0 O 1 I L U."""


def planned(*argv: str, terminal: bool = True) -> tuple[object, AutoPlay | None, str]:
    wanted = plan(build_parser().parse_args(list(argv)), stdout_is_terminal=terminal)
    return wanted.opening, wanted.auto, wanted.output


def test_create_with_every_rule_flag() -> None:
    opening, auto, output = planned(
        URL, "--name", "Ann", "--create", "--players", "3", "--face-down", "3",
        "--aces", "low", "--short-war", "last-card", "--won-cards", "fixed",
        "--tie-break", "battle", "--deal", "90210", "--rounds", "26", "--vs-computer",
        "--auto", "calm", "--json",
    )  # fmt: skip
    assert opening == CreateRoom(
        name="Ann",
        rules=RulesSpec(
            players=3,
            face_down=3,
            aces=Aces.LOW,
            short_war=ShortWar.LAST_CARD,
            won_cards=WonCards.FIXED,
            round_limit=26,
            tie_break=TieBreak.BATTLE,
        ),
        deal=90210,
        computers=2,
    )
    assert (auto, output) == (AutoPlay.CALM, "json")


def test_join_watch_and_minutes() -> None:
    assert planned(URL, "--name", "Ben", "--join", "K7MX-QD4R", "--plain")[0] == JoinRoom(
        code="K7MX-QD4R", name="Ben"
    )
    assert planned(URL, "--watch", "9HWT-2CBN")[0] == WatchRoom(code="9HWT-2CBN")
    opening = planned(URL, "--name", "Ann", "--create", "--minutes", "10", "--computers", "1")[0]
    assert isinstance(opening, CreateRoom)
    assert (opening.minutes, opening.computers, opening.rules.round_limit) == (10, 1, None)


def test_local_plays_the_computer_and_needs_no_url() -> None:
    opening = planned("--local", "--name", "Ann", "--players", "4")[0]
    assert isinstance(opening, CreateRoom) and opening.computers == 3


def test_without_a_terminal_plain_is_the_default() -> None:
    assert planned(URL, "--watch", "9HWT-2CBN", terminal=False)[2] == "plain"
    assert planned(URL, "--watch", "9HWT-2CBN", terminal=True)[2] == "tui"


def test_the_password_comes_from_the_flag_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAR_PASSWORD", "from-env")
    opening = planned(URL, "--name", "Ann", "--create")[0]
    assert isinstance(opening, CreateRoom) and opening.password == "from-env"
    opening = planned(URL, "--name", "Ann", "--create", "--password", "flag")[0]
    assert isinstance(opening, CreateRoom) and opening.password == "flag"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["http://host:1", "--create"], "the url must look like ws://host:port"),
        (["ws://", "--create"], "the url must look like ws://host:port"),
        (["ws://host:99999", "--create"], "the url has a bad port"),
        ([], "give the server's url"),
        ([URL], "choose --create, --join CODE or --watch CODE"),
        ([URL, "--local"], "--local starts its own server: leave out the url"),
        ([URL, "--join", "ABCD", "--players", "3"], "--players goes with --create"),
        ([URL, "--watch", "ABCD", "--deal", "4"], "--deal goes with --create"),
        ([URL, "--watch", "ABCD", "--auto", "quick"], "--auto is for players"),
        ([URL, "--create", "--name", " "], "--name must be printable text"),
        ([URL, "--create", "--name", "x" * 25], "--name must be 1 to 24 characters long, not 'x"),
        ([URL, "--create", "--rounds", "0"], "--rounds must be a whole number from 1 to "),
        (
            [URL, "--create", "--minutes", "2000"],
            "--minutes must be a whole number from 1 to 1440, not 2000",
        ),
        ([URL, "--create", "--computers", "2"], "--computers must leave"),
        (
            [URL, "--create", "--password", "x" * 200],
            "--password must be 1 to 128 characters long$",
        ),
        ([URL, "--join", "no spaces"], "the code must be "),
    ],
)
def test_refusals_name_the_problem(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match="^" + message.replace("(", r"\(")):
        plan(build_parser().parse_args(argv), stdout_is_terminal=False)


def test_main_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["http://host:1", "--create"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("war-client: error: the url must look like ws://host:port")


def test_main_cannot_connect_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    from client.net.local import free_port  # noqa: PLC0415

    port = free_port()  # nothing listens there now
    assert main([f"ws://127.0.0.1:{port}", "--watch", "9HWT-2CBN", "--plain"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"war-client: cannot connect to ws://127.0.0.1:{port}: "
        "no server is listening at that address\n"
    )


def test_help_teaches_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for expected in (
        "war-client --local",
        "--join K7MX-QD4R",
        "--watch 9HWT-2CBN",
        "space or enter",
        "WAR_CLIENT_STATE",
        "exit status",
    ):
        assert expected in text
    codes = [c for c in re.findall(r"--(?:join|watch) (\S+)", text) if c != "CODE"]
    assert codes and all(re.fullmatch(CODE_SHAPE, code) for code in codes), codes


# --- the connection's pure decisions ---------------------------------------------------------
def test_backoff_grows_is_capped_and_jittered() -> None:
    rng = random.Random(5)
    delays = [backoff_delay(n, base=0.25, cap=10.0, rng=rng) for n in range(12)]
    for attempt, delay in enumerate(delays):
        ceiling = min(10.0, 0.25 * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert max(delays) <= 10.0
    assert len({round(d, 6) for d in delays[8:]}) > 1, "jitter spreads capped delays"
    assert backoff_delay(10_000, rng=rng) <= 10.0


@pytest.mark.parametrize(
    ("code", "retry"),
    [
        (None, True),
        (1006, True),
        (CloseCode.SERVICE_RESTART, True),
        (CloseCode.INTERNAL_ERROR, True),
        (CloseCode.TRY_AGAIN_LATER, True),
        (CloseCode.RATE_LIMITED, True),
        (CloseCode.OPENING_TIMEOUT, True),
        (CloseCode.NORMAL, False),
        (CloseCode.GOING_AWAY, False),
        (CloseCode.POLICY_VIOLATION, False),
        (CloseCode.REPLACED, False),
        (CloseCode.ROOM_CLOSED, False),
        (CloseCode.REFUSED, False),
        (CloseCode.UNSUPPORTED_VERSION, False),
    ],
)
def test_which_closes_reconnect(code: int | None, retry: bool) -> None:
    assert should_reconnect(code) is retry


def test_close_explanations() -> None:
    english = catalog("en", strict=True)

    def said(code: int | None, error: Error | None = None) -> str:
        return english.say(closed_because(code, error))

    assert said(4002) == "this seat was taken over by another window or device"
    assert said(None) == "the connection dropped"
    assert said(4999) == "the server closed the connection (code 4999)"
    refusal = Error(code="unknown_code", message="no room has the code ABCD")
    assert said(4004, refusal) == "there is no game with that code", "by its code"
    assert said(4004, Error(code="room_full")) == "every seat of that game is taken"
    future = Error(code="a_new_code", message="something a newer server says")
    assert said(4004, future) == "something a newer server says", "a code we do not know"


def test_short_war_choices_agree_with_war_sim() -> None:
    from server.sim.cli import build_parser as sim_parser  # noqa: PLC0415

    def choices(parser: argparse.ArgumentParser) -> set[str]:
        (action,) = [a for a in parser._actions if a.dest == "short_war"]
        return set(action.choices or ())

    assert choices(build_parser()) == choices(sim_parser()) == {"lose", "last-card"}
    for spelling in ("last-card", "last_card"):
        opening = planned(URL, "--create", "--short-war", spelling)[0]
        assert isinstance(opening, CreateRoom) and opening.rules.short_war is ShortWar.LAST_CARD
        assert sim_parser().parse_args(["--short-war", spelling]).short_war == "last-card"


@pytest.mark.parametrize(
    "flag", ["--players", "--face-down", "--aces", "--short-war", "--won-cards", "--tie-break"]
)
def test_a_rule_at_its_default_goes_with_join_and_any_other_value_does_not(flag: str) -> None:
    parser = build_parser()
    (action,) = [a for a in parser._actions if flag in a.option_strings]
    default = str(action.default)
    planned(URL, "--join", "K7MX-QD4R", flag, default)  # the default: nothing to refuse
    other = next(str(c) for c in action.choices or () if str(c) != default)
    with pytest.raises(UsageError, match=f"^{flag} goes with --create"):
        planned(URL, "--join", "K7MX-QD4R", flag, other)
