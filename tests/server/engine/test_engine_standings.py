"""Each seat's place at the end of a game (RULES.md, "Standings"; docs/rules.md).

The winner first, or after a limit the players still in by the cards they hold; then the
players who went out, the later out the better; players who went out in the same round
share a place, and so do players still in with equal counts (a draw shares first place).
A place is one more than the number of players who did better (two first, then third).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import (
    CardsReturned,
    Game,
    Phase,
    PlayerOut,
    Rules,
    ShortWar,
    Termination,
    standings,
)


@pytest.mark.parametrize(
    ("counts", "out_at", "places"),
    [
        # two players: the winner, the loser; a both_short draw or an endless one
        ((52, 0), (None, 30), (1, 2)),
        ((0, 52), (12, None), (2, 1)),
        ((26, 26), (None, None), (1, 1)),
        # three: the last one knocked out is second; out in the same round: both second
        ((51, 0, 0), (None, 40, 90), (1, 3, 2)),
        ((0, 51, 0), (17, None, 17), (2, 1, 2)),
        # three at a round limit: by cards; a draw shares first, the next is third
        ((11, 20, 20), (None, None, None), (3, 1, 1)),
        ((15, 21, 15), (None, None, None), (2, 1, 2)),
        # four: at a limit two still in tie for first, one out earlier is last
        ((19, 14, 19, 0), (None, None, None, 8), (1, 3, 1, 4)),
        ((11, 13, 15, 13), (None, None, None, None), (4, 2, 1, 2)),
        # four: two out together, then one more; the winner holds every card
        ((0, 0, 0, 52), (29, 201, 29, None), (3, 2, 3, 1)),
        ((0, 0, 0, 52), (5, 5, 5, None), (2, 2, 2, 1)),
        # an endless draw among three still in, the fourth out
        ((17, 17, 18, 0), (None, None, None, 3), (2, 2, 1, 4)),
    ],
)
def test_places(
    counts: tuple[int, ...], out_at: tuple[int | None, ...], places: tuple[int, ...]
) -> None:
    assert standings(counts, out_at) == places


def test_a_seat_out_holds_no_cards_and_every_seat_has_an_entry() -> None:
    with pytest.raises(ValueError, match="seat 1 went out but holds 3 cards"):
        standings((49, 3), (None, 7))
    with pytest.raises(ValueError, match="3 counts for 2 seats"):
        standings((1, 2, 3), (None, None))


def test_deal_83_two_out_in_the_same_round_share_third() -> None:
    game = Game(Rules(players=4), 83)
    assert game.standings is None
    outs = []
    while game.phase is not Phase.OVER:
        outs += [(e.round, e.seat) for e in game.step() if isinstance(e, PlayerOut)]
    assert outs == [(29, 0), (29, 2), (201, 1)]
    assert game.standings == (3, 2, 3, 1)


def test_deal_13_four_players_draw_at_the_round_limit() -> None:
    game = Game(Rules(players=4, round_limit=26), 13)
    game.finish()
    assert game.outcome is not None
    assert (game.outcome.winner, game.outcome.termination) == (None, Termination.ROUND_LIMIT)
    assert game.counts == (19, 14, 19, 0)
    assert game.standings == (1, 3, 1, 4)


def _from_events(rules: Rules, deal: int) -> tuple[tuple[int, ...], Game]:
    """Places worked out from the events alone: who went out in which round played (a
    round given back and played again is a new one), and the counts at the end."""
    game = Game(rules, deal)
    played = 1
    gone: dict[int, int] = {}
    while game.phase is not Phase.OVER:
        events = game.step()
        for event in events:
            if isinstance(event, PlayerOut):
                gone[event.seat] = played
        if any(isinstance(e, CardsReturned) for e in events) or game.depth == 0:
            played += 1
    merit = [(0, gone[s]) if s in gone else (1, game.counts[s]) for s in range(rules.players)]
    return tuple(sorted(merit, reverse=True).index(m) + 1 for m in merit), game


@settings(max_examples=60, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    face_down=st.sampled_from([1, 3]),
    short_war=st.sampled_from(list(ShortWar)),
    limit=st.sampled_from([None, 26, 100]),
    deal=st.integers(0, 2**64 - 1),
)
def test_places_follow_from_the_events(
    players: int, face_down: int, short_war: ShortWar, limit: int | None, deal: int
) -> None:
    rules = Rules(players=players, face_down=face_down, short_war=short_war, round_limit=limit)
    places, game = _from_events(rules, deal)
    assert game.standings == places
    assert game.outcome is not None
    if game.outcome.winner is not None:
        assert places[game.outcome.winner] == 1
        assert places.count(1) == 1
    else:
        assert places.count(1) >= 2
    fast = Game(rules, deal)
    fast.finish()
    assert fast.standings == places
