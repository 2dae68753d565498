"""`Game.replay`: a stored game (deal, steps, time stop, finish) comes back as it was played."""

from __future__ import annotations

import pytest

from server import engine
from tests._kit.games import assert_same_end

RULES = engine.Rules()


def _played(steps: int, *, stop_step: int | None = None, finished: bool = False) -> engine.Game:
    """The game of deal 90210 as a room plays it: flips until the time limit stops it
    (``stop_step``), then on to ``steps`` flips if it is not over, then the finish."""
    game = engine.Game(RULES, 90210)
    until_stop = steps if stop_step is None else stop_step
    for _ in range(until_stop):
        game.step()
    if stop_step is not None:
        game.stop_by_time()
        while game.outcome is None and game.steps < steps:
            game.step()
    if finished:
        game.finish()
    return game


@pytest.mark.parametrize("steps", [0, 1, 17, 40])
def test_a_replay_is_the_game_played_step_by_step(steps: int) -> None:
    replayed = engine.Game.replay(RULES, 90210, steps)
    played = _played(steps)
    assert replayed.steps == played.steps == steps
    assert replayed.counts == played.counts
    assert replayed.table == played.table
    assert replayed.phase is played.phase
    assert replayed.outcome is None
    # and it goes on as the game would have
    assert replayed.step() == played.step()


def test_a_replay_stops_where_the_time_limit_stopped_the_game() -> None:
    for stop in range(0, 12):
        replayed = engine.Game.replay(RULES, 90210, 12, stop_step=stop)
        played = _played(12, stop_step=stop)
        assert replayed.time_stopped and played.time_stopped
        assert replayed.outcome == played.outcome
        assert replayed.steps == played.steps
        assert replayed.counts == played.counts


def test_a_finished_replay_ends_as_finish_ends_it() -> None:
    replayed = engine.Game.replay(RULES, 90210, 25, finished=True)
    played = _played(25, finished=True)
    assert replayed.outcome is not None
    assert_same_end(replayed, played)


def test_steps_past_the_end_are_not_played() -> None:
    whole = engine.Game(RULES, 7)
    whole.finish()
    replayed = engine.Game.replay(RULES, 7, whole.steps + 50)
    assert_same_end(replayed, whole)


def test_a_negative_step_count_is_refused() -> None:
    with pytest.raises(ValueError, match="steps must be at least 0, not -1"):
        engine.Game.replay(RULES, 1, -1)
