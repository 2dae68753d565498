"""Private: the browser table's own files, lightly compacted as they are served.

The page must stay under 150 KiB uncompressed (docs/performance.md), and a third of that
is the vendored msgpack library; the files in the repository keep their indentation and
comments for the people who read them. So, at load time, the server takes every line's
leading and trailing whitespace off our HTML, CSS and JavaScript and empties the lines that
are nothing but a comment (``// …``, or a ``/* … */`` that starts and ends a line, or
spans whole lines). Every line break stays, so a line number in the browser's console is
the line in the repository. Nothing inside a line changes; vendored files are served byte
for byte (their checksums hold for what is sent).

The message catalogs (``.json``) are data, not code: they are served as compact JSON (the
same value, no whitespace between its tokens), a fifth lighter than as written, without
the sections only the terminal client says (`TERMINAL_SECTIONS`: war-client reads the
catalogs from the package, not from the server).

This is safe for our sources because a line break inside a string or a template literal
would be changed: tests/server/adapters/test_web.py checks that no JavaScript line opens
a template literal it does not close, and the browser tests run the compacted page.
"""

from __future__ import annotations

import json

__all__ = ["TERMINAL_SECTIONS", "compact"]

COMPACTED = frozenset({".html", ".css", ".js", ".json"})
"""What is compacted (vendored ``.mjs`` modules are not)."""
TERMINAL_SECTIONS = ("tui", "plain")
"""A catalog's sections of messages that only war-client says (the TUI's, ``--plain``'s)."""


def _for_the_page(value: object) -> object:
    """A catalog without its `TERMINAL_SECTIONS` (any other JSON as it is)."""
    if isinstance(value, dict) and isinstance(messages := value.get("messages"), dict):
        kept = {k: v for k, v in messages.items() if k not in TERMINAL_SECTIONS}
        return {**value, "messages": kept}
    return value


def compact(text: str, suffix: str) -> str:
    """``text`` (a file ending in ``suffix``) with indentation off and comment-only lines
    empty, line breaks kept; unchanged for a suffix not in `COMPACTED`."""
    if suffix not in COMPACTED:
        return text
    if suffix == ".json":
        try:
            value = _for_the_page(json.loads(text))
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except ValueError:
            return text  # not JSON after all: served as written (the catalogs' tests say so)
    lines = [line.strip() for line in text.split("\n")]
    if suffix == ".html":
        return "\n".join(lines)
    index = 0
    while index < len(lines):
        body = lines[index]
        if suffix == ".js" and body.startswith("//"):
            lines[index] = ""
        elif body.startswith("/*"):
            end = _comment_end(lines, index)
            # only a comment that ends its last line goes; code after its "*/" keeps it all
            if end is not None and lines[end].endswith("*/") and lines[end].count("*/") == 1:
                lines[index : end + 1] = [""] * (end + 1 - index)
                index = end
        index += 1
    return "\n".join(lines)


def _comment_end(lines: list[str], start: int) -> int | None:
    """The line where the comment opened at the start of line ``start`` closes, or None."""
    if "*/" in lines[start][2:]:
        return start
    return next((i for i in range(start + 1, len(lines)) if "*/" in lines[i]), None)
