"""The line renderers: ``--plain`` (one sentence a line) and ``--json`` (one message a line).

``--plain`` writes the sentences of :mod:`client.words.sentences` to stdout, for logs, screen
readers and scripts; a player may type commands on stdin (enter: turn over, ``a``: next
auto-play mode, ``a quick``: that mode, ``f``: vote to finish, ``r``: a rematch with a
new deal, ``d``: replay this deal, ``s``: the score and where the game stands,
``rules``: the rules in force, ``say TEXT``: a message to the table, ``react NAME``: a
reaction, ``q`` twice: leave, anything else: the list), a spectator ``say``, ``react``,
``s`` and ``rules``; the first time the game waits for the player it says how to turn
over ("Press enter to turn over."), and a welcome into a war that waits for its face-down
cards (after the server's restart) says the war and what it waits for, as the TUI and the
page show them.
``--json`` writes every server message received, decoded, as one JSON object per line
(the seat's secret token is replaced by ``"<hidden>"``); notices go to stderr so stdout
stays pure JSON.

Every sentence is in the viewer's language (``words``, :mod:`client.words.catalog`); the typed
commands stay the same letters in every language. In a time-limited game ``--plain``
also says "One minute left." when the countdown
(:mod:`client.words.countdown`, on the monotonic clock) gets there; the server says when the time
is up ("Time is up."), and ``s`` tells the time left.

A ``--plain`` player who can type commands stays after game over, for a rematch (``r``,
``d``) or the next game, until ``q`` (one line says so) or the end of stdin; otherwise
both end after the game-over message (exit status 0, players and spectators alike). A
room that ends normally (closed after everyone left) ends a spectator with status 0 too.
Status 1 and one line on stderr: the connection could not be made or was refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from client.fair.watch import fingerprint_line, no_seed_line, verdict_line, voided_line
from client.jsonline import HIDDEN, message_json
from client.net.connection import Ended, Link, Notice, Received, Reconnecting
from client.net.intents import for_key, set_auto
from client.state.view import ViewState
from client.words.catalog import Number, Said, War, said
from client.words.countdown import Countdown, clock_text, follow, warning
from client.words.language import Viewer
from client.words.links import link_lines, local_warning, refusal_line, shared_page
from client.words.reasons import unreachable_key
from client.words.seats import PLAIN_HINT, answer, asked_now
from client.words.sentences import describe, rules_sentence, score, status, votes_sentence
from client.words.talk import evening_score, react_intent, say_intent
from client.words.who import named, persons
from protocol import (
    AutoPlay,
    ClientMessage,
    DealVoided,
    GameOver,
    GameStarted,
    Leave,
    Ready,
    RoomPhase,
    ServerMessage,
    SetAutoPlay,
    Snapshot,
    Welcome,
)

__all__ = ["HIDDEN", "LineRenderer", "Streams", "message_json"]

_KEYS = {"": "space", "t": "space", "turn": "space", "a": "a", "f": "f", "r": "r", "d": "d"}
"""The typed words that are keys of the table (`client.net.intents.KEYS`)."""


@dataclass(frozen=True, slots=True)
class Streams:
    """Where a :class:`LineRenderer` writes and reads: ``out`` the sentences (or the JSON
    lines), ``err`` the notices and the reason for an end, ``commands`` what a player
    types (None: nobody types; see :func:`stdin_reader`)."""

    out: TextIO
    err: TextIO
    commands: asyncio.StreamReader | None = None


class LineRenderer:
    """Follow ``link`` and write lines to ``streams``; :meth:`run` returns the exit status.

    ``json_lines``: ``--json`` (else ``--plain``); ``viewer``: the viewer's words, and
    the browser table's address so that the creator of a room is shown its share links;
    ``clock``: the monotonic clock the countdown runs on.
    """

    def __init__(
        self,
        link: Link,
        streams: Streams,
        *,
        json_lines: bool,
        viewer: Viewer,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.link = link
        self.words = viewer.words
        self.page = viewer.page
        self.json_lines = json_lines
        self.out = streams.out
        self.err = streams.err
        self.commands = streams.commands
        self.view = ViewState()
        self._fingerprint_said: tuple[object, ...] | None = None
        self.clock = clock
        self.countdown = Countdown()
        self._over = False
        self._left = False
        self._auto_asked: AutoPlay | None = None
        self._ready_sent: int | None = None  # the step of a ready sent on this connection
        self._leave_asked = False  # a first q: the next line says whether to leave
        self._told_how = False  # "Press enter to turn over." said once, at the start
        self._reader: asyncio.Task[None] | None = None
        self._alarm: asyncio.TimerHandle | None = None

    async def run(self) -> int:
        """Draw every event until the game is over or the link ends; return 0 or 1."""
        try:
            async for event in self.link.events():
                status_code = await self._event(event)
                if status_code is not None:
                    return status_code
        finally:
            if self._alarm is not None:
                self._alarm.cancel()
            if self._reader is not None:
                self._reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._reader
        return 0 if self._over else 1

    async def _event(self, event: Received | Reconnecting | Notice | Ended) -> int | None:
        match event:
            case Received(message=message, before=before, view=view):
                self._checked(event)  # before the game-over lines: those stay last
                await self._received(message, before, view)
                self._fingerprint(event)
                self._dropped(event)
            case Reconnecting(attempt=attempt, delay=delay, reason=reason):
                delay_s = Number(delay)
                line = said("plain.reconnecting", reason=reason, attempt=attempt, delay=delay_s)
                self._notice(self._for_scripts(self.words.say(line), None, reason))
            case Notice(text=text):
                print(f"war-client: {self.words.say(text)}", file=self.err, flush=True)
            case Ended():
                return self._ended(event)
        return None

    async def _received(self, message: ServerMessage, before: ViewState, view: ViewState) -> None:
        if self._over and not self._staying:
            return  # closing after game over: that was the last line
        self.view = view
        if isinstance(message, Welcome | Snapshot | GameStarted):
            self._ready_sent = None  # a new connection, a fresh start or deal (a void)
        if view.me is not None and view.me.auto is self._auto_asked:
            self._auto_asked = None  # the room caught up with what was typed
        now = self.clock()
        self._time_passed(now)
        self.countdown = follow(self.countdown, before, message, view, now)
        if self.json_lines:
            self._say(message_json(message))
        else:
            for line in describe(before, message, view, view.my_seat, words=self.words):
                self._say(line)
            if asked_now(before, message, view):
                self._say(self.words.say(PLAIN_HINT))
            self._how_to_turn_over()
            self._set_alarm(now)
        if isinstance(message, Welcome):
            self._war_waiting()
            self._share(before, view)
            self._start_reader()
        ended = isinstance(message, GameOver) or (
            isinstance(message, Welcome) and view.phase is RoomPhase.OVER
        )
        if isinstance(message, GameStarted):
            self._over = False
        elif ended and not self._over:
            self._over = True
            if self._staying:
                self._say(status(view, view.my_seat, words=self.words, plain=True))
            else:
                await self.link.close()

    def _fingerprint(self, event: Received) -> None:
        """The fingerprint of the game's commitment, once a game, from the first message
        that shows it (`client.fair.watch`); ``--json`` prints no such line."""
        said = (event.view.room, event.view.game, event.fingerprint)
        if self.json_lines or event.fingerprint is None or self._fingerprint_said == said:
            return
        if event.view.phase is RoomPhase.WAITING:
            return  # from the start of the game: every seat's commitment is known then
        if self._over and not self._staying:
            return
        self._fingerprint_said = said
        self._say(self.words.say(fingerprint_line(event.fingerprint)))
        if event.no_seed:
            none = [named(event.view, seat) for seat in event.no_seed]
            self._say(self.words.say(no_seed_line(none)))

    def _dropped(self, event: Received) -> None:
        message = event.message
        if isinstance(message, DealVoided) and not self.json_lines:
            who = named(event.view, message.seat)
            self._say(self.words.say(voided_line(who, message.voids)))

    def _checked(self, event: Received) -> None:
        """At game over, what the check of a fair deal found (a chosen deal was said so)."""
        if self.json_lines or event.fair is None or event.fair.chosen:
            return
        if not (self._over and not self._staying):
            self._say(self.words.say(verdict_line(event.fair)))

    def _ended(self, event: Ended) -> int:
        if self._left and not self.json_lines:
            self._say(self.words.text("plain.left"))
        if self._over or event.ok:
            return 0
        reason = self.words.say(refusal_line(event.reason, event.code))
        print(
            f"war-client: {self._for_scripts(reason, event.code, event.reason)}",
            file=self.err,
            flush=True,
        )
        return 1

    def _for_scripts(self, line: str, code: str | None, reason: Said) -> str:
        """With ``--json``, ``line`` followed by what scripts read: the server's error code
        of a refusal, or the key of why connecting failed (``unreachable.refused``…)."""
        if not self.json_lines:
            return line
        key = code if code is not None else unreachable_key(reason)
        return line if key is None else f"{line} ({key})"

    def _notice(self, line: str) -> None:
        """A line about the connection: on stdout with the sentences, on stderr with
        ``--json`` (stdout stays pure JSON)."""
        if self.json_lines:
            print(f"war-client: {line}", file=self.err, flush=True)
        else:
            self._say(line)

    @property
    def _staying(self) -> bool:
        """A player typing commands stays after game over (for a rematch); a spectator
        does not (it may talk while it watches)."""
        seated = self.view.my_seat is not None
        return seated and self._reader is not None and not self._reader.done()

    def _share(self, before: ViewState, view: ViewState) -> None:
        """After the first welcome into a room still waiting for players: its links."""
        if self.page is None or before.welcomed or view.my_seat is None:
            return
        if view.phase is not RoomPhase.WAITING or not view.open_seats:
            return
        page = shared_page(self.page, view.addresses)
        for line in link_lines(page, view.player_code, view.watch_code, view.outside):
            self._notice(self.words.say(line))
        if (warning := local_warning(self.page, view.addresses)) is not None:
            self._notice(self.words.say(warning))

    def _war_waiting(self) -> None:
        """At a welcome into a war that waits for its face-down cards (the connection came
        back after the server restarted, or a spectator came in then): what the TUI and
        the page show of it, the war and who is in it, then what the game waits for
        (for a player who types: "War! Press enter to lay 1 card face down and turn one
        up."). The war's own line was said when it was declared, maybe to a connection
        before the restart."""
        view = self.view
        if self.json_lines or view.phase is not RoomPhase.PLAYING or not view.war_depth:
            return
        me = view.my_seat
        fighters = persons(view, view.war_seats, me)
        self._say(self.words.text("table.war_between", war=War(view.war_depth), names=fighters))
        if me is None or self.commands is not None:
            self._say(status(view, me, words=self.words, plain=True))

    def _how_to_turn_over(self) -> None:
        """The first time the game waits for a player who types commands, out of a war
        and without auto-play: how to turn over."""
        view = self.view
        if self._told_how or self.commands is None or view.me is None:
            return
        if view.my_turn and view.me.auto is AutoPlay.OFF and not view.war_depth:
            self._told_how = True
            self._say(status(view, view.my_seat, words=self.words, plain=True))

    def _say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    # --- the time limit (plain mode) ----------------------------------------------------
    def _time_passed(self, now: float) -> None:
        """Say the one-minute line if it fell due since the last event (the alarm may
        not have run yet)."""
        if self.json_lines or self._over:
            return
        self.countdown, line = warning(self.countdown, now)
        if line is not None:
            self._say(self.words.say(line))

    def _set_alarm(self, now: float) -> None:
        """Wake up when the one-minute line is due, even if no message comes."""
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        due = self.countdown.warn_at
        if due is not None and not self._over:
            loop = asyncio.get_running_loop()
            self._alarm = loop.call_later(max(0.0, due - now), self._ring)

    def _ring(self) -> None:
        self._alarm = None
        now = self.clock()
        self._time_passed(now)
        self._set_alarm(now)

    def time_left(self) -> str | None:
        """``"4:12 left."`` while a time limit runs, ``"Time is up."`` after; else None."""
        left = self.countdown.left(self.clock())
        if left is None or self.view.phase is not RoomPhase.PLAYING:
            return None
        if self.countdown.up:
            return self.words.text("said.time_up")
        return self.words.text("clock.left_said", clock=clock_text(left))

    # --- commands on stdin (plain mode; a spectator may talk too) ---------------------
    def _start_reader(self) -> None:
        if self.commands is None or self._reader is not None or self.json_lines:
            return
        self._reader = asyncio.create_task(self._read_commands(self.commands))

    async def _read_commands(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            reply = await self.command(line.decode("utf-8", "replace").strip())
            if reply:
                self._say(reply)
        if self._over:  # nobody will ask for a rematch now
            await self.link.close()

    async def command(self, text: str) -> str | None:
        """Carry out one typed command; returns what to tell the player, if anything."""
        word, _, rest = text.partition(" ")  # a message keeps its case
        word = word.lower()
        asked, self._leave_asked = self._leave_asked, False
        words = self.words
        if (answer := self._question(word, asked)) is not None:
            return answer
        intent = self._intent(word, rest.strip())
        if intent is None:
            return words.text("plain.help")
        if isinstance(intent, Said):
            return words.say(intent)
        if not await self.link.send(intent):
            return words.text("keys.not_connected")
        if isinstance(intent, SetAutoPlay):
            self._auto_asked = intent.mode  # a second "a" steps on from it
        elif isinstance(intent, Ready):
            self._ready_sent = intent.step  # a second enter waits for the next step
        return None

    def _question(self, word: str, asked: bool) -> str | None:
        """The answer to a word that sends nothing: ``s``, ``rules``, a first ``q``."""
        if word == "s":
            return self.standing()
        if word == "rules":
            rules = rules_sentence(self.view.rules, self.view.minutes, words=self.words)
            return self.words.text("said.rules", rules=rules)
        if word == "q" and not asked:
            self._leave_asked = True
            return self.words.text("plain.confirm_leave")
        return None

    def _intent(self, word: str, rest: str) -> ClientMessage | Said | None:
        """What a typed word asks for (:func:`client.net.intents.for_key`: the keys of the
        table); None if the word is no command."""
        if word == "q":
            self._left = True
            return Leave()
        if word in ("allow", "refuse"):
            return answer(self.view, allow=word == "allow")
        if word in {"say", "react"}:
            if word == "say":
                return say_intent(self.view, rest)
            return react_intent(self.view, rest, words=self.words)
        return self._keyed(word, rest.lower())

    def _keyed(self, word: str, rest: str) -> ClientMessage | Said | None:
        """A word for one of the table's keys, or ``a MODE``."""
        if word == "a" and rest:
            try:
                return set_auto(self.view, AutoPlay(rest))
            except ValueError:
                return said("plain.no_such_mode", mode=repr(rest))
        key = _KEYS.get(word)
        if key is None:
            return None
        return for_key(key, self.view, sent=self._ready_sent, asked=self._auto_asked)

    def standing(self) -> str:
        """The answer to ``s``: the score, the votes, what the game waits for, the time."""
        me, words = self.view.my_seat, self.words
        parts = [score(self.view, me, words=words)]
        if (votes := votes_sentence(self.view, me, words=words)) is not None:
            parts.append(votes)
        parts.append(status(self.view, me, words=words, plain=True))
        if (clock := self.time_left()) is not None:
            parts.append(clock)
        if self.view.evening:
            evening = evening_score(self.view.evening, words=words, view=self.view)
            parts.append(words.text("talk.evening_so_far", score=evening))
        return " ".join(parts)


async def stdin_reader() -> asyncio.StreamReader | None:
    """A stream of stdin lines when stdin is a terminal, a pipe or a socket; None otherwise
    (a regular file or ``/dev/null`` cannot be watched by the event loop)."""
    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return None
    if not (os.isatty(fd) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (OSError, ValueError):
        return None
    return reader
