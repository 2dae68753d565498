"""The time limit's countdown, kept on this computer's monotonic clock.

The server keeps the time and decides when it is up (``time_up``); the client only shows
what is left. A ``welcome`` or ``snapshot`` says how many seconds were left when it was
sent (``seconds_left``), ``game_started`` starts a full ``minutes`` limit, ``time_up``
and ``game_over`` stop it. :func:`follow` turns each of those, with the moment it was
received (``now``, from :func:`time.monotonic` or a test's fake clock), into a deadline;
between messages, :meth:`Countdown.left` counts down from it.

Pure: every function takes ``now``; nothing here reads a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from client.state.view import ViewState
from client.words.catalog import Said, said
from protocol import GameOver, GameStarted, RoomPhase, ServerMessage, Snapshot, TimeUp, Welcome

__all__ = ["WARN_SECONDS", "Countdown", "clock_text", "follow", "warning"]

WARN_SECONDS = 60
"""How long before the end the "one minute left" line is said."""


@dataclass(frozen=True, slots=True)
class Countdown:
    """When the time limit runs out, on the monotonic clock (``deadline``), or None when
    no limit is running. ``game`` is the room's game number the deadline belongs to;
    ``warned`` once the one-minute line was said (or needs no saying) for it. ``up`` once
    the server said the time is up."""

    deadline: float | None = None
    game: int = 0
    warned: bool = False
    up: bool = False

    def left(self, now: float) -> int | None:
        """Whole seconds left at ``now``, rounded up (``0:01`` until the very end), never
        below 0; None when no time limit is running."""
        if self.deadline is None:
            return None
        if self.up:
            return 0
        return max(0, math.ceil(self.deadline - now))

    @property
    def warn_at(self) -> float | None:
        """When the one-minute line is due (None: not due, or said already)."""
        if self.deadline is None or self.warned or self.up:
            return None
        return self.deadline - WARN_SECONDS


_SETS_THE_CLOCK = (Welcome, Snapshot, GameStarted, TimeUp, GameOver)


def follow(
    countdown: Countdown,
    before: ViewState,
    message: ServerMessage,
    view: ViewState,
    now: float,
) -> Countdown:
    """The countdown after ``message`` (received at ``now``) turned ``before`` into
    ``view``. Messages that do not carry the time, and messages the reducer ignored,
    leave it as it was."""
    if view is before or not isinstance(message, _SETS_THE_CLOCK):
        return countdown
    left = view.seconds_left
    if view.minutes is None or left is None or view.phase is RoomPhase.WAITING:
        return Countdown(game=view.game)
    if view.phase is RoomPhase.OVER:
        return Countdown(deadline=now, game=view.game, warned=True, up=True)
    same_game = countdown.game == view.game and countdown.deadline is not None
    up = view.time_up or left == 0 or isinstance(message, TimeUp)
    # A welcome or a start tells the time left itself: a near end needs no extra line.
    told = isinstance(message, Welcome | GameStarted) and left <= WARN_SECONDS
    warned = (same_game and countdown.warned) or told or up
    return Countdown(deadline=now + left, game=view.game, warned=warned, up=up)


def warning(countdown: Countdown, now: float) -> tuple[Countdown, Said | None]:
    """The one-minute line if it is due at ``now`` (once per game), and the countdown
    marked as warned; else ``(countdown, None)``."""
    due = countdown.warn_at
    left = countdown.left(now)
    if due is None or left is None or now < due or left == 0:
        return countdown, None
    marked = replace(countdown, warned=True)
    if left > WARN_SECONDS - 5:
        return marked, said("clock.one_minute")
    return marked, said("clock.less_than_minute", clock=clock_text(left))


def clock_text(seconds: int) -> str:
    """``299`` → ``"4:59"``, ``5`` → ``"0:05"``, ``3725`` → ``"1:02:05"``."""
    seconds = max(0, seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"
