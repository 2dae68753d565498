"""A seat request in the terminal client's words: the question, the hint, the answer
``allow`` / ``refuse`` sends, and how a request ended, for each viewpoint."""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace

import pytest

from client.lines import LineRenderer, Streams
from client.state.view import ViewState, apply
from client.words.catalog import catalog, said
from client.words.language import Viewer
from client.words.seats import (
    answer,
    asked_now,
    ended_sentence,
    open_request_sentence,
    requested_sentence,
    waiting_sentence,
)
from client.words.sentences import describe
from protocol import SeatState, Snapshot, Welcome
from protocol.seat_requests import (
    AnswerSeatRequest,
    RequestOutcome,
    SeatRequest,
    SeatRequested,
    SeatRequestEnded,
    SeatRequestWaiting,
)
from server import engine
from tests.client._fake import FakeLink
from tests.client._record import Recording

EN = catalog("en", strict=True)


def table(me: int | None = 0) -> ViewState:
    seats = (SeatState(seat=0, name="Ben"), SeatState(seat=1, name="Grandma"))
    return replace(ViewState(), my_seat=me, seats=seats, last_seq=10)


def test_the_question_and_the_answer() -> None:
    view = apply(table(), SeatRequested(seq=11, seat=1, seconds=60))
    assert view.seat_request == 1
    assert requested_sentence(view, SeatRequested(seq=11, seat=1, seconds=60), 0, words=EN) == (
        "Someone wants to take Grandma's seat from another device — let them?"
    )
    assert answer(view, allow=True) == AnswerSeatRequest(seat=1, allow=True)
    assert answer(view, allow=False) == AnswerSeatRequest(seat=1, allow=False)
    spectator = apply(table(None), SeatRequested(seq=11, seat=1, seconds=60))
    assert answer(spectator, allow=True) == said("seat_request.nobody_asking")
    done = apply(view, SeatRequestEnded(seq=12, seat=1, outcome=RequestOutcome.REFUSED, by=0))
    assert done.seat_request is None
    assert answer(done, allow=True) == said("seat_request.nobody_asking")


def test_how_a_request_ended_for_each_viewpoint() -> None:
    allowed = SeatRequestEnded(seq=12, seat=1, outcome=RequestOutcome.ALLOWED, by=0, reclaim=600)
    assert (
        ended_sentence(table(0), allowed, 0, words=EN)
        == "You let another device take Grandma's seat."
    )
    assert ended_sentence(table(1), allowed, 1, words=EN) == (
        "Ben let you in: you have Grandma's seat on this device. The device it was on can "
        "take it back within 10 minutes."
    )
    refused = SeatRequestEnded(seq=12, seat=1, outcome=RequestOutcome.REFUSED, by=0)
    assert ended_sentence(table(None), refused, None, words=EN) == (
        "Ben refused to let another device take Grandma's seat."
    )
    for outcome in RequestOutcome:
        message = SeatRequestEnded(seq=12, seat=1, outcome=outcome)
        assert (
            "Grandma" in ended_sentence(table(0), message, 0, words=EN)
            or outcome is RequestOutcome.AWAY_LONG
        )
    waiting = SeatRequestWaiting(seq=3, seat=1, seconds=60)
    assert "waiting up to 60 seconds" in waiting_sentence(ViewState(), waiting, words=EN)
    before = ViewState()
    after = apply(before, waiting)
    assert after.asking_for == 1
    assert describe(before, waiting, after, None, words=EN) == (
        waiting_sentence(after, waiting, words=EN),
    )


@pytest.mark.parametrize("late", [False, True], ids=["asked-after", "came-in-during"])
async def test_plain_says_how_to_answer_and_sends_the_answer(late: bool) -> None:
    """``late``: the request was made before this connection; its welcome shows it."""
    recording = Recording(engine.Game(engine.Rules(), 7), me=0)
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN))
    commands = asyncio.StreamReader()
    renderer.commands = commands
    welcome = recording.messages[0]
    assert isinstance(welcome, Welcome)
    asked = SeatRequested(seq=welcome.seq + 1, seat=1, seconds=60)
    link.push_all([_asking(welcome)] if late else [welcome, asked])
    task = asyncio.create_task(renderer.run())
    await link.drained()
    assert "Someone wants to take Ben's seat from another device — let them?" in out.getvalue()
    assert "Type allow or refuse." in out.getvalue()
    commands.feed_data(b"allow\n")
    assert await link.next_sent() == AnswerSeatRequest(seat=1, allow=True)
    task.cancel()


def _asking(welcome: Welcome, seat: int = 1, seconds: int = 42) -> Welcome:
    """``welcome`` with a request for ``seat`` open in its state."""
    request = SeatRequest(seat=seat, seconds=seconds)
    return replace(welcome, state=replace(welcome.state, seat_request=request))


def test_a_welcome_during_a_request_asks_as_its_seat_requested_did() -> None:
    first = Recording(engine.Game(engine.Rules(), 7), me=0).messages[0]
    assert isinstance(first, Welcome)
    welcome = _asking(first)
    before = ViewState()
    view = apply(before, welcome)
    assert view.seat_request == 1
    question = "Someone wants to take Ben's seat from another device — let them?"
    assert describe(before, welcome, view, 0, words=EN)[-1] == question
    assert asked_now(before, welcome, view)
    assert answer(view, allow=True) == AnswerSeatRequest(seat=1, allow=True)
    watching = apply(before, replace(welcome, seat=None, token=None))
    assert describe(before, welcome, watching, None, words=EN)[-1] == (
        "Someone asks to take Ben's seat from another device."
    )
    assert not asked_now(before, welcome, watching)
    own = apply(before, replace(welcome, seat=1))  # the seat's own device came back
    assert open_request_sentence(own, 1, words=EN) is None
    assert not asked_now(before, welcome, own)


def test_a_snapshot_that_brings_a_request_asks_once() -> None:
    welcome = Recording(engine.Game(engine.Rules(), 7), me=0).messages[0]
    assert isinstance(welcome, Welcome)
    view = apply(ViewState(), welcome)
    snapshot = Snapshot(seq=welcome.seq + 2, state=_asking(welcome).state)
    after = apply(view, snapshot)
    assert after.seat_request == 1
    assert describe(view, snapshot, after, 0, words=EN) == (
        "Someone wants to take Ben's seat from another device — let them?",
    )
    assert asked_now(view, snapshot, after)
    again = apply(after, snapshot)
    assert describe(after, snapshot, again, 0, words=EN) == ()
    assert not asked_now(after, snapshot, again)
