"""The reconnect policy: what to do when a connection to the room ends, as one pure decision.

:func:`decide` takes what happened (:class:`Ending`: the close code, the error the server
sent before closing, whether we could connect at all, whether we were ever welcomed,
whether we hold a seat token, our role, whether the game is over, how many attempts and
how long the trouble has lasted) and returns what to do (:data:`Decision`):

- :class:`Stop`: end, ``ok`` or not, with one line saying why (and the server's error
  code for ``--json``);

every reason a :class:`client.words.catalog.Said` that the viewer's catalog says;
- :class:`JoinAnew`: the stored seat could not be resumed; join with the code instead;
- :class:`Retry`: wait ``delay`` seconds, then open again (:class:`Reopen`: resume the
  seat, watch again, or send the first opening again).

:class:`client.net.connection.Connection` only carries the decision out. The table of cases
(PROTOCOL.md §7):

==============================================  ===========================================
what happened                                   decision
==============================================  ===========================================
we closed / we left                             stop, ok
a stored seat refused (bad token, unknown code)  join anew, at once
cannot connect: bad url or certificate          stop
cannot connect, never welcomed                  stop
``store_unavailable`` (then 1013)               retry slowly (5 s doubling to 60 s), saying
                                                the server's sentence once
room closed or normal close, spectator or       stop, ok (the room ended normally)
game over
never welcomed, or a final close (4002, 4004…)  stop, with the server's sentence
a drop, 1011, 1012, 1013, 4001, 4005            retry (0.25 s doubling to 10 s)
trouble longer than ``give_up_after``           stop: "gave up reconnecting: …"
==============================================  ===========================================

Every delay has "equal jitter" (a random point in the upper half of the step), from the
``jitter`` argument (0 ≤ jitter < 1), so the decision stays a pure function.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from client.words.catalog import Said, said
from client.words.sentences import closed_because
from protocol import CloseCode, Error, ErrorCode

__all__ = [
    "RETRY_CODES",
    "ROOM_ENDED",
    "STALE_SEAT",
    "Decision",
    "Ending",
    "JoinAnew",
    "Policy",
    "Reopen",
    "Retry",
    "Stop",
    "backoff_delay",
    "decide",
    "should_reconnect",
]

STORE_UNAVAILABLE = ErrorCode.STORE_UNAVAILABLE.value
STORE_STILL = said("close.store_still")
"""The reason given on later attempts once the server's own sentence was said."""

RETRY_CODES: frozenset[int] = frozenset(
    {
        1006,  # dropped without a close frame: the network
        CloseCode.INTERNAL_ERROR,
        CloseCode.SERVICE_RESTART,
        CloseCode.TRY_AGAIN_LATER,
        CloseCode.RATE_LIMITED,
        CloseCode.OPENING_TIMEOUT,
    }
)
"""Closes after which a connection reconnects and resumes (1006: no close frame came)."""
STALE_SEAT = frozenset({ErrorCode.BAD_TOKEN.value, ErrorCode.UNKNOWN_CODE.value})
"""Refusals of a stored seat's resume after which joining anew makes sense."""
ROOM_ENDED = frozenset({CloseCode.NORMAL, CloseCode.ROOM_CLOSED})
"""Closes that end a room normally: a spectator, or anyone after game over, stops, ok."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """The numbers: backoff for drops (``base`` doubling to ``cap`` seconds), the slower
    backoff while the server cannot save games, and how long to keep trying."""

    base: float = 0.25
    cap: float = 10.0
    store_base: float = 5.0
    store_cap: float = 60.0
    give_up_after: float = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Ending:
    """What happened to the latest connection (or attempt to connect).

    ``unreachable``: why connecting failed (None: we connected), a reason of the
    ``unreachable`` section (:mod:`client.net.failure`); ``final``: that failure
    cannot heal (a bad url, a certificate). ``close_code``: None for no close frame.
    ``error``: the ``error`` the server sent before the welcome, or ``store_unavailable``
    at any time. ``attempt``: reconnects made since the last welcome; ``trouble_for``:
    seconds since the trouble began.
    """

    url: str = ""
    unreachable: Said | None = None
    final: bool = False
    close_code: int | None = None
    error: Error | None = None
    welcomed: bool = False
    ever_welcomed: bool = False
    holds_token: bool = False
    stored_seat: bool = False
    spectator: bool = False
    game_over: bool = False
    closing: bool = False
    left: bool = False
    attempt: int = 0
    trouble_for: float = 0.0


@dataclass(frozen=True, slots=True)
class Stop:
    """End for good: ``ok`` (exit 0) or not, why, and the server's error code if any."""

    ok: bool
    reason: Said
    code: str | None = None


@dataclass(frozen=True, slots=True)
class JoinAnew:
    """Forget the stored seat and join with the code at once; tell ``notice``."""

    notice: Said


class Reopen(Enum):
    """What the next connection opens with."""

    RESUME = "resume"  # resume_seat with the newest token
    WATCH = "watch"  # watch_room again
    FIRST = "first"  # the first opening again (create, join, or the stored seat's resume)


@dataclass(frozen=True, slots=True)
class Retry:
    """Wait ``delay`` seconds (telling ``reason``), then open with ``reopen``."""

    delay: float
    reason: Said
    reopen: Reopen


Decision = Stop | JoinAnew | Retry


def backoff_delay(
    attempt: int, *, base: float = 0.25, cap: float = 10.0, rng: random.Random | None = None
) -> float:
    """Seconds to wait before reconnect ``attempt`` (0, 1, 2 …): exponential, capped,
    with "equal jitter" — a random point in the upper half of ``min(cap, base * 2**n)`` —
    so a room of clients dropped at once does not reconnect in lockstep."""
    source = rng if rng is not None else random
    return _delay(attempt, base, cap, source.random())


def _delay(attempt: int, base: float, cap: float, jitter: float) -> float:
    ceiling = min(cap, base * 2 ** min(attempt, 32))
    return float(ceiling / 2 + ceiling / 2 * min(max(jitter, 0.0), 1.0))


def should_reconnect(code: int | None) -> bool:
    """True if a room connection closed with ``code`` should reconnect and resume
    (PROTOCOL.md §7); ``None`` (no close frame) counts as a network drop."""
    return code is None or code in RETRY_CODES


def decide(ending: Ending, policy: Policy, jitter: float) -> Decision:
    """What to do after ``ending`` (see the module docstring's table)."""
    settled = _settled(ending)
    if settled is not None:
        return settled
    if ending.unreachable is not None:
        if ending.final or not ending.ever_welcomed:
            problem = ending.unreachable
            return Stop(False, said("close.cannot_connect", url=ending.url, problem=problem))
        reason = said("close.cannot_reach", problem=ending.unreachable)
        return _retry(ending, policy, jitter, reason)
    refused = ending.error.code if ending.error is not None else None
    if refused == STORE_UNAVAILABLE:
        told = closed_because(ending.close_code, ending.error)
        reason = told if ending.attempt == 0 else STORE_STILL
        return _retry(ending, policy, jitter, reason, slow=True)
    reason = closed_because(ending.close_code, ending.error)
    if not (ending.welcomed or ending.ever_welcomed) or not should_reconnect(ending.close_code):
        return Stop(False, reason, refused)
    return _retry(ending, policy, jitter, reason)


def _settled(ending: Ending) -> Decision | None:
    """The endings decided before any backoff: we closed or left, a stored seat to
    replace, a room that ended normally for someone with nothing left to play."""
    if ending.closing:
        return Stop(True, said("close.closed"))
    if ending.left:
        return Stop(True, said("close.left"))
    refused = ending.error.code if ending.error is not None else None
    if ending.stored_seat and not ending.welcomed and refused in STALE_SEAT:
        return JoinAnew(said("close.join_anew"))
    ended = ending.close_code in ROOM_ENDED and (ending.spectator or ending.game_over)
    if ended and ending.unreachable is None and refused != STORE_UNAVAILABLE:
        return Stop(True, closed_because(ending.close_code))
    return None


def _retry(
    ending: Ending, policy: Policy, jitter: float, reason: Said, *, slow: bool = False
) -> Decision:
    if ending.trouble_for > policy.give_up_after:
        return Stop(False, said("close.gave_up", reason=reason))
    if slow:
        delay = _delay(ending.attempt, policy.store_base, policy.store_cap, jitter)
    else:
        delay = _delay(ending.attempt, policy.base, policy.cap, jitter)
    if ending.holds_token:
        reopen = Reopen.RESUME
    elif ending.spectator:
        reopen = Reopen.WATCH
    else:
        reopen = Reopen.FIRST
    return Retry(delay, reason, reopen)
