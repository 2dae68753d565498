"""A checker for English left on a page that speaks another language.

The English catalog's words that the page's own catalog does not use (``turn``, ``over``,
``cards``, ``waiting``…; ``computer`` on a Spanish, French or Polish page, not on a German
one, which says "Computer" too) are looked for in what the page shows: its visible text
and the labels a screen reader reads (``aria-label``, ``title``, ``placeholder``). The
players' names are left out first; the names of computer seats are not: they are the
catalogs' words ("Ordenador 2"), and an English "Computer 2" on a Spanish table is English
left.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from playwright.async_api import Page

from client.words.catalog import FOLDER, available

__all__ = ["english_left", "shown_text"]

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_PLACEHOLDER = re.compile(r"\{[^}]*\}")

# What the page shows: its visible text and the labels of its visible elements.
_SHOWN = """() => {
  const texts = [document.body.innerText, document.title];
  for (const node of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (node.closest('[hidden]') || node.getClientRects().length === 0) continue;
    for (const name of ['aria-label', 'title', 'placeholder']) {
      if (node.hasAttribute(name)) texts.push(node.getAttribute(name));
    }
  }
  return texts.join('\\n');
}"""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


@cache
def _words(tag: str) -> frozenset[str]:
    catalog = json.loads((FOLDER / f"{tag}.json").read_text(encoding="utf-8"))
    texts = _strings({k: v for k, v in catalog.items() if k != "language"})
    return frozenset(
        word.lower() for text in texts for word in _WORD.findall(_PLACEHOLDER.sub(" ", text))
    )


@cache
def english_only(tag: str | None = None) -> frozenset[str]:
    """The English catalog's words of three letters or more that the catalog of ``tag``
    does not have (None: that no other catalog has)."""
    others: set[str] = set()
    for other in available() if tag is None else (tag,):
        if other != "en":
            others |= _words(other)
    return frozenset(w for w in _words("en") - others if len(w) >= 3)


def english_left(text: str, names: list[str], tag: str | None = None) -> list[str]:
    """The English words in ``text`` once ``names`` are taken out, for a page in ``tag``
    (None: the words no other language shares)."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    english = english_only(tag)
    return sorted({w for w in _WORD.findall(text) if w.lower() in english})


async def shown_text(page: Page) -> str:
    """What ``page`` shows and reads out."""
    text: str = await page.evaluate(_SHOWN)
    return text
