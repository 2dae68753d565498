"""The Textual table's haul: how taken cards fly from a loser's cards to the winner's pile
(along the panels' table rows, never over words), and how long the pile then stays lit.
:class:`client.tui.app.WarApp` mounts the flight (:class:`client.tui.panels.FlyingCards`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.geometry import Offset, Region

from client.tui.drawing import CARD_HEIGHT, CARD_WIDTH

__all__ = ["CALM_HAUL", "FLIGHT_SECONDS", "HIGHLIGHT_SECONDS", "Haul", "flight_route", "on_table"]

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
