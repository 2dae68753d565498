"""Who and whose, as language-neutral words: the values the sentences hand to a catalog.

Shared by :mod:`client.words.sentences` (one message), :mod:`client.words.results` (how a game
ended)
and :mod:`client.words.standing` (where the game stands). A player other than ``me`` is always
named; the room's one computer opponent (its only seat created for the computer) is "the
computer", and "it" once named (``again=True``); several are "Computer 1", "Computer 2"
in the viewer's words (`computer_number`, never the server's English names); the catalog
of the viewer's language says each of them (:mod:`client.words.catalog`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from client.state.view import ViewState
from client.words.catalog import COMPUTER, IT, YOU, Card, Catalog, Person

__all__ = ["card_of", "computer_number", "label", "named", "persons", "the_computer", "who"]


_OLD_COMPUTER_NAME = re.compile(r"Computer(?: ([1-9]))?")
"""How a server older than the seat field ``computer_number`` names the computer's seats."""


def computer_number(view: ViewState, seat: int) -> int | None:
    """The number of a seat the room was created with for the computer (1, 2, 3), else
    None (a person's seat, even once the computer plays it for someone who left). A server
    older than the field (no seat has a number) names them "Computer", "Computer 2"."""
    record = view.seat(seat)
    if record is None or not record.computer:
        return None
    if record.computer_number is not None:
        return record.computer_number
    if any(s.computer_number is not None for s in view.seats):
        return None
    old = _OLD_COMPUTER_NAME.fullmatch(record.name or "")
    return None if old is None else int(old.group(1) or 1)


def the_computer(view: ViewState, seat: int) -> bool:
    """True for the room's one computer opponent: its only seat created for the computer,
    which the sentences call "the computer" (several are "Computer 1", "Computer 2"…)."""
    numbered = [s.seat for s in view.seats if computer_number(view, s.seat) is not None]
    return numbered == [seat]


def named(view: ViewState, seat: int) -> Person:
    """The seat as the sentences name it, never "you": its name, the computer (the room's
    only one), "Computer 2" in the viewer's words (several), an open seat by its number."""
    record = view.seat(seat)
    if record is None or record.name is None:
        return Person("seat", seat=seat + 1)
    if the_computer(view, seat):
        return COMPUTER
    number = computer_number(view, seat)
    return Person("name", record.name) if number is None else Person("computer_n", seat=number)


def label(view: ViewState, seat: int, words: Catalog) -> str:
    """The seat's name as a label in ``words`` (a seat's title, the standings, the
    evening's score): the name, "Ordenador" for the room's only computer, "Ordenador 2"
    for one of several."""
    if the_computer(view, seat):
        return words.text("seat.the_computer")
    number = computer_number(view, seat)
    return view.name(seat) if number is None else words.word(Person("computer_n", seat=number))


def who(view: ViewState, seat: int, me: int | None, *, again: bool = False) -> Person:
    """``seat`` as the sentences for ``me`` name it: you, the computer (it, ``again``), a
    name, "Computer 2" in the viewer's words."""
    if seat == me:
        return YOU
    if again and the_computer(view, seat):
        return IT
    return named(view, seat)


def persons(view: ViewState, seats: Iterable[int], me: int | None) -> list[Person]:
    """:func:`who` of each seat, in order (a list the catalog joins: "you and Ben")."""
    return [who(view, seat, me) for seat in seats]


def card_of(view: ViewState, seat: int, card: str, me: int | None, *, again: bool = False) -> Card:
    """``card`` (a card code) as ``seat``'s: "your Queen", "Ben's 9", "its King"."""
    return Card(who(view, seat, me, again=again), card)
