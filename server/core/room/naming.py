"""Which name a newcomer may take at a table (`protocol.names`: skeletons, reserved
words, visible characters): `name_refusal`."""

from __future__ import annotations

from protocol import ErrorCode
from protocol.names import reserved, same_name, visible
from server.core.refusals import Refusal
from server.core.room.seats import Seats

__all__ = ["name_refusal"]


def name_refusal(name: str, seats: Seats | None = None) -> Refusal | None:
    """Why ``name`` may not be taken at the table of ``seats`` (None: a new room's
    creator), or None."""
    if not visible(name):
        return Refusal(
            ErrorCode.NAME_INVISIBLE, "a name needs at least one visible letter, digit or sign"
        )
    word = reserved(name)
    if word is not None:
        return Refusal(
            ErrorCode.NAME_RESERVED, f"{word!r} is what the tables call someone else; pick a name"
        )
    if seats is not None:
        for seat in seats:
            if seat.name is not None and same_name(seat.name, name):
                return Refusal(
                    ErrorCode.NAME_TAKEN,
                    f"someone at this table is called {seat.name!r} (or a name that looks "
                    "the same); pick another name",
                )
    return None
