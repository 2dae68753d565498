"""The reducer: recorded message sequences in, the view a seat would draw out."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.state.view import ViewState, apply, apply_all
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    Error,
    FinishVoted,
    GameOver,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    ReadyChanged,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    Snapshot,
    SpectatorsChanged,
    Summary,
    Termination,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from server import engine
from tests._kit.decks import GIVEN_BACK, RUN_OUT, arrange
from tests.client._record import Recording
from tests.protocol.strategies import server_messages

RULES = RulesSpec()


def waiting_room() -> RoomState:
    return RoomState(
        room="r8k2",
        phase=RoomPhase.WAITING,
        rules=RULES,
        seats=(SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1)),
    )


def ann_welcome() -> Welcome:
    return Welcome(
        seq=1,
        seat=0,
        token="q7X" * 6,
        player_code="K7MX-QD4R",
        watch_code="9HWT-2CBN",
        state=waiting_room(),
    )


def protocol_example() -> list[ServerMessage]:
    """Ann's side of the sequence in PROTOCOL.md §8, up to the first cards_taken."""
    return [
        ann_welcome(),
        PlayerJoined(seq=2, seat=1, name="Ben"),
        GameStarted(seq=3, game=1, counts=(26, 26)),
        WaitingFor(seq=4, seats=(0, 1)),
        ReadyChanged(seq=5, seat=0, ready=True),
        WaitingFor(seq=6, seats=(1,)),
        CardsTurned(seq=7, step=1, round=1, depth=0, cards=((0, "QH"), (1, "QS"))),
        WarDeclared(seq=8, step=1, round=1, depth=1, seats=(0, 1)),
        WaitingFor(seq=9, seats=(0, 1)),
        ReadyChanged(seq=10, seat=0, ready=True),
        WaitingFor(seq=11, seats=(1,)),
        CardsLaidDown(seq=12, step=2, round=1, depth=1, counts=((0, 1), (1, 1))),
        CardsTurned(seq=13, step=2, round=1, depth=1, cards=((0, "9D"), (1, "4C"))),
        CardsTaken(seq=14, step=2, round=1, seat=0, count=6, counts=(29, 23)),
        WaitingFor(seq=15, seats=(0, 1)),
    ]


def test_welcome_sets_who_i_am_and_the_codes() -> None:
    view = apply(ViewState(), ann_welcome())
    assert view.welcomed and not view.spectating
    assert view.my_seat == 0
    assert view.me is not None and view.me.name == "Ann"
    assert (view.player_code, view.watch_code) == ("K7MX-QD4R", "9HWT-2CBN")
    assert view.open_seats == (1,)
    assert view.last_seq == 1
    assert view.name(1) == "seat 2"


def test_protocol_example_step_by_step() -> None:
    messages = protocol_example()
    view = apply_all(ViewState(), messages[:6])
    assert view.phase is RoomPhase.PLAYING
    assert [s.count for s in view.seats] == [26, 26]
    assert view.seats[0].ready and not view.seats[1].ready
    assert view.waiting_for == (1,)
    assert not view.my_turn

    view = apply_all(view, messages[6:9])  # the tie and the war
    assert not any(s.ready for s in view.seats), "a later step clears every ready flag"
    assert view.step == 1
    assert (view.war_depth, view.war_seats) == (1, (0, 1))
    assert [s.face_up for s in view.seats] == [("QH",), ("QS",)]
    assert [s.count for s in view.seats] == [25, 25]
    assert view.my_turn

    view = apply_all(view, messages[9:13])  # laid down, turned up
    assert [s.face_down for s in view.seats] == [1, 1]
    assert [s.face_up for s in view.seats] == [("QH", "9D"), ("QS", "4C")]
    assert [s.count for s in view.seats] == [23, 23]
    assert view.last_flip is not None and view.last_flip.depth == 1

    view = apply_all(view, messages[13:])
    assert [s.count for s in view.seats] == [29, 23]
    assert all(s.face_up == () and s.face_down == 0 for s in view.seats)
    assert (view.war_depth, view.war_seats, view.round) == (0, (), 1)
    assert view.last_taken is not None
    assert (view.last_taken.seat, view.last_taken.count) == (0, 6)
    assert view.last_taken.face_up == (("QH", "9D"), ("QS", "4C")), "the round stays shown"
    assert view.last_taken.face_down == (1, 1)
    assert view.last_seq == 15


def test_the_joiner_welcome_already_includes_its_player_joined() -> None:
    ben = Welcome(
        seq=2,
        seat=1,
        token="Zr0" * 6,
        state=replace(
            waiting_room(),
            seats=(
                SeatState(seat=0, name="Ann", connected=True),
                SeatState(seat=1, name="Ben", connected=True),
            ),
        ),
    )
    view = apply(ViewState(), ben)
    again = apply(view, PlayerJoined(seq=2, seat=1, name="Ben"))
    assert again is view, "a room message the welcome includes is ignored"
    view = apply(view, GameStarted(seq=3, game=1, counts=(26, 26)))
    assert view.phase is RoomPhase.PLAYING and view.last_seq == 3
    assert view.player_code is None


def test_repeated_and_old_messages_are_ignored() -> None:
    view = apply_all(ViewState(), protocol_example()[:4])
    for old in protocol_example()[1:4]:
        assert apply(view, old) is view


def test_a_gap_asks_for_a_resync_and_the_snapshot_replaces_the_view() -> None:
    view = apply_all(ViewState(), protocol_example()[:4])
    gapped = apply(view, ReadyChanged(seq=6, seat=1, ready=True))
    assert gapped.needs_resync
    assert gapped.seats == view.seats, "the table is not changed by a message after a gap"
    held = apply(gapped, ReadyChanged(seq=7, seat=0, ready=True))
    assert held is gapped, "room messages wait for the snapshot"

    state = RoomState(
        room="r8k2",
        phase=RoomPhase.PLAYING,
        rules=RULES,
        seats=(
            SeatState(seat=0, name="Ann", connected=True, ready=True, count=26),
            SeatState(seat=1, name="Ben", connected=True, ready=True, count=26),
        ),
        waiting_for=(),
    )
    synced = apply(held, Snapshot(seq=7, state=state))
    assert not synced.needs_resync and synced.last_seq == 7
    assert all(s.ready for s in synced.seats)
    assert synced.my_seat == 0 and synced.player_code == "K7MX-QD4R"
    after = apply(
        synced, CardsTurned(seq=8, step=1, round=1, depth=0, cards=((0, "2S"), (1, "3S")))
    )
    assert after.last_seq == 8 and after.seats[1].face_up == ("3S",)


def test_room_messages_before_a_welcome_are_ignored() -> None:
    view = ViewState()
    assert apply(view, PlayerJoined(seq=1, seat=0, name="Ann")) is view
    assert apply(view, Snapshot(seq=3, state=waiting_room())) is view


def test_flags_votes_spectators_and_errors() -> None:
    view = apply_all(ViewState(), protocol_example()[:4])
    view = apply_all(
        view,
        [
            ConnectionChanged(seq=5, seat=1, connected=False),
            AutoPlayChanged(seq=6, seat=1, mode=AutoPlay.CALM),
            FinishVoted(seq=7, seat=0),
            SpectatorsChanged(seq=8, count=3),
            TimeUp(seq=9),
            Error(code="stale", message="that step is over"),
        ],
    )
    assert not view.seats[1].connected
    assert view.away_waited == (1,)
    assert view.seats[1].auto is AutoPlay.CALM
    assert view.seats[0].finish_vote
    assert view.spectators == 3
    assert view.time_up
    assert view.last_error == Error(code="stale", message="that step is over")
    assert view.last_seq == 9
    left = apply(view, PlayerLeft(seq=10, seat=1))
    assert left.left == frozenset({1})


def test_messages_about_seats_the_room_lacks_change_nothing_but_seq() -> None:
    view = apply_all(ViewState(), protocol_example()[:4])
    after = apply(view, ReadyChanged(seq=5, seat=3, ready=True))
    assert after.seats == view.seats and after.last_seq == 5


def test_game_over_then_rematch_resets_the_table() -> None:
    view = apply_all(ViewState(), protocol_example())
    summary = Summary(rounds=1, wars=1, longest_war=1, biggest_haul=6, deal=90210)
    over = apply_all(
        view,
        [
            FinishVoted(seq=16, seat=1),
            FinishVoted(seq=17, seat=0),
            GameOver(
                seq=18,
                step=400,
                winner=0,
                termination=Termination.ALL_CARDS,
                summary=summary,
                counts=(52, 0),
            ),
            WaitingFor(seq=19, seats=()),
            RematchVoted(seq=20, seat=0, deal=RematchDeal.SAME),
        ],
    )
    assert over.phase is RoomPhase.OVER
    assert over.result is not None and over.result.winner == 0
    assert over.deal == 90210 and over.round == 1
    assert over.seats[0].rematch_vote is RematchDeal.SAME
    again = apply(over, GameStarted(seq=21, game=2, counts=(26, 26), deal=90210))
    assert again.phase is RoomPhase.PLAYING and again.game == 2
    assert again.result is None and again.step == 0 and again.round == 0
    assert not any(s.finish_vote or s.rematch_vote for s in again.seats)
    assert [s.count for s in again.seats] == [26, 26]


# --- recorded from the engine ---------------------------------------------------------------
def cards_accounted(view: ViewState) -> int:
    return sum(s.count + len(s.face_up) + s.face_down for s in view.seats)


def replay_checking(recording: Recording) -> ViewState:
    """Apply every recorded message, checking the view against the engine as it goes."""
    view = ViewState()
    total = None
    for message in recording.messages:
        view = apply(view, message)
        assert not view.needs_resync
        if isinstance(message, GameStarted):
            total = sum(message.counts)
        if total is not None:
            assert cards_accounted(view) == total, f"cards lost after {message}"
        if isinstance(message, CardsTaken):
            assert tuple(s.count for s in view.seats) == message.counts
    return view


@pytest.mark.parametrize("deal", [0, 1, 2, 7, 42])
def test_whole_default_games_keep_every_card(deal: int) -> None:
    recording = Recording(engine.Game(engine.Rules(), deal))
    recording.play()
    view = replay_checking(recording)
    game = recording.game
    assert view.phase is RoomPhase.OVER
    assert view.result is not None and game.outcome is not None
    assert view.result.winner == game.outcome.winner
    assert tuple(s.count for s in view.seats) == game.counts
    assert view.round == game.summary.rounds


def test_three_players_with_a_two_way_war() -> None:
    rules = engine.Rules(players=3, ranks=4, suits=3, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["KS JS AS QS", "KH JH QH AH", "JD QD KD AD"]))
    view = apply_all(ViewState(), recording.messages)
    view = apply_all(view, recording.step())
    assert (view.war_depth, view.war_seats) == (1, (0, 1))
    assert view.seats[2].face_up == ("JD",), "the third player's card stays in the prize"
    assert view.waiting_for == (0, 1)
    view = apply_all(view, recording.step())
    assert [s.count for s in view.seats] == [8, 1, 3]
    assert view.last_taken is not None and view.last_taken.count == 7


def test_last_card_repeats_the_standing_card_without_doubling_it() -> None:
    rules = engine.Rules(
        ranks=5,
        suits=2,
        face_down=3,
        won_cards=engine.WonCards.FIXED,
        short_war=engine.ShortWar.LAST_CARD,
    )
    recording = Recording(arrange(rules, ["AS KS QS JS TS", "TH KH QH JH AH"]))
    recording.play()
    view = replay_checking(recording)
    assert view.result is not None and view.result.winner == 1
    assert view.seats[0].out


def test_short_war_lose_marks_the_player_out() -> None:
    rules = engine.Rules(ranks=5, suits=2, face_down=3, won_cards=engine.WonCards.FIXED)
    recording = Recording(arrange(rules, ["AS KS QS JS TS", "TH KH QH JH AH"]))
    recording.play()
    view = replay_checking(recording)
    assert view.seats[1].out
    assert view.result is not None
    assert view.result.termination is Termination.OPPONENTS_SHORT


def test_an_out_players_forfeit_stays_on_the_table_when_the_rest_run_out() -> None:
    """Ben goes out short, Ann and Cy tie again and both run out: they take their cards
    back, Ben's stay on the table to the end, as the engine (and a snapshot) has them."""
    rules, piles = RUN_OUT
    recording = Recording(arrange(rules, piles))
    recording.play()
    view = replay_checking(recording)
    game = recording.game
    assert game.outcome is not None and game.outcome.termination.value == "both_short"
    assert [s.count for s in view.seats] == [6, 0, 6]
    assert view.seats[1].out
    assert [s.face_up for s in view.seats] == [(), ("KH",), ()]
    assert [s.face_down for s in view.seats] == list(game.table.face_down) == [0, 2, 0]


def test_an_out_players_forfeit_goes_to_whoever_takes_the_next_round() -> None:
    """Four players: Ben goes out short, Ann and Cy run out, Di (outside the war) is still
    in. The round is given back and played again; Ben's cards stay on the table through
    its first flip, and Cy, who takes it, takes them too (tests/server/engine/
    test_engine_return.py tells the deal)."""
    rules, piles = GIVEN_BACK
    recording = Recording(arrange(rules, piles))
    recording.play()
    view = ViewState()
    given_back = checked = False
    for message in recording.messages:
        view = apply(view, message)
        if isinstance(message, CardsReturned):
            given_back = True
        elif given_back and isinstance(message, CardsTurned):  # round 3, played again
            assert (view.seats[1].face_up, view.seats[1].face_down) == (("KH",), 2)
            given_back, checked = False, True
        elif isinstance(message, CardsTaken) and message.round == 3:
            assert message.count == 6  # Cy's three and Ben's three
            assert (view.seats[1].face_up, view.seats[1].face_down) == ((), 0)
    assert checked
    replay_checking(recording)  # every card accounted for after every message


@given(
    players=st.sampled_from([2, 3, 4]),
    face_down=st.sampled_from([1, 3]),
    short_war=st.sampled_from(list(engine.ShortWar)),
    won_cards=st.sampled_from(list(engine.WonCards)),
    deal=st.integers(0, 2**64 - 1),
)
@settings(max_examples=25, deadline=None)
def test_any_recorded_game_keeps_every_card(
    players: int,
    face_down: int,
    short_war: engine.ShortWar,
    won_cards: engine.WonCards,
    deal: int,
) -> None:
    rules = engine.Rules(
        players=players,
        face_down=face_down,
        short_war=short_war,
        won_cards=won_cards,
        round_limit=120,
    )
    recording = Recording(engine.Game(rules, deal), me=None)
    recording.play()
    view = replay_checking(recording)
    assert view.phase is RoomPhase.OVER and view.spectating


@given(st.lists(server_messages, max_size=30))
@settings(max_examples=200, deadline=None)
def test_the_reducer_never_raises_on_any_decoded_messages(
    messages: list[ServerMessage],
) -> None:
    view = apply(ViewState(), ann_welcome())
    for message in messages:
        view = apply(view, message)
    assert isinstance(view, ViewState)
