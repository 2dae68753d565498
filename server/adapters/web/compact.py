"""Private: the browser table's own files, minified as they are served.

The page must stay under 200 KiB uncompressed with everything an evening loads, in every
language (docs/performance.md, "The browser table"); the files in the repository keep
their indentation, comments and long names for the people who read them. So, at load
time, the server minifies our JavaScript, CSS and HTML with tdewolff-minify (the Go
minifier Hugo uses, as a Python wheel, run in a child process so that its runtime never
loads into the server: `compact_all`): comments and the whitespace the language does not
need go, a function's local names are shortened (``e``, ``t``, ``n``), strings, template
literals, regular expressions, property names and everything a module exports stay as
written; the HTML keeps its document tags, end tags and quotes. Where no wheel of it
exists (it has Linux wheels, x86-64 and ARM64; `MINIFIER` says which one runs), rjsmin and
rcssmin do it without shortening names, and the HTML loses only each line's leading and
trailing whitespace: the page works the same, about a tenth heavier. Vendored files are
served byte for byte (their checksums hold for what is sent, and they come minified). A
line number or a local name in the browser's console is therefore not the repository's:
the exported and property names are, so search for those.

The message catalogs (``.json``) are data, not code: they are served as compact JSON (the
same value, no whitespace between its tokens), a fifth lighter than as written, without
the sections only the terminal client says (`TERMINAL_SECTIONS`: war-client reads the
catalogs from the package, not from the server) and without those the page fetches when
it says them (`LATER_SECTIONS`, each served as ``lang/<tag>.<section>.json``).

The browser tests run the minified page, and tests/server/adapters/test_web.py checks that
minifying keeps every string as written, with either minifier. A test run minifies the page
once, not at each of its servers' starts: it sets ``FAMILY_WAR_MINIFY_CACHE``, a folder
where the child's answer is kept by a digest of its inputs (`server.adapters.web.minify_cache`;
unset in production).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from server.adapters.web.minify_cache import cache_folder, cache_key, keep, kept

__all__ = [
    "LATER_SECTIONS",
    "MINIFIER",
    "TERMINAL_SECTIONS",
    "compact",
    "compact_all",
    "later_sections",
    "minifiers",
]

JS_VERSION = 2021
"""The newest JavaScript the minifier may write (ES2021: ``??=``, which the modules use):
it never rewrites our code into syntax an older phone's browser lacks."""

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


def _lines_stripped(text: str) -> str:
    return "\n".join(line.strip() for line in text.split("\n"))


def minifiers(*, go: bool = True) -> tuple[str, dict[str, Callable[[str], str]]]:
    """The minifier that runs here (`MINIFIER`) and its function for each suffix: with
    ``go``, tdewolff-minify where it is installed; else (and without ``go``) rjsmin and
    rcssmin."""
    try:
        if not go:
            raise ImportError
        import minify  # noqa: PLC0415 - tdewolff-minify: optional, Linux wheels only
    except ImportError:
        import rcssmin  # noqa: PLC0415
        import rjsmin  # noqa: PLC0415

        return f"rjsmin {rjsmin.__version__}", {
            ".js": lambda text: str(rjsmin.jsmin(text)),
            ".css": lambda text: str(rcssmin.cssmin(text)),
            ".html": _lines_stripped,
        }
    minify.config(
        {
            "js-version": JS_VERSION,
            "html-keep-document-tags": True,  # <html lang> is there before any script
            "html-keep-end-tags": True,
            "html-keep-quotes": True,
            "html-keep-default-attr-vals": True,  # CSS and scripts select [type=submit]
        }
    )

    def using(mediatype: str) -> Callable[[str], str]:
        return lambda text: str(minify.string(mediatype, text))

    return f"tdewolff-minify {metadata.version('tdewolff-minify')}", {
        ".js": using("application/javascript"),
        ".css": using("text/css"),
        ".html": using("text/html"),
    }


def _go_installed() -> str | None:
    """tdewolff-minify's version if it is installed here (not imported: see `compact_all`)."""
    if importlib.util.find_spec("minify") is None:
        return None
    try:
        return metadata.version("tdewolff-minify")
    except metadata.PackageNotFoundError:
        return None


_GO = _go_installed()
MINIFIER = f"tdewolff-minify {_GO}" if _GO else minifiers(go=False)[0]
"""Which minifier serves the page here (``tdewolff-minify 2.24.12``, or ``rjsmin 1.3.0``
where tdewolff-minify has no wheel)."""
MINIFY_TIMEOUT = 120.0
"""Seconds the minifying child may take (it takes a fraction of one)."""


def _in_a_child(items: list[tuple[str, str]]) -> list[str]:
    """``items`` minified by tdewolff-minify in a child process (`server.adapters.web.minify`).

    The Go library is never loaded into the server: its runtime starts threads of its own
    and raises the process's open-files limit when it loads, and the server must own its
    limits, signals and threads. One child per `WebFiles` load, a fraction of a second
    (none when ``FAMILY_WAR_MINIFY_CACHE`` already holds its answer: `_minified`).
    Raises `OSError` or `subprocess.SubprocessError` if it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "server.adapters.web.minify"],
        input=json.dumps(items).encode(),
        capture_output=True,
        timeout=MINIFY_TIMEOUT,
        check=True,
    )
    minified = json.loads(done.stdout)
    if not isinstance(minified, list) or len(minified) != len(items):
        raise subprocess.SubprocessError("the minifier answered something else")
    return [str(text) for text in minified]


@functools.cache
def _minifying_code() -> tuple[bytes, ...]:
    """The bytes of the modules that configure and run the minifying child."""
    here = Path(__file__)
    return (here.read_bytes(), here.with_name("minify.py").read_bytes())


def _minified(items: list[tuple[str, str]]) -> list[str]:
    """`_in_a_child`'s answer for ``items``, read back from the folder
    ``FAMILY_WAR_MINIFY_CACHE`` names if it holds one for these very inputs (and kept there
    if not): `server.adapters.web.minify_cache`. Unset, the child runs every time."""
    folder = cache_folder()
    if folder is None:
        return _in_a_child(items)
    key = cache_key(MINIFIER, _minifying_code(), items)
    minified = kept(folder, key, len(items))
    if minified is None:
        minified = _in_a_child(items)
        keep(folder, key, minified)
    return minified


_CODE = (".js", ".css", ".html")
"""What `compact_all` minifies (a catalog is compacted in this process)."""


def compact_all(items: list[tuple[str, str]]) -> list[str]:
    """Each ``(text, suffix)`` of ``items`` as `compact` gives it; the JavaScript, CSS and
    HTML minified together in one child process where tdewolff-minify is installed (rjsmin
    and rcssmin here if it fails, which stderr says), or read back from
    ``FAMILY_WAR_MINIFY_CACHE`` when it is set and holds the child's answer for these
    inputs (`_minified`; never rjsmin's)."""
    out = [_compact_data(text, suffix) for text, suffix in items]
    code = [i for i, (_, suffix) in enumerate(items) if suffix in _CODE]
    minified: list[str] | None = None
    if _GO and code:
        try:
            minified = _minified([(items[i][1], items[i][0]) for i in code])
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            print(
                f"war-server: tdewolff-minify failed ({error}): rjsmin serves the page",
                file=sys.stderr,
            )
    if minified is None:
        fallback = minifiers(go=False)[1]
        minified = [fallback[items[i][1]](items[i][0]) for i in code]
    for i, text in zip(code, minified, strict=True):
        out[i] = text
    return out


def compact(text: str, suffix: str) -> str:
    """``text`` (a file ending in ``suffix``) as the page gets it: JavaScript, CSS and HTML
    minified (`MINIFIER`), a catalog as compact JSON; unchanged for a suffix not in
    `COMPACTED`."""
    return compact_all([(text, suffix)])[0]


def _compact_data(text: str, suffix: str) -> str:
    """A catalog as compact JSON; anything else unchanged (`compact_all` minifies code)."""
    if suffix == ".json":
        try:
            value = _for_the_page(json.loads(text))
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except ValueError:
            return text  # not JSON after all: served as written (the catalogs' tests say so)
    return text
