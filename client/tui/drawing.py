"""Cards drawn in text: faces (rank and suit symbol), backs, and a row of them side by side.

Pure functions returning ``rich.text.Text``; names and other user text are always added
as plain text, never parsed as markup. The rank drawn (``label``: ``"Q"``, ``"10"``) is
the viewer's language's (:meth:`client.words.catalog.Catalog.label`). Colours are exact (hex),
not the terminal's palette, so a card reads the same on a dark or a light terminal: black
or red ink on a white face, a white pattern on a blue back.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from client.words.cards import SUIT_SYMBOLS, is_red

__all__ = ["CARD_HEIGHT", "CARD_WIDTH", "card_back", "card_face", "mini_card", "side_by_side"]

CARD_WIDTH = 7
CARD_HEIGHT = 5
FACE = "on #f7f7f2"
RED_INK = "#c0122c"
BLACK_INK = "#101010"
BACK = "#ffffff on #24509a"
DIM_FACE = "#5f5f5f on #cfcfcf"


def card_face(card: str, label: str, *, dim: bool = False) -> list[Text]:
    """A card face, five lines of seven cells: the rank's ``label`` in the corners, the
    suit in the middle."""
    ink = RED_INK if is_red(card) else BLACK_INK
    style = f"{ink} {FACE}" if not dim else DIM_FACE
    rank = label[:5]
    suit = SUIT_SYMBOLS[card[1]]
    return [
        Text("╭─────╮", style=style),
        Text(f"│{rank:<5}│", style=style),
        Text(f"│  {suit}  │", style=style),
        Text(f"│{rank:>5}│", style=style),
        Text("╰─────╯", style=style),
    ]


def card_back(count: int = 1, *, label: str | None = None) -> list[Text]:
    """A card back; with ``count`` above one, how many lie face down in the middle
    (``label``, up to five cells, instead: ``"+6"`` on cards won and on their way)."""
    style = BACK
    if label is not None:
        middle = label[:5].center(5, "░")
    else:
        middle = f"×{count}".center(5, "░") if count > 1 else "░░░░░"
    return [
        Text("╭─────╮", style=style),
        Text("│░░░░░│", style=style),
        Text(f"│{middle}│", style=style),
        Text("│░░░░░│", style=style),
        Text("╰─────╯", style=style),
    ]


def mini_card(card: str, label: str) -> Text:
    """A card in two or three cells: ``Q♥``, ``10♠`` (red for hearts and diamonds)."""
    return Text(f"{label}{SUIT_SYMBOLS[card[1]]}", style="red" if is_red(card) else "")


def side_by_side(blocks: Sequence[list[Text]], gap: int = 1) -> Text:
    """Blocks of equal height joined left to right, as one multi-line ``Text``."""
    if not blocks:
        return Text("")
    height = max(len(block) for block in blocks)
    lines = []
    for row in range(height):
        line = Text()
        for index, block in enumerate(blocks):
            if index:
                line.append(" " * gap)
            line.append_text(block[row] if row < len(block) else Text(" " * CARD_WIDTH))
        lines.append(line)
    return Text("\n").join(lines)
