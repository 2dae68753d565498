"""Who and whose, as language-neutral words: the values the sentences hand to a catalog.

Shared by :mod:`client.words.sentences` (one message), :mod:`client.words.results` (how a game
ended)
and :mod:`client.words.standing` (where the game stands). A player other than ``me`` is always
named; the room's one computer opponent (the seat the server names "Computer") is "the
computer", and "it" once named (``again=True``); the catalog of the viewer's language
says each of them (:mod:`client.words.catalog`).
"""

from __future__ import annotations

from collections.abc import Iterable

from client.state.view import ViewState
from client.words.catalog import COMPUTER, IT, YOU, Card, Person

__all__ = ["card_of", "named", "persons", "the_computer", "who"]


def the_computer(view: ViewState, seat: int) -> bool:
    """True for the room's one computer opponent (the server names it "Computer")."""
    record = view.seat(seat)
    return record is not None and record.computer and record.name == "Computer"


def named(view: ViewState, seat: int) -> Person:
    """The seat by its name (an open seat by its number), never "you" or "the computer"."""
    record = view.seat(seat)
    if record is None or record.name is None:
        return Person("seat", seat=seat + 1)
    return Person("name", record.name)


def who(view: ViewState, seat: int, me: int | None, *, again: bool = False) -> Person:
    """``seat`` as the sentences for ``me`` name it: you, the computer (it, ``again``), a
    name."""
    if seat == me:
        return YOU
    if the_computer(view, seat):
        return IT if again else COMPUTER
    return named(view, seat)


def persons(view: ViewState, seats: Iterable[int], me: int | None) -> list[Person]:
    """:func:`who` of each seat, in order (a list the catalog joins: "you and Ben")."""
    return [who(view, seat, me) for seat in seats]


def card_of(view: ViewState, seat: int, card: str, me: int | None, *, again: bool = False) -> Card:
    """``card`` (a card code) as ``seat``'s: "your Queen", "Ben's 9", "its King"."""
    return Card(who(view, seat, me, again=again), card)
