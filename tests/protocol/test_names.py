"""The name rule's edges (`protocol.names`): a look-alike with one letter Unicode's
confusables data does not know still meets its twin, and honest names of other scripts
still sit beside different Latin names."""

from __future__ import annotations

import pytest

from protocol.names import one_letter_apart, reserved, same_name, skeleton, skeletons

CHEROKEE_BEN = "\u13f4\u13ac\u13c1"  # ᏴᎬᏁ: Cherokee YV, E (look-alikes of B, E) and NE


def test_the_cherokee_ne_is_in_no_confusables_class() -> None:
    """The premise: U+13C1 survives the mapping, so the skeletons alone differ."""
    assert "\u13c1" in skeleton(CHEROKEE_BEN)
    assert skeletons(CHEROKEE_BEN).isdisjoint(skeletons("Ben"))


@pytest.mark.parametrize(
    ("seated", "newcomer"),
    [
        ("BEN", CHEROKEE_BEN),
        ("Ben", CHEROKEE_BEN),
        ("ben", CHEROKEE_BEN),
        (CHEROKEE_BEN, "Ben"),  # either order
        ("Ben", "BE\u13c1"),  # a mixed name with the one unknown letter
        ("Ben", "\u13f4\u13ac\uab91"),  # the Cherokee small letter NE folds to it
    ],
)
def test_a_look_alike_with_one_unknown_letter_is_the_same_name(seated: str, newcomer: str) -> None:
    assert same_name(seated, newcomer)
    assert same_name(newcomer, seated)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("\u0418\u0440\u0430", "Ira"),  # Ира: two letters differ
        ("\u0415\u0432\u0430", "Eva"),  # Ева
        ("\u0410\u043d\u043d\u0430", "Anna"),  # Анна
        ("\u0410\u0434\u0430", "Ada"),  # Ада: the data has a Cyrillic look-alike of d
        ("\u0410\u0434\u0430", "Ama"),
        ("\u041c\u0430\u0440\u0438\u044f", "Maria"),  # Мария
        ("\u039d\u03af\u03ba\u03bf\u03c2", "Nikos"),  # Νίκος
        ("\u0396\u03a9\u0397", "ZOE"),  # ΖΩΗ
        ("\u0411\u0435\u043d", "\u0414\u0435\u043d"),  # Бен, Ден: one script
        ("\u0421\u0430\u0448\u0430", "\u0414\u0430\u0448\u0430"),  # Саша, Даша
        ("\u0418\u0440\u0430", "\u042e\u0440\u0430"),  # Ира, Юра
        ("\u0414\u0430", "Na"),  # Да: two letters are too few to tell
        ("Ben", "Ken"),  # Latin names one letter apart are different names
        ("Ben", "Bea"),
    ],
)
def test_honest_names_of_other_scripts_sit_beside_different_names(one: str, other: str) -> None:
    assert not same_name(one, other)
    assert not same_name(other, one)


def test_the_documented_price_a_cyrillic_name_one_unknown_letter_from_a_latin_one() -> None:
    """Ада (Cyrillic д, which the data joins with nothing) beside Ana: refused, as
    docs/security.md says."""
    assert same_name("\u0410\u0434\u0430", "Ana")


def test_one_letter_apart_needs_the_same_length_and_one_place() -> None:
    assert one_letter_apart("be\u13c1", "ben")
    assert not one_letter_apart("be\u13c1", "bens")
    assert not one_letter_apart("b\u13c1\u13c1", "ben")  # two unknown places
    assert not one_letter_apart("bed", "ben")  # both letters known, both Latin
    assert not one_letter_apart("be1", "ben")  # not a letter


def test_reserved_words_meet_a_look_alike_with_one_unknown_letter() -> None:
    # "you" with a Cherokee letter the data does not know in the place of u
    assert reserved("yo\u13c1") == "you"
    assert reserved("\u0418\u0440\u0430") is None
