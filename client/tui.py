"""The Textual table: piles, face-up cards, war depth, a status line, keys in the footer.

:class:`WarApp` draws what a :class:`client.connection.Link` reports and sends what the
keys ask for (through :mod:`client.intents`). The network runs in a Textual worker (an
asyncio task on the app's loop), so the screen never waits for it.

When a seat takes the cards, they fly calmly (:data:`FLIGHT_SECONDS`, eased) from the
losers' panels to the winner's, on a layer above the table, and only then does the pile
count them and light up. A newer haul lands the one still in the air at once; with
Textual's ``animation_level`` at ``"none"`` nothing flies and the pile counts at once.

Keys (always in the footer): space/enter turn over, ``a`` auto-play off → calm → quick,
``f`` vote to finish, ``r`` rematch with a new deal, ``d`` replay this deal, ``q`` leave
the room for good. Ctrl+Q closes the window but keeps the seat: run the same ``--join``
again to come back.

In a time-limited game the status row shows the time left (``4:59 left``), counted down
on the monotonic clock from what the server last said (:mod:`client.countdown`); the
server alone decides when the time is up.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Offset, Region
from textual.timer import Timer
from textual.widgets import Footer, Static

from client.connection import Ended, Link, LinkEvent, Notice, Received, Reconnecting
from client.countdown import WARN_SECONDS, Countdown, clock_text, follow, warning
from client.drawing import CARD_HEIGHT, CARD_WIDTH
from client.intents import cycle_auto, finish, rematch, turn_over
from client.panels import FlyingCards, SaidLines, SeatPanel
from client.sentences import (
    describe,
    join_words,
    longest_name,
    result_sentence,
    status,
    war_name,
)
from client.view import ViewState
from protocol import CardsTaken, ClientMessage, Leave, RematchDeal, RoomPhase

__all__ = ["FLIGHT_SECONDS", "HIGHLIGHT_SECONDS", "FlyingCards", "SeatPanel", "WarApp"]

FLIGHT_SECONDS = 0.6
"""How long taken cards take to fly to the winner's pile (when animations are on)."""
HIGHLIGHT_SECONDS = 1.2
"""How long the winner's pile stays highlighted after a haul."""
_SAID_LINES = 40
_TICK_SECONDS = 0.25
_PLAYER_KEYS = {
    # action: the phases it is for (other phases show it greyed out)
    "turn_over": (RoomPhase.PLAYING,),
    "auto": (RoomPhase.WAITING, RoomPhase.PLAYING),
    "finish": (RoomPhase.PLAYING,),
    "rematch": (RoomPhase.OVER,),
    "replay": (RoomPhase.OVER,),
}


def _card_at(region: Region, down: int) -> Offset:
    """Where a flying card sits centred across ``region``, ``down`` rows below its top."""
    return Offset(region.x + max(0, (region.width - CARD_WIDTH) // 2), region.y + max(0, down))


def _round_text(view: ViewState) -> str | None:
    """The header's round: the one being played (``round 1`` from the first flip on,
    ``round 3 of 26`` with a limit), the rounds played once the game is over."""
    limit = view.rules.round_limit
    if view.phase is RoomPhase.OVER:
        return "1 round" if view.round == 1 else f"{view.round} rounds"
    if view.phase is not RoomPhase.PLAYING:
        return None if limit is None else f"{limit}-round game"
    playing = view.round + 1
    if limit is None:
        return f"round {playing}"
    if playing > limit:
        return f"round {playing}, tie-break"
    return f"round {playing} of {limit}"


class WarApp(App[None]):
    """The table for one player or spectator; see the module docstring."""

    TITLE = "Family War"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; layers: default flying; }
    #top {
        background: $primary-background; color: $text; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    #codes { background: $warning 20%; padding: 0 1; text-style: bold; }
    #seats { height: auto; }
    #war { padding: 0 1; color: $error; text-style: bold; height: auto; }
    #status-row { height: auto; }
    #status { width: 1fr; padding: 0 1; text-style: bold; }
    #clock { width: auto; padding: 0 1; text-style: bold; }
    #clock.short { background: $warning 30%; }
    #summary { border: double $success; padding: 0 2; margin: 0 2; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,enter", "turn_over", "Turn over", key_display="space/enter"),
        Binding("a", "auto", "Auto-play"),
        Binding("f", "finish", "Finish"),
        Binding("r", "rematch", "Rematch"),
        Binding("d", "replay", "Same deal"),
        Binding("q", "leave", "Leave"),
    ]

    def __init__(
        self,
        link: Link,
        *,
        clock: Callable[[], float] = time.monotonic,
        highlight_seconds: float = HIGHLIGHT_SECONDS,
        flight_seconds: float = FLIGHT_SECONDS,
    ) -> None:
        super().__init__()
        self.link = link
        self.clock = clock
        self.highlight_seconds = highlight_seconds
        self.flight_seconds = flight_seconds
        self._flight: FlyingCards | None = None
        self.countdown = Countdown()
        self._ticker: Timer | None = None
        self.view = ViewState()
        self.reconnecting: str | None = None
        self.end_reason: str | None = None
        self.said: deque[str] = deque(maxlen=_SAID_LINES)
        self._haul: tuple[int, int] | None = None
        self._highlight: Timer | None = None
        self._keys_for: tuple[RoomPhase, bool] | None = None

    # --- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="top", markup=False)
        yield Static(id="codes", markup=False)
        yield Horizontal(id="seats")
        yield Static(id="war", markup=False)
        with Horizontal(id="status-row"):
            yield Static(id="status", markup=False)
            yield Static(id="clock", markup=False)
        yield SaidLines(id="said")
        yield Static(id="summary", markup=False)
        yield Footer()

    def on_mount(self) -> None:
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
                self.said.extend(describe(before, message, view, view.my_seat, table=True))
                if view.phase is not RoomPhase.PLAYING or view.game != before.game:
                    self._land()
                if isinstance(message, CardsTaken) and view is not before:
                    self._land()  # a haul still in the air arrives at once
                    if not self._fly(message.seat, message.count):
                        self._light(message.seat, message.count)
            case Reconnecting(attempt=attempt, reason=reason):
                self.reconnecting = f"Reconnecting… ({reason}; attempt {attempt})"
            case Notice(text=text):
                self.said.append(text[:1].upper() + text[1:] + ".")
            case Ended(ok=ok, reason=reason):
                self.end_reason = None if ok else reason
                self.exit(return_code=0 if ok else 1)
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
            self.said.append(line)
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
        text = "Time is up" if self.countdown.up else f"{clock_text(left)} left"
        clock.set_class(self.countdown.up or left <= WARN_SECONDS, "short")
        if str(clock.content) != text:
            clock.update(Text(text))

    # --- the haul: cards fly to the winner, then the pile lights up ----------------------
    def _fly(self, seat: int, count: int) -> bool:
        """Send ``count`` cards flying to ``seat``'s panel; False if nothing can fly
        (animations off, or the panels not laid out yet)."""
        if self.animation_level == "none" or self.flight_seconds <= 0:
            return False
        panels = {panel.seat: panel for panel in self.query(SeatPanel)}
        winner = panels.get(seat)
        if winner is None or not winner.region:
            return False
        losers = [p.region for s, p in panels.items() if s != seat and p.region]
        start = Region.from_union(losers) if losers else self.query_one("#seats").region
        route = (_card_at(start, start.height // 2 - CARD_HEIGHT // 2), _card_at(winner.region, 1))
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

    def _end_highlight(self) -> None:
        self._haul = None
        self._highlight = None
        self._redraw()

    # --- drawing -------------------------------------------------------------------------
    def _redraw(self) -> None:
        view = self.view
        me = view.my_seat
        self.query_one("#top", Static).update(self._top_line())
        codes = self.query_one("#codes", Static)
        codes.display = bool(view.open_seats) and view.phase is RoomPhase.WAITING
        codes.update(self._codes_line())
        self._draw_seats()
        war = self.query_one("#war", Static)
        war.display = view.war_depth > 0
        if view.war_depth:
            fighters = join_words("you" if s == me else view.name(s) for s in view.war_seats)
            war.update(Text(f"{war_name(view.war_depth).capitalize()} between {fighters}"))
        self.query_one("#status", Static).update(Text(self.reconnecting or status(view, me)))
        self._draw_clock()
        said = self.query_one("#said", SaidLines)
        said.show(self.said)
        summary = self.query_one("#summary", Static)
        summary.display = view.phase is RoomPhase.OVER and view.result is not None
        said.display = not summary.display
        summary.update(self._summary())
        keys_for = (view.phase, view.my_seat is not None)
        if keys_for != self._keys_for:
            self._keys_for = keys_for
            self.refresh_bindings()

    def _top_line(self) -> Text:
        view = self.view
        parts = ["Family War"]
        if view.welcomed:
            if view.game > 1:
                parts.append(f"game {view.game}")
            if (round_text := _round_text(view)) is not None:
                parts.append(round_text)
            if view.minutes is not None:
                parts.append(f"{view.minutes}-minute game")
            if view.spectating:
                others = view.spectators - 1
                parts.append("you are watching" + (f" with {others} more" if others > 0 else ""))
            elif view.spectators:
                parts.append(f"{view.spectators} watching")
            if view.watch_code and not view.spectating:
                parts.append(f"watch code {view.watch_code}")
            if view.deal is not None and view.phase is not RoomPhase.OVER:
                parts.append(f"deal {view.deal}")  # last: a long number may not fit
        return Text(" · ".join(parts))

    def _codes_line(self) -> Text:
        view = self.view
        parts = []
        if view.player_code:
            parts.append(f"Player code: {view.player_code}")
        if view.watch_code:
            parts.append(f"Watch code: {view.watch_code}")
        parts.append("read them aloud")
        return Text(" · ".join(parts))

    def _draw_seats(self) -> None:
        box = self.query_one("#seats", Horizontal)
        panels = list(box.query(SeatPanel))
        count = len(self.view.seats)
        if len(panels) != count:
            box.remove_children()
            panels = [SeatPanel(seat) for seat in range(count)]
            box.mount_all(panels)
        for panel in panels:
            haul = self._haul[1] if self._haul and self._haul[0] == panel.seat else None
            flying = self._flight
            in_flight = flying.count if flying and flying.seat == panel.seat else 0
            panel.show(self.view, self.view.my_seat, haul, in_flight)

    def _summary(self) -> Text:
        view = self.view
        result = view.result
        if result is None:
            return Text("")
        figures = result.summary
        longest = longest_name(figures.longest_war)
        rows = [
            ("Rounds", str(figures.rounds)),
            ("Wars", str(figures.wars)),
            ("Longest war", longest),
            ("Biggest haul", f"{figures.biggest_haul} cards"),
            ("Deal", str(figures.deal)),
        ]
        text = Text(result_sentence(view, result, view.my_seat), style="bold")
        text.append("\n")
        for label, value in rows:
            text.append(f"\n{label:<14}{value}")
        return text

    # --- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys the footer offers: a spectator has only ``q``; a player's key
        shows greyed out (and does nothing) when the game is not in its phase."""
        phases = _PLAYER_KEYS.get(action)
        if phases is None:
            return True
        if self.view.welcomed and self.view.my_seat is None:
            return False
        return True if self.view.phase in phases else None

    async def _send(self, intent: ClientMessage | str) -> None:
        if isinstance(intent, str):
            self.said.append(intent)
        elif not await self.link.send(intent):
            self.said.append("Not connected right now; try again in a moment.")
        self._redraw()

    async def action_turn_over(self) -> None:
        """Space/enter: turn over (or, in a war, lay down and turn one up)."""
        await self._send(turn_over(self.view))

    async def action_auto(self) -> None:
        """``a``: auto-play off → calm → quick → off."""
        await self._send(cycle_auto(self.view))

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
        """``q``: leave the room for good (a player's seat goes to the computer)."""
        if self.view.my_seat is not None:
            await self.link.send(Leave())
        await self.link.close()
        self.exit(return_code=0)
