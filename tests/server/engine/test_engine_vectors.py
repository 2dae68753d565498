"""The shared engine vectors (tests/vectors/engine/) are current: regenerating them from the
Python engine and `protocol.fairness` gives the files as checked in, and each game in them
is what the engine plays. The browser's engine is checked against the same files
(tests/client/web/engine.test.mjs)."""

from __future__ import annotations

import json

import pytest

from server.engine import Rules
from tests.vectors.generate_engine import FOLDER, GAMES, files, play


@pytest.mark.parametrize("name", sorted(files()))
def test_the_vectors_are_current(name: str) -> None:
    stored = (FOLDER / name).read_text(encoding="utf-8")
    assert stored == files()[name], f"{name} is stale: run python -m tests.vectors.generate_engine"


def test_every_value_of_every_setting_is_played() -> None:
    games = json.loads((FOLDER / "steps.json").read_text(encoding="utf-8"))["games"]
    for name in Rules().to_dict():
        values = {json.dumps(g["rules"][name]) for g in games}
        assert len(values) >= 2, f"only {values} for {name}"
    endings = {g["steps"][-1][-1].split()[2] for g in games}
    assert endings == {
        "all_cards",
        "opponents_short",
        "both_short",
        "round_limit",
        "time_limit",
        "endless",
    }
    assert any("returned" in event for g in games for step in g["steps"] for event in step)
    assert len(GAMES) == len(games)


def test_each_game_is_what_the_engine_plays() -> None:
    games = json.loads((FOLDER / "steps.json").read_text(encoding="utf-8"))["games"]
    for game in games:
        steps, played = play(Rules.from_dict(game["rules"]), int(game["deal"]), game["stop_at"])
        assert steps == game["steps"]
        assert list(played.standings or ()) == game["standings"]
