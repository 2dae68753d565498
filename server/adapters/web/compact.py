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
the sections and messages only the terminal client says (`TERMINAL_SECTIONS`,
`TERMINAL_KEYS`: war-client reads the
catalogs from the package, not from the server), without those the page fetches when it
says them (`LATER_PARTS`, each part served as ``lang/<tag>.<part>.json``), and without the
plural categories that say what ``other`` says (`_pruned`).

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
from typing import Any

from server.adapters.web.minify_cache import cache_folder, cache_key, keep, kept

__all__ = [
    "LATER_PARTS",
    "LATER_SECTIONS",
    "MINIFIER",
    "TERMINAL_KEYS",
    "TERMINAL_SECTIONS",
    "compact",
    "compact_all",
    "later_parts",
    "minifiers",
]

JS_VERSION = 2021
"""The newest JavaScript the minifier may write (ES2021: ``??=``, which the modules use):
it never rewrites our code into syntax an older phone's browser lacks."""

COMPACTED = frozenset({".html", ".css", ".js", ".json"})
"""What is compacted (vendored ``.mjs`` modules are not)."""
TERMINAL_SECTIONS = ("tui", "plain", "score", "unreachable")
"""A catalog's sections of messages that only war-client says (the TUI's, ``--plain``'s, the
count line of both, and why connecting failed: a browser tells the page no reason, which
says ``close.no_answer``)."""
TERMINAL_KEYS: dict[str, tuple[str, ...]] = {
    "close": ("state_file",),
    "clock": ("left_said",),
    "seat": ("open_title", "seated"),
    "talk": ("no_reaction",),
}
"""The messages of a section the page shares that only war-client says: its state file's
trouble, the time left said by ``s``, the TUI's seat titles and marks, a reaction it does
not know (the page offers only its own buttons)."""
IN_GAME: dict[str, tuple[str, ...]] = {
    "said": (
        "begins", "begins_deal", "beats", "card_stands", "dealt", "each", "finish_voted",
        "finish_waits", "game_on", "game_on_clock", "game_on_time_up", "go_to_war", "last_card_up",
        "last_one_left", "on_the_clock", "out", "played_again", "rematch_begins",
        "rematch_begins_deal", "rematch_voted", "returned", "set_aside", "short_down",
        "sits_out", "still_to_vote", "takes", "tie", "ties", "time_up", "time_up_war",
        "votes_split", "war_head", "wins_war",
    ),
    "status": (
        "auto", "away", "out", "over", "over_rematch", "sit_out", "starting_rematch", "turn",
        "turning", "waiting_for", "waiting_votes", "war_turn",
    ),
    "seat": ("final_you", "not_ready", "out", "ready", "rematch", "sits_out", "turn", "voted"),
    "table": ("face_down", "last_card", "last_round", "last_round_won", "war_between"),
    "where": ("game", "round", "round_of", "rounds", "tie_break"),
    "clock": ("left", "less_than_minute", "one_minute", "up"),
    "keys": ("not_needed", "over", "ready_already", "voted_already"),
    "talk": ("draws", "evening_so_far", "game_draw", "game_won", "wins"),
    "seat_request": (
        "asks", "away_long_yours", "ended", "ended_by", "let_you_in", "nobody_asking",
        "plain_hint", "question", "tui_hint", "yours",
    ),
}  # fmt: skip
"""The messages of a section that only a game that is on or over says, never a waiting
room (a room never goes back to waiting): the log's sentences of a game's messages and of
a welcome to a game that is on (js/sentences.js), the status line of a game (`status`),
the seats' marks of a game (js/render.js, `seatMarks`), the cards last played, the round,
the final standings, the evening's score and games (js/talk.js), the clock of a game
(js/clock.js: only while playing), the refusals of a key the phase allows
(js/intents.js: a ready or a finish vote in a game, auto-play once it is over), and a
request for an away seat as the table and the asker let in hear it (js/takeover.js: a
seat is asked for only once a game has started; the asker's own wait,
``seat_request.waiting``, comes before any table and stays)."""
LATER_PARTS: dict[str, tuple[str, ...]] = {
    "check": ("check",),
    "game": (
        "fair",
        "figures",
        "result",
        "summary",
        "votes",
        *(f"{section}.{key}" for section, keys in IN_GAME.items() for key in keys),
    ),
}
"""What of a catalog the page fetches only when it says it, in parts (each served as
``lang/<tag>.<part>.json``; js/lang.js ``LATER`` names the same), each a section or one
message of a section (``section.key``): the fair-deal check's findings, said at a game's
end (``check``), and what only a game that is on or over says, its votes, result and
figures, what the table shows of its fair deal (``fair``: js/fairview.js, itself imported
then), its log's and its status line's sentences (``game``: fetched when a game is on,
before the page says anything of it: js/session.js, ``held``), so that a first visit and a
waiting room do not load them."""
LATER_SECTIONS = tuple(
    entry for entries in LATER_PARTS.values() for entry in entries if "." not in entry
)
"""The whole sections of the `LATER_PARTS`."""
_LATER_KEYS = {
    section: {
        entry.split(".")[1]
        for entries in LATER_PARTS.values()
        for entry in entries
        if entry.startswith(f"{section}.")
    }
    for section in {
        entry.split(".")[0] for entries in LATER_PARTS.values() for entry in entries if "." in entry
    }
}
"""The messages of a section the `LATER_PARTS` take one by one, by section."""


def _pruned(value: object) -> object:
    """``value`` (a catalog's messages) without the plural categories that say what the
    selector's ``other`` says (French and Spanish ``many``): the page's catalog
    (js/catalog.js, not strict) says ``other`` for a category it lacks. The exact counts
    (``=0``) stay, and so do select and person cases (page.js lists ``page.plain``'s)."""
    if isinstance(value, list):
        return [_pruned(item) for item in value]
    if not isinstance(value, dict):
        return value
    kept = {key: _pruned(item) for key, item in value.items()}
    if "plural" not in kept or "other" not in kept:
        return kept
    return {
        key: item
        for key, item in kept.items()
        if key in ("plural", "other") or key.startswith("=") or item != kept["other"]
    }


def _for_the_page(value: object) -> object:
    """A catalog without its `TERMINAL_SECTIONS` and `TERMINAL_KEYS`, without what its
    `LATER_PARTS` take, and without the plural categories that say what ``other`` says
    (`_pruned`); any other JSON as it is."""
    if isinstance(value, dict) and isinstance(messages := value.get("messages"), dict):
        left_out = (*TERMINAL_SECTIONS, *LATER_SECTIONS)
        kept = {k: _pruned(v) for k, v in messages.items() if k not in left_out}
        for section, keys in (*_LATER_KEYS.items(), *TERMINAL_KEYS.items()):
            if isinstance(found := kept.get(section), dict):
                kept[section] = {k: v for k, v in found.items() if k not in keys}
        return {**value, "messages": kept}
    return value


def later_parts(text: str) -> dict[str, str]:
    """The `LATER_PARTS` of the catalog ``text``, each as a compact catalog of its own
    (``{"messages": {section: ..., ...}}``, pruned as `_for_the_page` prunes), by part;
    none for other JSON."""
    try:
        messages = json.loads(text).get("messages")
    except (ValueError, AttributeError):
        return {}
    if not isinstance(messages, dict):
        return {}
    parts: dict[str, str] = {}
    for part, entries in LATER_PARTS.items():
        found: dict[str, Any] = {}
        for entry in entries:
            section, _, key = entry.partition(".")
            value = messages.get(section)
            if not key and value is not None:
                found[section] = _pruned(value)
            elif isinstance(value, dict) and key in value:
                found.setdefault(section, {})[key] = _pruned(value[key])
        if found:
            parts[part] = json.dumps({"messages": found}, ensure_ascii=False, separators=(",", ":"))
    return parts


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
