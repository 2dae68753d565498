"""The standings of a game of three or four: the server's ``standings`` as both the
sentences and the summary box say them, never worked out from the counts (defect 6 of
issue 19: the last player knocked out was listed third, behind one who went out earlier).
"""

from __future__ import annotations

from client.state.view import ViewState, apply, apply_all
from client.tui.table_text import summary_box
from client.words.catalog import catalog
from client.words.results import places, standings_sentence
from client.words.sentences import describe
from protocol import (
    GameOver,
    GameResult,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    Summary,
    Termination,
    Welcome,
)
from server import engine
from tests.client._record import Recording

EN = catalog("en", strict=True)
NAMES = ("Ann", "Ben", "Cy", "Dee")
SUMMARY = Summary(rounds=210, wars=14, longest_war=2, biggest_haul=14, deal=9)


def _table(me: int | None) -> ViewState:
    seats = tuple(
        SeatState(seat=i, name=name, connected=True, count=13) for i, name in enumerate(NAMES)
    )
    state = RoomState(room="r1", phase=RoomPhase.PLAYING, rules=RulesSpec(players=4), seats=seats)
    return apply(ViewState(), Welcome(seq=1, seat=me, state=state))


def _over(standings: tuple[int, ...]) -> GameOver:
    return GameOver(
        seq=2,
        step=300,
        winner=1,
        termination=Termination.ALL_CARDS,
        summary=SUMMARY,
        counts=(0, 52, 0, 0),
        standings=standings,
    )


def test_the_last_one_out_is_second_not_listed_by_seat() -> None:
    # Ann went out first, Dee next, Cy last: every loser holds 0 cards, so a list by
    # count (then seat) would put Ann second and Cy third
    before = _table(0)
    message = _over((4, 1, 2, 3))
    after = apply(before, message)
    assert after.result is not None
    assert places(after.result) == [(1, [1]), (2, [2]), (3, [3]), (4, [0])]
    said = describe(before, message, after, 0, words=EN)
    assert said[-1] == "Standings: 1st Ben, 2nd Cy, 3rd Dee, 4th you."
    box = summary_box(after, EN).plain
    assert box.index("1st Ben") < box.index("2nd Cy") < box.index("3rd Dee") < box.index("4th you")


def test_players_out_in_the_same_round_share_a_place() -> None:
    view = apply(_table(None), _over((3, 1, 2, 2)))
    assert view.result is not None
    assert standings_sentence(view, view.result, None, words=EN) == (
        "Standings: 1st Ben, 2nd Cy and Dee, 3rd Ann."
    )


def test_two_players_and_an_older_server_say_no_standings() -> None:
    view = _table(0)
    two = GameResult(winner=1, termination=Termination.ALL_CARDS, summary=SUMMARY, standings=(2, 1))
    assert standings_sentence(view, two, 0, words=EN) is None
    older = GameResult(winner=1, termination=Termination.ALL_CARDS, summary=SUMMARY)
    assert standings_sentence(view, older, 0, words=EN) is None
    assert places(older) == []


def test_a_played_game_says_the_engines_standings() -> None:
    game = engine.Game(engine.Rules(players=3), 11)
    recording = Recording(game, me=None)
    recording.play()
    view = apply_all(ViewState(), recording.messages)
    assert view.result is not None
    assert view.result.standings == game.standings
