"""Private: the browser table's own files, minified as they are served.

The page must stay under 200 KiB uncompressed with everything an evening loads
(docs/performance.md, "The browser table"); the files in the repository keep their
indentation and comments for the people who read them. So, at load time, the server
minifies our JavaScript with rjsmin and our CSS with rcssmin (comments and the whitespace
the language does not need go; strings, template literals and regular expressions stay as
written; names are not changed), and takes every line's leading and trailing whitespace off
our HTML. Vendored files are served byte for byte (their checksums hold for what is sent,
and they come minified). A line number in the browser's console is therefore not the
line in the repository: the names are, so search for the function.

The message catalogs (``.json``) are data, not code: they are served as compact JSON (the
same value, no whitespace between its tokens), a fifth lighter than as written, without
the sections only the terminal client says (`TERMINAL_SECTIONS`: war-client reads the
catalogs from the package, not from the server) and without those the page fetches when
it says them (`LATER_SECTIONS`, each served as ``lang/<tag>.<section>.json``).

The browser tests run the minified page, and tests/server/adapters/test_web.py checks that
minifying keeps every string as written.
"""

from __future__ import annotations

import json

import rcssmin
import rjsmin

__all__ = ["LATER_SECTIONS", "TERMINAL_SECTIONS", "compact", "later_sections"]

COMPACTED = frozenset({".html", ".css", ".js", ".json"})
"""What is compacted (vendored ``.mjs`` modules are not)."""
TERMINAL_SECTIONS = ("tui", "plain", "score")
"""A catalog's sections of messages that only war-client says (the TUI's, ``--plain``'s, the
count line of both)."""
LATER_SECTIONS = ("check",)
"""A catalog's sections the page fetches only when it says them (``lang/<tag>.<section>.json``:
the fair-deal check's findings, said at a game's end), so that a first visit does not load
them."""


def _for_the_page(value: object) -> object:
    """A catalog without its `TERMINAL_SECTIONS` and `LATER_SECTIONS` (any other JSON as
    it is)."""
    if isinstance(value, dict) and isinstance(messages := value.get("messages"), dict):
        left_out = (*TERMINAL_SECTIONS, *LATER_SECTIONS)
        kept = {k: v for k, v in messages.items() if k not in left_out}
        return {**value, "messages": kept}
    return value


def later_sections(text: str) -> dict[str, str]:
    """The `LATER_SECTIONS` of the catalog ``text``, each as a compact catalog of its own
    (``{"messages": {section: ...}}``), by section; none for other JSON."""
    try:
        messages = json.loads(text).get("messages")
    except (ValueError, AttributeError):
        return {}
    if not isinstance(messages, dict):
        return {}
    return {
        section: json.dumps(
            {"messages": {section: messages[section]}}, ensure_ascii=False, separators=(",", ":")
        )
        for section in LATER_SECTIONS
        if section in messages
    }


def compact(text: str, suffix: str) -> str:
    """``text`` (a file ending in ``suffix``) as the page gets it: JavaScript and CSS
    minified, HTML without indentation, a catalog as compact JSON; unchanged for a suffix
    not in `COMPACTED`."""
    if suffix == ".js":
        return str(rjsmin.jsmin(text))
    if suffix == ".css":
        return str(rcssmin.cssmin(text))
    if suffix == ".html":
        return "\n".join(line.strip() for line in text.split("\n"))
    if suffix == ".json":
        try:
            value = _for_the_page(json.loads(text))
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except ValueError:
            return text  # not JSON after all: served as written (the catalogs' tests say so)
    return text
