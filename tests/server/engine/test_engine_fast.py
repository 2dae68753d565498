"""The fast path of `Game.finish` plays exactly the game the step path plays.

A sweep over every combination of settings (players, face-down, aces, short-war rule,
won cards, limits and tie-breaks, and 0.1's fixed order and end on everyone short) and
many deal numbers of the full deck, plus games handed to `finish()` in the middle of a
war and after rounds given back.
"""

from __future__ import annotations

import functools
import itertools

import pytest

from server.engine import (
    STEP_WORK,
    Aces,
    BothShort,
    CardsReturned,
    FixedOrder,
    Game,
    Phase,
    Rules,
    ShortWar,
    TieBreak,
    WonCards,
    _fast,
)
from server.engine._state import State
from tests._kit.games import assert_same_end as same_game

# One worker runs the module: the two sweeps share the stepped games it played
# (`stepped_once`), which on several workers would each be played again.
pytestmark = pytest.mark.xdist_group("engine_fast")

COMBOS = (
    [
        Rules(players=p, face_down=fd, aces=aces, short_war=sw, won_cards=wc)
        for p, fd, aces, sw, wc in itertools.product((2, 3, 4), (1, 3), Aces, ShortWar, WonCards)
    ]
    + [
        # 0.1's rules, kept for the games it stored.
        Rules(players=p, face_down=fd, won_cards=wc, fixed_order=FixedOrder.SEAT0, both_short=bs)
        for p, fd, wc, bs in itertools.product((2, 3, 4), (1, 3), WonCards, BothShort)
    ]
    + [
        Rules(round_limit=limit, tie_break=tb, face_down=fd, won_cards=wc)
        for limit, tb, fd, wc in itertools.product((1, 26, 100), TieBreak, (1, 3), WonCards)
    ]
)


def stepped_to_end(rules: Rules, deal: int) -> Game:
    game = Game(rules, deal)
    while game.phase is not Phase.OVER:
        game.step()
    return game


@functools.cache
def stepped_once(rules: Rules, deal: int) -> Game:
    """`stepped_to_end`, played once per worker for the sweeps below (the step path is
    three quarters of their CPU): the game that ended is only read, never stepped again."""
    return stepped_to_end(rules, deal)


@pytest.mark.parametrize("rules", COMBOS, ids=lambda r: "-".join(map(str, r.to_dict().values())))
def test_finish_equals_stepping_over_deals(rules: Rules) -> None:
    deals = range(12) if rules.won_cards is WonCards.FIXED else range(40)
    for deal in deals:
        fast = Game(rules, deal)
        fast.finish()
        same_game(fast, stepped_once(rules, deal))


def test_finish_from_the_middle_of_a_war() -> None:
    rules = Rules(face_down=3)
    checked = 0
    for deal in range(60):
        game = Game(rules, deal)
        while game.phase is not Phase.WAR and game.phase is not Phase.OVER:
            game.step()
        if game.phase is Phase.OVER:
            continue
        game.finish()
        same_game(game, stepped_to_end(rules, deal))
        checked += 1
    assert checked > 50


def test_finish_after_rounds_given_back() -> None:
    """Three and four players with three face down run short together now and then: the
    game plays on, sometimes with an out player's cards left on the table (the fast path
    must not take over before someone takes them). finish() from the start and from just
    after each such round plays the stepped game. Deal 15875 is the first full-deck
    four-player deal with cards left on the table; the 20-card deck has more."""
    cases = [
        (Rules(players=3, face_down=3), [*range(150)]),
        (Rules(players=4, face_down=3), [*range(150), 15875]),
        (Rules(players=4, face_down=3, ranks=5), [*range(520)]),
    ]
    given_back = carried = 0
    for rules, deals in cases:
        for deal in deals:
            stepped = stepped_to_end(rules, deal)
            game = Game(rules, deal)
            while game.phase is not Phase.OVER:
                if any(isinstance(e, CardsReturned) for e in game.step()):
                    given_back += 1
                    carried += any(game.table.face_down)
                    fast = Game(rules, deal)
                    for _ in range(game.steps):
                        fast.step()
                    fast.finish()
                    same_game(fast, stepped)
            fast = Game(rules, deal)
            fast.finish()
            same_game(fast, stepped)
    assert given_back > 100
    assert carried >= 3


def test_finish_after_a_short_war_fallback() -> None:
    """Deals where the fast path hands a short war to the step path."""
    rules = Rules(face_down=3)
    short = 0
    for deal in range(300):
        stepped = stepped_to_end(rules, deal)
        assert stepped.outcome is not None
        if stepped.outcome.termination.value in {"opponents_short", "both_short"}:
            fast = Game(rules, deal)
            fast.finish()
            same_game(fast, stepped)
            short += 1
    assert short > 10


def test_fast_path_hands_deep_wars_to_the_step_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """When a player is short in a double (or deeper) war, the fast path rebuilds the
    table for the step path; the game must still be the stepped one."""
    depths: list[int] = []
    real = _fast._hand_over

    def spy(g: State, laid: list[int], depth: int) -> None:
        depths.append(depth)
        real(g, laid, depth)

    monkeypatch.setattr(_fast, "_hand_over", spy)
    for rules in (Rules(ranks=3, suits=4), Rules(ranks=4, suits=4, face_down=3)):
        for deal in range(400):
            fast = Game(rules, deal)
            fast.finish()
            same_game(fast, stepped_to_end(rules, deal))
    assert max(depths) >= 2


SLICE_BUDGETS = (1, 40, 700)
"""work of one `Game.play_out` slice: less than a step, a few steps, many rounds"""


def _sliced_to_end(rules: Rules, deal: int, budget: int, start: int = 0) -> tuple[Game, int]:
    """The game of ``deal`` stepped ``start`` times, then played out ``budget`` work at a
    time; returns it and the most steps one `Game.play_out` call played."""
    game = Game(rules, deal)
    for _ in range(start):
        if game.phase is Phase.OVER:
            break
        game.step()
    most = 0
    while game.outcome is None:
        before = game.steps
        spent = game.play_out(budget)
        assert game.steps > before, "a play_out call must make progress"
        assert spent >= game.steps - before
        assert spent <= max(1, budget) + STEP_WORK + rules.deck_size // 2
        most = max(most, game.steps - before)
    assert game.phase is Phase.OVER
    return game, most


@pytest.mark.parametrize("rules", COMBOS, ids=lambda r: "-".join(map(str, r.to_dict().values())))
def test_playing_out_in_slices_gives_the_finished_game(rules: Rules) -> None:
    """Each deal played out in slices of three budgets, each against the one stepped game."""
    deals = range(4) if rules.won_cards is WonCards.FIXED else range(12)
    for deal in deals:
        stepped = stepped_once(rules, deal)
        for budget in SLICE_BUDGETS:
            sliced, most = _sliced_to_end(rules, deal, budget, start=deal * 7)
            same_game(sliced, stepped)
            # One step of the step path costs STEP_WORK; the fast path's rounds cost one
            # per step and finish the round they are in (a war's steps at most).
            assert most <= max(1, budget) + rules.deck_size // 2, (budget, deal)


def test_a_slice_of_the_step_path_plays_budget_over_step_work_steps() -> None:
    rules = Rules(players=4, won_cards=WonCards.FIXED, round_limit=1_000_000)
    game = Game(rules, 374)
    assert game.play_out(10 * STEP_WORK) == 10 * STEP_WORK
    assert game.steps == 10
    assert game.play_out(1) == STEP_WORK  # at least one step, whatever the budget
    assert game.steps == 11
    assert game.outcome is None


def test_a_slice_of_the_two_player_fast_path_stops_at_a_round_boundary() -> None:
    rules = Rules(round_limit=1_000_000)
    game = Game(rules, 161)  # 3,026 steps, the longest of the first 2,000 deals
    spent = game.play_out(1_000)
    assert 1_000 <= game.steps == spent <= 1_000 + rules.deck_size // 2
    assert game.phase is Phase.BATTLE and game.table == Game(rules, 161).table
    game.play_out(10_000)
    assert game.outcome is not None
    same_game(game, stepped_to_end(rules, 161))


def test_play_out_of_a_finished_game_changes_nothing() -> None:
    game = Game(Rules(), 3)
    game.finish()
    steps = game.steps
    assert game.play_out(100) == 0
    assert game.steps == steps
