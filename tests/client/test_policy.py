"""The reconnect policy, table-driven: what happened → what to do (client.net.policy.decide)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from client.net.policy import Decision, Ending, JoinAnew, Policy, Reopen, Retry, Stop, decide
from client.words import reasons
from client.words.catalog import catalog, said
from protocol import CloseCode, Error

EN = catalog("en", strict=True)
POLICY = Policy(base=1.0, cap=8.0, store_base=5.0, store_cap=60.0, give_up_after=300.0)
URL = "ws://127.0.0.1:8765"
WELCOMED = Ending(url=URL, ever_welcomed=True, welcomed=True, holds_token=True)


def player(**changes: Any) -> Ending:
    """A player's connection that was welcomed, ending with ``changes``."""
    return replace(WELCOMED, **changes)


STORE = Error(code="store_unavailable", message="the server cannot save games right now")
BAD_TOKEN = Error(code="bad_token", message="that seat token is not valid")
UNKNOWN = Error(code="unknown_code", message="no room has the code 'NOPE'")

CASES: list[tuple[str, Ending, object]] = [
    ("we closed", player(closing=True, close_code=1000), ("stop", True, "closed")),
    ("we left", player(left=True, close_code=1000), ("stop", True, "you left the room")),
    (
        "a stored seat refused: join anew",
        Ending(url=URL, stored_seat=True, error=BAD_TOKEN, close_code=CloseCode.REFUSED),
        ("join_anew", "the stored seat could not be resumed; joining as new"),
    ),
    (
        "a stored seat whose room is gone: join anew",
        Ending(url=URL, stored_seat=True, error=UNKNOWN, close_code=CloseCode.REFUSED),
        ("join_anew", "the stored seat could not be resumed; joining as new"),
    ),
    (
        "a refusal: stop with the sentence, the code for scripts",
        Ending(url=URL, error=UNKNOWN, close_code=CloseCode.REFUSED),
        ("stop", False, "there is no game with that code", "unknown_code"),
    ),
    (
        "never reached",
        Ending(url=URL, unreachable=said(reasons.REFUSED)),
        ("stop", False, f"cannot connect to {URL}: no server is listening at that address"),
    ),
    (
        "a certificate that fails, even after a welcome",
        player(unreachable=said(reasons.WRONG_NAME), final=True),
        (
            "stop",
            False,
            f"cannot connect to {URL}: the server's certificate is for another name or address"
            " — use the host name or address it was made for",
        ),
    ),
    (
        "unreachable after a welcome: retry and resume",
        player(unreachable=said(reasons.REFUSED), attempt=2),
        (
            "retry",
            3.0,
            "cannot reach the server: no server is listening at that address",
            Reopen.RESUME,
        ),
    ),
    (
        "a restart: resume after the fast backoff",
        player(close_code=CloseCode.SERVICE_RESTART),
        ("retry", 0.75, "the server is restarting", Reopen.RESUME),
    ),
    (
        "a drop without a close frame",
        player(close_code=None, attempt=5),
        ("retry", 6.0, "the connection dropped", Reopen.RESUME),
    ),
    (
        "a spectator's drop: watch again",
        Ending(url=URL, close_code=1006, ever_welcomed=True, spectator=True),
        ("retry", 0.75, "the connection dropped", Reopen.WATCH),
    ),
    (
        "store unavailable: slow, the server's sentence the first time",
        player(close_code=CloseCode.TRY_AGAIN_LATER, error=STORE),
        ("retry", 3.75, "the server cannot save games right now", Reopen.RESUME),
    ),
    (
        "store unavailable again: slower, said once already",
        player(close_code=CloseCode.TRY_AGAIN_LATER, error=STORE, attempt=2),
        ("retry", 15.0, "the server still cannot save games", Reopen.RESUME),
    ),
    (
        "store unavailable: capped at a minute",
        player(close_code=CloseCode.TRY_AGAIN_LATER, error=STORE, attempt=9),
        ("retry", 45.0, "the server still cannot save games", Reopen.RESUME),
    ),
    (
        "store unavailable before any welcome (creating a room): try again, from the start",
        Ending(url=URL, close_code=CloseCode.TRY_AGAIN_LATER, error=STORE),
        ("retry", 3.75, "the server cannot save games right now", Reopen.FIRST),
    ),
    (
        "the room ends normally for a spectator",
        Ending(url=URL, close_code=CloseCode.ROOM_CLOSED, welcomed=True, spectator=True),
        ("stop", True, "the room was closed"),
    ),
    (
        "the room ends after game over",
        player(close_code=CloseCode.ROOM_CLOSED, game_over=True),
        ("stop", True, "the room was closed"),
    ),
    (
        "the room closed under a player mid-game",
        player(close_code=CloseCode.ROOM_CLOSED),
        ("stop", False, "the room was closed"),
    ),
    (
        "replaced: never reconnect",
        player(close_code=CloseCode.REPLACED),
        ("stop", False, "this seat was taken over by another window or device"),
    ),
    (
        "too long in trouble: give up",
        player(close_code=CloseCode.SERVICE_RESTART, trouble_for=301.0),
        ("stop", False, "gave up reconnecting: the server is restarting"),
    ),
]


def told(decision: Decision) -> tuple[object, ...]:
    """A decision with its reason said in English, as the cases write it."""
    match decision:
        case Stop(ok=ok, reason=reason, code=None):
            return ("stop", ok, EN.say(reason))
        case Stop(ok=ok, reason=reason, code=code):
            return ("stop", ok, EN.say(reason), code)
        case JoinAnew(notice=notice):
            return ("join_anew", EN.say(notice))
        case Retry(delay=delay, reason=reason, reopen=reopen):
            return ("retry", delay, EN.say(reason), reopen)
    raise AssertionError(decision)  # pragma: no cover


@pytest.mark.parametrize(("ending", "decision"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_policy(ending: Ending, decision: object) -> None:
    assert told(decide(ending, POLICY, jitter=0.5)) == decision


def test_jitter_spreads_a_delay_over_the_upper_half() -> None:
    ending = player(close_code=CloseCode.SERVICE_RESTART, attempt=3)
    low, high = (decide(ending, POLICY, jitter=j) for j in (0.0, 0.999999))
    assert isinstance(low, Retry) and isinstance(high, Retry)
    assert low.delay == 4.0 and 7.99 < high.delay <= 8.0
