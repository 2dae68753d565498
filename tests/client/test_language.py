"""client/words/language.py: which language war-client speaks (--lang, else LC_ALL, LC_MESSAGES,
LANG in that order; C and POSIX are English), as the page chooses from the browser's."""

from __future__ import annotations

import pytest

from client.errors import UsageError
from client.words.catalog import available
from client.words.language import from_locale, match, pick

LANGUAGES = available()


def test_a_tag_matches_its_language_in_any_spelling() -> None:
    assert match("fr", LANGUAGES) == "fr"
    assert match("pl-PL", LANGUAGES) == "pl"
    assert match("ES_es", LANGUAGES) == "es"
    assert match("de-AT", LANGUAGES) == "de"
    assert match("pt-BR", LANGUAGES) is None
    assert match("", LANGUAGES) is None


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"}, "pl"),
        ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "pl_PL", "LC_ALL": "es_ES.UTF-8"}, "es"),
        ({"LC_ALL": "", "LANG": "fr_FR.UTF-8"}, "fr"),  # an empty variable is not set
        ({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "pt_BR.UTF-8"}, "en"),  # no catalog: English
        ({"LANG": "sr_RS@latin"}, "en"),
    ],
)
def test_the_locale_variables_decide_in_posix_order(environ: dict[str, str], language: str) -> None:
    assert from_locale(environ, LANGUAGES) == language
    assert pick(None, environ) == language


def test_lang_wins_over_the_locale_and_refuses_a_language_without_words() -> None:
    assert pick("fr", {"LC_ALL": "de_DE.UTF-8"}) == "fr"
    assert pick("pl_PL", {}) == "pl"
    with pytest.raises(UsageError, match="--lang en"):
        pick("pt", {})
