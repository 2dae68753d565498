"""Issue 31, "check what is shown": a server that shows what the deal does not give — other
face-down counts, a war between other seats, an out the deal has not, a step left out while
the client was connected — fails the check of all three checkers (war-client's
`client.fair.watch.FairWatch`, the page's ``client/web/js/fair.js`` in node, and
``war-sim verify`` on the record); a client that really missed messages (it was away, and
came back on a new connection: the ``seq`` numbers show it) passes.

The honest game is played by the room core (tests/client/test_fair_tamper.py); each
tampering keeps the ``seq`` numbers a real server would give, unless it is about them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from client.fair.watch import FairVerdict, FairWatch, verdict_line
from client.lines import message_json
from client.state.view import ViewState, apply
from client.words.catalog import catalog
from protocol import (
    CardsLaidDown,
    GameOver,
    GameStarted,
    PlayerOut,
    RoomPhase,
    ServerMessage,
    Snapshot,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from protocol.record import read_record
from server.sim.verify import verify_game
from tests.client.test_fair_tamper import ANN, NAMES, NODE, honest_game, page_checks
from tests.e2e._english import english_left
from vocabulary import OutReason

CONNECT = "connect"
"""In a stream: this client opened a new connection here (its welcome follows)."""
Stream = list[ServerMessage | str]
Tamper = Callable[[list[ServerMessage]], Stream]


def _seq(message: ServerMessage) -> int:
    seq = getattr(message, "seq", None)
    assert isinstance(seq, int)
    return seq


def _first(messages: list[ServerMessage], kind: type) -> int:
    return next(i for i, m in enumerate(messages) if isinstance(m, kind))


def _laid(messages: list[ServerMessage]) -> Stream:
    out: Stream = list(messages)
    i = _first(messages, CardsLaidDown)
    laid = messages[i]
    assert isinstance(laid, CardsLaidDown)
    (seat, count), *rest = laid.counts
    out[i] = dataclasses.replace(laid, counts=((seat, count + 1), *rest))
    return out


def _war(messages: list[ServerMessage]) -> Stream:
    out: Stream = list(messages)
    i = _first(messages, WarDeclared)
    war = messages[i]
    assert isinstance(war, WarDeclared)
    out[i] = dataclasses.replace(war, seats=war.seats[1:])
    return out


def _out(messages: list[ServerMessage]) -> Stream:
    """A waiting_for at step 5 becomes an out the deal does not give (the same seq)."""
    out: Stream = list(messages)
    steps = [getattr(m, "step", 0) for m in messages]
    i = next(
        i
        for i, m in enumerate(messages)
        if isinstance(m, WaitingFor) and max(steps[:i]) == 5 and i > 0
    )
    out[i] = PlayerOut(seq=_seq(messages[i]), step=5, round=5, seat=1, reason=OutReason.NO_CARDS)
    return out


def _step_at(messages: list[ServerMessage], step: int) -> list[int]:
    """Where step ``step``'s game events are, in order."""
    return [
        i
        for i, m in enumerate(messages)
        if getattr(m, "step", None) == step and not isinstance(m, GameOver)
    ]


def _skipped(messages: list[ServerMessage]) -> Stream:
    """Step 7 left out while connected; the seq numbers run on as if it never was."""
    found = _step_at(messages, 7)
    out: Stream = []
    for i, m in enumerate(messages):
        seq = getattr(m, "seq", None)
        if i in found:
            continue
        if i > found[-1] and isinstance(seq, int) and not isinstance(m, Welcome | Snapshot):
            out.append(dataclasses.replace(m, seq=seq - len(found)))  # type: ignore[arg-type]
        else:
            out.append(m)
    return out


def _state_after(messages: list[ServerMessage], index: int, step: int) -> Welcome:
    """Ann's welcome on a new connection after step ``step`` (its seq: the message at
    ``index``'s), the table as the game shows it."""
    welcome, started = messages[0], messages[_first(messages, GameStarted)]
    assert isinstance(welcome, Welcome) and isinstance(started, GameStarted)
    ann = welcome.state.seats[0]
    seats = tuple(
        dataclasses.replace(ann, seat=seat, name=name, seed_commitment=committed)
        for seat, (name, committed) in enumerate(zip(NAMES, started.seed_commitments, strict=True))
    )
    state = dataclasses.replace(
        welcome.state,
        step=step,
        phase=RoomPhase.PLAYING,
        seats=seats,
        deal_commitment=started.deal_commitment,
    )
    return dataclasses.replace(welcome, seq=_seq(messages[index]), state=state)


def _gap_then_snapshot(messages: list[ServerMessage]) -> Stream:
    """Step 7 left out on a live connection with a hole in the seq numbers; the client
    asks for a resync and the snapshot shows the game past it: nothing excuses it."""
    found = _step_at(messages, 7)
    welcome = _state_after(messages, found[-1], 7)
    snapshot = Snapshot(seq=welcome.seq, state=welcome.state)
    rest = messages[found[-1] + 1 :]
    return [*messages[: found[0]], snapshot, *rest]


def _away(messages: list[ServerMessage]) -> Stream:
    """The client lost its connection during step 7 and came back on a new one: the
    welcome's seq shows the messages it missed."""
    found = _step_at(messages, 7)
    welcome = _state_after(messages, found[-1], 7)
    return [*messages[: found[0]], CONNECT, welcome, *messages[found[-1] + 1 :]]


def _welcome_mid_connection(messages: list[ServerMessage]) -> Stream:
    """The same welcome, but on the same connection (no new one was opened)."""
    return [m for m in _away(messages) if m != CONNECT]


FAILS: dict[str, Tamper] = {
    "other face-down counts": _laid,
    "a war between other seats": _war,
    "an out the deal has not": _out,
    "a step skipped while connected": _skipped,
    "a seq gap and a snapshot past a skipped step": _gap_then_snapshot,
}
PROBLEMS = {
    "other face-down counts": "the cards shown laid face down by Ann are not the deal's",
    "a war between other seats": "the war shown is not between the players the deal gives",
    "an out the deal has not": "Ben was shown going out, which is not the deal's",
    "a step skipped while connected": "step 7: part of the game was never shown",
    "a seq gap and a snapshot past a skipped step": "step 7: part of the game was never shown",
}
VERIFY = {
    "other face-down counts": "cards face down, but the deal lays",
    "a war between other seats": "the war shown is between seats",
    "an out the deal has not": "was shown out (no_cards), but the deal gives none",
    "a step skipped while connected": "step 7: the deal's flip there was never shown",
    "a seq gap and a snapshot past a skipped step": "step 7: the deal's flip there was never shown",
}


def python_check(stream: Stream) -> FairVerdict | None:
    watch, view, found = FairWatch(), ViewState(), None
    watch.connected()  # the first connection
    for message in stream:
        if message == CONNECT:
            watch.connected()
            continue
        assert not isinstance(message, str)
        view = apply(view, message)
        found = watch.follow(message, ANN, [seat.name for seat in view.seats]) or found
    return found


def verify(stream: Stream) -> tuple[bool | None, str]:
    lines = [message_json(m) for m in stream if not isinstance(m, str)]
    (game,) = read_record(lines)
    verdict = verify_game(game, ANN)
    return verdict.ok, "\n".join(verdict.lines)


@pytest.fixture(scope="module")
def honest() -> list[ServerMessage]:
    game = honest_game()
    assert any(isinstance(m, CardsLaidDown) for m in game), "the deal has a war"
    return game


def test_the_honest_game_passes_all_three(honest: list[ServerMessage]) -> None:
    verdict = python_check(list(honest))
    assert verdict is not None and verdict.ok, verdict
    ok, said = verify(list(honest))
    assert ok is True, said
    if NODE is not None:
        (page,) = page_checks([list(honest)])
        assert page["ok"] is True, page


@pytest.mark.parametrize("what", sorted(FAILS))
def test_war_client_fails_what_the_deal_does_not_give(
    honest: list[ServerMessage], what: str
) -> None:
    verdict = python_check(FAILS[what](honest))
    assert verdict is not None and verdict.ok is False, verdict
    assert verdict.problem is not None
    assert PROBLEMS[what] in catalog("en", strict=True).say(verdict.problem), verdict


@pytest.mark.parametrize("what", sorted(FAILS))
def test_war_sim_verify_fails_what_the_deal_does_not_give(
    honest: list[ServerMessage], what: str
) -> None:
    ok, said = verify(FAILS[what](honest))
    assert ok is False, said
    assert VERIFY[what] in said, said


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_page_fails_what_the_deal_does_not_give(honest: list[ServerMessage]) -> None:
    names = sorted(FAILS)
    results = page_checks([FAILS[what](honest) for what in names])
    for what, page in zip(names, results, strict=True):
        assert page is not None and page["ok"] is False, (what, page)
        assert PROBLEMS[what] in str(page["problem"]), (what, page)


def test_a_client_that_really_missed_a_step_passes_all_three(honest: list[ServerMessage]) -> None:
    stream = _away(honest)
    verdict = python_check(stream)
    assert verdict is not None and verdict.ok, verdict
    ok, said = verify(stream)
    assert ok is True, said
    if NODE is not None:
        (page,) = page_checks([stream])
        assert page["ok"] is True, page


def test_a_welcome_that_opens_no_connection_excuses_nothing_live(
    honest: list[ServerMessage],
) -> None:
    """A live client knows when it opened a connection: a welcome in the middle of one is
    a state like a snapshot. (A record file has no such mark: there a welcome is a new
    connection, docs/fairness.md.)"""
    stream = _welcome_mid_connection(honest)
    verdict = python_check(stream)
    assert verdict is not None and verdict.ok is False, verdict
    if NODE is not None:
        (page,) = page_checks([stream])
        assert page["ok"] is False, page


def test_war_client_in_german_says_each_with_no_english_but_names(
    honest: list[ServerMessage],
) -> None:
    german = catalog("de", strict=True)
    for what, tamper in FAILS.items():
        verdict = python_check(tamper(honest))
        assert verdict is not None and verdict.problem is not None, what
        line = german.say(verdict_line(verdict))
        assert line.startswith("Faire Mischung: FEHLGESCHLAGEN — "), line
        assert not english_left(line, NAMES), (what, line)


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_page_in_polish_says_each_with_no_english_but_names(
    honest: list[ServerMessage],
) -> None:
    names = sorted(FAILS)
    results = page_checks([FAILS[what](honest) for what in names], "pl")
    for what, page in zip(names, results, strict=True):
        assert page["ok"] is False, (what, page)
        assert not english_left(str(page["problem"]), NAMES), (what, page)
