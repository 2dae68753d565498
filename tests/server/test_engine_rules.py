"""Every rule of RULES.md and docs/rules.md on hand-arranged decks, event by event."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from server.engine import (
    Aces,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    Event,
    Game,
    GameOver,
    Outcome,
    Phase,
    PlayerOut,
    Rules,
    ShortWar,
    Termination,
    TieBreak,
    WarDeclared,
    WonCards,
    card_label,
    parse_card,
)

FIXED = WonCards.FIXED


def arrange(rules: Rules, piles: Sequence[str], aside: str = "") -> Game:
    """A game whose seats hold ``piles`` (space-separated labels, top first)."""
    hands = [[parse_card(code, rules) for code in pile.split()] for pile in piles]
    size = len(hands[0])
    assert all(len(hand) == size for hand in hands)
    deck = [hand[i] for i in range(size) for hand in hands]
    deck += [parse_card(code, rules) for code in aside.split()]
    return Game.arranged(rules, deck)


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
    rules = Rules(ranks=4, suits=2, won_cards=FIXED)
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
    assert game.summary.rounds == 0
    assert game.summary.longest_war == 2
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
    assert game.summary.longest_war == 3


def test_returned_cards_go_back_in_the_order_they_were_laid() -> None:
    rules = Rules(ranks=4, suits=2, won_cards=FIXED, short_war=ShortWar.LAST_CARD)
    game = arrange(rules, ["AS KS QS JS", "AH KH QH JH"])
    play(game)
    # Each pile is now the seat's own cards, in the order laid: A K Q J.
    assert [card_label(c, rules) for c in game._piles[0]] == ["AS", "KS", "QS", "JS"]
    assert [card_label(c, rules) for c in game._piles[1]] == ["AH", "KH", "QH", "JH"]


SHORT_PILES = ["AS KS QS JS TS", "TH KH QH JH AH"]


def test_short_war_lose_forfeits_the_pile_and_loses() -> None:
    rules = Rules(ranks=5, suits=2, face_down=3, won_cards=FIXED)
    game = arrange(rules, SHORT_PILES)
    assert game.step()[-1] == CardsTaken(1, 0, 2, (6, 4))
    assert game.step()[-1] == WarDeclared(2, 1, (0, 1))
    events = game.step()
    assert events[:3] == [
        PlayerOut(2, 1, "short_war"),
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
    assert war2[3] == PlayerOut(2, 0, "no_cards")
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
    assert len(game._set_aside) == 1
    game.finish()
    assert sum(game.counts) == 51


def test_player_out_with_no_cards_and_the_rest_play_on() -> None:
    rules = Rules(players=3, ranks=2, suits=3, won_cards=FIXED)
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
    rules = Rules(ranks=2, suits=2, won_cards=FIXED)
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
    rules = Rules(ranks=2, suits=4, won_cards=FIXED)
    game = arrange(rules, ["KS KH KD AC", "AS AH AD KC"])
    assert game.finish() == Outcome(1, Termination.ENDLESS)
    assert game.counts == (2, 6)
    assert game.summary.rounds == 28
