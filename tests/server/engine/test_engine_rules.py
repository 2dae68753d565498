"""Every rule of docs/rules.md on hand-arranged decks, event by event."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.engine import (
    Aces,
    BothShort,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    FixedOrder,
    Game,
    GameOver,
    OnTable,
    Outcome,
    OutReason,
    Phase,
    PlayerOut,
    Rules,
    ShortWar,
    Summary,
    Termination,
    TieBreak,
    WarDeclared,
    WonCards,
    card_label,
    parse_card,
)
from tests._kit.decks import RUN_OUT, arrange

FIXED = WonCards.FIXED
SEAT0 = FixedOrder.SEAT0  # 0.1's fixed order: from seat 0 whoever won


def labels(rules: Rules, cards: tuple[tuple[int, int], ...]) -> list[tuple[int, str]]:
    return [(seat, card_label(card, rules)) for seat, card in cards]


def play(game: Game) -> list[Event]:
    events: list[Event] = []
    while game.phase is not Phase.OVER:
        events += game.step()
    return events


def test_single_highest_card_takes_the_table() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED)
    game = arrange(rules, ["AS KS QS JS", "JH QH KH AH"])
    events = game.step()
    assert isinstance(events[0], CardsTurned)
    assert labels(rules, events[0].cards) == [(0, "AS"), (1, "JH")]
    assert events[1] == CardsTaken(1, 0, 2, (5, 3))
    assert len(events) == 2
    assert game.round == 1
    assert game.table.face_up == ((), ())


def test_aces_low_loses_to_everything() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, aces=Aces.LOW)
    game = arrange(rules, ["AS KS QS JS", "JH QH KH AH"])
    assert game.step()[1] == CardsTaken(1, 1, 2, (3, 5))


def test_war_with_one_face_down() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED)
    game = arrange(rules, ["QS JS AS KS", "QH JH KH AH"])
    first = game.step()
    assert first[1] == WarDeclared(1, 1, (0, 1))
    assert game.phase is Phase.WAR
    assert game.next_seats == (0, 1)
    assert game.table.face_up == ((parse_card("QS", rules),), (parse_card("QH", rules),))
    war = game.step()
    assert war[0] == CardsLaidDown(1, 1, ((0, 1), (1, 1)))
    assert isinstance(war[1], CardsTurned)
    assert labels(rules, war[1].cards) == [(0, "AS"), (1, "KH")]
    assert war[2] == CardsTaken(1, 0, 6, (7, 1))
    assert game.summary.wars == 1
    assert game.summary.longest_war == 1
    assert game.summary.biggest_haul == 6


def test_fixed_order_is_first_flip_then_each_war_down_then_up() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, fixed_order=SEAT0)
    game = arrange(rules, ["QS JS AS KS", "QH JH KH AH"])
    game.step()
    game.step()  # seat 0 takes QS QH | JS JH | AS KH and holds KS first
    turned = game.step()[0]
    assert isinstance(turned, CardsTurned)
    assert labels(rules, turned.cards) == [(0, "KS"), (1, "AH")]
    # seat 0's pile is now QS QH JS JH AS KH, and seat 1 holds KS AH.
    turned = next(e for e in game.step() if isinstance(e, CardsTurned))
    assert labels(rules, turned.cards) == [(0, "QS"), (1, "KS")]
    turned = next(e for e in game.step() if isinstance(e, CardsTurned))
    assert labels(rules, turned.cards) == [(0, "QH"), (1, "AH")]


def test_double_war_then_both_short_returns_cards_and_draws() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED)
    game = arrange(rules, ["AS KS QS JS", "AH KH QH JH"])
    events = play(game)
    assert [type(e).__name__ for e in events] == [
        "CardsTurned",
        "WarDeclared",
        "CardsLaidDown",
        "CardsTurned",
        "WarDeclared",
        "CardsReturned",
        "GameOver",
    ]
    assert events[4] == WarDeclared(1, 2, (0, 1))
    assert events[5] == CardsReturned(1, (4, 4))
    assert game.outcome == Outcome(None, Termination.BOTH_SHORT)
    # The unsettled round is not counted, nor is its (double) war: the figures count the
    # rounds somebody took.
    assert game.summary == Summary(rounds=0, wars=0, longest_war=0, biggest_haul=0, deal=0)
    assert game.steps == 3


def test_last_card_turns_the_last_card_then_both_run_out() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, short_war=ShortWar.LAST_CARD)
    game = arrange(rules, ["AS KS QS JS", "AH KH QH JH"])
    events = play(game)
    laid = [e for e in events if isinstance(e, CardsLaidDown)]
    assert laid == [CardsLaidDown(1, 1, ((0, 1), (1, 1))), CardsLaidDown(1, 2, ((0, 0), (1, 0)))]
    turned = [e for e in events if isinstance(e, CardsTurned)]
    assert labels(rules, turned[2].cards) == [(0, "JS"), (1, "JH")]
    assert events[-2] == CardsReturned(1, (4, 4))
    assert game.outcome == Outcome(None, Termination.BOTH_SHORT)
    assert (game.summary.wars, game.summary.longest_war) == (0, 0)  # a triple war, unsettled


def test_returned_cards_go_back_in_the_order_they_were_laid() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, short_war=ShortWar.LAST_CARD)
    game = arrange(rules, ["AS KS QS JS", "AH KH QH JH"])
    play(game)
    # Each pile is now the seat's own cards, in the order laid: A K Q J.
    assert [card_label(c, rules) for c in game._state.piles[0]] == ["AS", "KS", "QS", "JS"]
    assert [card_label(c, rules) for c in game._state.piles[1]] == ["AH", "KH", "QH", "JH"]


SHORT_PILES = ["AS KS QS JS TS", "TH KH QH JH AH"]


def test_short_war_lose_forfeits_the_pile_and_loses() -> None:
    rules = Rules(ranks=5, suits=2, face_down=3, won_cards=FIXED)
    game = arrange(rules, SHORT_PILES)
    assert game.step()[-1] == CardsTaken(1, 0, 2, (6, 4))
    assert game.step()[-1] == WarDeclared(2, 1, (0, 1))
    events = game.step()
    assert events[:3] == [
        PlayerOut(2, 1, OutReason.SHORT_WAR),
        CardsLaidDown(2, 1, ((0, 0), (1, 3))),
        CardsTaken(2, 0, 5, (10, 0)),
    ]
    assert isinstance(events[3], GameOver)
    assert events[3].outcome == Outcome(0, Termination.OPPONENTS_SHORT)
    assert game.active == (0,)


def test_short_war_last_card_keeps_the_standing_card() -> None:
    rules = Rules(ranks=5, suits=2, face_down=3, won_cards=FIXED, short_war=ShortWar.LAST_CARD)
    game = arrange(rules, SHORT_PILES)
    game.step()
    game.step()
    war1 = game.step()
    assert war1[0] == CardsLaidDown(2, 1, ((0, 3), (1, 2)))
    assert isinstance(war1[1], CardsTurned)
    assert labels(rules, war1[1].cards) == [(0, "AS"), (1, "AH")]
    assert game.table.face_down == (3, 2)
    war2 = game.step()
    assert war2[0] == CardsLaidDown(2, 2, ((0, 0), (1, 0)))
    assert isinstance(war2[1], CardsTurned)
    # seat 1 has no cards: its ace stands again and beats seat 0's ten
    assert labels(rules, war2[1].cards) == [(0, "TH"), (1, "AH")]
    assert war2[2] == CardsTaken(2, 1, 10, (0, 10))
    assert war2[3] == PlayerOut(2, 0, OutReason.NO_CARDS)
    assert isinstance(war2[4], GameOver)
    assert war2[4].outcome == Outcome(1, Termination.ALL_CARDS)


def test_three_player_war_is_only_between_the_tied_players() -> None:
    rules = Rules(players=3, ranks=4, suits=3, won_cards=FIXED)
    game = arrange(rules, ["KS JS AS QS", "KH JH QH AH", "JD QD KD AD"])
    first = game.step()
    assert first[-1] == WarDeclared(1, 1, (0, 1))
    assert game.next_seats == (0, 1)
    war = game.step()
    assert war[0] == CardsLaidDown(1, 1, ((0, 1), (1, 1)))
    assert isinstance(war[1], CardsTurned)
    assert labels(rules, war[1].cards) == [(0, "AS"), (1, "QH")]
    # the prize holds seat 2's jack too: 3 + 2 + 2 cards
    assert war[2] == CardsTaken(1, 0, 7, (8, 1, 3))


def test_three_players_set_one_card_aside() -> None:
    rules = Rules(players=3)
    game = Game(rules, 99)
    assert game.counts == (17, 17, 17)
    assert len(game._state.set_aside) == 1
    game.finish()
    assert sum(game.counts) == 51


def test_player_out_with_no_cards_and_the_rest_play_on() -> None:
    """0.1's rule (``both_short = end``): the game ends even though seat 0, outside the war,
    is still in (it has a card on the table). See test_engine_return.py for today's."""
    rules = Rules(players=3, ranks=2, suits=3, won_cards=FIXED, both_short=BothShort.END)
    game = arrange(rules, ["AS KS", "KH AH", "KD AD"])
    events = game.step()
    assert events[-1] == CardsTaken(1, 0, 3, (4, 1, 1))
    events = game.step()
    # K vs A vs A: seats 1 and 2 go to war; seat 0 has no cards left after the flip
    assert events[-1] == WarDeclared(2, 1, (1, 2))
    events = game.step()
    # nobody in the war has a card left: all take their own back; seat 0 holds the most
    assert events[0] == CardsReturned(2, (4, 1, 1))
    assert isinstance(events[1], GameOver)
    assert events[1].outcome == Outcome(0, Termination.BOTH_SHORT)


def test_round_limit_most_cards_wins() -> None:
    game = Game(Rules(round_limit=1), 5)
    events = game.step()
    if game.phase is Phase.WAR:
        events = game.step()
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.outcome.termination is Termination.ROUND_LIMIT
    assert over.outcome.winner == max(range(2), key=lambda s: game.counts[s])
    assert over.summary.rounds == 1


EVEN_PILES = ["AS JS KS QS", "JH AH QH KH"]


@pytest.mark.parametrize("tie_break", [TieBreak.DRAW, TieBreak.BATTLE])
def test_round_limit_with_equal_counts(tie_break: TieBreak) -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, round_limit=2, tie_break=tie_break)
    game = arrange(rules, EVEN_PILES)
    game.step()
    events = game.step()
    assert game.counts == (4, 4)
    if tie_break is TieBreak.DRAW:
        assert isinstance(events[-1], GameOver)
        assert events[-1].outcome == Outcome(None, Termination.ROUND_LIMIT)
        return
    assert game.phase is Phase.BATTLE
    events = game.step()  # K beats Q: the counts differ, so the limit ends the game
    assert events[-2] == CardsTaken(3, 0, 2, (5, 3))
    assert isinstance(events[-1], GameOver)
    assert events[-1].outcome == Outcome(0, Termination.ROUND_LIMIT)


@pytest.mark.parametrize("tie_break", [TieBreak.DRAW, TieBreak.BATTLE])
def test_stop_by_time_between_rounds(tie_break: TieBreak) -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, tie_break=tie_break)
    game = arrange(rules, EVEN_PILES)
    game.step()
    events = game.stop_by_time()
    assert events == [GameOver(Outcome(0, Termination.TIME_LIMIT), game.summary)]

    game = arrange(rules, EVEN_PILES)
    game.step()
    game.step()
    events = game.stop_by_time()
    if tie_break is TieBreak.DRAW:
        assert events == [GameOver(Outcome(None, Termination.TIME_LIMIT), game.summary)]
        return
    assert events == []
    assert game.time_stopped
    assert game.stop_by_time() == []  # a second call changes nothing
    events = game.step()
    assert isinstance(events[-1], GameOver)
    assert events[-1].outcome == Outcome(0, Termination.TIME_LIMIT)


def test_stop_by_time_during_a_war_waits_for_the_round() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED)
    game = arrange(rules, ["QS JS AS KS", "QH JH KH AH"])
    game.step()
    assert game.phase is Phase.WAR
    assert game.stop_by_time() == []
    events = game.step()
    assert events[-2] == CardsTaken(1, 0, 6, (7, 1))
    assert isinstance(events[-1], GameOver)
    assert events[-1].outcome == Outcome(0, Termination.TIME_LIMIT)


def test_stop_by_time_then_finish_uses_the_time_rule() -> None:
    rules = Rules(tie_break=TieBreak.BATTLE)
    game = Game(rules, 3)
    assert game.stop_by_time() == []  # 26 - 26 at the start: play on
    outcome = game.finish()
    assert outcome.termination is Termination.TIME_LIMIT
    assert game.summary.rounds == 1


def test_fixed_order_repeating_position_is_endless() -> None:
    rules = Rules(ranks=2, suits=2, won_cards=FIXED, fixed_order=SEAT0)
    game = arrange(rules, ["KS AS", "AH KH"])
    # R1 KS<AH: 1 takes KS AH -> [AS] [KH KS AH]; R2 AS>KH -> [AS KH] [KS AH];
    # R3 AS>KS -> [KH AS KS] [AH]; R4 KH<AH -> [AS KS] [KH AH];
    # R5 AS>KH -> [KS AS KH] [AH]; R6 KS<AH -> [AS KH] [KS AH], as after round 2.
    events = play(game)
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.outcome == Outcome(None, Termination.ENDLESS)
    assert game.counts == (2, 2)
    assert over.summary.rounds == 6
    assert game.finish() == over.outcome


def test_endless_with_unequal_counts_has_a_winner() -> None:
    rules = Rules(ranks=2, suits=4, won_cards=FIXED, fixed_order=SEAT0)
    game = arrange(rules, ["KS KH KD AC", "AS AH AD KC"])
    assert game.finish() == Outcome(1, Termination.ENDLESS)
    assert game.counts == (2, 6)
    assert game.summary.rounds == 28


# --- everyone in a war runs out after someone went out short (docs/rules.md) ---------------
RUN_OUT_RULES, RUN_OUT_PILES = RUN_OUT  # Ben out short, Ann and Cat run out: nobody else in


def test_an_out_players_forfeit_stays_on_the_table_when_the_rest_run_out() -> None:
    rules = RUN_OUT_RULES
    game = arrange(rules, RUN_OUT_PILES)
    for _ in range(3):
        game.step()
    assert game.counts == (5, 2, 5)
    assert game.phase is Phase.WAR and game.next_seats == (0, 1, 2)
    events = game.step()
    assert events[:2] == [
        PlayerOut(3, 1, OutReason.SHORT_WAR),
        CardsLaidDown(3, 1, ((0, 3), (1, 2), (2, 3))),
    ]
    assert isinstance(events[2], CardsTurned)
    assert labels(rules, events[2].cards) == [(0, "TS"), (2, "TH")]
    assert events[3] == WarDeclared(3, 2, (0, 2))
    events = game.step()
    # Ann and Cat take their own cards back; Ben is out and takes nothing.
    assert events[0] == CardsReturned(3, (6, 0, 6))
    assert events[1] == GameOver(Outcome(None, Termination.BOTH_SHORT), game.summary)
    assert len(events) == 2
    assert game.active == (0, 2)
    # Ben's king and his two forfeited cards stay on the table: nobody won them. (Shared
    # out seat by seat they would have broken the 6 - 6 tie in Ann's favour.)
    assert game.table.face_up == ((), (parse_card("KH", rules),), ())
    assert game.table.face_down == (0, 2, 0)
    assert sum(game.counts) + 3 == rules.deck_size
    assert [card_label(c, rules) for c in game._state.piles[0]] == [
        "JS",
        "KS",
        "QS",
        "QH",
        "AS",
        "TS",
    ]
    assert game.summary.rounds == 2
    assert game.finish() == Outcome(None, Termination.BOTH_SHORT)


def test_finish_leaves_the_same_cards_on_the_table() -> None:
    stepped = arrange(RUN_OUT_RULES, RUN_OUT_PILES)
    play(stepped)
    for first in range(5):
        fast = arrange(RUN_OUT_RULES, RUN_OUT_PILES)
        for _ in range(first):
            fast.step()
        assert fast.finish() == stepped.outcome
        assert (fast.counts, fast.table, fast.active) == (
            stepped.counts,
            stepped.table,
            stepped.active,
        )
        assert (fast.steps, fast.summary) == (stepped.steps, stepped.summary)


def test_two_players_out_in_one_war_leave_their_cards_when_the_rest_run_out() -> None:
    # Four players, 4 ranks x 4 suits, three face down. R1 seat 0's ace takes QS JS QH;
    # R2 seat 3's ace takes QD QC JH; R3 four kings: seats 1 and 2 hold one card each and go
    # out together; seats 0 and 3 lay three, turn JS and JH, tie and have one card each.
    rules = Rules(players=4, ranks=4, suits=4, face_down=3, won_cards=FIXED, fixed_order=SEAT0)
    game = arrange(rules, ["AS QD KS JD", "QS QC KH AD", "JS JH KD AC", "QH AH KC JC"])
    for _ in range(3):
        game.step()
    events = game.step()
    assert events[:3] == [
        PlayerOut(3, 1, OutReason.SHORT_WAR),
        PlayerOut(3, 2, OutReason.SHORT_WAR),
        CardsLaidDown(3, 1, ((0, 3), (1, 1), (2, 1), (3, 3))),
    ]
    assert events[-1] == WarDeclared(3, 2, (0, 3))
    events = game.step()
    assert events[0] == CardsReturned(3, (6, 0, 0, 6))
    assert isinstance(events[1], GameOver)
    assert events[1].outcome == Outcome(None, Termination.BOTH_SHORT)
    assert game.active == (0, 3)
    kings = (parse_card("KH", rules),), (parse_card("KD", rules),)
    assert game.table == OnTable(((), *kings, ()), (0, 1, 1, 0))


def test_last_card_an_out_player_takes_nothing_back() -> None:
    # Under last_card nobody goes out during a war, so an out player never has cards on the
    # table when the rest run out. Seat 0 runs out of cards in round 2; in round 3 seats 1
    # and 2 tie on aces, lay what they can, tie on kings and have nothing left.
    rules = Rules(
        players=3, ranks=3, suits=3, face_down=3, won_cards=FIXED, short_war=ShortWar.LAST_CARD
    )
    game = arrange(rules, ["QS AS QD", "QH AH KD", "KS KH AD"])
    events = play(game)
    assert PlayerOut(2, 0, OutReason.NO_CARDS) in events
    assert CardsLaidDown(3, 1, ((1, 3), (2, 2))) in events
    assert events[-2] == CardsReturned(3, (0, 5, 4))
    assert game.outcome == Outcome(1, Termination.BOTH_SHORT)
    assert game.active == (1, 2)
    assert game.table == OnTable(((), (), ()), (0, 0, 0))


def test_a_round_limit_does_not_cut_an_unsettled_war_short() -> None:
    # The limit counts completed rounds: round 3 never completes, so the game ends as
    # both_short after 2 rounds, whatever the limit, and Ben's forfeit stays on the table.
    for limit in (3, 4):
        game = arrange(replace(RUN_OUT_RULES, round_limit=limit), RUN_OUT_PILES)
        assert game.finish() == Outcome(None, Termination.BOTH_SHORT)
        assert game.summary.rounds == 2
        assert game.table.face_down == (0, 2, 0)
    game = arrange(replace(RUN_OUT_RULES, round_limit=2), RUN_OUT_PILES)
    assert game.finish() == Outcome(None, Termination.ROUND_LIMIT)  # 6 - 3 - 6 after round 2


@pytest.mark.parametrize("stop_at", [3, 4])
def test_stop_by_time_during_an_unsettled_war_ends_both_short(stop_at: int) -> None:
    """A time stop waits for the round; a round nobody can settle ends the game as
    both_short, at whichever flip of it the clock ran out."""
    game = arrange(RUN_OUT_RULES, RUN_OUT_PILES)
    for _ in range(stop_at):
        game.step()
    assert game.phase is Phase.WAR
    assert game.stop_by_time() == []
    events = play(game)
    assert events[-2] == CardsReturned(3, (6, 0, 6))
    assert game.outcome == Outcome(None, Termination.BOTH_SHORT)
    assert game.table.face_down == (0, 2, 0)


def test_deal_1996239_three_players_two_run_out_after_one_went_out() -> None:
    """Regression: hypothesis found this deal; seat 1 used to get its forfeit back."""
    rules = Rules(players=3, face_down=3, aces=Aces.LOW, ranks=4, suits=4)
    game = Game(rules, 1996239)
    events = play(game)
    assert PlayerOut(4, 1, OutReason.SHORT_WAR) in events
    assert events[-2] == CardsReturned(4, (8, 0, 5))
    assert game.outcome == Outcome(0, Termination.BOTH_SHORT)
    assert game.active == (0, 2)
    assert game.table.face_down == (0, 1, 0)
    assert [len(up) for up in game.table.face_up] == [0, 1, 0]
    fast = Game(rules, 1996239)
    assert fast.finish() == game.outcome
    assert (fast.counts, fast.table, fast.active) == (game.counts, game.table, game.active)
