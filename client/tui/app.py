"""The Textual table: piles, face-up cards, war depth, a status line, keys in the footer.

:class:`WarApp` draws what a :class:`client.net.connection.Link` reports and sends what the
keys ask for (through :mod:`client.net.intents`). The network runs in a Textual worker (an
asyncio task on the app's loop), so the screen never waits for it.

When a seat takes the cards, they fly calmly (:data:`FLIGHT_SECONDS`, eased) along the
table's row of cards, from the loser nearest the winner to the winner's panel, on a layer
above the table, and only then does the pile count them and light up. The next round's
flip (or a newer haul) lands a haul still in the air at once and ends the highlight;
with Textual's ``animation_level`` at ``"none"`` nothing flies and the pile counts at once.

Keys (the footer shows those that apply now): space/enter turn over, ``a`` auto-play
off → calm → quick, ``f`` vote to finish, ``r`` rematch with a new deal, ``d`` replay this
deal, ``?`` the rules in force, ``m`` a message to the table (the talk shows beside the
log, :mod:`client.tui.talk`), ``q`` leave the room for good. Ctrl+Q closes the window
but keeps the seat: run the same ``--join`` again to come back. Either way
:attr:`WarApp.farewell` is the one line to print once the table is gone.

In a time-limited game the status row shows the time left (``4:59 left``), counted down
on the monotonic clock from what the server last said (:mod:`client.words.countdown`); the
server alone decides when the time is up.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Offset, Region
from textual.timer import Timer
from textual.widgets import Footer, Static

from client.fair.watch import voided_line
from client.net.connection import Ended, Link, LinkEvent, Notice, Received, Reconnecting
from client.net.intents import accepted_phases, cycle_auto, finish, rematch, turn_over
from client.state.view import ViewState
from client.tui.drawing import CARD_HEIGHT, CARD_WIDTH
from client.tui.panels import FairLine, FlyingCards, SaidLines, SeatPanel
from client.tui.table_text import codes_line, summary_box, top_line
from client.tui.talk import MessageBox, TalkPanel, evening_text
from client.words.catalog import Said, War, said
from client.words.countdown import WARN_SECONDS, Countdown, clock_text, follow, warning
from client.words.language import Viewer
from client.words.links import refusal_line
from client.words.seats import TUI_HINT, answer, asked_now
from client.words.sentences import describe_table, rules_sentence, status
from client.words.talk import typed_intent
from client.words.who import named, persons
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsTaken,
    CardsTurned,
    ClientMessage,
    CloseCode,
    DealVoided,
    GameStarted,
    Leave,
    Ready,
    Rematch,
    RematchDeal,
    RoomPhase,
    SetAutoPlay,
    Snapshot,
    TalkSetting,
    VoteFinish,
    Welcome,
)

__all__ = ["FLIGHT_SECONDS", "HIGHLIGHT_SECONDS", "FlyingCards", "Haul", "SeatPanel", "WarApp"]


# --- the haul: how taken cards fly from a loser's cards to the winner's pile (along the
# panels' table rows, never over words), and how long the pile then stays lit -------------
FLIGHT_SECONDS = 0.6
"""How long taken cards take to fly to the winner's pile (when animations are on)."""
HIGHLIGHT_SECONDS = 1.2
"""How long the winner's pile stays highlighted after a haul."""


@dataclass(frozen=True, slots=True)
class Haul:
    """How taken cards move: ``flight_seconds`` in the air (0: they do not fly), then the
    winner's pile lit up for ``highlight_seconds``."""

    flight_seconds: float = FLIGHT_SECONDS
    highlight_seconds: float = HIGHLIGHT_SECONDS


CALM_HAUL = Haul()
"""The haul as the table shows it unless told otherwise."""


def on_table(region: Region, toward: Region | None = None) -> Offset:
    """Where a flying card sits on a seat panel's table row: its last ``CARD_HEIGHT`` rows
    inside the border, at the side facing ``toward`` (or in the middle)."""
    y = max(region.y + 1, region.bottom - 1 - CARD_HEIGHT)
    left, right = region.x + 2, region.right - 2 - CARD_WIDTH
    if toward is None:
        return Offset(region.x + max(0, (region.width - CARD_WIDTH) // 2), y)
    return Offset(right if toward.x > region.x else left, y)


def flight_route(regions: dict[int, Region], seat: int) -> tuple[Offset, Offset] | None:
    """Where cards taken by ``seat`` fly (``regions``: each seat panel's, by seat): from the
    table row of the loser nearest the winner to the winner's own; None if the panels are
    not laid out yet."""
    winner = regions.get(seat)
    losers = [s for s, region in regions.items() if s != seat and region]
    if not winner or not losers:
        return None
    loser = min(losers, key=lambda other: abs(other - seat))
    return on_table(regions[loser], toward=winner), on_table(winner)


_SAID_LINES = 40
_TICK_SECONDS = 0.25
_PLAYER_KEYS = {
    # action: the phases it is for, by the server's phase table (others hide it)
    "turn_over": accepted_phases(Ready.TYPE),
    "auto": accepted_phases(SetAutoPlay.TYPE),
    "finish": accepted_phases(VoteFinish.TYPE),
    "rematch": accepted_phases(Rematch.TYPE),
    "replay": accepted_phases(Rematch.TYPE),
}


LEFT_LINE = said("tui.left")
"""What ``q`` says on the terminal once the table is gone (a player: for good)."""
STOPPED_WATCHING_LINE = said("tui.stopped_watching")
"""What ``q`` says for a spectator."""
CLOSED_LINE = said("tui.closed")
"""What Ctrl+Q says for a player (the seat's token stays in the state file)."""
CONFIRM_LEAVE_LINE = said("tui.confirm_leave")
"""What a player's first ``q`` says; a second within `CONFIRM_SECONDS` leaves."""
CONFIRM_SECONDS = 4.0
_KEY_WORDS = (
    # keys, action, the catalog's word for the footer, the key shown
    ("space,enter", "turn_over", "tui.key_turn", "space"),
    ("a", "auto", "tui.key_auto", None),
    ("f", "finish", "tui.key_finish", None),
    ("r", "rematch", "tui.key_rematch", None),
    ("d", "replay", "tui.key_replay", None),
    ("question_mark", "rules", "tui.key_rules", "?"),
    ("q", "leave", "tui.key_leave", None),
    ("m", "message", "tui.key_message", None),
)
"""The table's keys, bound for each table in its viewer's words (the footer shows them)."""


class WarApp(App[None]):
    """The table for one player or spectator; see the module docstring."""

    TITLE = "Family War"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; layers: default flying; }
    #top { background: $primary-background; color: $text; padding: 0 1; height: auto; }
    #codes { background: $warning 20%; padding: 0 1; text-style: bold; }
    #seats { height: auto; }
    #war { padding: 0 1; color: $error; text-style: bold; height: auto; }
    #status-row { height: auto; }
    #status { width: 1fr; padding: 0 1; text-style: bold; }
    #clock { width: auto; padding: 0 1; text-style: bold; }
    #clock.short { background: $warning 30%; }
    #fair { padding: 0 1; height: auto; }
    #summary { border: double $success; padding: 0 2; margin: 0 2; height: auto; }
    #rules { padding: 0 1; color: $text-muted; height: auto; }
    #talk-row { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow", show=False),
        Binding("n", "refuse", show=False),
        Binding("ctrl+q", "close_table", "Close", show=False, priority=True),
    ]

    def __init__(
        self,
        link: Link,
        *,
        viewer: Viewer,
        clock: Callable[[], float] = time.monotonic,
        haul: Haul = CALM_HAUL,
        stop_signals: tuple[int, ...] = (),
    ) -> None:
        super().__init__()
        words = viewer.words
        self.words = words
        """The viewer's catalog: every word the table shows."""
        for keys, action, word, shown in _KEY_WORDS:
            self.bind(keys, action, description=words.text(word), key_display=shown)
        self.title = words.text("app.title")
        self.page = viewer.page
        """The browser table's address (`client.words.links.page_url`), for the join link."""
        self.stop_signals = stop_signals
        """Signals (SIGTERM…) that close the link with 1001 and exit 128 + 15."""
        self._signalled = False
        self.link = link
        self.clock = clock
        self.highlight_seconds = haul.highlight_seconds
        self.flight_seconds = haul.flight_seconds
        self._flight: FlyingCards | None = None
        self.countdown = Countdown()
        self._ticker: Timer | None = None
        self.view = ViewState()
        self.reconnecting: str | None = None
        self.end_reason: Said | None = None
        self.said: deque[str] = deque(maxlen=_SAID_LINES)
        self._haul: tuple[int, int] | None = None
        self._highlight: Timer | None = None
        self._keys_for: tuple[RoomPhase, bool] | None = None
        self._auto_asked: AutoPlay | None = None  # sent, not yet confirmed by the room
        self._ready_sent: int | None = None  # the step of a ready sent on this connection
        self.show_rules = False
        self._leave_armed: Timer | None = None  # a first q, waiting for the second
        self.farewell: Said | None = None
        """One line for the terminal once the table is gone (``q``, Ctrl+Q)."""

    # --- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="top", markup=False)
        yield Static(id="codes", markup=False)
        yield Horizontal(id="seats")
        yield Static(id="war", markup=False)
        with Horizontal(id="status-row"):
            yield Static(id="status", markup=False)
            yield Static(id="clock", markup=False)
        yield Static(id="rules", markup=False)
        yield Static(id="summary", markup=False)
        yield FairLine(id="fair")
        with Horizontal(id="talk-row"):
            yield SaidLines(id="said")
            yield TalkPanel(id="talk")
        yield MessageBox(self.words, id="message")
        yield Footer(compact=True)  # every key that applies fits 60 columns, m too

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for number in self.stop_signals:
            loop.add_signal_handler(number, self.stopped_by_signal)
        self._redraw()
        self._ticker = self.set_interval(_TICK_SECONDS, self.tick, pause=True)
        self.run_worker(self._follow(), name="network", exclusive=True)

    async def _follow(self) -> None:
        async for event in self.link.events():
            self.on_link_event(event)

    # --- what the network says -----------------------------------------------------------
    def on_link_event(self, event: LinkEvent) -> None:
        """Draw one link event (called in the network worker, on the app's loop)."""
        match event:
            case Received(message=message, before=before, view=view):
                now = self.clock()
                self._time_passed(now)
                self.countdown = follow(self.countdown, before, message, view, now)
                self.view = view
                self.reconnecting = None
                if isinstance(message, Welcome | Snapshot | GameStarted):
                    self._ready_sent = None  # a new connection, a fresh start or deal
                told = describe_table(before, message, view, view.my_seat, words=self.words)
                self.said.extend(told)
                if isinstance(message, DealVoided):  # as --plain says it (client.lines)
                    who = named(view, message.seat)
                    self.said.append(self.words.say(voided_line(who, message.voids)))
                if asked_now(before, message, view):
                    self.said.append(self.words.say(TUI_HINT))
                self.query_one("#fair", FairLine).follow(event)
                if view.phase is not RoomPhase.PLAYING or view.game != before.game:
                    self._land()
                mine = isinstance(message, AutoPlayChanged) and message.seat == view.my_seat
                if mine and view.me is not None and view.me.auto is self._auto_asked:
                    self._auto_asked = None  # the room caught up with the presses
                if isinstance(message, CardsTurned) and message.depth == 0 and view is not before:
                    # the next round is on the table: the last haul is over and done
                    self._land()
                    self._end_highlight(redraw=False)
                if isinstance(message, CardsTaken) and view is not before:
                    self._land()  # a haul still in the air arrives at once
                    if not self._fly(message.seat, message.count):
                        self._light(message.seat, message.count)
            case Reconnecting(attempt=attempt, reason=reason):
                line = said("tui.reconnecting", reason=reason, attempt=attempt)
                self.reconnecting = self.words.say(line)
            case Notice(text=text):
                self.said.append(self.words.text("tui.notice", notice=text))
            case Ended(ok=ok, reason=reason, code=refused):
                self.end_reason = None if ok else refusal_line(reason, refused)
                code = 0 if ok else 1
                self.exit(return_code=128 + signal.SIGTERM if self._signalled else code)
                return
        self._redraw()

    # --- the time limit ----------------------------------------------------------------
    def tick(self) -> None:
        """Redraw the time left (the interval timer calls this while a limit runs)."""
        if self._time_passed(self.clock()):
            self._redraw()
        else:
            self._draw_clock()

    def _time_passed(self, now: float) -> bool:
        """Add the one-minute line to the said lines if it is due; True if it was."""
        self.countdown, line = warning(self.countdown, now)
        if line is not None:
            self.said.append(self.words.say(line))
        return line is not None

    def _draw_clock(self) -> None:
        clock = self.query_one("#clock", Static)
        left = self.countdown.left(self.clock())
        running = left is not None and self.view.phase is RoomPhase.PLAYING
        clock.display = running
        if self._ticker is not None:
            if running and not self.countdown.up:
                self._ticker.resume()
            else:
                self._ticker.pause()
        if left is None or not running:
            return
        up = self.countdown.up
        text = (
            self.words.text("clock.up")
            if up
            else self.words.text("clock.left", clock=clock_text(left))
        )
        clock.set_class(self.countdown.up or left <= WARN_SECONDS, "short")
        if str(clock.content) != text:
            clock.update(Text(text))

    # --- the haul: cards fly to the winner, then the pile lights up ----------------------
    def _fly(self, seat: int, count: int) -> bool:
        """Send ``count`` cards flying to ``seat``'s panel; False if nothing can fly
        (animations off, or the panels not laid out yet).

        They fly along the row where the cards lie on the table (the panels' last rows,
        under every line of text), from the cards of the loser nearest the winner to the
        winner's side, so they never start in the winner's own panel nor cover words.
        """
        if self.animation_level == "none" or self.flight_seconds <= 0:
            return False
        route = flight_route({panel.seat: panel.region for panel in self.query(SeatPanel)}, seat)
        if route is None:
            return False
        self._flight = FlyingCards(seat, count, route, self.flight_seconds, self._landed)
        self.screen.mount(self._flight)
        return True

    def _landed(self, flying: FlyingCards) -> None:
        if flying is self._flight:
            self._land()
            self._redraw()

    def _land(self) -> None:
        """End the flight in the air now (if any): the cards reach the pile, lit up."""
        flying, self._flight = self._flight, None
        if flying is None:
            return
        self.animator.force_stop_animation(flying, "offset")
        flying.remove()
        self._light(flying.seat, flying.count)

    def _light(self, seat: int, count: int) -> None:
        self._haul = (seat, count)
        if self._highlight is not None:
            self._highlight.stop()
        self._highlight = self.set_timer(self.highlight_seconds, self._end_highlight)

    def _end_highlight(self, *, redraw: bool = True) -> None:
        if self._highlight is not None:
            self._highlight.stop()
        self._haul = None
        self._highlight = None
        if redraw:
            self._redraw()

    # --- drawing -------------------------------------------------------------------------
    def _redraw(self) -> None:
        view, words = self.view, self.words
        me = view.my_seat
        self.query_one("#top", Static).update(top_line(self.view, words))
        codes = self.query_one("#codes", Static)
        codes.display = bool(view.open_seats) and view.phase is RoomPhase.WAITING
        codes.update(codes_line(view, self.page, words))
        self._draw_seats()
        war = self.query_one("#war", Static)
        war.display = view.war_depth > 0
        if view.war_depth:
            fighters = persons(view, view.war_seats, me)
            war_name = War(view.war_depth)
            war.update(Text(words.text("table.war_between", war=war_name, names=fighters)))
        line = self.reconnecting or status(view, me, words=words)
        self.query_one("#status", Static).update(Text(line))
        self._draw_clock()
        said = self.query_one("#said", SaidLines)
        said.show(self.said)
        summary = self.query_one("#summary", Static)
        summary.display = view.phase is RoomPhase.OVER and view.result is not None
        summary.update(summary_box(view, words) + evening_text(view, words))
        self.query_one("#talk", TalkPanel).show(view, words)
        self.query_one("#fair", FairLine).show(view, words)
        rules = self.query_one("#rules", Static)
        rules.display = view.welcomed and (self.show_rules or view.phase is RoomPhase.WAITING)
        in_force = rules_sentence(view.rules, view.minutes, words=words)
        rules.update(Text(words.text("said.rules", rules=in_force)))
        keys_for = (view.phase, view.my_seat is not None)
        if keys_for != self._keys_for:
            self._keys_for = keys_for
            self.refresh_bindings()

    def _draw_seats(self) -> None:
        box = self.query_one("#seats", Horizontal)
        panels = list(box.query(SeatPanel))
        count = len(self.view.seats)
        if len(panels) != count:
            box.remove_children()
            panels = [SeatPanel(seat, self.words) for seat in range(count)]
            box.mount_all(panels)
        for panel in panels:
            haul = self._haul[1] if self._haul and self._haul[0] == panel.seat else None
            flying = self._flight
            in_flight = flying.count if flying and flying.seat == panel.seat else 0
            panel.show(self.view, self.view.my_seat, haul, in_flight)

    # --- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys the footer offers: a spectator has ``?`` and ``q``; a player's key
        shows only in the phases it is for (turn over while playing, rematch after the
        game…); a key pressed out of its phase says why it does nothing."""
        if action == "message":  # whoever this room takes a message or a reaction from
            return self.view.talk_setting is not TalkSetting.OFF
        phases = _PLAYER_KEYS.get(action)
        if phases is None:
            return True
        if self.view.welcomed and self.view.my_seat is None:
            return False
        return self.view.phase in phases or not self.view.welcomed

    async def _send(self, intent: ClientMessage | Said) -> bool:
        """Send ``intent``, or say it (a reason nothing is sent); True if it was sent."""
        sent = False
        if isinstance(intent, Said):
            self.said.append(self.words.say(intent))
        elif await self.link.send(intent):
            sent = True
        else:
            self.said.append(self.words.text("keys.not_connected"))
        self._redraw()
        return sent

    async def action_turn_over(self) -> None:
        """Space/enter: turn over (or, in a war, lay down and turn one up)."""
        intent = turn_over(self.view, sent=self._ready_sent)
        if await self._send(intent) and isinstance(intent, Ready):
            self._ready_sent = intent.step  # a second press waits for the next step

    async def action_auto(self) -> None:
        """``a``: auto-play off → calm → quick → off; a second press before the room
        confirmed the first steps on from the mode asked for."""
        intent = cycle_auto(self.view, asked=self._auto_asked)
        if await self._send(intent) and isinstance(intent, SetAutoPlay):
            self._auto_asked = intent.mode

    def action_rules(self) -> None:
        """``?``: show or hide the rules in force."""
        self.show_rules = not self.show_rules
        self._redraw()

    async def action_allow(self) -> None:
        """``y``: let another device take the seat someone asks for."""
        await self._send(answer(self.view, allow=True))

    async def action_refuse(self) -> None:
        """``n``: refuse it."""
        await self._send(answer(self.view, allow=False))

    async def action_finish(self) -> None:
        """``f``: vote to play the rest out at once."""
        await self._send(finish(self.view))

    async def action_rematch(self) -> None:
        """``r``: vote for a rematch with a new deal."""
        await self._send(rematch(self.view, RematchDeal.NEW))

    async def action_replay(self) -> None:
        """``d``: vote to replay this deal."""
        await self._send(rematch(self.view, RematchDeal.SAME))

    async def action_leave(self) -> None:
        """``q``: leave the room for good (a player's seat goes to the computer); a
        player presses it twice, as the browser table asks twice."""
        if self.view.my_seat is not None and self._leave_armed is None:
            self.said.append(self.words.say(CONFIRM_LEAVE_LINE))
            self._leave_armed = self.set_timer(CONFIRM_SECONDS, self._disarm_leave)
            self._redraw()
            return
        if self.view.my_seat is not None:
            await self.link.send(Leave())
            self.farewell = LEFT_LINE
        else:
            self.farewell = STOPPED_WATCHING_LINE
        await self.link.close()
        self.exit(return_code=0)

    def action_message(self) -> None:
        """``m``: open the message box (enter sends, escape closes)."""
        self.query_one("#message", MessageBox).open()

    async def on_input_submitted(self, event: MessageBox.Submitted) -> None:
        box = self.query_one("#message", MessageBox)
        if await self._send(typed_intent(self.view, event.value, words=self.words)):
            box.close()
            self.set_focus(None)

    def _disarm_leave(self) -> None:
        self._leave_armed = None

    def stopped_by_signal(self) -> None:
        """SIGTERM (or another stop signal): close the connection properly, then exit."""
        self.run_worker(self._stop(), name="stop", group="stop")

    async def _stop(self) -> None:
        self._signalled = True
        await self.link.close(int(CloseCode.GOING_AWAY))
        self.exit(return_code=128 + signal.SIGTERM)

    async def action_close_table(self) -> None:
        """Ctrl+Q: close the window; a player's seat is kept (come back with the same
        command)."""
        self.farewell = CLOSED_LINE if self.view.my_seat is not None else STOPPED_WATCHING_LINE
        await self.link.close()
        self.exit(return_code=0)
