"""Sentences from recorded message sequences, for a player and for a spectator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from client.state.view import ViewState, apply, apply_all
from client.words.cards import is_red
from client.words.catalog import Rank, catalog
from client.words.sentences import (
    describe,
    describe_table,
    result_sentence,
    rules_sentence,
    score,
    status,
    summary_sentence,
    votes_sentence,
)
from protocol import (
    Aces,
    AutoPlay,
    AutoPlayChanged,
    BothShort,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    Error,
    FinishVoted,
    FixedOrder,
    GameOver,
    GameResult,
    GameStarted,
    OutReason,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    ReadyChanged,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    ShortWar,
    SpectatorsChanged,
    Summary,
    TakenBack,
    Termination,
    TieBreak,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
    WonCards,
)
from server import engine
from tests._kit.decks import arrange
from tests.client._record import Recording

EN = catalog("en", strict=True)


def narrate(messages: Sequence[ServerMessage], me: int | None) -> list[str]:
    """Every sentence the messages produce for ``me``, in order."""
    view = ViewState()
    lines: list[str] = []
    for message in messages:
        before, view = view, apply(view, message)
        lines += describe(before, message, view, me, words=EN)
    return lines


def table(
    names: Sequence[str], me: int | None, counts: Sequence[int] = (26, 26)
) -> list[ServerMessage]:
    """A welcome into a room with every seat taken, then the game's start."""
    seats = tuple(
        SeatState(seat=s, name=name, connected=True, count=0) for s, name in enumerate(names)
    )
    state = RoomState(
        room="r1", phase=RoomPhase.WAITING, rules=RulesSpec(players=len(names)), seats=seats
    )
    return [
        Welcome(seq=len(names), seat=me, state=state),
        GameStarted(seq=len(names) + 1, game=1, counts=tuple(counts)),
    ]


def battle(
    seq: int, cards: Sequence[tuple[int, str]], winner: int, counts: Sequence[int]
) -> list[ServerMessage]:
    """One plain round: the flip and the haul, both at step 1."""
    return [
        CardsTurned(seq=seq, step=1, round=1, depth=0, cards=tuple(cards)),
        CardsTaken(
            seq=seq + 1, step=1, round=1, seat=winner, count=len(cards), counts=tuple(counts)
        ),
    ]


def test_ranks_are_words() -> None:
    assert [EN.word(Rank(r + "S")) for r in "AKQJT98765432"] == [
        "Ace", "King", "Queen", "Jack", "10", "9", "8", "7", "6", "5", "4", "3", "2",
    ]  # fmt: skip
    assert EN.label("TH") == "10" and EN.label("QH") == "Q"
    assert is_red("QH") and is_red("2D") and not is_red("AS") and not is_red("KC")
    with pytest.raises(ValueError, match="not a card code: 'XX'"):
        is_red("XX")


def test_join_words() -> None:
    assert EN.list_of([]) == ""
    assert EN.list_of(["Ann"]) == "Ann"
    assert EN.list_of(["Ann", "Ben"]) == "Ann and Ben"
    assert EN.list_of(["Ann", "Ben", "Cy"]) == "Ann, Ben and Cy"


def test_my_win_names_the_beaten_card() -> None:
    messages = table(["Ann", "Ben"], 0) + battle(4, [(0, "QH"), (1, "9S")], 0, (27, 25))
    assert narrate(messages, 0)[-1] == "Your Queen beats Ben's 9. You take 2 cards."


def test_their_win_uses_their_name() -> None:
    messages = table(["Grandma", "Ann"], 1) + battle(4, [(0, "KH"), (1, "7S")], 0, (27, 25))
    assert narrate(messages, 1)[-1] == "Grandma's King beats your 7. Grandma takes 2 cards."


def test_a_spectator_reads_both_names() -> None:
    messages = table(["Ann", "Ben"], None) + battle(4, [(0, "QH"), (1, "9S")], 0, (27, 25))
    lines = narrate(messages, None)
    assert lines[0] == "You are watching Ann and Ben."
    assert lines[-1] == "Ann's Queen beats Ben's 9. Ann takes 2 cards."


def test_three_players_the_winner_beats_both() -> None:
    messages = table(["Ann", "Ben", "Cy"], 1, (17, 17, 17)) + battle(
        5, [(0, "2S"), (1, "AS"), (2, "TD")], 1, (16, 19, 16)
    )
    assert narrate(messages, 1)[-1] == "Your Ace beats Ann's 2 and Cy's 10. You take 3 cards."
    assert narrate(messages, 0)[-1] == "Ben's Ace beats your 2 and Cy's 10. Ben takes 3 cards."


def test_war_and_double_war_from_the_engine() -> None:
    rules = engine.Rules(ranks=4, suits=2, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["AS KS QS JS", "AH KH QH JH"]), me=0)
    recording.play()
    lines = narrate(recording.messages, 0)
    assert "War! Your Ace ties Ben's Ace." in lines
    assert "Double war! Your Queen ties Ben's Queen." in lines
    assert "Everyone in the war ran out of cards at once: each takes their own cards back." in lines
    assert lines[-2] == (
        "Game over: everyone in a war ran out of cards at once. It's a draw: 4 cards each."
    )
    # the figures count the rounds somebody took: the unsettled double war is in none
    assert lines[-1] == "No round was won. Deal 0."


def test_a_war_won_says_so() -> None:
    messages = [
        *table(["Ann", "Ben"], 1),
        CardsTurned(seq=4, step=1, round=1, depth=0, cards=((0, "8S"), (1, "8H"))),
        WarDeclared(seq=5, step=1, round=1, depth=1, seats=(0, 1)),
        CardsTurned(seq=6, step=2, round=1, depth=1, cards=((0, "3S"), (1, "JH"))),
        CardsTaken(seq=7, step=2, round=1, seat=1, count=6, counts=(23, 29)),
    ]
    lines = narrate(messages, 1)
    assert lines[-2:] == [
        "War! Your 8 ties Ann's 8.",
        "Your Jack beats Ann's 3. You win the war and take 6 cards.",
    ]
    spectator = narrate(messages, None)
    assert spectator[-2:] == [
        "War! Ann's 8 ties Ben's 8.",
        "Ben's Jack beats Ann's 3. Ben wins the war and takes 6 cards.",
    ]


def test_three_players_with_a_two_way_war() -> None:
    rules = engine.Rules(players=3, ranks=4, suits=3, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["KS JS AS QS", "KH JH QH AH", "JD QD KD AD"]), me=2)
    recording.play(2)
    lines = narrate(recording.messages, 2)
    assert lines[-2:] == [
        "War! Ann's King ties Ben's King. You sit this one out.",
        "Ann's Ace beats Ben's Queen. Ann wins the war and takes 7 cards.",
    ]
    view = apply_all(ViewState(), recording.messages[:-5])
    assert view.war_seats == (0, 1)
    assert status(view, 2, words=EN) == "Ann and Ben are at war; you sit this one out."
    ann = narrate(recording.messages, 0)
    assert ann[-2] == "War! Your King ties Ben's King. Cy sits this one out."


def test_short_war_lose() -> None:
    rules = engine.Rules(ranks=5, suits=2, face_down=3, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["AS KS QS JS TS", "TH KH QH JH AH"]), me=1)
    recording.play()
    assert narrate(recording.messages, 1)[-5:] == [
        "War! Your King ties Ann's King.",
        "You have too few cards to finish the war and are out.",
        "Ann is the last one left in the war and takes 5 cards.",
        "Game over: you ran short of cards in a war. Ann wins.",
        "2 rounds, 1 war, longest war: single, biggest haul: 5 cards, deal 0.",
    ]
    assert narrate(recording.messages, 0)[-3:-1] == [
        "You are the last one left in the war and take 5 cards.",
        "Game over: Ben ran short of cards in a war. You win!",
    ]


def test_short_war_last_card() -> None:
    rules = engine.Rules(
        ranks=5,
        suits=2,
        face_down=3,
        won_cards=engine.WonCards.FIXED,
        short_war=engine.ShortWar.LAST_CARD,
    )
    recording = Recording(arrange(rules, ["AS KS QS JS TS", "TH KH QH JH AH"]), me=0)
    recording.play()
    lines = narrate(recording.messages, 0)
    assert lines[-9:] == [
        "War! Your King ties Ben's King.",
        "Ben is short of cards: only 2 face down.",
        "Double war! Your Ace ties Ben's Ace.",
        "You have one card left: it goes face up.",
        "Ben has no cards left: Ben's Ace stands again.",
        "Ben's Ace beats your 10. Ben wins the double war and takes 10 cards.",
        "You have no cards left and are out.",
        "Game over: Ben has all 10 cards. Ben wins.",
        "2 rounds, 1 war, longest war: double, biggest haul: 10 cards, deal 0.",
    ]


def test_endless() -> None:
    rules = engine.Rules(
        ranks=2, suits=4, won_cards=engine.WonCards.FIXED, fixed_order=engine.FixedOrder.SEAT0
    )
    recording = Recording(arrange(rules, ["KS KH KD AC", "AS AH AD KC"]), me=0)
    recording.play()
    assert narrate(recording.messages, 0)[-2] == (
        "Game over: the same position came round again, so the game would never end. "
        "Ben wins with 6 cards to your 2."
    )
    assert narrate(recording.messages, None)[-2].endswith("Ben wins with 6 cards to Ann's 2.")


def test_round_limit_and_its_draw() -> None:
    recording = Recording(engine.Game(engine.Rules(round_limit=12), 7), me=0)
    recording.play()
    lines = narrate(recording.messages, 0)
    assert lines[-2] == (
        "Game over: the limit of 12 rounds is reached. Ben wins with 28 cards to your 24."
    )
    view = apply_all(ViewState(), recording.messages)
    drawn = GameResult(
        winner=None,
        termination=Termination.ROUND_LIMIT,
        summary=Summary(rounds=12, wars=0, longest_war=0, biggest_haul=2, deal=7),
    )
    even = replace(view, seats=tuple(replace(s, count=26) for s in view.seats))
    assert result_sentence(even, drawn, 0, words=EN) == (
        "Game over: the limit of 12 rounds is reached. It's a draw: 26 cards each."
    )


def test_time_limit() -> None:
    messages = [
        *table(["Ann", "Ben"], 0),
        TimeUp(seq=4),
        GameOver(
            seq=5,
            step=30,
            winner=0,
            termination=Termination.TIME_LIMIT,
            summary=Summary(rounds=30, wars=2, longest_war=1, biggest_haul=6, deal=5),
            counts=(30, 22),
        ),
    ]
    assert narrate(messages, 0)[-3:] == [
        "Time is up.",
        "Game over: time is up. You win with 30 cards to Ben's 22.",
        "30 rounds, 2 wars, longest war: single, biggest haul: 6 cards, deal 5.",
    ]


def test_the_summary_is_the_same_for_everyone() -> None:
    recording = Recording(engine.Game(engine.Rules(players=3), 11), me=None)
    recording.play()
    view = apply_all(ViewState(), recording.messages)
    assert view.result is not None
    assert narrate(recording.messages, None)[-2] == summary_sentence(view.result, words=EN)
    results = {narrate(recording.messages, me)[-2] for me in (None, 0, 1, 2)}
    assert len(results) == 1


def test_room_changes() -> None:
    messages = [
        *table(["Ann", "Ben"], 0),
        ConnectionChanged(seq=4, seat=1, connected=False),
        WaitingFor(seq=5, seats=(0, 1)),
        ConnectionChanged(seq=6, seat=1, connected=True),
        AutoPlayChanged(seq=7, seat=1, mode=AutoPlay.QUICK),
        AutoPlayChanged(seq=8, seat=0, mode=AutoPlay.CALM),
        SpectatorsChanged(seq=9, count=2),
        SpectatorsChanged(seq=10, count=1),
        ReadyChanged(seq=11, seat=1, ready=True),
        Error(code="stale", message="step 3 is over"),
    ]
    assert narrate(messages, 0)[-8:] == [
        "Ben is away.",
        "The game waits for Ben, away for now.",
        "Ben is back.",
        "Ben turns auto-play quick.",
        "Your auto-play is calm.",
        "2 people are watching.",
        "1 person is watching.",
        "The server says: that came too late: the game has moved on.",
    ]


def test_joining_and_the_codes_while_seats_are_open() -> None:
    state = RoomState(
        room="r1",
        phase=RoomPhase.WAITING,
        rules=RulesSpec(players=3),
        seats=(SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1), SeatState(seat=2)),
    )
    welcome = Welcome(seq=1, seat=0, player_code="K7MX-QD4R", watch_code="9HWT-2CBN", state=state)
    lines = narrate([welcome, PlayerJoined(seq=2, seat=1, name="Computer", computer=True)], 0)
    assert lines == [
        "You are Ann, at seat 1 of 3.",
        "Waiting for 2 more players.",
        "Player code: K7MX-QD4R.",
        "Watch code: 9HWT-2CBN.",
        "Rules: Aces are high. One card face down in a war. A player short of cards in a war "
        "is out. Won cards are shuffled before they go under the pile. No limit: the game "
        "ends when one player has every card.",
        "The computer takes seat 2.",
    ]
    view = apply(ViewState(), welcome)
    assert status(view, 0, words=EN) == "Waiting for 2 more players to join."


def test_a_refusal_before_the_welcome_is_left_to_the_end_line() -> None:
    refusal = Error(code="unknown_code", message="no room has the code 'NOPE'")
    assert narrate([refusal], None) == []


def test_ignored_and_missing_messages() -> None:
    messages = table(["Ann", "Ben"], 0)
    view = apply_all(ViewState(), messages)
    repeat = messages[1]
    assert describe(view, repeat, apply(view, repeat), 0, words=EN) == ()
    gap = ReadyChanged(seq=9, seat=1, ready=True)
    assert describe(view, gap, apply(view, gap), 0, words=EN) == (
        "Some messages went missing; asking the server for the whole table.",
    )


def test_status_tells_me_what_to_do() -> None:
    messages = [*table(["Ann", "Ben"], 0), WaitingFor(seq=4, seats=(0, 1))]
    view = apply_all(ViewState(), messages)
    assert status(view, 0, words=EN) == "Press space to turn over."
    assert status(view, None, words=EN) == "Waiting for Ann and Ben."
    ready = apply(view, ReadyChanged(seq=5, seat=0, ready=True))
    assert status(ready, 0, words=EN) == "Waiting for Ben."
    away = apply(ready, ConnectionChanged(seq=6, seat=1, connected=False))
    assert status(away, 0, words=EN) == "Waiting for Ben (away)."
    auto = apply(view, AutoPlayChanged(seq=5, seat=0, mode=AutoPlay.QUICK))
    assert (
        status(auto, 0, words=EN) == "Auto-play (quick) turns over for you. Press a to change it."
    )
    war = apply_all(
        view,
        [
            CardsTurned(seq=5, step=1, round=1, depth=0, cards=((0, "8S"), (1, "8H"))),
            WarDeclared(seq=6, step=1, round=1, depth=1, seats=(0, 1)),
            WaitingFor(seq=7, seats=(0, 1)),
        ],
    )
    assert status(war, 0, words=EN) == "War! Press space to lay 1 card face down and turn one up."
    assert status(war, 0, plain=True, words=EN) == (
        "War! Press enter to lay 1 card face down and turn one up."
    )
    short = replace(war, seats=(replace(war.seats[0], count=1), war.seats[1]))
    assert status(short, 0, words=EN) == "War! Press space to lay your cards down."
    assert status(view, 0, plain=True, words=EN) == "Press enter to turn over."
    assert status(auto, 0, plain=True, words=EN).endswith("Type a to change it.")
    assert status(ViewState(), 0, words=EN) == "Connecting…"


def test_a_welcome_back_mid_game_and_after_it() -> None:
    recording = Recording(engine.Game(engine.Rules(round_limit=3), 7), me=1)
    recording.play(2)
    view = apply_all(ViewState(), recording.messages)
    playing = RoomState(
        room="r8k2",
        phase=RoomPhase.PLAYING,
        rules=view.rules,
        seats=view.seats,
        round=view.round,
        step=view.step,
    )
    back = Welcome(seq=99, seat=1, token="x" * 20, watch_code="9HWT-2CBN", state=playing)
    assert narrate([back], 1) == [
        "You are Ben, at seat 2 of 2.",
        "The game is on: round 3.",
        "Watch code: 9HWT-2CBN.",
        "Rules: Aces are high. One card face down in a war. A player short of cards in a war "
        "loses. Won cards are shuffled before they go under the pile. The game ends after 3 "
        "rounds: most cards wins. Equal counts then are a draw.",
    ]
    recording.play()
    over = apply_all(ViewState(), recording.messages)
    assert over.result is not None
    ended = replace(playing, phase=RoomPhase.OVER, seats=over.seats, result=over.result)
    lines = narrate([replace(back, state=ended)], 1)
    assert lines[1].startswith("Game over: the limit of 3 rounds is reached.")


# --- issue 12, item 10: sentences a family reads -------------------------------------------
def computer_table(me: int | None, computers: Sequence[str] = ("Computer",)) -> list[ServerMessage]:
    """Ann and the computer seat(s), named as the server names them."""
    names = ["Ann", *computers]
    seats = tuple(
        SeatState(seat=s, name=name, connected=s == 0, computer=s > 0, count=0)
        for s, name in enumerate(names)
    )
    state = RoomState(
        room="r1", phase=RoomPhase.WAITING, rules=RulesSpec(players=len(names)), seats=seats
    )
    counts = (26, 26) if len(names) == 2 else (17,) * len(names)
    return [
        Welcome(seq=len(names), seat=me, state=state),
        GameStarted(seq=len(names) + 1, game=1, counts=counts),
    ]


def test_the_computer_speaks_as_the_rule_page_does() -> None:
    messages = computer_table(0) + battle(4, [(0, "7S"), (1, "KH")], 1, (25, 27))
    assert narrate(messages, 0)[-1] == "The computer's King beats your 7. It takes 2 cards."
    assert narrate(messages, None)[0] == "You are watching Ann and the computer."
    assert narrate(messages, None)[-1] == "The computer's King beats Ann's 7. It takes 2 cards."
    war = [
        *computer_table(0),
        CardsTurned(seq=4, step=1, round=1, depth=0, cards=((0, "8S"), (1, "8H"))),
        WarDeclared(seq=5, step=1, round=1, depth=1, seats=(0, 1)),
        CardsTurned(seq=6, step=2, round=1, depth=1, cards=((0, "3S"), (1, "JH"))),
        CardsTaken(seq=7, step=2, round=1, seat=1, count=6, counts=(23, 29)),
        GameOver(
            seq=8,
            step=90,
            winner=1,
            termination=Termination.ALL_CARDS,
            summary=Summary(rounds=60, wars=3, longest_war=1, biggest_haul=6, deal=4),
            counts=(0, 52),
        ),
    ]
    assert narrate(war, 0)[-4:-1] == [
        "War! Your 8 ties the computer's 8.",
        "The computer's Jack beats your 3. It wins the war and takes 6 cards.",
        "Game over: the computer has all 52 cards. The computer wins.",
    ]


def test_several_computers_keep_their_names() -> None:
    messages = computer_table(0, ("Computer 1", "Computer 2")) + battle(
        5, [(0, "2S"), (1, "AS"), (2, "TD")], 1, (16, 19, 16)
    )
    assert narrate(messages, 0)[-1] == (
        "Computer 1's Ace beats your 2 and Computer 2's 10. Computer 1 takes 3 cards."
    )


def test_the_computer_joining_is_the_computer() -> None:
    state = RoomState(
        room="r1",
        phase=RoomPhase.WAITING,
        rules=RulesSpec(players=3),
        seats=(SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1), SeatState(seat=2)),
    )
    lines = narrate(
        [
            Welcome(seq=1, seat=0, state=state),
            PlayerJoined(seq=2, seat=1, name="Computer 1", computer=True, computer_number=1),
            PlayerJoined(seq=3, seat=2, name="Computer 2", computer=True, computer_number=2),
        ],
        0,
    )
    assert lines[-1] == "Computer 2 takes seat 3."  # "Computer 1" once it is not the only one
    view = ViewState()
    for message in (
        Welcome(seq=1, seat=0, state=state),
        PlayerJoined(seq=2, seat=1, name="Computer 1", computer=True, computer_number=1),
        PlayerJoined(seq=3, seat=2, name="Computer 2", computer=True, computer_number=2),
    ):
        before, view = view, apply(view, message)
    spanish = describe(before, message, view, 0, words=catalog("es", strict=True))
    assert list(spanish) == ["Ordenador 2 ocupa el puesto 3."]


def three_at_the_end() -> list[ServerMessage]:
    """Ann, Ben and Cy: Cy went out with no cards at step 40."""
    return [
        *table(["Ann", "Ben", "Cy"], 0, (17, 17, 17)),
        PlayerOut(seq=5, step=40, round=30, seat=2, reason=OutReason.NO_CARDS),
    ]


def over(seq: int, step: int, winner: int, counts: tuple[int, ...]) -> GameOver:
    return GameOver(
        seq=seq,
        step=step,
        winner=winner,
        termination=Termination.OPPONENTS_SHORT,
        summary=Summary(rounds=70, wars=5, longest_war=2, biggest_haul=9, deal=3),
        counts=counts,
    )


def test_the_last_opponent_is_named() -> None:
    # Ben goes out short in the war that ends the game; Cy went out earlier.
    played = [
        *three_at_the_end(),
        PlayerOut(seq=6, step=99, round=70, seat=1, reason=OutReason.SHORT_WAR),
        over(7, 99, 0, (51, 0, 0)),
    ]
    assert narrate(played, 0)[-2] == "Game over: Ben ran short of cards in a war. You win!"
    # A finish vote plays the rest at once: no player_out, the game_over jumps ahead.
    finished = [*three_at_the_end(), over(6, 140, 0, (51, 0, 0))]
    assert narrate(finished, 2)[-2] == "Game over: Ben ran short of cards in a war. Ann wins."
    # Two players: the other one, always.
    two = [*table(["Ann", "Ben"], None), over(4, 300, 1, (0, 52))]
    assert narrate(two, None)[-2] == "Game over: Ann ran short of cards in a war. Ben wins."


def test_a_player_who_left_is_played_by_the_computer_and_it_says_so() -> None:
    messages = [
        *table(["Ann", "Ben"], 0),
        PlayerLeft(seq=4, seat=1),
        AutoPlayChanged(seq=5, seat=1, mode=AutoPlay.QUICK),
    ]
    lines = narrate(messages, 0)
    assert lines[-2:] == ["Ben leaves the table.", "The computer plays for Ben from now on."]
    assert not any("turns auto-play" in line for line in lines)


def test_a_player_leaving_before_the_game_frees_the_seat() -> None:
    state = RoomState(
        room="r1",
        phase=RoomPhase.WAITING,
        rules=RulesSpec(players=3),
        seats=(
            SeatState(seat=0, name="Ann", connected=True),
            SeatState(seat=1, name="Ben", connected=True),
            SeatState(seat=2),
        ),
    )
    messages: list[ServerMessage] = [Welcome(seq=2, seat=0, state=state), PlayerLeft(seq=3, seat=1)]
    assert narrate(messages, 0)[-1] == "Ben leaves the table."
    view = apply_all(ViewState(), messages)
    assert view.open_seats == (1, 2)
    assert status(view, 0, words=EN) == "Waiting for 2 more players to join."


def finished_game(votes: Sequence[RematchDeal], deal: int | None) -> list[ServerMessage]:
    messages: list[ServerMessage] = [*table(["Ann", "Ben"], 0), over(4, 300, 0, (52, 0))]
    for seat, vote in enumerate(votes):
        messages.append(RematchVoted(seq=5 + seat, seat=seat, deal=vote))
    messages.append(GameStarted(seq=5 + len(votes), game=2, counts=(26, 26), deal=deal))
    return messages


def test_mixed_rematch_votes_say_which_won() -> None:
    mixed = finished_game([RematchDeal.NEW, RematchDeal.SAME], None)
    assert narrate(mixed, 1)[-2:] == [
        "The votes were split between a new deal and this deal again: a new deal won.",
        "Rematch: game 2 begins: 26 cards each.",
    ]
    same = finished_game([RematchDeal.SAME, RematchDeal.SAME], 3)
    assert narrate(same, 1)[-1] == "Rematch: game 2 begins, deal 3: 26 cards each."
    assert "split" not in narrate(same, 1)[-2]
    # were the server ever to settle a split vote for the same deal, it says so
    settled_same = finished_game([RematchDeal.NEW, RematchDeal.SAME], 3)
    assert narrate(settled_same, 1)[-2].endswith(": this deal again won.")


def test_summaries_never_say_zero_rounds_or_zero_wars() -> None:
    def summary(rounds: int, wars: int, longest: int, haul: int) -> str:
        figures = Summary(rounds=rounds, wars=wars, longest_war=longest, biggest_haul=haul, deal=7)
        return summary_sentence(
            GameResult(winner=0, termination=Termination.TIME_LIMIT, summary=figures), words=EN
        )

    assert summary(12, 0, 0, 2) == "12 rounds, no wars, biggest haul: 2 cards, deal 7."
    assert (
        summary(1, 1, 1, 6) == "1 round, 1 war, longest war: single, biggest haul: 6 cards, deal 7."
    )
    # the figures count the rounds somebody took (a war nobody settled is in none)
    assert summary(0, 0, 0, 0) == "No round was won. Deal 7."


def test_a_table_gets_no_second_waiting_line() -> None:
    state = RoomState(
        room="r1",
        phase=RoomPhase.WAITING,
        rules=RulesSpec(),
        seats=(SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1)),
    )
    welcome = Welcome(seq=1, seat=0, player_code="K7MX-QD4R", watch_code="9HWT-2CBN", state=state)
    view = apply(ViewState(), welcome)
    said = describe_table(ViewState(), welcome, view, 0, words=EN)
    assert said == ("You are Ann, at seat 1 of 2.",), "the status row says who is missing"
    assert status(view, 0, words=EN) == "Waiting for 1 more player to join."


# --- issue 12, items 8 and 9: the rules, the score, the votes -----------------------------------
def test_the_rules_in_plain_words() -> None:
    assert rules_sentence(RulesSpec(), words=EN) == (
        "Aces are high. One card face down in a war. A player short of cards in a war loses. "
        "Won cards are shuffled before they go under the pile. No limit: the game ends when "
        "one player has every card."
    )
    house = RulesSpec(
        players=3,
        face_down=3,
        aces=Aces.LOW,
        short_war=ShortWar.LAST_CARD,
        won_cards=WonCards.FIXED,
        round_limit=50,
        tie_break=TieBreak.BATTLE,
    )
    assert rules_sentence(house, words=EN) == (
        "Aces are low, below the 2s. Three cards face down in a war. A player short of cards "
        "in a war turns up their last card. Won cards go under the pile in the order they "
        "were laid down. The game ends after 50 rounds: most cards wins. Equal counts then "
        "play on until one player has more."
    )
    four = rules_sentence(RulesSpec(players=4), minutes=10, words=EN)
    assert "A player short of cards in a war is out." in four
    assert four.endswith(
        "The game ends after 10 minutes: most cards wins. Equal counts then are a draw."
    )


def test_the_score_counts_every_pile_and_names_the_round() -> None:
    messages = [
        *table(["Ann", "Ben", "Cy"], 1, (17, 17, 17)),
        PlayerOut(seq=5, step=3, round=3, seat=2, reason=OutReason.NO_CARDS),
    ]
    view = apply_all(ViewState(), messages)
    view = replace(
        view,
        round=11,
        seats=tuple(replace(s, count=c) for s, c in zip(view.seats, (21, 30, 0), strict=True)),
    )
    assert (
        score(view, 1, words=EN) == "Round 12: Ann has 21 cards, you have 30 cards and Cy is out."
    )
    assert (
        score(view, None, words=EN) == "Round 12: Ann has 21 cards, Ben has 30 cards and Cy is out."
    )
    war = replace(
        view,
        war_depth=2,
        rules=replace(view.rules, round_limit=26),
        seats=(
            replace(view.seats[0], count=15, face_up=("8S", "QH"), face_down=2),
            *view.seats[1:],
        ),
    )
    assert score(war, 1, words=EN).startswith(
        "Round 12 of 26, double war: Ann has 15 cards (and 4 on the table)"
    )
    assert score(ViewState(), 0, words=EN) == "No cards dealt yet."


def voting_table() -> ViewState:
    """Ann, Ben and Cy playing; Dot went out; the view as the messages left it."""
    messages = [
        *table(["Ann", "Ben", "Cy", "Dot"], 0, (13, 13, 13, 13)),
        PlayerOut(seq=6, step=9, round=9, seat=3, reason=OutReason.NO_CARDS),
    ]
    return apply_all(ViewState(), messages)


def test_who_still_has_to_vote_to_finish_follows_the_room() -> None:
    view = voting_table()
    assert votes_sentence(view, 0, words=EN) is None
    voted = apply(view, FinishVoted(seq=7, seat=1))
    said = describe(view, FinishVoted(seq=7, seat=1), voted, 0, words=EN)
    assert said == ("Ben votes to finish the game.", "Still to vote: you and Cy."), "Dot is out"
    now = "voted to finish now (the rest is played out at once)"
    assert votes_sentence(voted, 0, words=EN) == f"Ben {now}; still to vote: you and Cy."
    away = apply(voted, ConnectionChanged(seq=8, seat=2, connected=False))
    assert votes_sentence(away, 0, words=EN) == f"Ben {now}; still to vote: you.", "away: no vote"
    left = apply(away, PlayerLeft(seq=9, seat=2))
    assert left.seats[2].computer, "the computer plays a seat whose player left"
    both = apply(left, FinishVoted(seq=10, seat=0))
    assert votes_sentence(both, 1, words=EN) == f"Ann and you {now}."


def test_who_still_has_to_vote_for_a_rematch() -> None:
    view = apply(voting_table(), over(7, 300, 0, (52, 0, 0, 0)))
    assert status(view, 0, words=EN) == (
        "Game over. Press r for a rematch with a new deal, d to replay this deal, q to leave."
    )
    assert status(view, 0, plain=True, words=EN).startswith("Game over. Type r for a rematch")
    asked = apply(view, RematchVoted(seq=8, seat=0, deal=RematchDeal.NEW))
    assert status(asked, 0, words=EN) == "Waiting for Ben, Cy and Dot to vote.", (
        "out players vote again"
    )
    asked = apply(asked, RematchVoted(seq=9, seat=3, deal=RematchDeal.SAME))
    assert votes_sentence(asked, 1, words=EN) == (
        "Ann asked for a new deal, Dot for this deal again; still to vote: you and Cy."
    )
    same = apply(view, RematchVoted(seq=8, seat=2, deal=RematchDeal.SAME))
    assert votes_sentence(same, None, words=EN) == (
        "Cy asked for this deal again; still to vote: Ann, Ben and Dot."
    )


# --- issue 12, items 2, 3 and 5: rounds given back, 0.1's rules, the away player -----------------
def test_a_round_given_back_is_said_to_be_played_again() -> None:
    """Seats 1 and 3 run out in a war while seats 0 and 2 are in: deal 1684, as the engine
    plays it today (and as 0.1 did: there the game ended)."""
    for both_short, again in ((engine.BothShort.PLAY_ON, True), (engine.BothShort.END, False)):
        recording = Recording(engine.Game(engine.Rules(players=4, both_short=both_short), 1684))
        recording.play()
        lines = narrate(recording.messages, 0)
        at = lines.index(
            "Everyone in the war ran out of cards at once: each takes their own cards back."
        )
        assert (lines[at + 1] == "Nobody takes this round: it is played again.") is again


def test_two_players_running_out_is_never_played_again() -> None:
    rules = engine.Rules(ranks=4, suits=2, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["AS KS QS JS", "AH KH QH JH"]), me=0)
    recording.play()
    assert "Nobody takes this round: it is played again." not in narrate(recording.messages, 0)


def test_the_rules_of_0_1_rooms_are_said() -> None:
    old = RulesSpec(
        players=3,
        won_cards=WonCards.FIXED,
        fixed_order=FixedOrder.SEAT0,
        both_short=BothShort.END,
    )
    said = rules_sentence(old, words=EN)
    assert "If everyone in a war runs out at once, the game ends (the old rule)." in said
    assert (
        "Won cards go under the pile in the order they were laid down, seat 1's first"
        " (the old rule)." in said
    )
    today = rules_sentence(RulesSpec(players=3, won_cards=WonCards.FIXED), words=EN)
    assert "old rule" not in today
    before_0_3 = rules_sentence(RulesSpec(players=4, taken_back=TakenBack.AS_LAID), words=EN)
    assert "their cards go back unshuffled (the old rule)." in before_0_3
    assert "old rule" not in rules_sentence(RulesSpec(players=4), words=EN)
    assert "old rule" not in rules_sentence(RulesSpec(taken_back=TakenBack.AS_LAID), words=EN)  # 2
    assert "old rule" not in rules_sentence(
        RulesSpec(both_short=BothShort.END), words=EN
    )  # 2 players


def test_the_server_playing_for_an_away_player_is_said_to_everyone() -> None:
    messages = [
        *table(["Ann", "Ben"], 0),
        ConnectionChanged(seq=4, seat=1, connected=False),
        AutoPlayChanged(seq=5, seat=1, mode=AutoPlay.CALM, away=True),
        ConnectionChanged(seq=6, seat=1, connected=True),
        AutoPlayChanged(seq=7, seat=1, mode=AutoPlay.OFF, away=True),
    ]
    assert narrate(messages, 0)[-4:] == [
        "Ben is away.",
        "Ben is away: the server plays for them calmly until they come back.",
        "Ben is back.",
        "The server no longer plays for Ben.",
    ]
    # Ben himself, back: his welcome, then the server hands his seat back
    back = [*table(["Ann", "Ben"], 1), AutoPlayChanged(seq=4, seat=1, mode=AutoPlay.OFF, away=True)]
    assert narrate(back, 1)[-1] == (
        "While you were away the server played for you; now you play again."
    )


def test_a_seat_taken_back_from_another_device_is_said() -> None:
    messages = [
        *table(["Ann", "Ben"], 0),
        ConnectionChanged(seq=4, seat=1, connected=False),
        ConnectionChanged(seq=5, seat=1, connected=True, rejoined=True),
    ]
    assert narrate(messages, 0)[-1] == "Ben is back, on another device (with the player code)."


def test_a_player_already_out_never_sits_a_war_out() -> None:
    """Dot went out earlier; a flip that still lists her card (a view caught up after a
    gap) must not say she "sits this one out": she is not playing at all."""
    view = voting_table()
    flip = CardsTurned(
        seq=7, step=10, round=10, depth=0, cards=((0, "KS"), (1, "KH"), (2, "9C"), (3, "4D"))
    )
    war = WarDeclared(seq=8, step=10, round=10, depth=1, seats=(0, 1))
    turned = apply(view, flip)
    at_war = apply(turned, war)
    assert describe(turned, war, at_war, 0, words=EN) == (
        "War! Your King ties Ben's King. Cy sits this one out.",
    )
    assert describe(turned, war, at_war, None, words=EN) == (
        "War! Ann's King ties Ben's King. Cy sits this one out.",
    )
