"""Which language war-client speaks: ``--lang``, else the locale the terminal runs in.

The first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set and not empty names the
locale, as POSIX has it (``LC_ALL`` overrides the others); its language decides: ``de_AT.UTF-8``
is German, ``pt_BR`` (no catalog) and ``C`` or ``POSIX`` are English. ``--lang`` takes a
language tag (``fr``, ``pl-PL``, ``es_ES``) and refuses one with no catalog. The browser
table chooses the same way from ``navigator.languages`` (``client/web/js/lang.js``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from client.errors import UsageError
from client.words.catalog import DEFAULT, Catalog, available

__all__ = ["LOCALE_VARIABLES", "Viewer", "from_locale", "match", "pick"]

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""The environment variables that name the locale, the first set one winning."""
_ENGLISH_LOCALES = frozenset({"c", "posix"})


def match(tag: str, languages: Sequence[str]) -> str | None:
    """The language of ``languages`` that ``tag`` asks for: the same tag, else the same
    first part (``de-AT`` → ``de``); case, ``_`` or ``-`` do not matter. None if none."""
    wanted = tag.strip().replace("_", "-").lower()
    by_tag = {language.lower(): language for language in languages}
    if wanted in by_tag:
        return by_tag[wanted]
    return by_tag.get(wanted.split("-")[0]) if wanted else None


def from_locale(environ: Mapping[str, str], languages: Sequence[str]) -> str:
    """The language the locale variables in ``environ`` name (``DEFAULT`` if none does)."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            locale = value.split(".")[0].split("@")[0]
            if locale.lower() in _ENGLISH_LOCALES:
                return DEFAULT
            return match(locale, languages) or DEFAULT
    return DEFAULT


def pick(wanted: str | None, environ: Mapping[str, str]) -> str:
    """The language to speak: ``wanted`` (``--lang``) if given, else the locale's.

    Raises:
        UsageError: ``wanted`` names a language without a catalog.
    """
    languages = available()
    if wanted is None:
        return from_locale(environ, languages)
    chosen = match(wanted, languages)
    if chosen is None:
        raise UsageError(f"no words in the language {wanted!r}: --lang {' | '.join(languages)}")
    return chosen


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who a renderer (the terminal table, ``--plain``) writes for: ``words``, the catalog
    of their language, and ``page``, the browser table's address for the links it shows
    (`client.words.links.page_url`; None: no links)."""

    words: Catalog
    page: str | None = None
