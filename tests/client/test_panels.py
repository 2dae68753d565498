"""The seat panels' words and the said lines that fit (the table's small widgets)."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from client.state.view import ViewState
from client.tui.panels import SaidLines, seat_flags, seat_title
from client.words.catalog import catalog
from protocol import AutoPlay, RematchDeal, RoomPhase, RulesSpec, SeatState

EN = catalog("en", strict=True)


def table(phase: RoomPhase = RoomPhase.PLAYING, **changes: object) -> ViewState:
    seats = (
        SeatState(seat=0, name="Ann", connected=True, count=26),
        SeatState(seat=1, name="Ben", connected=True, count=26),
        SeatState(seat=2, name="Computer", computer=True, computer_number=1, count=0),
        SeatState(seat=3, name="Robot", computer=True, connected=True, count=0),
    )
    view = ViewState(my_seat=0, room="r8k2", phase=phase, rules=RulesSpec(players=4))
    return replace(view, seats=seats, last_seq=1, **changes)  # type: ignore[arg-type]


def test_titles_say_who_is_who() -> None:
    view = table()
    titles = [seat_title(view, record, 0, EN) for record in view.seats]
    assert titles == ["Ann (you)", "Ben", "Computer", "Robot (computer)"]
    es = catalog("es", strict=True)
    assert seat_title(view, view.seats[2], 0, es) == "Ordenador"
    two = replace(
        view,
        seats=(
            *view.seats[:3],
            SeatState(seat=3, name="Computer 2", computer=True, computer_number=2),
        ),
    )
    two = replace(
        two, seats=(*two.seats[:2], replace(two.seats[2], name="Computer 1"), two.seats[3])
    )
    assert [seat_title(two, r, 0, es) for r in two.seats[2:]] == ["Ordenador 1", "Ordenador 2"]
    # a person named like a computer, whose seat the computer plays once they left: a name
    left = replace(
        view, seats=(*view.seats[:3], SeatState(seat=3, name="Computer 2", computer=True))
    )
    assert seat_title(left, left.seats[3], 0, es) == "Computer 2 (ordenador)"
    away = replace(view, seats=(view.seats[0], replace(view.seats[1], connected=False)))
    assert seat_title(away, away.seats[1], 0, EN) == "Ben (away)"
    gone = replace(view, left=frozenset({1}))
    assert seat_title(gone, gone.seats[1], 0, EN) == "Ben (left)"
    assert seat_title(view, SeatState(seat=1), 0, EN) == "Seat 2 (open)"


def test_flags_say_what_the_game_waits_for() -> None:
    view = table(waiting_for=(0, 1, 2, 3))
    view = replace(view, seats=(*view.seats[:2], replace(view.seats[2], ready=True), view.seats[3]))
    assert seat_flags(view, view.seats[0], 0, EN) == ["your turn"]
    assert seat_flags(view, view.seats[1], 0, EN) == ["not ready"]
    assert seat_flags(view, view.seats[2], 0, EN) == ["ready ✓"]
    auto = replace(view.seats[0], auto=AutoPlay.CALM)
    assert seat_flags(view, auto, 0, EN) == ["auto calm"], "auto-play turns over, not me"
    war = table(war_depth=1, war_seats=(0, 1), waiting_for=(0, 1))
    assert seat_flags(war, war.seats[2], 0, EN) == ["sits out the war"]
    voted = replace(view.seats[1], finish_vote=True)
    assert seat_flags(view, voted, 0, EN) == ["not ready", "voted to finish"]
    over = table(RoomPhase.OVER)
    asked = replace(over.seats[1], finish_vote=True, rematch_vote=RematchDeal.SAME)
    assert seat_flags(over, asked, 0, EN) == ["rematch: same deal"]
    assert seat_flags(table(RoomPhase.WAITING), view.seats[0], 0, EN) == ["seated"]
    assert seat_flags(view, SeatState(seat=1), 0, EN) == ["waiting for a player"]
    assert seat_flags(view, replace(view.seats[1], out=True), 0, EN) == ["out of the game"]


class SaidApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SaidLines(id="said")


async def test_said_lines_keep_the_newest_that_fit() -> None:
    app = SaidApp()
    async with app.run_test(size=(40, 4)) as pilot:
        said = app.query_one(SaidLines)
        lines = [f"line {n}" for n in range(10)]
        lines.append("a long sentence that wraps onto a second line here")
        said.show(lines)
        await pilot.pause()
        shown = str(said.content).splitlines()
        assert shown == ["line 8", "line 9", lines[-1]], "the newest at the bottom"
        await pilot.resize_terminal(40, 6)
        await pilot.pause()
        assert str(said.content).splitlines() == ["line 6", "line 7", "line 8", "line 9", lines[-1]]
