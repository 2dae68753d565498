"""The small words every sentence is made of: names, "you", plurals, war names.

Shared by :mod:`client.sentences` (one message), :mod:`client.results` (how a game ended)
and :mod:`client.standing` (where the game stands). A player other than ``me`` is always
named; the room's one computer opponent (the seat the server names "Computer") is "the
computer", and "it" once named (:func:`does_again`).
"""

from __future__ import annotations

from collections.abc import Iterable

from client.cards import rank_word
from client.view import ViewState

__all__ = [
    "cap",
    "card_of",
    "does",
    "does_again",
    "full_stop",
    "join_words",
    "longest_name",
    "plural",
    "the_computer",
    "war_name",
    "who",
    "whose",
]

_WAR_NAMES = {1: "war", 2: "double war", 3: "triple war", 4: "quadruple war"}
_LONGEST = {0: "none", 1: "single", 2: "double", 3: "triple", 4: "quadruple"}


def join_words(items: Iterable[str]) -> str:
    """``["a"]`` → ``"a"``, ``["a", "b"]`` → ``"a and b"``, three → ``"a, b and c"``."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def war_name(depth: int) -> str:
    """``1`` → ``"war"``, ``2`` → ``"double war"`` … ``5`` → ``"war 5 deep"``."""
    return _WAR_NAMES.get(depth, f"war {depth} deep")


def longest_name(depth: int) -> str:
    """The longest war of a game in a word: ``0`` → ``"none"``, ``2`` → ``"double"``."""
    return _LONGEST.get(depth, f"{depth} deep")


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def full_stop(text: str) -> str:
    """``"step 3 is over"`` → ``"step 3 is over."`` (a full stop unless one is there)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def the_computer(view: ViewState, seat: int) -> bool:
    """True for the room's one computer opponent (the server names it "Computer")."""
    record = view.seat(seat)
    return record is not None and record.computer and record.name == "Computer"


def who(view: ViewState, seat: int, me: int | None) -> str:
    if seat == me:
        return "you"
    return "the computer" if the_computer(view, seat) else view.name(seat)


def whose(view: ViewState, seat: int, me: int | None) -> str:
    return "your" if seat == me else f"{who(view, seat, me)}'s"


def does(view: ViewState, seat: int, me: int | None, you_form: str, other_form: str) -> str:
    """ "you take" / "Ben takes": the subject and its verb."""
    return f"{who(view, seat, me)} {you_form if seat == me else other_form}"


def does_again(view: ViewState, seat: int, me: int | None, you_form: str, other_form: str) -> str:
    """Like :func:`does` for a seat just named: "it takes" for the computer."""
    if seat != me and the_computer(view, seat):
        return f"it {other_form}"
    return does(view, seat, me, you_form, other_form)


def card_of(view: ViewState, seat: int, card: str, me: int | None) -> str:
    return f"{whose(view, seat, me)} {rank_word(card)}"
