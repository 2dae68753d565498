"""A checker for English left on a page that speaks another language.

The English catalog's words that no other catalog uses (``turn``, ``over``, ``cards``,
``waiting``…, not ``auto`` or ``computer``, which some languages share) are looked for in
what the page shows: its visible text and the labels a screen reader reads (``aria-label``,
``title``, ``placeholder``). Names are left out first (the players' and the room's
computers', which the server gives).
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
def english_only() -> frozenset[str]:
    """The English catalog's words of three letters or more that no other catalog has."""
    others: set[str] = set()
    for tag in available():
        if tag != "en":
            others |= _words(tag)
    return frozenset(w for w in _words("en") - others if len(w) >= 3)


def english_left(text: str, names: list[str]) -> list[str]:
    """The English words in ``text`` once ``names`` are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return sorted({w for w in _WORD.findall(text) if w.lower() in english_only()})


async def shown_text(page: Page) -> str:
    """What ``page`` shows and reads out."""
    text: str = await page.evaluate(_SHOWN)
    return text
