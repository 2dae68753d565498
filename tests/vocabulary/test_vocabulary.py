"""The vocabulary: one set of names and bounds, the same objects in the engine and the wire."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

import pytest

import protocol
import vocabulary
from client import cli as client_cli
from server import engine
from server.sim import cli as sim_cli
from vocabulary import (
    FACE_DOWN_COUNTS,
    MAX_ROUND_LIMIT,
    PLAYER_COUNTS,
    check_face_down,
    check_players,
    check_round_limit,
)

SHARED = ("Aces", "ShortWar", "WonCards", "TieBreak", "Termination", "OutReason")


@pytest.mark.parametrize("name", SHARED)
def test_engine_and_wire_use_the_very_same_enum(name: str) -> None:
    """Not a mirror that could drift: the same class object in all three places."""
    shared = getattr(vocabulary, name)
    assert getattr(engine, name) is shared
    assert getattr(protocol, name) is shared


def test_wire_strings_are_the_documented_ones() -> None:
    """The strings on the wire (protocol/PROTOCOL.md) and on disk did not change."""
    values = {name: [m.value for m in getattr(vocabulary, name)] for name in SHARED}
    assert values == {
        "Aces": ["high", "low"],
        "ShortWar": ["lose", "last_card"],
        "WonCards": ["shuffle", "fixed"],
        "TieBreak": ["draw", "battle"],
        "Termination": [
            "all_cards",
            "opponents_short",
            "both_short",
            "round_limit",
            "time_limit",
            "endless",
        ],
        "OutReason": ["no_cards", "short_war"],
    }


def test_bounds() -> None:
    assert PLAYER_COUNTS == (2, 3, 4)
    assert FACE_DOWN_COUNTS == (1, 3)
    assert MAX_ROUND_LIMIT == 1_000_000
    assert vocabulary.MAX_DEAL == 2**64 - 1


@pytest.mark.parametrize("value", [2, 3, 4])
def test_check_players_accepts(value: int) -> None:
    assert check_players(value) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1, "players must be 2, 3 or 4, not 1"),
        (5, "players must be 2, 3 or 4, not 5"),
        (True, "players must be 2, 3 or 4, not True"),
        ("2", "players must be 2, 3 or 4, not '2'"),
    ],
)
def test_check_players_refuses(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_players(value)


@pytest.mark.parametrize(
    ("value", "ok"), [(1, True), (3, True), (0, False), (2, False), (4, False), (1.0, False)]
)
def test_check_face_down(value: object, ok: bool) -> None:
    if ok:
        assert check_face_down(value) == value
    else:
        with pytest.raises(ValueError, match=r"^face_down must be 1 or 3, not "):
            check_face_down(value)


@pytest.mark.parametrize("value", [None, 1, 26, MAX_ROUND_LIMIT])
def test_check_round_limit_accepts(value: int | None) -> None:
    assert check_round_limit(value) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "round_limit must be a positive integer or None, not 0"),
        (False, "round_limit must be a positive integer or None, not False"),
        (MAX_ROUND_LIMIT + 1, "round_limit must be at most 1,000,000, not 1000001"),
    ],
)
def test_check_round_limit_refuses(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        check_round_limit(value)


def test_the_defaults_are_the_standard_game() -> None:
    assert vocabulary.DEFAULTS.to_dict() == {
        "players": 2,
        "face_down": 1,
        "aces": "high",
        "short_war": "lose",
        "both_short": "play_on",
        "won_cards": "shuffle",
        "fixed_order": "winner",
        "taken_back": "as_won",
        "round_limit": None,
        "tie_break": "draw",
    }


def test_the_wire_and_the_engine_have_the_same_settings_with_the_same_defaults() -> None:
    """RulesSpec and Rules read their defaults from vocabulary.DEFAULTS, not copies."""
    wire = protocol.RulesSpec()
    assert tuple(f.name for f in dataclasses.fields(wire)) == vocabulary.RULE_NAMES
    assert {n: getattr(wire, n) for n in vocabulary.RULE_NAMES} == dataclasses.asdict(
        vocabulary.DEFAULTS
    )
    game = engine.Rules().to_dict()
    assert [game.pop("ranks"), game.pop("suits")] == [13, 4]  # the engine's own: the deck
    assert game == vocabulary.DEFAULTS.to_dict()


@pytest.mark.parametrize("parser", [sim_cli.build_parser, client_cli.build_parser])
def test_the_command_lines_default_to_the_vocabulary(
    parser: Callable[[], argparse.ArgumentParser],
) -> None:
    """war-sim and war-client: the flags' defaults (and so their help) are DEFAULTS'."""
    args = parser().parse_args([])
    defaults = vocabulary.DEFAULTS.to_dict()
    for name in ("players", "face_down", "aces", "short_war", "won_cards", "tie_break"):
        assert protocol.option_value(str(getattr(args, name))) == str(defaults[name]), name
    assert "default 2" in parser().format_help()
