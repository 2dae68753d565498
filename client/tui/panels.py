"""The table's widgets: one panel per seat, and the lines said so far.

:class:`SeatPanel` draws one seat from the view, in the viewer's words: the name in the
border (with "(you)", "(away)", …), the pile, what the game waits for from that seat
("your turn", "ready ✓", …), and the seat's cards on the table: the cards in play, or,
once taken, the last round's cards (so a war that the computer settles at once can still
be read).
:class:`FlyingCards` is a haul on its way to the winner's pile (a card back marked
"+N"), drawn on a layer above the table, along the rows where the cards lie, while it
moves.
:class:`SaidLines` shows the newest sentences that fit, the latest at the bottom.
:class:`FairLine` shows the fair deal's fingerprint from the start of a game and the
check's result at game over (`client.fair.watch`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from functools import partial

from rich.text import Text
from textual.events import Resize
from textual.geometry import Offset
from textual.widgets import Static

from client.fair.watch import FairVerdict, fingerprint_line, verdict_line
from client.net.connection import Received
from client.state.view import ViewState
from client.tui.drawing import (
    CARD_HEIGHT,
    CARD_WIDTH,
    card_back,
    card_face,
    mini_card,
    side_by_side,
)
from client.words.catalog import Catalog, Count, said
from client.words.who import computer_number, label
from protocol import AutoPlay, GameStarted, RoomPhase, SeatState

__all__ = [
    "FairLine",
    "FlyingCards",
    "SaidLines",
    "SeatPanel",
    "seat_flags",
    "seat_name",
    "seat_title",
]


def seat_title(view: ViewState, record: SeatState, me: int | None, words: Catalog) -> str:
    """The border title: ``"Ann (you)"``, ``"Ben (away)"``, ``"Robot (computer)"``."""
    if record.name is None:
        return words.text("seat.open_title", n=record.seat + 1)
    notes = []
    if record.seat == me:
        notes.append("seat.you")
    if record.seat in view.left:
        notes.append("seat.left")
    elif record.computer:
        if computer_number(view, record.seat) is None:  # a person's seat the computer plays
            notes.append("seat.computer")
    elif not record.connected:
        notes.append("seat.away")
    name = seat_name(view, record, words)
    if not notes:
        return name
    said_ = ", ".join(words.text(note) for note in notes)
    return words.text("seat.title", name=name, notes=said_)


def seat_name(view: ViewState, record: SeatState, words: Catalog) -> str:
    """A seated player's name; a computer seat's in the viewer's words ("Ordenador 2")."""
    return label(view, record.seat, words) if record.name is not None else ""


def seat_flags(view: ViewState, record: SeatState, me: int | None, words: Catalog) -> list[str]:
    """Short words on what the seat is doing: ``["your turn", "auto calm"]``."""
    if record.name is None:
        return [words.text("seat.open")]
    flags = []
    if record.out:
        flags.append(words.text("seat.out"))
    elif view.phase is RoomPhase.PLAYING:
        if record.ready:
            flags.append(words.text("seat.ready"))
        elif record.seat in view.waiting_for:
            if record.seat != me:
                flags.append(words.text("seat.not_ready"))
            elif record.auto is AutoPlay.OFF:
                flags.append(words.text("seat.turn"))
        elif view.war_depth and record.seat not in view.war_seats:
            flags.append(words.text("seat.sits_out"))
    elif view.phase is RoomPhase.WAITING:
        flags.append(words.text("seat.seated"))
    if record.auto is not AutoPlay.OFF and not record.computer:
        flags.append(words.text("seat.auto", mode=said("auto.mode", mode=record.auto.value)))
    if record.finish_vote and view.phase is RoomPhase.PLAYING:
        flags.append(words.text("seat.voted"))
    if record.rematch_vote is not None:
        flags.append(words.text("seat.rematch", wish=record.rematch_vote.value))
    return flags


def _cards(face_up: tuple[str, ...], face_down: int, words: Catalog) -> Text:
    """A seat's cards: the earlier face-up ones small, then the backs and the latest."""
    history = Text(" ").join(mini_card(card, words.label(card)) for card in face_up[:-1])
    blocks = []
    if face_down:
        blocks.append(card_back(face_down))
    if face_up:
        blocks.append(card_face(face_up[-1], words.label(face_up[-1])))
    drawn = side_by_side(blocks)
    return Text("\n").join([history, drawn]) if history.plain else drawn


class SeatPanel(Static):
    """One seat: name, pile, flags, and its cards on the table."""

    DEFAULT_CSS = """
    SeatPanel {
        width: 1fr;
        height: auto;
        min-height: 11;
        border: round $primary;
        padding: 0 1;
    }
    SeatPanel.me { border: round $accent; }
    SeatPanel.won { border: heavy $success; background: $success 15%; }
    SeatPanel.out { opacity: 60%; }
    SeatPanel.over, SeatPanel.waiting { min-height: 3; }
    """

    def __init__(self, seat: int, words: Catalog) -> None:
        super().__init__(markup=False, id=f"seat-{seat}")
        self.seat = seat
        self.words = words

    def show(self, view: ViewState, me: int | None, haul: int | None, in_flight: int = 0) -> None:
        """Draw the seat as ``view`` has it; ``haul``: cards just won (highlighted);
        ``in_flight``: cards won but still on their way, not counted in the pile yet."""
        record = view.seats[self.seat]
        words = self.words
        self.border_title = Text(seat_title(view, record, me, words))
        self.set_class(self.seat == me, "me")
        self.set_class(haul is not None, "won")
        self.set_class(record.out, "out")
        over = view.phase is RoomPhase.OVER
        self.set_class(over, "over")
        self.set_class(view.phase is RoomPhase.WAITING, "waiting")
        flags = Text(" · ".join(seat_flags(view, record, me, words)), style="italic")
        if view.phase is RoomPhase.WAITING:  # no cards dealt yet
            self.update(flags)
            return
        count = max(0, record.count - in_flight)
        pile = Text(words.word(Count("card", count)), style="bold")
        if haul is not None:
            pile.append(f"  +{haul}", style="bold green")
        lines = [pile, flags]
        if not over:
            lines.append(self._table(view, record))
        self.update(Text("\n").join(lines))

    def _table(self, view: ViewState, record: SeatState) -> Text:
        words = self.words
        if record.face_up or record.face_down:
            return _cards(record.face_up, record.face_down, words)
        if view.phase is not RoomPhase.PLAYING:
            return Text("")
        taken = view.last_taken
        seat = self.seat
        if taken is not None and seat < len(taken.face_up) and seat < len(taken.face_down):
            face_up, face_down = taken.face_up[seat], taken.face_down[seat]
            if face_up or face_down:
                key = "table.last_round_won" if taken.seat == seat else "table.last_round"
                label = Text(words.text(key), style="dim")
                return Text("\n").join([label, _cards(face_up, face_down, words)])
        flip = view.last_flip  # a resumed view: the latest flip is all it knows
        if flip is not None and seat in (cards := dict(flip.cards)):
            label = Text(words.text("table.last_card"), style="dim")
            return Text("\n").join([label, _cards((cards[seat],), 0, words)])
        return Text("")


class FlyingCards(Static):
    """``count`` taken cards on their way to seat ``seat``'s panel (moved by its offset)."""

    DEFAULT_CSS = f"""
    FlyingCards {{
        layer: flying;
        width: {CARD_WIDTH};
        height: {CARD_HEIGHT};
    }}
    """

    def __init__(
        self,
        seat: int,
        count: int,
        route: tuple[Offset, Offset],
        seconds: float,
        landed: Callable[[FlyingCards], None],
    ) -> None:
        super().__init__(Text("\n").join(card_back(count, label=f"+{count}")), markup=False)
        self.seat = seat
        self.count = count
        self.route = route
        self.seconds = seconds
        self._landed = landed
        self.styles.offset = route[0]

    def on_mount(self) -> None:
        """Start the journey: eased, ``seconds`` long, then ``landed(self)`` is called."""
        self.animate(
            "offset",
            value=self.route[1],
            duration=self.seconds,
            easing="in_out_cubic",
            level="basic",
            on_complete=partial(self._landed, self),
        )


class SaidLines(Static):
    """The latest sentences, as many as fit, the newest at the bottom."""

    DEFAULT_CSS = """
    SaidLines { height: 1fr; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)
        self.lines: list[str] = []

    def show(self, lines: Iterable[str]) -> None:
        """Show the tail of ``lines`` that fits the widget's size."""
        self.lines = list(lines)
        self.update(Text("\n".join(self._fitting())))

    def on_resize(self, event: Resize) -> None:
        self.update(Text("\n".join(self._fitting())))

    def _fitting(self) -> list[str]:
        width, height = self.content_region.width, self.content_region.height
        if width <= 0 or height <= 0:
            return self.lines
        shown: list[str] = []
        used = 0
        for line in reversed(self.lines):
            used += max(1, len(textwrap.wrap(line, width)))
            if used > height and shown:
                break
            shown.append(line)
        return shown[::-1]


class FairLine(Static):
    """The fingerprint of the game's commitment (not while the room waits), and at game
    over the check's result, in red if it failed; hidden while there is nothing to say."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)
        self.fingerprint: str | None = None
        self.check: FairVerdict | None = None

    def follow(self, event: Received) -> None:
        """Keep what ``event`` tells: a new game clears the last check."""
        if isinstance(event.message, GameStarted):
            self.check = None
        self.fingerprint = event.fingerprint
        if event.fair is not None:
            self.check = event.fair

    def show(self, view: ViewState, words: Catalog) -> None:
        shown = self.fingerprint is not None and view.phase is not RoomPhase.WAITING
        lines = [fingerprint_line(self.fingerprint)] if shown and self.fingerprint else []
        if self.check is not None:
            lines.append(verdict_line(self.check))
        said_ = [words.say(line) for line in lines]
        self.display = bool(lines)
        failed = self.check is not None and self.check.ok is False
        self.update(Text("\n".join(said_), style="bold red" if failed else ""))
