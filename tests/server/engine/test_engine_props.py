"""Property tests (hypothesis): conservation, determinism, finish() == stepping == a
play-out in slices, endings."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.engine import (
    Aces,
    BothShort,
    FixedOrder,
    Game,
    GameOver,
    GameOverError,
    Phase,
    Rules,
    ShortWar,
    Termination,
    TieBreak,
    WonCards,
)
from tests._kit.games import assert_same_end

MAX_STEPS = 200_000  # far above any game seen; a game this long would be a bug


@st.composite
def rules_strategy(draw: st.DrawFn, small: bool = False) -> Rules:
    players = draw(st.integers(2, 4))
    ranks = draw(st.integers(1, 13)) if small else 13
    suits = draw(st.integers(1, 4)) if small else 4
    if ranks * suits < players:
        ranks, suits = 13, 4
    return Rules(
        players=players,
        face_down=draw(st.sampled_from([1, 3])),
        aces=draw(st.sampled_from(Aces)),
        short_war=draw(st.sampled_from(ShortWar)),
        won_cards=draw(st.sampled_from(WonCards)),
        fixed_order=draw(st.sampled_from(FixedOrder)),
        both_short=draw(st.sampled_from(BothShort)),
        round_limit=draw(st.none() | st.integers(1, 400)),
        tie_break=draw(st.sampled_from(TieBreak)),
        ranks=ranks,
        suits=suits,
    )


deals = st.integers(0, 2**64 - 1)
common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def card_census(game: Game) -> Counter[int]:
    """Every card the game holds anywhere: piles, table and the set-aside card(s)."""
    census: Counter[int] = Counter()
    for pile in game._state.piles:
        census.update(pile)
    for mine in game._state.mine:
        census.update(mine)
    census.update(game._state.set_aside)
    return census


@common
@given(rules_strategy(small=True), deals)
# Seat 1 goes out short in a three-way war, seats 0 and 2 tie again and both run out.
@example(Rules(players=3, face_down=3, aces=Aces.LOW, ranks=4, suits=4), 1996239)
def test_cards_conserved_and_never_twice(rules: Rules, deal: int) -> None:
    game = Game(rules, deal)
    whole = Counter(range(rules.deck_size))
    aside = rules.deck_size % rules.players
    for _ in range(MAX_STEPS):
        assert card_census(game) == whole
        table = game.table
        on_table = sum(len(up) for up in table.face_up) + sum(table.face_down)
        assert sum(game.counts) + on_table + aside == rules.deck_size
        assert all(
            game.counts[seat] == 0 for seat in range(rules.players) if seat not in game.active
        )
        if game.phase is Phase.OVER:
            break
        game.step()
    assert game.phase is Phase.OVER
    assert game.outcome is not None
    # At the end every seat still in holds cards (and none on the table). Only a round
    # given back can leave cards on the table (those forfeited by players out short in it):
    # a both_short end, or with play_on an end by a limit or a loop just after one.
    table = game.table
    for seat in range(rules.players):
        on_table = len(table.face_up[seat]) + table.face_down[seat]
        if seat in game.active:
            assert game.counts[seat] > 0
            assert on_table == 0
        elif on_table:
            assert rules.short_war is ShortWar.LOSE
            assert game.outcome.termination is Termination.BOTH_SHORT or (
                rules.both_short is BothShort.PLAY_ON
                and game.outcome.termination
                in {Termination.ROUND_LIMIT, Termination.TIME_LIMIT, Termination.ENDLESS}
            )


@common
@given(rules_strategy(), deals)
def test_same_deal_same_game(rules: Rules, deal: int) -> None:
    a, b = Game(rules, deal), Game(rules, deal)
    for _ in range(MAX_STEPS):
        if a.phase is Phase.OVER:
            break
        assert a.step() == b.step()
        assert a.table == b.table
    assert a.outcome == b.outcome
    assert b.phase is Phase.OVER


@common
@given(rules_strategy(small=True), deals, st.integers(0, 300))
def test_finish_equals_stepping_to_the_end(rules: Rules, deal: int, first: int) -> None:
    stepped = Game(rules, deal)
    fast = Game(rules, deal)
    for _ in range(first):
        if fast.phase is Phase.OVER:
            break
        fast.step()
    fast.finish()
    last: list[object] = []
    for _ in range(MAX_STEPS):
        if stepped.phase is Phase.OVER:
            break
        last = list(stepped.step())
    assert_same_end(fast, stepped)
    if last:
        assert last[-1] == GameOver(fast.outcome, fast.summary)  # type: ignore[arg-type]


@common
@given(rules_strategy(small=True), deals, st.integers(0, 300), st.integers(1, 5_000))
def test_a_play_out_in_slices_equals_finish(
    rules: Rules, deal: int, first: int, budget: int
) -> None:
    whole, sliced = Game(rules, deal), Game(rules, deal)
    for game in (whole, sliced):
        for _ in range(first):
            if game.phase is Phase.OVER:
                break
            game.step()
    whole.finish()
    for _ in range(MAX_STEPS):
        sliced.play_out(budget)
        if sliced.outcome is not None:
            break
    assert_same_end(sliced, whole)


@common
@given(rules_strategy(), deals, st.integers(0, 400))
def test_stop_by_time_always_ends_the_game(rules: Rules, deal: int, at: int) -> None:
    game = Game(rules, deal)
    for _ in range(at):
        if game.phase is Phase.OVER:
            return
        game.step()
    if game.phase is Phase.OVER:
        return
    game.stop_by_time()
    outcome = game.finish()
    assert outcome.termination.value in {
        "time_limit",
        "all_cards",
        "opponents_short",
        "both_short",
    } or (
        outcome.termination is Termination.ENDLESS  # rounds given back forever
        and rules.tie_break is TieBreak.BATTLE
    )
    if outcome.winner is not None:
        assert game.counts[outcome.winner] == max(game.counts)
        assert game.counts.count(max(game.counts)) == 1
    try:
        game.step()
    except GameOverError:
        pass
    else:
        raise AssertionError("step after the end must raise GameOverError")


@common
@given(rules_strategy(small=True), deals)
def test_outcome_matches_the_counts(rules: Rules, deal: int) -> None:
    game = Game(rules, deal)
    outcome = game.finish()
    counts = game.counts
    if outcome.termination.value in {"all_cards", "opponents_short"}:
        assert outcome.winner is not None
        assert game.active == (outcome.winner,)
    elif outcome.winner is None:
        assert counts.count(max(counts)) > 1
    else:
        assert counts[outcome.winner] == max(counts)
        assert counts.count(max(counts)) == 1
    if outcome.termination.value == "round_limit":
        assert rules.round_limit is not None
        assert game.summary.rounds >= rules.round_limit
        if rules.tie_break is TieBreak.DRAW:
            assert game.summary.rounds == rules.round_limit
    if outcome.termination.value == "endless":
        # a fixed order going round, or rounds given back over and over
        assert rules.won_cards is WonCards.FIXED or (
            rules.both_short is BothShort.PLAY_ON and rules.players > 2
        )
