"""Basic engine behaviour: rules validation, cards, dealing, stepping and finishing."""

from __future__ import annotations

import pytest

from server.engine import (
    STORED_BEFORE,
    Aces,
    BothShort,
    CardError,
    CardsTaken,
    CardsTurned,
    DealError,
    FixedOrder,
    Game,
    GameOver,
    GameOverError,
    Phase,
    Rules,
    RulesError,
    ShortWar,
    TakenBack,
    TieBreak,
    WarDeclared,
    WonCards,
    card_label,
    parse_card,
    rank_strength,
)


def test_default_rules() -> None:
    rules = Rules()
    assert (rules.players, rules.face_down, rules.aces) == (2, 1, Aces.HIGH)
    assert rules.short_war is ShortWar.LOSE
    assert rules.won_cards is WonCards.SHUFFLE
    assert rules.round_limit is None
    assert rules.tie_break is TieBreak.DRAW
    assert rules.deck_size == 52


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "players must be 2, 3 or 4, not 5"),
        ({"players": True}, "players must be 2, 3 or 4, not True"),
        ({"face_down": 2}, "face_down must be 1 or 3, not 2"),
        ({"aces": "middle"}, "aces must be 'high' or 'low', not 'middle'"),
        ({"short_war": "last-card"}, "short_war must be 'lose' or 'last_card', not 'last-card'"),
        ({"won_cards": 1}, "won_cards must be 'shuffle' or 'fixed', not 1"),
        ({"tie_break": None}, "tie_break must be 'draw' or 'battle', not None"),
        ({"round_limit": 0}, "round_limit must be a positive integer or None, not 0"),
        ({"round_limit": 2.5}, "round_limit must be a positive integer or None, not 2.5"),
        ({"round_limit": 1_000_001}, "round_limit must be at most 1,000,000, not 1000001"),
        ({"ranks": 14}, "ranks must be an integer from 1 to 13, not 14"),
        ({"suits": 0}, "suits must be an integer from 1 to 4, not 0"),
        ({"players": 4, "ranks": 1, "suits": 3}, "deck of 3 cards is too small for 4 players"),
    ],
)
def test_invalid_rules_name_the_setting_and_value(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_enum_settings_accept_their_string_values() -> None:
    rules = Rules(aces="low", short_war="last_card")  # type: ignore[arg-type]
    assert rules.aces is Aces.LOW
    assert rules.short_war is ShortWar.LAST_CARD


def test_the_rules_of_today_are_the_defaults_and_0_1_s_are_named_values() -> None:
    assert Rules().fixed_order is FixedOrder.WINNER
    assert Rules().both_short is BothShort.PLAY_ON
    old = Rules.from_dict({"fixed_order": "seat0", "both_short": "end"})
    assert (old.fixed_order, old.both_short) == (FixedOrder.SEAT0, BothShort.END)
    with pytest.raises(RulesError) as info:
        Rules(fixed_order="seat1")  # type: ignore[arg-type]
    assert str(info.value) == "fixed_order must be 'winner' or 'seat0', not 'seat1'"


def test_cards_taken_back_go_as_won_cards_do_and_0_2_s_way_is_a_named_value() -> None:
    assert Rules().taken_back is TakenBack.AS_WON
    assert Rules(taken_back="as_laid").taken_back is TakenBack.AS_LAID  # type: ignore[arg-type]
    assert STORED_BEFORE == {"taken_back": "as_laid"}
    with pytest.raises(RulesError) as info:
        Rules(taken_back="shuffled")  # type: ignore[arg-type]
    assert str(info.value) == "taken_back must be 'as_won' or 'as_laid', not 'shuffled'"


def test_rules_dict_round_trip() -> None:
    rules = Rules(players=3, face_down=3, aces=Aces.LOW, round_limit=50, tie_break=TieBreak.BATTLE)
    data = rules.to_dict()
    assert data == {
        "players": 3,
        "face_down": 3,
        "aces": "low",
        "short_war": "lose",
        "both_short": "play_on",
        "won_cards": "shuffle",
        "fixed_order": "winner",
        "taken_back": "as_won",
        "round_limit": 50,
        "tie_break": "battle",
        "ranks": 13,
        "suits": 4,
    }
    assert all(type(v) in (int, str, type(None)) for v in data.values())
    assert Rules.from_dict(data) == rules
    # A stored dict without taken_back was stored by 0.2, which took cards back as laid.
    assert Rules.from_dict({}) == Rules(taken_back=TakenBack.AS_LAID)
    assert Rules.from_dict({"taken_back": "as_won"}) == Rules()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": "red"}, "unknown rules setting 'colour'"),
        ({"players": "2"}, "players has the wrong type: '2'"),
        ({"aces": 1}, "aces has the wrong type: 1"),
        ({"round_limit": "26"}, "round_limit has the wrong type: '26'"),
        ([1, 2], "rules must be a dict, not list"),
    ],
)
def test_from_dict_is_strict(data: object, message: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert str(info.value) == message


def test_card_labels_of_the_full_deck() -> None:
    rules = Rules()
    labels = [card_label(c, rules) for c in range(52)]
    assert labels[:4] == ["2S", "2H", "2D", "2C"]
    assert labels[-4:] == ["AS", "AH", "AD", "AC"]
    assert labels[4 * 8 + 1] == "TH"
    assert len(set(labels)) == 52
    assert [parse_card(label, rules) for label in labels] == list(range(52))
    assert parse_card("10h", rules) == parse_card("TH", rules)


def test_small_deck_uses_highest_ranks_and_first_suits() -> None:
    rules = Rules(ranks=4, suits=2)
    assert [card_label(c, rules) for c in range(8)] == [
        "JS",
        "JH",
        "QS",
        "QH",
        "KS",
        "KH",
        "AS",
        "AH",
    ]
    with pytest.raises(CardError, match="no card '2S' in a deck of 8 cards"):
        parse_card("2S", rules)
    with pytest.raises(CardError, match="no card 'QD' in a deck of 8 cards"):
        parse_card("QD", rules)
    with pytest.raises(CardError, match="no card 8 in a deck of 8 cards"):
        card_label(8, rules)
    with pytest.raises(CardError, match="bad card code 'Q'"):
        parse_card("Q", rules)


def test_aces_low_puts_the_ace_below_the_two() -> None:
    high, low = Rules(), Rules(aces=Aces.LOW)
    ace, two, king = parse_card("AS", high), parse_card("2S", high), parse_card("KS", high)
    assert rank_strength(ace, high) > rank_strength(king, high) > rank_strength(two, high)
    assert rank_strength(king, low) > rank_strength(two, low) > rank_strength(ace, low)
    # suits are never compared
    assert rank_strength(parse_card("7S", high), high) == rank_strength(
        parse_card("7C", high), high
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_splits_the_deck(players: int) -> None:
    game = Game(Rules(players=players), 12345)
    assert game.counts == (52 // players,) * players
    assert game.phase is Phase.BATTLE
    assert game.active == tuple(range(players))
    assert game.round == 0


@pytest.mark.parametrize("deal", [-1, 2**64, 1.0, True, "3"])
def test_bad_deal_numbers_are_refused(deal: object) -> None:
    with pytest.raises(DealError):
        Game(Rules(), deal)  # type: ignore[arg-type]


def test_step_first_flip_then_take_or_war() -> None:
    game = Game(Rules(), 7)
    events = game.step()
    turned = events[0]
    assert isinstance(turned, CardsTurned)
    assert turned.round == 1
    assert turned.depth == 0
    assert [seat for seat, _ in turned.cards] == [0, 1]
    if isinstance(events[1], CardsTaken):
        assert events[1].count == 2
        assert sum(events[1].counts) == 52
        assert game.phase is Phase.BATTLE
        assert game.round == 1
    else:
        assert isinstance(events[1], WarDeclared)
        assert game.phase is Phase.WAR


def test_stepping_to_the_end_and_game_over_error() -> None:
    game = Game(Rules(), 1)
    last: list[object] = []
    while game.phase is not Phase.OVER:
        last = list(game.step())
    over = last[-1]
    assert isinstance(over, GameOver)
    assert over.outcome == game.outcome
    assert over.summary == game.summary
    assert game.next_seats == ()
    with pytest.raises(GameOverError, match="game 1 is over"):
        game.step()
    with pytest.raises(GameOverError):
        game.stop_by_time()
    assert game.finish() == game.outcome


def test_finish_matches_stepping_on_a_few_deals() -> None:
    for deal in range(20):
        stepped = Game(Rules(), deal)
        while stepped.phase is not Phase.OVER:
            stepped.step()
        fast = Game(Rules(), deal)
        fast.finish()
        assert fast.outcome == stepped.outcome
        assert fast.summary == stepped.summary
        assert fast.counts == stepped.counts
        assert fast.steps == stepped.steps


def test_table_hides_face_down_cards() -> None:
    rules = Rules()
    for deal in range(200):
        game = Game(rules, deal)
        events = game.step()
        if game.phase is Phase.WAR:
            game.step()
            table = game.table
            assert all(isinstance(n, int) for n in table.face_down)
            if game.phase is Phase.WAR:
                assert table.face_down == (1, 1)
                assert [len(up) for up in table.face_up] == [2, 2]
            assert isinstance(events[0], CardsTurned)
            return
    pytest.fail("no war in 200 deals")


def test_no_public_attribute_reveals_hidden_cards() -> None:
    """Public attributes hold only counts, face-up cards, settings and plain figures."""
    from collections import deque  # noqa: PLC0415

    game = Game(Rules(players=3), 11)
    for _ in range(40):
        game.step()
    public = [name for name in dir(game) if not name.startswith("_")]
    assert set(public) == {
        "active",
        "arranged",
        "counts",
        "deal",
        "depth",
        "finish",
        "next_seats",
        "outcome",
        "phase",
        "play_out",
        "replay",
        "round",
        "rules",
        "standings",
        "step",
        "steps",
        "stop_by_time",
        "summary",
        "table",
        "time_stopped",
    }
    for name in public:
        value = getattr(game, name)
        assert not isinstance(value, deque | list), name
    table = game.table
    assert all(isinstance(n, int) for n in table.face_down)
    # face-up cards are exactly the ones turned this round, as events showed them
    assert sum(len(up) for up in table.face_up) <= 3 * (game.depth + 1)
