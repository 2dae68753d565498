"""The time limit's countdown: the reducer's ``seconds_left``, the deadline on a fake
monotonic clock, the one-minute line, and how ``--plain`` and the table show them."""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace

from textual.widgets import Static

from client.lines import LineRenderer, Streams
from client.state.view import ViewState, apply
from client.tui.app import WarApp
from client.words.catalog import catalog
from client.words.countdown import Countdown, clock_text, follow, warning
from client.words.language import Viewer
from client.words.sentences import describe
from protocol import (
    GameOver,
    GameStarted,
    PlayerJoined,
    ReadyChanged,
    Rematch,
    RematchDeal,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    Snapshot,
    Summary,
    Termination,
    TimeUp,
    WaitingFor,
    Welcome,
)
from tests.client._fake import TIMEOUT, FakeLink

EN = catalog("en", strict=True)

MINUTES = 5


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def room(phase: RoomPhase = RoomPhase.WAITING, **changes: object) -> RoomState:
    state = RoomState(
        room="r8k2",
        phase=phase,
        rules=RulesSpec(),
        seats=(SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1)),
        minutes=MINUTES,
    )
    return replace(state, **changes)  # type: ignore[arg-type]


def welcome(state: RoomState | None = None, seq: int = 1) -> Welcome:
    return Welcome(
        seq=seq,
        seat=0,
        token="secret-token-0123456789",
        player_code="K7MX-QD4R",
        watch_code="9HWT-2CBN",
        state=state or room(),
    )


START: list[ServerMessage] = [
    PlayerJoined(seq=2, seat=1, name="Ben"),
    GameStarted(seq=3, game=1, counts=(26, 26)),
    WaitingFor(seq=4, seats=(0, 1)),
]
OVER = GameOver(
    seq=8,
    step=40,
    winner=0,
    termination=Termination.TIME_LIMIT,
    summary=Summary(rounds=40, wars=2, longest_war=1, biggest_haul=6, deal=90210),
    counts=(30, 22),
)


class Follower:
    """The reducer and the countdown together, as a renderer runs them."""

    def __init__(self) -> None:
        self.view = ViewState()
        self.countdown = Countdown()
        self.said: list[str] = []

    def take(self, message: ServerMessage, now: float) -> None:
        before, self.view = self.view, apply(self.view, message)
        self.countdown = follow(self.countdown, before, message, self.view, now)
        self.said += describe(before, message, self.view, self.view.my_seat, words=EN)


def test_clock_text() -> None:
    assert [clock_text(s) for s in (300, 299, 61, 60, 5, 0, -3)] == [
        "5:00", "4:59", "1:01", "1:00", "0:05", "0:00", "0:00",
    ]  # fmt: skip
    assert clock_text(3725) == "1:02:05"
    assert clock_text(1440 * 60) == "24:00:00"


def test_the_reducer_keeps_what_the_server_said_about_the_time() -> None:
    view = apply(ViewState(), welcome())
    assert (view.minutes, view.seconds_left) == (MINUTES, None), "no clock before the start"
    for message in START:
        view = apply(view, message)
    assert view.seconds_left == MINUTES * 60, "game_started starts the full limit"
    view = apply(view, TimeUp(seq=5))
    assert (view.time_up, view.seconds_left) == (True, 0)
    back = apply(view, Snapshot(seq=6, state=room(RoomPhase.PLAYING, seconds_left=0)))
    assert back.time_up, "a resync within the same game keeps time_up"
    over = apply(view, replace(OVER, seq=6))
    assert over.seconds_left == 0
    untimed = apply(ViewState(), welcome(room(minutes=None)))
    assert apply(untimed, START[1]).seconds_left is None


def test_a_game_counts_down_from_its_start_on_the_fake_clock() -> None:
    run = Follower()
    run.take(welcome(), 10.0)
    assert run.countdown.left(10.0) is None
    run.take(START[0], 11.0)
    run.take(START[1], 12.0)
    assert "The game begins: 26 cards each. 5 minutes on the clock." in run.said
    assert run.countdown.left(12.0) == 300
    assert run.countdown.left(12.5) == 300, "0:01 stays until the second is over"
    assert run.countdown.left(13.0) == 299
    run.take(START[2], 20.0)
    assert run.countdown.left(20.0) == 292, "messages without the time change nothing"
    assert run.countdown.warn_at == 12.0 + 240
    assert warning(run.countdown, 251.9) == (run.countdown, None)
    marked, line = warning(run.countdown, 252.0)
    assert line is not None and EN.say(line) == "One minute left."
    assert warning(marked, 260.0) == (marked, None), "said once"
    assert marked.left(1000.0) == 0, "never below zero"


def test_a_snapshot_sets_the_deadline_from_its_receipt_time() -> None:
    run = Follower()
    run.take(welcome(room(RoomPhase.PLAYING, seconds_left=200)), 50.0)
    assert run.said[1] == "The game is on: round 1, 3:20 left."
    assert run.countdown.left(50.0) == 200
    assert run.countdown.left(150.0) == 100
    run.take(Snapshot(seq=5, state=room(RoomPhase.PLAYING, seconds_left=90)), 160.0)
    assert run.countdown.left(160.0) == 90, "the server's word wins over our count"
    assert run.countdown.warn_at == 160.0 + 30


def test_joining_in_the_last_minute_needs_no_extra_line() -> None:
    run = Follower()
    run.take(welcome(room(RoomPhase.PLAYING, seconds_left=42)), 0.0)
    assert run.said[1] == "The game is on: round 1, 0:42 left."
    assert warning(run.countdown, 1.0)[1] is None
    late = Countdown(deadline=100.0, game=1)
    line = warning(late, 58.0)[1]
    assert line is not None and EN.say(line) == "Less than a minute left: 0:42."


def test_time_up_and_game_over_stop_the_clock_and_a_rematch_restarts_it() -> None:
    run = Follower()
    for message in (welcome(), *START):
        run.take(message, 0.0)
    run.take(TimeUp(seq=5), 301.0)
    assert run.said[-1] == "Time is up."
    assert run.countdown.up and run.countdown.left(302.0) == 0
    assert run.countdown.warn_at is None, "no minute line after the end"
    run.take(replace(OVER, seq=6), 303.0)
    assert run.view.phase is RoomPhase.OVER and run.countdown.left(303.0) == 0
    run.take(GameStarted(seq=7, game=2, counts=(26, 26)), 400.0)
    assert not run.countdown.up
    assert run.countdown.left(400.0) == 300 and run.countdown.warn_at == 640.0
    untimed = Follower()
    untimed.take(welcome(room(RoomPhase.PLAYING, minutes=None)), 0.0)
    assert untimed.countdown == Countdown(game=1)


async def test_plain_says_the_minute_line_once_and_tells_the_time() -> None:
    clock = FakeClock(0.0)
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(
        link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN), clock=clock
    )
    task = asyncio.create_task(renderer.run())
    link.push(welcome(), *START)
    await link.drained()
    assert (await renderer.command("s") or "").endswith(". Press enter to turn over. 5:00 left.")
    clock.now = 239.0
    link.push(ReadyChanged(seq=5, seat=1, ready=True))
    await link.drained()
    assert "One minute left." not in out.getvalue()
    clock.now = 240.0
    link.push(ReadyChanged(seq=6, seat=1, ready=False))
    await link.drained()
    assert out.getvalue().splitlines()[-1] == "One minute left."
    clock.now = 250.0
    assert (await renderer.command("s") or "").endswith(". Press enter to turn over. 0:50 left.")
    clock.now = 300.5
    link.push(TimeUp(seq=7))
    await link.drained()
    assert (await renderer.command("s") or "").endswith(". Press enter to turn over. Time is up.")
    link.push(OVER)
    assert await asyncio.wait_for(task, TIMEOUT) == 0
    lines = out.getvalue().splitlines()
    assert lines.count("One minute left.") == 1
    assert lines[-3] == "Time is up."
    assert lines[-2] == "Game over: time is up. You win with 30 cards to Ben's 22."


class Written(io.StringIO):
    """A StringIO that tells (``changed``) when something is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    def write(self, text: str) -> int:
        self.changed.set()
        return super().write(text)

    async def until(self, wanted: str) -> None:
        while wanted not in self.getvalue():
            self.changed.clear()
            await self.changed.wait()


async def test_plain_wakes_up_for_the_minute_line_without_a_message() -> None:
    clock = FakeClock(0.0)
    link = FakeLink()
    out = Written()
    renderer = LineRenderer(
        link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN), clock=clock
    )
    task = asyncio.create_task(renderer.run())
    link.push(welcome(), *START)  # 300 s left: the line is due at 240
    await link.drained()
    clock.now = 239.95  # the next event sets the alarm 50 ms (real time) ahead
    link.push(ReadyChanged(seq=5, seat=1, ready=True))
    await link.drained()
    assert "One minute left." not in out.getvalue()
    clock.now = 240.0  # when the alarm rings, the fake clock says it is time
    await asyncio.wait_for(out.until("One minute left."), TIMEOUT)  # no message needed
    link.push(OVER)
    assert await asyncio.wait_for(task, TIMEOUT) == 0


async def test_the_table_shows_the_time_left() -> None:
    clock = FakeClock(0.0)
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN), clock=clock)
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(welcome())
        await link.drained()
        await pilot.pause()
        clock_widget = app.query_one("#clock", Static)
        assert not clock_widget.display, "no clock before the game starts"
        link.push(*START)
        await link.drained()
        await pilot.pause()
        assert clock_widget.display
        assert str(clock_widget.content) == "5:00 left"
        clock.now = 61.0
        app.tick()
        assert str(clock_widget.content) == "3:59 left"
        assert not clock_widget.has_class("short")
        clock.now = 240.0
        app.tick()
        assert str(clock_widget.content) == "1:00 left"
        assert clock_widget.has_class("short")
        said = app.query_one("#said", Static).content
        assert "One minute left." in str(said)
        link.push(TimeUp(seq=5))
        await link.drained()
        await pilot.pause()
        assert str(clock_widget.content) == "Time is up"
        link.push(replace(OVER, seq=6))
        await link.drained()
        await pilot.pause()
        assert not clock_widget.display
        await pilot.press("d")
        assert await link.next_sent() == Rematch(deal=RematchDeal.SAME)
