"""The Textual table's talk: the room's last messages and reactions beside the log, and
the message box ``m`` opens (enter sends, escape closes it; ``/clap`` sends a reaction by
its name). The words are :mod:`client.words.talk`'s."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Input, Static

from client.state.view import ViewState
from client.words.catalog import Catalog
from client.words.talk import evening_lines, evening_score, talk_lines
from protocol import MAX_SAY_CHARS, Reaction

__all__ = ["MessageBox", "TalkPanel", "evening_text"]

_SHOWN = 12
"""How many lines of talk the panel shows."""


class TalkPanel(Static):
    """The room's latest talk, newest at the bottom ("Ben: Good game!", "Ben reacts 👏")."""

    DEFAULT_CSS = """
    TalkPanel { width: 40%; height: 1fr; padding: 0 1; border-left: solid $primary; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)

    def show(self, view: ViewState, words: Catalog) -> None:
        lines = talk_lines(view, view.my_seat, _SHOWN, words=words)
        if not lines:
            lines = [words.text("tui.talk_empty")]
        self.update(Text("\n".join(lines)))


class MessageBox(Input):
    """One line to the table; hidden until ``m``."""

    DEFAULT_CSS = """
    MessageBox { display: none; }
    MessageBox.open { display: block; }
    """

    def __init__(self, words: Catalog, *, id: str | None = None) -> None:
        names = ", ".join(f"/{reaction.value}" for reaction in list(Reaction)[:3])
        super().__init__(
            placeholder=words.text("tui.message_box", reactions=names),
            max_length=MAX_SAY_CHARS,
            id=id,
        )
        self.can_focus = False

    def open(self) -> None:
        """Show the box and focus it (it takes no focus while closed: the table's keys
        stay the table's)."""
        self.add_class("open")
        self.can_focus = True
        self.value = ""
        self.focus()

    def close(self) -> None:
        self.remove_class("open")
        self.can_focus = False
        self.value = ""

    def key_escape(self) -> None:
        self.close()
        self.screen.set_focus(None)


def evening_text(view: ViewState, words: Catalog) -> Text:
    """The evening under the game-over figures: the score and the games."""
    if not view.evening:
        return Text("")
    score = evening_score(view.evening, words=words, view=view)
    text = Text("\n\n" + words.text("tui.evening", score=score), style="bold")
    for line in evening_lines(view.evening, words=words, view=view):
        text.append(f"\n{line}")
    return text
