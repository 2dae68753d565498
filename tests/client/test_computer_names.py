"""Every word in the viewer's language, computer seats included: no English "Computer" on
a Spanish, French or Polish table (the names of computer seats are the catalogs' words,
not exempt), the evening's score that cannot be misread, no "0 more players", the deal
grouped alike everywhere, and the French elision by a name's spelling."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from client.cli import build_parser
from client.fair.words import check_said
from client.state.view import ViewState
from client.words.catalog import Card, Count, Person, catalog
from client.words.sentences import status
from client.words.talk import deal_text, evening_lines, evening_score
from client.words.who import named
from protocol import EveningGame, RoomPhase, RulesSpec, SeatState, Termination
from protocol.fairness import Finding
from tests.vectors.generate import WORDS

COMPUTER_WORDS = {"es": "Ordenador", "fr": "Ordinateur", "pl": "Komputer"}
"""What each language without the English word calls one of several computer seats."""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def _told(tag: str) -> list[str]:
    """Every sentence the recorded games tell in language ``tag``."""
    return [
        text
        for path in sorted((WORDS / tag).glob("*.json"))
        for text in _strings(json.loads(path.read_text(encoding="utf-8")))
    ]


@pytest.mark.parametrize("tag", sorted(COMPUTER_WORDS))
def test_no_computer_seat_is_named_in_english(tag: str) -> None:
    told = _told(tag)
    english = sorted({t for t in told if re.search(r"\bComputer\b", t)})
    assert not english, english[:5]
    own = COMPUTER_WORDS[tag]  # the games have several computers: the check is not empty
    assert any(re.search(rf"\b{own} [123]\b", t) for t in told), f"{tag}: no {own} 2"


@pytest.mark.parametrize("tag", ["en", "de", "es", "fr", "pl"])
def test_no_language_waits_for_0_more_players(tag: str) -> None:
    words = catalog(tag, strict=True)
    zero = words.text("status.waiting_players", missing=Count("player", 0))
    assert zero not in _told(tag)
    seats = (SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1, name="Ben"))
    view = ViewState(my_seat=0, room="r1", phase=RoomPhase.WAITING, seats=seats, last_seq=4)
    assert status(view, 0, words=words) == words.text("status.starting")


def _computers(names: tuple[str | None, ...], numbers: tuple[int | None, ...]) -> ViewState:
    seats = tuple(
        SeatState(seat=i, name=name, computer=number is not None, computer_number=number)
        for i, (name, number) in enumerate(zip(names, numbers, strict=True))
    )
    rules = RulesSpec(players=len(seats))
    return ViewState(
        my_seat=0, room="r1", phase=RoomPhase.OVER, rules=rules, seats=seats, last_seq=9
    )


def test_the_evening_says_the_computers_in_the_viewers_words_and_cannot_be_misread() -> None:
    view = _computers(("Grandma", "Computer 1", "Computer 2"), (None, 1, 2))
    evening = (
        EveningGame(game=1, deal=90210, winner=0, termination=Termination.ALL_CARDS,
                    rounds=12, names=("Grandma", "Computer 1", "Computer 2")),
        EveningGame(game=2, deal=7, winner=2, termination=Termination.ALL_CARDS,
                    rounds=9, names=("Grandma", "Computer 1", "Computer 2")),
    )  # fmt: skip
    en, es = catalog("en", strict=True), catalog("es", strict=True)
    assert (
        evening_score(evening, words=en, view=view) == "Grandma: 1 · Computer 2: 1 · Computer 1: 0"
    )
    assert (
        evening_score(evening, words=es, view=view)
        == "Grandma: 1 · Ordenador 2: 1 · Ordenador 1: 0"
    )
    assert evening_lines(evening, words=es, view=view)[1] == (
        "Partida 2: ganó Ordenador 2 en 9 rondas (reparto 7)."
    )
    alone = _computers(("Ann", "Computer"), (None, 1))
    one = (EveningGame(game=1, deal=107, winner=1, termination=Termination.ALL_CARDS,
                       rounds=9, names=("Ann", "Computer")),)  # fmt: skip
    assert evening_score(one, words=es, view=alone) == "Ordenador: 1 · Ann: 0"
    assert evening_lines(one, words=es, view=alone) == [
        "Partida 1: ganó el ordenador en 9 rondas (reparto 107)."
    ]
    # a person who named themselves like a computer is said by their name
    person = _computers(("Ann", "Computer 2"), (None, None))
    assert evening_score(one, words=es, view=person) == "Computer: 1 · Ann: 0"


def test_a_server_older_than_the_number_is_read_by_its_names() -> None:
    old = _computers(("Ann", "Computer 1", "Computer 2"), (None, 1, 2))
    old = replace(old, seats=tuple(replace(s, computer_number=None) for s in old.seats))
    evening = (EveningGame(game=1, deal=5, winner=1, termination=Termination.ALL_CARDS,
                           rounds=3, names=("Ann", "Computer 1", "Computer 2")),)  # fmt: skip
    fr = catalog("fr", strict=True)
    said = evening_score(evening, words=fr, view=old)
    assert said == "Ordinateur 1\u00a0: 1 · Ann\u00a0: 0 · Ordinateur 2\u00a0: 0"


@pytest.mark.parametrize(
    ("name", "said"),
    [("Hélène", "la dame d’Hélène"), ("Hugo", "la dame d’Hugo"), ("Ann", "la dame d’Ann"),
     ("Yann", "la dame de Yann"), ("Yasmine", "la dame de Yasmine"), ("Yves", "la dame d’Yves"),
     ("Ben", "la dame de Ben")],
)  # fmt: skip
def test_french_elides_before_a_mute_h_and_not_before_a_consonant_y(name: str, said: str) -> None:
    fr = catalog("fr", strict=True)
    assert fr.word(Card(Person("name", name), "QH")) == said


def test_a_numbered_computer_is_said_as_a_name_in_every_grammar() -> None:
    two = Person("computer_n", seat=2)
    queen = Card(two, "QH")
    said = {tag: catalog(tag, strict=True).word(queen) for tag in ("en", "de", "es", "fr", "pl")}
    assert said == {
        "en": "Computer 2's Queen",
        "de": "die Dame von Computer 2",
        "es": "la reina de Ordenador 2",
        "fr": "la dame d’Ordinateur 2",
        "pl": "dama (Komputer 2)",
    }


def test_the_deal_is_grouped_alike_and_taken_back_with_its_spaces() -> None:
    assert [deal_text(d) for d in (7, 1234, 90210, 2**64 - 1)] == [
        "7", "1234", "90 210", "18 446 744 073 709 551 615",
    ]  # fmt: skip
    args = build_parser().parse_args(["--deal", "18 446 744 073 709 551 615"])
    assert args.deal == 2**64 - 1


def test_the_fair_checks_words_name_a_computer_seat_in_the_viewers_words() -> None:
    view = _computers(("Ana", "Computer 1", "Computer 2"), (None, 1, 2))
    names = [None if s.name is None else named(view, s.seat) for s in view.seats]  # as net does
    es = catalog("es", strict=True)
    said = es.say(check_said(Finding("seed_uncommitted", {"seat": 2}), names))
    assert "Ordenador 2" in said and "Computer" not in said, said
    assert es.say(check_said(Finding("seed_uncommitted", {"seat": 0}), ["Ana", None])).count("Ana")
